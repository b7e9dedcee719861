use backprop::prelude::*;

#[differentiable]
fn f(a: &Array1<f64>) -> f64 {
    let mut b = a.to_owned();
    b.slice_mut(s![1..]).mapv_inplace(|v| v * 2.0);
    b.sum()
}

fn main() {}
