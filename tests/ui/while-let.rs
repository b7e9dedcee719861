use backprop::prelude::*;

#[differentiable]
fn f(x: f64, steps: Vec<usize>) -> f64 {
    let mut steps = steps;
    let mut y = x;
    while let Some(_) = steps.pop() { y = y * 2.0; }
    y
}

fn main() {}
