use backprop::prelude::*;

#[differentiable]
fn f(a: &Array1<f64>, d: f64) -> f64 {
    a.var(d)
}

fn main() {}
