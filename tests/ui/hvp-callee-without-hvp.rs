use backprop::prelude::*;

#[differentiable]
fn inner(x: f64) -> f64 {
    x.sin() * x
}

#[differentiable(hvp)]
fn outer(x: f64) -> f64 {
    inner(x * 2.0) + x
}

fn main() {}
