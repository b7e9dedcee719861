use backprop::prelude::*;

#[derive(Clone, Debug, Differentiable)]
struct Layer<'a> {
    w: ArrayView2<'a, f64>,
    b: Array1<f64>,
}

fn main() {}
