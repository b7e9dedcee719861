use backprop::prelude::*;

fn logcosh(x: f64) -> f64 {
    x.cosh().ln()
}

#[adjoint(logcosh, hvp)]
fn logcosh_rule(x: f64, d_out: f64) -> f64 {
    d_out * x.tanh()
}

fn main() {}
