//! `saddle`: `min over p1 of max over p2 of f(p1, p2)`, `f = |p1|² - |p2|²`,
//! both by gradient descent from `start`; the output is the `p1` of the
//! outer descent and the `p2` of one last ascent at that `p1`.
//!
//! Two derivatives nest: the outer descent needs the gradient, with respect
//! to `p1`, of `max over p2 of f(p1, p2)`, whose ascent takes the inner
//! gradient, of `f` with respect to `p2`, at every step. GradBench's four
//! functions name the outer mode first:
//!
//! - `rr`: the outer gradient is the generated `max_over_p2_backward`,
//!   through the whole ascent; its inner gradient is [`df_dx2`] and
//!   [`df_dy2`] from `objective_backward`, and their adjoint rules are the
//!   generated `objective_hvp` (forward over reverse, a column of the
//!   Hessian).
//! - `rf`: the same, the inner gradient from `objective_jvp` (forward).
//! - `fr`: the ascent ([`max_over_p2_of`]) runs on dual numbers, once per
//!   coordinate of `p1` (forward), its inner gradient from the generated
//!   `objective_backward` run on those duals (reverse).
//! - `ff`: the same ascent on duals, its inner gradient from the generated
//!   `objective_jvp` along each coordinate of `p2`, run on those duals
//!   (forward): forward over forward. `f` is generic over its float type,
//!   so its `objective_backward` and `objective_jvp` are.
//!
//! The last ascent takes `f`'s gradient in the outer mode: from
//! `objective_backward` after `r`, `objective_jvp` after `f`.

use backprop::dual::Dual;
use backprop::prelude::*;
use serde_json::Value;

use super::input::{field, vector_of};
use super::particle::Inner;
use super::{gd, unknown_function, Output, Prepared};

/// `f(p1, p2) = (x1² + y1²) - (x2² + y2²)` for `p1 = (x1, y1)`,
/// `p2 = (x2, y2)`.
#[differentiable(hvp)]
pub fn objective<T: backprop::Float>(x1: T, y1: T, x2: T, y2: T) -> T {
    (x1 * x1 + y1 * y1) - (x2 * x2 + y2 * y2)
}

/// The gradient of `f` with respect to `p2 = (x2, y2)` at
/// `[x1, y1, x2, y2]`, over any float, by the generated `objective_backward`
/// or `objective_jvp` (one direction per coordinate).
pub fn grad_p2<F: backprop::Float>(p: [F; 4], inner: Inner) -> [F; 2] {
    let [x1, y1, x2, y2] = p;
    let (o, l) = (F::zero(), F::one());
    match inner {
        Inner::Reverse => {
            let (_, g) = objective_backward(x1, y1, x2, y2, l);
            [g.x2, g.y2]
        }
        Inner::Forward => [
            objective_jvp(x1, y1, x2, y2, o, o, l, o).1,
            objective_jvp(x1, y1, x2, y2, o, o, o, l).1,
        ],
    }
}

/// `∂f/∂x2`, from generated code.
pub fn df_dx2(x1: f64, y1: f64, x2: f64, y2: f64, inner: Inner) -> f64 {
    match inner {
        Inner::Reverse => grad_p2([x1, y1, x2, y2], inner)[0],
        Inner::Forward => objective_jvp(x1, y1, x2, y2, 0.0, 0.0, 1.0, 0.0).1,
    }
}

/// `∂f/∂y2`, from generated code.
pub fn df_dy2(x1: f64, y1: f64, x2: f64, y2: f64, inner: Inner) -> f64 {
    match inner {
        Inner::Reverse => grad_p2([x1, y1, x2, y2], inner)[1],
        Inner::Forward => objective_jvp(x1, y1, x2, y2, 0.0, 0.0, 0.0, 1.0).1,
    }
}

/// The gradient of `∂f/∂x2` is the column of `f`'s Hessian along `x2`: the
/// generated HVP along `(0, 0, 1, 0)`.
#[adjoint(df_dx2)]
fn df_dx2_adjoint(
    x1: f64,
    y1: f64,
    x2: f64,
    y2: f64,
    _inner: Inner,
    d_out: f64,
) -> (f64, f64, f64, f64) {
    let (_, _, h) = objective_hvp(x1, y1, x2, y2, 0.0, 0.0, 1.0, 0.0);
    (d_out * h.x1, d_out * h.y1, d_out * h.x2, d_out * h.y2)
}

/// The column of `f`'s Hessian along `y2`.
#[adjoint(df_dy2)]
fn df_dy2_adjoint(
    x1: f64,
    y1: f64,
    x2: f64,
    y2: f64,
    _inner: Inner,
    d_out: f64,
) -> (f64, f64, f64, f64) {
    let (_, _, h) = objective_hvp(x1, y1, x2, y2, 0.0, 0.0, 0.0, 1.0);
    (d_out * h.x1, d_out * h.y1, d_out * h.x2, d_out * h.y2)
}

