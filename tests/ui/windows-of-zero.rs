use backprop::prelude::*;

#[differentiable]
fn f(x: &Array1<f64>) -> f64 {
    let mut s = 0.0;
    for w in x.windows(0) {
        s += w.sum();
    }
    s
}

fn main() {}
