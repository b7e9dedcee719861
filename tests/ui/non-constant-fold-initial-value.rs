use backprop::prelude::*;

#[differentiable]
fn f(a: &Array2<f64>, floor: f64) -> f64 {
    let peaks = a.fold_axis(Axis(1), floor, |m, &v| m.max(v));
    peaks.sum()
}

fn main() {}
