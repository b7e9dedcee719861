use backprop::prelude::*;

#[differentiable]
fn f(a: &Array1<f64>, b: &Array1<f64>) -> f64 {
    let c = Zip::from(a).and(b).map_collect(|x| x * 2.0);
    c.sum()
}

fn main() {}
