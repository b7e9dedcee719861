use backprop::prelude::*;

#[differentiable]
fn f(x: f64, y: f64) -> f64 {
    let positive = (x > 0.0) as i32 as f64;
    positive * y
}

fn main() {}
