use backprop::prelude::*;

#[differentiable]
fn polar(x: f64, y: f64) -> (f64, f64) {
    (x.hypot(y), y.atan2(x))
}

#[differentiable]
fn radius(x: f64, y: f64) -> f64 {
    // Only the first component is read: the macro takes the tuple for one
    // of one component, and rustc reports the length at the `let`.
    let p = polar(x, y);
    p.0 * 2.0
}

fn main() {}
