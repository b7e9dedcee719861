use backprop::prelude::*;

#[differentiable]
fn f(x: f64) -> f64 {
    x.rem_euclid(2.0) * 2.0
}

fn main() {}
