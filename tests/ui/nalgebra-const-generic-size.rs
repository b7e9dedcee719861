use backprop::nalgebra::SVector;
use backprop::prelude::*;

#[differentiable]
fn f<const N: usize>(v: &SVector<f64, N>, s: f64) -> f64 {
    v.norm() * s
}

fn main() {}
