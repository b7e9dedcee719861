use backprop::prelude::*;

#[derive(Clone, Debug, Differentiable)]
struct Layer {
    #[backprop(frozen)]
    w: Array2<f64>,
    b: Array1<f64>,
}

fn main() {}
