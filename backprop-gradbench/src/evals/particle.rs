//! `particle`: the control `w` that makes a charged particle, pushed by the
//! field of two charges at `(10, 10 - w)` and `(10, 0)`, cross the x axis at
//! the origin; Euler steps of `0.1` from `(0, 8)` at velocity `(0.75, 0)`,
//! the crossing found by linear interpolation, and `w` by gradient descent
//! on the square of the crossing's `x`.
//!
//! Two derivatives nest: each Euler step needs the gradient of the
//! potential with respect to the position (the inner one), and the descent
//! on `w` needs the derivative of the whole trajectory with respect to `w`
//! (the outer one), through those gradients. GradBench's four functions
//! name the outer mode first:
//!
//! - `rr`: the outer derivative is the generated `crossing_backward`; each
//!   step's force is [`dp_dx`] and [`dp_dy`] from `potential_backward`, and
//!   their adjoint rules are the generated `potential_hvp` (forward over
//!   reverse: the derivative of the gradient is the Hessian, one column).
//! - `rf`: the same, the force from `potential_jvp` (forward).
//! - `fr`: the trajectory [`trajectory`] runs on dual numbers (forward), each
//!   step's force from the generated `potential_backward` run on those
//!   duals (reverse): forward over reverse, as `potential_hvp` does.
//! - `ff`: the trajectory runs on dual numbers (forward), each step's force
//!   from the generated `potential_jvp` along `(1, 0)` and `(0, 1)` run on
//!   those duals ([`grad_forward`]; forward): forward over forward. The
//!   potential is generic over its float type, so its `potential_jvp` is.

use backprop::dual::Dual;
use backprop::prelude::*;
use serde_json::Value;

use super::input::{f64_of, field};
use super::{gd, unknown_function, Output, Prepared};

/// The potential `1 / |p - (10, 10 - w)| + 1 / |p - (10, 0)|` at
/// `p = (x, y)`.
#[differentiable(hvp)]
pub fn potential<T: backprop::Float>(x: T, y: T, w: T) -> T {
    let ten = T::from_f64(10.0);
    T::one() / (x - ten).hypot(y - (ten - w)) + T::one() / (x - ten).hypot(y)
}

/// How the inner gradient, the potential's, is taken.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Inner {
    /// By the generated `potential_backward`.
    Reverse,
    /// By the generated `potential_jvp`, one direction per coordinate.
    Forward,
}

/// `∂p/∂x` at `(x, y)`, from generated code.
pub fn dp_dx(x: f64, y: f64, w: f64, inner: Inner) -> f64 {
    match inner {
        Inner::Reverse => potential_backward(x, y, w, 1.0).1.x,
        Inner::Forward => potential_jvp(x, y, w, 1.0, 0.0, 0.0).1,
    }
}

/// `∂p/∂y` at `(x, y)`, from generated code.
pub fn dp_dy(x: f64, y: f64, w: f64, inner: Inner) -> f64 {
    match inner {
        Inner::Reverse => potential_backward(x, y, w, 1.0).1.y,
        Inner::Forward => potential_jvp(x, y, w, 0.0, 1.0, 0.0).1,
    }
}

/// The gradient of `∂p/∂x` with respect to `(x, y, w)` is the column of
/// the potential's Hessian along `x`: the generated HVP along `(1, 0, 0)`.
#[adjoint(dp_dx)]
fn dp_dx_adjoint(x: f64, y: f64, w: f64, _inner: Inner, d_out: f64) -> (f64, f64, f64) {
    let (_, _, h) = potential_hvp(x, y, w, 1.0, 0.0, 0.0);
    (d_out * h.x, d_out * h.y, d_out * h.w)
}

/// The column of the potential's Hessian along `y`.
#[adjoint(dp_dy)]
fn dp_dy_adjoint(x: f64, y: f64, w: f64, _inner: Inner, d_out: f64) -> (f64, f64, f64) {
    let (_, _, h) = potential_hvp(x, y, w, 0.0, 1.0, 0.0);
    (d_out * h.x, d_out * h.y, d_out * h.w)
}

