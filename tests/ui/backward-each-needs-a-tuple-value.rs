use backprop::prelude::*;

#[differentiable(backward_each)]
fn norm(x: f64, y: f64) -> f64 {
    x.hypot(y)
}

fn main() {}
