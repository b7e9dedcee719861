use backprop::nalgebra::Vector3;
use backprop::prelude::*;

fn helper(v: &Vector3<f64>) -> f64 {
    v.x
}

#[differentiable]
fn f(v: &Vector3<f64>) -> f64 {
    helper(v) * 2.0
}

fn main() {}
