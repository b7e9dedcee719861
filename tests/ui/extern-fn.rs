use backprop::prelude::*;

#[differentiable]
extern "C" fn f(x: f64) -> f64 {
    x * 2.0
}

fn main() {}
