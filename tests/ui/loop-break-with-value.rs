use backprop::prelude::*;

#[differentiable]
fn f(x: f64) -> f64 {
    let y = loop { break x * 2.0; };
    y
}

fn main() {}
