use backprop::prelude::*;

#[differentiable]
fn f(x: f64, y: f64) -> (f64, f64) {
    let t = (x * y, y);
    if x > 1.0 {
        return t;
    }
    (x, y)
}

fn main() {}
