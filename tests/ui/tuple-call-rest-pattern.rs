use backprop::prelude::*;

#[differentiable]
fn polar(x: f64, y: f64) -> (f64, f64) {
    (x.hypot(y), y.atan2(x))
}

#[differentiable]
fn radius(x: f64, y: f64) -> f64 {
    let (r, ..) = polar(x, y);
    r
}

fn main() {}
