use backprop::prelude::*;

#[differentiable]
fn polar(x: f64, y: f64) -> (f64, f64) {
    (x.hypot(y), y.atan2(x))
}

fn area(p: (f64, f64)) -> f64 {
    p.0 * p.0 * p.1
}

#[differentiable]
fn f(x: f64, y: f64) -> f64 {
    let p = polar(x, y);
    p.0 + area(p)
}

fn main() {}
