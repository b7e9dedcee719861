// Exercise 2 of the fork-rule lesson: `w` is used in the prediction and in the
// penalty, so its adjoint is the sum of two contributions.
use backprop::prelude::*;

#[differentiable]
pub fn fork(w: f64, x: f64) -> f64 {
    let u = w * x;
    u.powi(2) + w
}
