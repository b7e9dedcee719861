use backprop::prelude::*;

#[differentiable]
fn f(x: f64) -> (f64, f32) {
    (x, x as f32)
}

fn main() {}
