use backprop::prelude::*;

#[differentiable]
fn f(x: &Array2<f64>) -> f64 {
    let mut y = x.to_owned();
    let mut t = 0;
    let mut r = y.row_mut(t);
    t += 1;
    r *= 2.0;
    y.sum() + t as f64
}

fn main() {}
