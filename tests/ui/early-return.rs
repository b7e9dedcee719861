use backprop::prelude::*;

#[differentiable]
fn f(x: f64) -> f64 {
    let y = x * 2.0;
    return y;
}

fn main() {}
