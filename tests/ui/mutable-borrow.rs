use backprop::prelude::*;

#[differentiable]
fn f(a: &Array1<f64>) -> f64 {
    let mut b = a.to_owned();
    (&mut b).sum()
}

fn main() {}
