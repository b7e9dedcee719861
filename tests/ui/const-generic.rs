use backprop::prelude::*;

#[differentiable]
fn f<const N: usize>(x: f64) -> f64 {
    x * N as f64
}

fn main() {}
