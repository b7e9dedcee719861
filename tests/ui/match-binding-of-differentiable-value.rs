use backprop::prelude::*;

#[differentiable]
fn f(x: f64) -> f64 {
    let y = match x { v if v > 0.0 => v * 2.0, _ => 0.0 };
    y + 1.0
}

fn main() {}
