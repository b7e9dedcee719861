use backprop::prelude::*;

#[differentiable]
fn f(x: f64) -> f64 {
    let Some(y) = Some(x) else { return 0.0 };
    y * 2.0
}

fn main() {}
