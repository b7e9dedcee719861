use backprop::prelude::*;

#[differentiable(wrt(w, z))]
fn f(w: f64, x: f64) -> f64 {
    w * x
}

fn main() {}
