use backprop::prelude::*;

#[differentiable]
fn f(x: &Array1<f64>) -> f64 {
    let mut y = x.to_owned();
    let mut s = y.slice_mut(s![1..]);
    s[0] = x[0] * 2.0;
    y.sum()
}

fn main() {}