/// The square of the `x` where the particle crosses the x axis, for the
/// control `w`; the force is minus the potential's gradient. The last
/// position above the axis and its velocity give the crossing.
#[differentiable(wrt(w))]
pub fn crossing(w: f64, inner: Inner) -> f64 {
    let dt = 0.1;
    let mut x = 0.0;
    let mut y = 8.0;
    let mut vx = 0.75;
    let mut vy = 0.0;
    loop {
        let ax = -dp_dx(x, y, w, inner);
        let ay = -dp_dy(x, y, w, inner);
        let y_next = y + dt * vy;
        if y_next <= 0.0 {
            break;
        }
        x += dt * vx;
        y = y_next;
        vx += dt * ax;
        vy += dt * ay;
    }
    let x_f = x - y / vy * vx;
    x_f * x_f
}

/// [`crossing`] over any float, with the inner gradient `grad`: run on
/// duals, it is the outer derivative in forward mode.
pub fn trajectory<F: backprop::Float>(w: F, grad: impl Fn(F, F, F) -> (F, F)) -> F {
    let dt = F::from_f64(0.1);
    let (mut x, mut y) = (F::zero(), F::from_f64(8.0));
    let (mut vx, mut vy) = (F::from_f64(0.75), F::zero());
    loop {
        let (gx, gy) = grad(x, y, w);
        let y_next = y + dt * vy;
        if y_next <= F::zero() {
            break;
        }
        x += dt * vx;
        y = y_next;
        vx -= dt * gx;
        vy -= dt * gy;
    }
    let x_f = x - y / vy * vx;
    x_f * x_f
}

/// The potential's gradient with respect to the position by the generated
/// reverse sweep, over any float (`potential_backward`).
pub fn grad_reverse<F: backprop::Float>(x: F, y: F, w: F) -> (F, F) {
    let (_, g) = potential_backward(x, y, w, F::one());
    (g.x, g.y)
}

/// The potential's gradient with respect to the position by the generated
/// forward mode, over any float (`potential_jvp` along each coordinate): on
/// duals, forward over forward.
pub fn grad_forward<F: backprop::Float>(x: F, y: F, w: F) -> (F, F) {
    let (zero, one) = (F::zero(), F::one());
    let (_, gx) = potential_jvp(x, y, w, one, zero, zero);
    let (_, gy) = potential_jvp(x, y, w, zero, one, zero);
    (gx, gy)
}

/// The `w` where descent on [`crossing`] from `w0` stops, the derivative by
/// `function`'s outer mode.
pub fn argmin(function: &str, w0: f64) -> Result<f64, String> {
    let f = |w: &[f64; 1]| crossing(w[0], Inner::Reverse);
    let w = match function {
        "rr" => gd::argmin(
            f,
            |w| [crossing_backward(w[0], Inner::Reverse, 1.0).1.w],
            [w0],
        ),
        "rf" => gd::argmin(
            |w| crossing(w[0], Inner::Forward),
            |w| [crossing_backward(w[0], Inner::Forward, 1.0).1.w],
            [w0],
        ),
        "fr" => gd::argmin(
            f,
            |w| [trajectory(Dual::new(w[0], 1.0), grad_reverse).tangent],
            [w0],
        ),
        "ff" => gd::argmin(
            f,
            |w| [trajectory(Dual::new(w[0], 1.0), grad_forward).tangent],
            [w0],
        ),
        _ => return Err(unknown_function("particle", function)),
    };
    Ok(w[0])
}

/// Prepares `rr`, `rf`, `fr` or `ff`.
pub fn prepare(function: &str, input: &Value) -> Result<Prepared, String> {
    let w0 = f64_of(field(input, "w")?, "w")?;
    match function {
        "rr" | "rf" | "fr" | "ff" => {}
        _ => return Err(unknown_function("particle", function)),
    }
    let function = function.to_string();
    Ok(Box::new(move || match argmin(&function, w0) {
        Ok(w) => Output::later(move || Value::from(w)),
        Err(e) => unreachable!("the function was checked: {e}"),
    }))
}
