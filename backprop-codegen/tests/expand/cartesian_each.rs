// Polar to Cartesian coordinates with `backward_each`: one forward pass,
// then one reverse sweep per upstream gradient (the Jacobian's rows).
use backprop::prelude::*;

#[differentiable(backward_each)]
pub fn cartesian(r: f64, t: f64) -> (f64, f64) {
    (r * t.cos(), r * t.sin())
}
