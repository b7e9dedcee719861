use backprop::prelude::*;

#[differentiable]
struct Model {
    w: f64,
}

fn main() {}
