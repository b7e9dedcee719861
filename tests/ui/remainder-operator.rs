use backprop::prelude::*;

#[differentiable]
fn f(x: f64) -> f64 {
    let frac = x % 1.0;
    frac * x
}

fn main() {}
