use backprop::prelude::*;

#[differentiable]
fn polar(x: f64, y: f64) -> (f64, f64) {
    (x.hypot(y), y.atan2(x))
}

#[differentiable]
fn radius_plus_angle(x: f64, y: f64) -> f64 {
    let (r, theta) = polar(x, y);
    r + theta
}

fn main() {}
