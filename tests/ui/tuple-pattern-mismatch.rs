use backprop::prelude::*;

#[differentiable]
fn f(x: f64, y: f64) -> f64 {
    let (a, b) = (x, y, x);
    a * b
}

fn main() {}
