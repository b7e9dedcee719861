use backprop::prelude::*;

#[differentiable]
fn f(a: &Array1<f64>) -> f64 {
    a.iter().map(|v| 1.0 - v).product::<f64>()
}

fn main() {}
