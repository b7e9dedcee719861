use backprop::prelude::*;

#[differentiable]
fn f(a: &Array1<f64>) -> f64 {
    let m = a.mean().unwrap();
    m * 2.0
}

fn main() {}
