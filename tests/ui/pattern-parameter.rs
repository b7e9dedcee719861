use backprop::prelude::*;

#[differentiable]
fn f((x, y): (f64, f64)) -> f64 {
    x * y
}

fn main() {}
