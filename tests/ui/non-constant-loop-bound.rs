use backprop::prelude::*;

#[differentiable]
fn f(x: f64) -> f64 {
    let mut s = 0.0;
    for _ in 0..(x as usize) { s += x; }
    s
}

fn main() {}
