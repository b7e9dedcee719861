use backprop::prelude::*;

#[differentiable]
fn f(a: &Array2<f64>) -> f64 {
    let s = sum_axis(a);
    s.sum()
}

fn main() {}
