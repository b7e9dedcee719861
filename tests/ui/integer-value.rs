use backprop::prelude::*;

#[differentiable]
fn f(x: f64) -> f64 {
    let _y = x * 2.0;
    1
}

fn main() {}
