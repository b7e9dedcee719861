use backprop::prelude::*;

#[differentiable]
fn f(x: f64) -> f64 {
    let n = x as i32;
    x.powi(n)
}

fn main() {}
