use backprop::prelude::*;

#[differentiable]
fn f(x: f64) -> f64 {
    2 * x
}

fn main() {}
