use backprop::prelude::*;

#[differentiable]
fn f(a: &mut Array1<f64>) -> f64 {
    a.sum()
}

fn main() {}
