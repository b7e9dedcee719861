use backprop::prelude::*;

#[differentiable]
fn f(a: &Array2<f64>) -> f64 {
    let s = a.sum_axis();
    s.sum()
}

fn main() {}
