use backprop::prelude::*;

#[differentiable]
fn f(x: f64) -> f64
where f64: Copy {
    x * 2.0
}

fn main() {}
