use backprop::prelude::*;

#[derive(Clone, Debug)]
struct Model { w: Array1<f64> }

#[differentiable(wrt(m))]
fn f(m: &Model, x: &Array1<f64>) -> f64 {
    m.w.dot(x)
}

fn main() {}
