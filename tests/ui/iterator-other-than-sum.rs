use backprop::prelude::*;

#[differentiable]
fn f(a: &Array1<f64>) -> f64 {
    a.iter().product::<f64>()
}

fn main() {}
