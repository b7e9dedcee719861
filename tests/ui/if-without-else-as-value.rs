use backprop::prelude::*;

#[differentiable]
fn f(x: f64) -> f64 {
    let y = if x > 0.0 { x * 2.0 };
    y
}

fn main() {}
