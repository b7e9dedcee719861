use backprop::prelude::*;

#[differentiable]
fn f(x: f64, y: f64) -> (f64, f64) {
    let r = (x * 2.0, y);
    r
}

fn main() {}
