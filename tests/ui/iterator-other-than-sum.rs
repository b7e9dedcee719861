use backprop::prelude::*;

#[differentiable]
fn f(a: &Array1<f64>) -> f64 {
    a.iter().enumerate().filter(|(i, _)| i % 2 == 0).map(|(_, v)| v).sum::<f64>()
}

fn main() {}
