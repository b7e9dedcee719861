use backprop::prelude::*;

#[differentiable(backward_each)]
fn powers(x: f64, n: usize) -> (f64, f64) {
    let mut p = 1.0;
    for _ in 0..n {
        p = p * x;
    }
    (p, p * x)
}

fn main() {}
