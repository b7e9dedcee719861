use backprop::prelude::*;

#[differentiable]
fn f(x: f64, n: usize) -> f64 {
    let mut y = x;
    for (i, _) in (0..n).enumerate() { y = y * x; }
    y
}

fn main() {}
