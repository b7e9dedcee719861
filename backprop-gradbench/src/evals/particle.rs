//! `particle`: the control `w` that makes a charged particle, pushed by the
//! field of two charges at `(10, 10 - w)` and `(10, 0)`, cross the x axis at
//! the origin; Euler steps of `0.1` from `(0, 8)` at velocity `(0.75, 0)`,
//! the crossing found by linear interpolation, and `w` by gradient descent
//! on the square of the crossing's `x`.
//!
//! Not served yet: each Euler step needs the gradient of the potential with
//! respect to the position (from the generated `potential_backward`), and
//! the descent on `w` needs the derivative of the whole trajectory with
//! respect to `w`, through those gradients: a derivative of generated code
//! (nested AD), which backprop cannot take yet (see [`super::saddle`]). What
//! is here is the inner level: the trajectory, its forces from the generated
//! code.

use backprop::prelude::*;
use serde_json::Value;

use super::{unknown_function, Prepared};

/// The potential `1 / |p - (10, 10 - w)| + 1 / |p - (10, 0)|` at
/// `p = (x, y)`.
#[differentiable(wrt(x, y))]
pub fn potential(x: f64, y: f64, w: f64) -> f64 {
    1.0 / (x - 10.0).hypot(y - (10.0 - w)) + 1.0 / (x - 10.0).hypot(y)
}

/// The square of the `x` where the particle crosses the x axis, for the
/// control `w`; the force is minus the gradient of [`potential`].
pub fn miss(w: f64) -> f64 {
    let dt = 0.1;
    let (mut x, mut y) = (0.0, 8.0);
    let (mut vx, mut vy) = (0.75, 0.0);
    loop {
        let (_, grad) = potential_backward(x, y, w, 1.0);
        let (ax, ay) = (-grad.x, -grad.y);
        x += dt * vx;
        y += dt * vy;
        if y <= 0.0 {
            let dt_f = -y / vy;
            let x_f = x + dt_f * vx;
            return x_f * x_f;
        }
        vx += dt * ax;
        vy += dt * ay;
    }
}

/// No function of `particle` is served yet (see the module's documentation).
pub fn prepare(function: &str, _input: &Value) -> Result<Prepared, String> {
    match function {
        "ff" | "fr" | "rf" | "rr" => Err(super::saddle::NESTED.to_string()),
        _ => Err(unknown_function("particle", function)),
    }
}
