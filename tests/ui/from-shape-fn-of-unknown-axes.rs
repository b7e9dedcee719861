use backprop::prelude::*;

#[differentiable]
fn f(x: &Array1<f64>) -> f64 {
    let y = Array::from_shape_fn(x.len(), |i| x[i] * 2.0);
    y.sum()
}

fn main() {}
