use backprop::prelude::*;

#[derive(Clone, Debug, Differentiable)]
struct Line {
    coefficients: (f64, f64),
    label: (usize, bool),
}

fn main() {}
