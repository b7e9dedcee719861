use backprop::prelude::*;

#[differentiable]
fn f(x: &Array2<f64>) -> f64 {
    let mut y = x.to_owned();
    let mut r = y.row_mut(0);
    let mut s = r.slice_mut(s![1..]);
    s *= 2.0;
    y.sum()
}

fn main() {}
