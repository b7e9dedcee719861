use backprop::nalgebra::DVector;
use backprop::prelude::*;

#[differentiable]
fn f(v: &DVector<f64>, s: f64) -> f64 {
    v[0] * s
}

fn main() {}
