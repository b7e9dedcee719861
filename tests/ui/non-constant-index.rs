use backprop::prelude::*;

#[differentiable]
fn f(a: &Array1<f64>, x: f64) -> f64 {
    a[x as usize] * x
}

fn main() {}
