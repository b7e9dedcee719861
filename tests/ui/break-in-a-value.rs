use backprop::prelude::*;

#[differentiable]
fn f(x: f64, n: usize) -> f64 {
    let mut y = x;
    for _ in 0..n { let z = if y > 10.0 { break } else { y * x }; y = z; }
    y
}

fn main() {}
