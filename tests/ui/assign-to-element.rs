use backprop::prelude::*;

#[differentiable]
fn f(x: &Array1<f64>) -> f64 {
    let mut y = x.to_owned();
    y[0] = 1.0;
    sum(&y)
}

fn main() {}
