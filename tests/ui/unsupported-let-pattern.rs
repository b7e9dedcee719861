use backprop::prelude::*;

#[differentiable]
fn f(a: &Array1<f64>) -> f64 {
    let [x, y] = [a[0], a[1]];
    x * y
}

fn main() {}
