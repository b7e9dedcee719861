use backprop::prelude::*;

#[differentiable]
fn f(x: [f64; 2]) -> ([f64; 2], f64) {
    let y = [x[0] * 2.0, x[1]];
    (y, x[0])
}

fn main() {}
