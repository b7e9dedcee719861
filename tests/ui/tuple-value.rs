use backprop::prelude::*;

#[differentiable]
fn f(x: f64, y: f64) -> f64 {
    let pair = (x * 2.0, y);
    pair.0 + pair.1
}

fn main() {}
