use backprop::prelude::*;

fn double(t: f64) -> f64 {
    t * 2.0
}

#[differentiable]
fn f(a: &Array1<f64>) -> f64 {
    a.mapv(|v| double(v) + 1.0).sum()
}

fn main() {}
