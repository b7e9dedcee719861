use backprop::nalgebra::Vector2;
use backprop::prelude::*;

#[differentiable]
fn f(u: &Vector2<f64>, v: &Vector2<f64>) -> f64 {
    u.cross(v).norm()
}

fn main() {}
