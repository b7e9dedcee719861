// Calling a differentiable function that returns a tuple: each call of
// `polar` is one call in the forward pass and one call of `polar_vjp` in
// the reverse sweep, passed one upstream gradient per component: its
// adjoint (`r` and `theta` each sum two contributions first, the fork
// rule), or a zero of its value where it gets none (the second call's
// angle, bound as `_`). A float argument is passed by copy (`2.0 * x`).
use backprop::prelude::*;

#[differentiable]
pub fn polar(x: f64, y: f64) -> (f64, f64) {
    (x.hypot(y), y.atan2(x))
}

#[differentiable]
pub fn radius_times_angle(x: f64, y: f64) -> f64 {
    let (r, theta) = polar(2.0 * x, y);
    let (s, _) = polar(r, theta);
    r * theta + s
}
