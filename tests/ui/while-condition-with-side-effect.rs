use backprop::prelude::*;

#[differentiable]
fn f(x: f64) -> f64 {
    let mut y = x;
    let mut n = 0;
    while { n += 1; n < 10 } { y = y * 2.0; }
    y
}

fn main() {}
