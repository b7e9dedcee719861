use backprop::prelude::*;

#[differentiable]
fn f(x: f64) -> f64 {
    let m = [[x, 1.0], [2.0, x]];
    m[0][0] + m[1][1]
}

fn main() {}
