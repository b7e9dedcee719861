use backprop::prelude::*;

#[differentiable]
fn f(x: f64, n: f64) -> f64 {
    x.powi(n as i32)
}

fn main() {}
