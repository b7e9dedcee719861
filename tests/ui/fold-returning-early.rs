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

fn main() {}
