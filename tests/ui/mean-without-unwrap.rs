use backprop::prelude::*;

#[differentiable]
fn f(a: &Array1<f64>) -> f64 {
    let m = a.mean();
    m.unwrap() * 2.0
}

fn main() {}
