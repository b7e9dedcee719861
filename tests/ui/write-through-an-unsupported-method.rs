use backprop::prelude::*;

#[differentiable]
fn f(a: &Array1<f64>) -> f64 {
    let mut b = a.to_owned();
    b.slice_mut(s![1..]).swap(0, 1);
    b.sum()
}

fn main() {}
