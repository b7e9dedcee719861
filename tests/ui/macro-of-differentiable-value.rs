use backprop::prelude::*;

#[differentiable]
fn f(x: f64) -> f64 {
    let y = dbg!(x * 2.0);
    y + 1.0
}

fn main() {}
