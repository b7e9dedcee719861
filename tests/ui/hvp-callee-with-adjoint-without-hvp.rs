use backprop::prelude::*;

fn logcosh(x: f64) -> f64 {
    x.cosh().ln()
}

#[adjoint(logcosh)]
fn logcosh_rule(x: f64, d_out: f64) -> f64 {
    d_out * x.tanh()
}

#[differentiable(hvp)]
fn outer(x: f64) -> f64 {
    logcosh(x) * x
}

fn main() {}
