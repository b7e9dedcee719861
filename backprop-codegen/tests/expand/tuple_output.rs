// A tuple output: one upstream gradient per component. `y` is a component
// and feeds the other one, so its adjoint sums the array upstream and the
// sum's contribution (the fork rule across components).
use backprop::prelude::*;

#[differentiable]
pub fn scaled(x: &Array1<f64>, s: f64) -> (f64, Array1<f64>) {
    let y = x * s;
    (y.sum(), y)
}