/// `max over p2 of f(p1, p2)`: the ascent of [`gd::argmax`] from
/// `(sx, sy)`, written out for the macro (descent on `-f`), and `f` where
/// it stops.
#[differentiable(wrt(x1, y1))]
pub fn max_over_p2(x1: f64, y1: f64, sx: f64, sy: f64, inner: Inner) -> f64 {
    let mut x2 = sx;
    let mut y2 = sy;
    let mut fx = -objective(x1, y1, x2, y2);
    let mut gx = -df_dx2(x1, y1, x2, y2, inner);
    let mut gy = -df_dy2(x1, y1, x2, y2, inner);
    let mut accepted = 0;
    let mut eta = 1e-5;
    loop {
        if (gx * gx + gy * gy).sqrt() <= 1e-5 {
            break;
        }
        if accepted == 10 {
            eta *= 2.0;
            accepted = 0;
        } else {
            let nx = x2 - eta * gx;
            let ny = y2 - eta * gy;
            let (dx, dy) = (x2 - nx, y2 - ny);
            if (dx * dx + dy * dy).sqrt() <= 1e-5 {
                break;
            }
            let f_next = -objective(x1, y1, nx, ny);
            if f_next < fx {
                x2 = nx;
                y2 = ny;
                fx = f_next;
                gx = -df_dx2(x1, y1, x2, y2, inner);
                gy = -df_dy2(x1, y1, x2, y2, inner);
                accepted += 1;
            } else {
                eta /= 2.0;
                accepted = 0;
            }
        }
    }
    objective(x1, y1, x2, y2)
}

/// [`max_over_p2`] over any float, by [`gd::argmax`], the inner gradient
/// by [`grad_p2`] in the mode `inner`: run on duals, the outer derivative
/// in forward mode.
pub fn max_over_p2_of<F: backprop::Float>(p1: [F; 2], start: [F; 2], inner: Inner) -> F {
    let p2 = gd::argmax(
        |p2| objective(p1[0], p1[1], p2[0], p2[1]),
        |p2| grad_p2([p1[0], p1[1], p2[0], p2[1]], inner),
        start,
    );
    objective(p1[0], p1[1], p2[0], p2[1])
}

/// The modes of `function` (outer, inner), or why it is not served.
fn modes(function: &str) -> Result<(Inner, Inner), String> {
    match function {
        "rr" => Ok((Inner::Reverse, Inner::Reverse)),
        "rf" => Ok((Inner::Reverse, Inner::Forward)),
        "fr" => Ok((Inner::Forward, Inner::Reverse)),
        "ff" => Ok((Inner::Forward, Inner::Forward)),
        _ => Err(unknown_function("saddle", function)),
    }
}

/// `[p1, p2]` of the saddle from `start`, as `[x1, y1, x2, y2]`.
pub fn saddle(outer: Inner, inner: Inner, start: [f64; 2]) -> [f64; 4] {
    let [sx, sy] = start;
    let value = |p1: &[f64; 2]| max_over_p2(p1[0], p1[1], sx, sy, inner);
    let p1 = match outer {
        Inner::Reverse => gd::argmin(
            value,
            |p1| {
                let (_, g) = max_over_p2_backward(p1[0], p1[1], sx, sy, inner, 1.0);
                [g.x1, g.y1]
            },
            start,
        ),
        Inner::Forward => gd::argmin(
            value,
            |p1| {
                let start = start.map(Dual::constant);
                let along = |k: usize| {
                    let p1: [Dual<f64>; 2] =
                        std::array::from_fn(|j| Dual::new(p1[j], if j == k { 1.0 } else { 0.0 }));
                    max_over_p2_of(p1, start, inner).tangent
                };
                [along(0), along(1)]
            },
            start,
        ),
    };
    let p2 = gd::argmax(
        |p2| objective(p1[0], p1[1], p2[0], p2[1]),
        |p2| grad_p2([p1[0], p1[1], p2[0], p2[1]], outer),
        start,
    );
    [p1[0], p1[1], p2[0], p2[1]]
}

/// Prepares `rr`, `rf`, `fr` or `ff`.
pub fn prepare(function: &str, input: &Value) -> Result<Prepared, String> {
    let start = vector_of(field(input, "start")?, "start")?;
    let start: [f64; 2] = start
        .as_slice()
        .and_then(|s| s.try_into().ok())
        .ok_or_else(|| format!("`start` must have two numbers, got {}", start.len()))?;
    let (outer, inner) = modes(function)?;
    Ok(Box::new(move || {
        let p = saddle(outer, inner, start);
        Output::later(move || Value::from(p.to_vec()))
    }))
}
