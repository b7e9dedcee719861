use backprop::prelude::*;

#[differentiable]
fn f(x: f64, o: Option<f64>) -> f64 {
    if let Some(y) = o { x * y } else { x }
}

fn main() {}
