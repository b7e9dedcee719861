use backprop::prelude::*;

fn scale(mut r: ArrayViewMut1<f64>) { r *= 2.0; }

#[differentiable]
fn f(x: &Array2<f64>) -> f64 {
    let mut y = x.to_owned();
    let r = y.row_mut(0);
    scale(r);
    y.sum()
}

fn main() {}
