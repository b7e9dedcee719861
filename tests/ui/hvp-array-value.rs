use backprop::prelude::*;

#[differentiable(hvp)]
fn layer(w: &Array2<f64>, x: &Array1<f64>) -> Array1<f64> {
    w.dot(x).mapv(|v| v.tanh())
}

fn main() {}
