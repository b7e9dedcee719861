use backprop::ndarray::s;
use backprop::prelude::*;

#[differentiable]
fn f(a: &Array1<f64>) -> f64 {
    a.slice(s![1..]).sum()
}

fn main() {}
