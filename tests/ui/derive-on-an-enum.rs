use backprop::prelude::*;

#[derive(Clone, Debug, Differentiable)]
enum Layer {
    Dense(Array2<f64>),
    Identity,
}

fn main() {}
