// The Huber loss: the branch taken is a constant of the gradient; the forward
// keeps the taken arm's values and the reverse sweep takes the same arm.
use backprop::prelude::*;

#[differentiable(wrt(pred))]
pub fn huber(pred: f64, target: f64, delta: f64) -> f64 {
    let r = pred - target;
    if r.abs() <= delta {
        0.5 * r * r
    } else {
        delta * (r.abs() - 0.5 * delta)
    }
}
