use backprop::prelude::*;

#[differentiable]
fn f(x: f64, n: usize) -> (f64, usize) {
    (x * 2.0, n)
}

fn main() {}
