use backprop::prelude::*;

#[derive(Clone, Debug, Differentiable)]
struct Layer {
    w: Array2<f64>,
    act: fn(f64) -> f64,
}

fn main() {}
