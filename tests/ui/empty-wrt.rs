use backprop::prelude::*;

#[differentiable(wrt())]
fn f(w: f64, x: f64) -> f64 {
    w * x
}

fn main() {}
