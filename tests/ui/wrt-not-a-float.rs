use backprop::prelude::*;

#[differentiable(wrt(w, n))]
fn f(w: f64, n: usize) -> f64 {
    w * n as f64
}

fn main() {}
