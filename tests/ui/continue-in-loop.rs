use backprop::prelude::*;

#[differentiable]
fn f(x: f64, n: usize) -> f64 {
    let mut y = x;
    for i in 0..n { if i == 2 { continue; } y = y * x; }
    y
}

fn main() {}
