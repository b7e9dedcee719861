use backprop::prelude::*;

#[differentiable(respect_to(w))]
fn f(w: f64, x: f64) -> f64 {
    w * x
}

fn main() {}
