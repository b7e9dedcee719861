use backprop::prelude::*;

#[differentiable]
fn f(x: &Array1<f64>) -> f64 {
    let mut y = x.to_owned();
    y.map_inplace(|v| {
        let old = *v;
        *v = old * 2.0;
    });
    y.sum()
}

fn main() {}
