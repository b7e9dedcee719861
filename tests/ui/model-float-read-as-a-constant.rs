use backprop::prelude::*;

#[derive(Clone, Debug, Differentiable)]
struct Model { w: Array1<f64>, steps: f64 }

#[differentiable(wrt(m))]
fn f(m: &Model, x: &Array1<f64>) -> f64 {
    let n = m.steps as usize;
    m.w.dot(x) * n as f64
}

fn main() {}
