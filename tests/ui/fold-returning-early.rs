use backprop::prelude::*;

#[differentiable]
fn f(a: &Array1<f64>) -> f64 {
    a.iter().fold(0.0, |acc, &v| {
        if v < 0.0 {
            return acc;
        }
        acc + v
    })
}

#[differentiable]
fn g(a: &Array1<f64>) -> f64 {
    a.fold(0.0, |acc, &v| acc + v)
}

// The map's `v` would hide the outer `v` the fold's body reads.
#[differentiable]
fn h(a: &Array1<f64>, v: f64) -> f64 {
    a.iter().map(|v| v * 2.0).fold(0.0, |acc, d| acc + d * v)
}

fn main() {}
