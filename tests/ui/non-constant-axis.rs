use backprop::prelude::*;

#[differentiable]
fn f(a: &Array2<f64>, x: f64) -> f64 {
    let s = a.sum_axis(Axis(x as usize));
    s.sum() * x
}

fn main() {}
