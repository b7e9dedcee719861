use backprop::prelude::*;

#[differentiable]
fn f(x: f64, k: usize) -> f64 {
    let y = match k { 0 => x, _ => x * 2.0 };
    y + 1.0
}

fn main() {}
