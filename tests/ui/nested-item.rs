use backprop::prelude::*;

#[differentiable]
fn f(x: f64) -> f64 {
    fn scale() -> f64 { 2.0 }
    x * scale()
}

fn main() {}
