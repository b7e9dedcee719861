use backprop::prelude::*;

#[differentiable]
fn f(a: &Array2<f64>) -> f64 {
    let norms = (a * 2.0).map_axis(Axis(0), |r| r.dot(&r).sqrt());
    norms.sum()
}

fn main() {}
