use backprop::prelude::*;

#[derive(Clone, Debug, Differentiable)]
struct Line {
    w: Array1<f64>,
}

#[differentiable(hvp, wrt(model))]
fn loss(model: &Line, x: &Array1<f64>) -> f64 {
    model.w.dot(x).powi(2)
}

fn main() {}
