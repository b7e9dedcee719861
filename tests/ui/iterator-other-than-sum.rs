use backprop::prelude::*;

#[differentiable]
fn f(a: &Array1<f64>) -> f64 {
    a.iter().filter(|v| **v > 0.0).sum::<f64>()
}

fn main() {}
