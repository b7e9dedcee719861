use backprop::prelude::*;

#[differentiable]
fn loss(w: f64, x: f64) -> f64 { w.rem_euclid(2.0) * x }

fn main() {
    let (value, grad): (f64, LossGrad) = loss_backward(1.0, 2.0, 1.0);
    println!("{value} {} {}", grad.w, grad.x);
}
