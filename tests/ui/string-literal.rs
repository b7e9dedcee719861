use backprop::prelude::*;

#[differentiable]
fn f(x: f64) -> f64 {
    let _name = "loss";
    x * 2.0
}

fn main() {}
