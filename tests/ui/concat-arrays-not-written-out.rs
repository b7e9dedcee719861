use backprop::prelude::*;

#[differentiable]
fn f(a: &Array1<f64>, b: &Array1<f64>) -> f64 {
    let parts = [a, b];
    concat(Axis(0), &parts).sum()
}

fn main() {}
