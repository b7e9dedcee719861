use backprop::prelude::*;

#[differentiable]
fn f(x: f64) -> f64 {
    let mut y = x;
    y %= 2.0;
    y * 2.0
}

fn main() {}
