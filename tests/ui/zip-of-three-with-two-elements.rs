use backprop::prelude::*;

#[differentiable]
fn f(a: &Array1<f64>, b: &Array1<f64>, c: &Array1<f64>) -> f64 {
    let d = Zip::from(a).and(b).and(c).map_collect(|&x, &y| x * y);
    d.sum()
}

fn main() {}
