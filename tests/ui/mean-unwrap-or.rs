use backprop::prelude::*;

#[differentiable]
fn f(a: &Array1<f64>) -> f64 {
    let m = a.mean().unwrap_or(0.0);
    m * 2.0
}

fn main() {}
