use backprop::prelude::*;

#[differentiable]
fn f(x: f64) -> f64 {
    let y = if x > 0.0 { return 1.0 } else { x * 2.0 };
    y + 1.0
}

fn main() {}
