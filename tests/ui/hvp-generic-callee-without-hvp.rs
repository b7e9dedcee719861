use backprop::prelude::*;

#[differentiable]
fn cube_sum<T: backprop::Float>(x: T) -> T {
    x * x * x
}

#[differentiable(hvp)]
fn outer(x: f64, y: f64) -> f64 {
    cube_sum(x) + cube_sum(y) * x
}

fn main() {}
