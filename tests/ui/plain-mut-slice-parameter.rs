use backprop::prelude::*;

#[differentiable]
fn f(x: &mut [f64]) -> f64 {
    x[0] * x[1]
}

fn main() {}
