use backprop::prelude::*;

#[differentiable]
fn layer(w: &Array2<f64>, x: &Array1<f64>) -> Array1<f64> {
    w.dot(x).mapv(f64::tanh)
}

#[differentiable(jvp)]
fn net(w: &Array2<f64>, v: &Array1<f64>, x: &Array1<f64>) -> f64 {
    let h = layer(w, x);
    v.dot(&h)
}

fn main() {}
