use backprop::nalgebra::Vector3;
use backprop::prelude::*;

#[differentiable]
fn f(u: &Vector3<f64>, v: &Vector3<f64>) -> f64 {
    u.angle(v)
}

fn main() {}
