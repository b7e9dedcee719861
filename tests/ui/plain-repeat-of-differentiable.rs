use backprop::prelude::*;

#[differentiable]
fn f(x: f64) -> f64 {
    let v = [x; 3];
    v[0] + v[2]
}

fn main() {}
