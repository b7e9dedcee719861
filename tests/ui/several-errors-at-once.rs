use backprop::prelude::*;

#[differentiable]
fn f(x: f64) -> f64 {
    println!("x = {x}");
    let y = x.rem_euclid(2.0) * 2.0;
    let double = |t: f64| t * 2.0;
    y + x
}

fn main() {}
