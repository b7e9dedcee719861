// Cartesian to polar coordinates: two scalar components, each with its own
// upstream gradient.
use backprop::prelude::*;

#[differentiable]
pub fn cart2polar(x: f64, y: f64) -> (f64, f64) {
    (x.hypot(y), y.atan2(x))
}
