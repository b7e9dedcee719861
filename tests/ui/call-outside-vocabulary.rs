use backprop::prelude::*;

fn double(t: f64) -> f64 { t * 2.0 }

#[differentiable]
fn f(x: f64) -> f64 {
    double(x) + 1.0
}

fn main() {}
