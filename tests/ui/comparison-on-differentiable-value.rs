use backprop::prelude::*;

#[differentiable]
fn f(x: f64, y: f64) -> f64 {
    let _positive = x > 0.0;
    x * y
}

fn main() {}
