//! `saddle`: `min over p1 of max over p2 of f(p1, p2)`, `f = |p1|² - |p2|²`,
//! both by gradient descent from `start`.
//!
//! Not served yet: the outer descent needs the gradient, with respect to
//! `p1`, of a function whose body runs the inner ascent, which calls the
//! generated `objective_backward`: a derivative of generated code (nested
//! AD). backprop cannot differentiate a `_backward` yet (a differentiable
//! function that reads a field of its gradient is rejected, one that calls
//! `objective_vjp` does not build, as there is no `objective_vjp_vjp`), and
//! has no forward mode. What is here is the inner level, with its gradient
//! from the generated code.

use backprop::prelude::*;
use serde_json::Value;

use super::{gd, unknown_function, Prepared};

/// `f(p1, p2) = (x1² + y1²) - (x2² + y2²)` for `p1 = (x1, y1)`,
/// `p2 = (x2, y2)`.
#[differentiable]
pub fn objective(x1: f64, y1: f64, x2: f64, y2: f64) -> f64 {
    (x1 * x1 + y1 * y1) - (x2 * x2 + y2 * y2)
}

/// The inner level: the `p2` where ascent of `f(p1, ·)` from `start` stops,
/// its gradient from `objective_backward`.
pub fn argmax_p2(p1: [f64; 2], start: [f64; 2]) -> [f64; 2] {
    gd::argmax(
        |p2| objective(p1[0], p1[1], p2[0], p2[1]),
        |p2| {
            let (_, g) = objective_backward(p1[0], p1[1], p2[0], p2[1], 1.0);
            [g.x2, g.y2]
        },
        start,
    )
}

/// No function of `saddle` is served yet (see the module's documentation).
pub fn prepare(function: &str, _input: &Value) -> Result<Prepared, String> {
    match function {
        "ff" | "fr" | "rf" | "rr" => Err(NESTED.to_string()),
        _ => Err(unknown_function("saddle", function)),
    }
}

/// Why `particle` and `saddle` are not served.
pub const NESTED: &str = "this eval needs nested derivatives (the gradient of a function that \
    itself takes a gradient); backprop cannot differentiate a generated `_backward` yet and has \
    no forward mode";
