use backprop::prelude::*;

#[differentiable]
fn f(x: &Array1<f64>, b: &Array1<f64>) -> f64 {
    let mut y = x.to_owned();
    y.zip_mut_with(b, |a, &b| *a *= b);
    y.sum()
}

fn main() {}
