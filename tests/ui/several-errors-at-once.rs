use backprop::prelude::*;

#[differentiable]
fn f(x: f64) -> f64 {
    println!("x = {x}");
    let y = x.floor() * 2.0;
    if y > 0.0 { y } else { x }
}

fn main() {}
