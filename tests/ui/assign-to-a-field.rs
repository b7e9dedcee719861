use backprop::prelude::*;

pub struct P {
    pub a: f64,
}

#[differentiable]
fn f(x: f64) -> f64 {
    let mut p = P { a: 1.0 };
    p.a = x;
    p.a * 2.0
}

fn main() {}
