use backprop::prelude::*;

#[differentiable]
fn f(x: &Array1<f64>) -> f64 {
    let mut s = 0.0;
    for v in x.iter().take_while(|v| **v > 0.0) { s += *v; }
    s
}

fn main() {}
