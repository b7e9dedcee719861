use backprop::prelude::*;

#[differentiable(hvp)]
fn polar(x: f64, y: f64) -> (f64, f64) {
    ((x * x + y * y).sqrt(), y.atan2(x))
}

fn main() {}
