use backprop::prelude::*;

#[differentiable]
fn f(a: &Array2<f64>) -> f64 {
    let c = concatenate(Axis(0), &[a.view(), a.view()]);
    c.unwrap().sum()
}

fn main() {}
