use backprop::prelude::*;

#[differentiable]
fn f(x: f64, lo: f64) -> f64 {
    x.clamp(lo, 1.0) * 2.0
}

fn main() {}
