use backprop::prelude::*;

#[differentiable]
fn f(x: f64) -> f64 {
    let double = |t: f64| t * 2.0;
    double(x)
}

fn main() {}
