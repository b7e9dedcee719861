use backprop::prelude::*;

#[differentiable]
fn f(x: &Array1<f64>) -> f64 {
    let mut s = 0.0;
    for v in x.iter().step_by(2) { s += *v; }
    s
}

fn main() {}
