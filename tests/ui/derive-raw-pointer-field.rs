use backprop::prelude::*;

#[derive(Clone, Debug, Differentiable)]
struct Layer {
    w: *mut f64,
    b: Array1<f64>,
}

fn main() {}
