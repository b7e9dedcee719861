use backprop::prelude::*;

#[differentiable]
fn f(a: &Array2<f64>) -> f64 {
    let sums = a.fold_axis(Axis(1), 0.0, |s, &v| s + v);
    sums.sum()
}

fn main() {}
