use backprop::prelude::*;

#[differentiable]
fn f(x: f64, y: f64) -> f64 {
    let pair = (x, y);
    let (a, b) = pair;
    a * b
}

fn main() {}
