use backprop::prelude::*;

#[differentiable]
fn f(x: f64, n: usize) -> f64 {
    let mut y = x;
    for _ in 0..n { y = y * x; if y > 10.0 { break y; } }
    y
}

fn main() {}
