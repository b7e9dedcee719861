use backprop::prelude::*;

#[differentiable]
fn f(a: &Array1<f64>, w: &Array1<f64>) -> f64 {
    let b = a.mapv(|v| v * w[0]);
    b.sum()
}

fn main() {}
