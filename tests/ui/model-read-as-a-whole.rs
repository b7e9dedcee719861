use backprop::prelude::*;

#[derive(Clone, Debug, Differentiable)]
struct Model { w: Array1<f64> }

#[differentiable(wrt(m))]
fn f(m: &Model, x: &Array1<f64>) -> f64 {
    let copy = m;
    copy.w.dot(x)
}

fn main() {}
