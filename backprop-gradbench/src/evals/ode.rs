//! `ode`: cmpad's `an_ode`, `y'_0 = x_0`, `y'_i = x_i y_{i-1}`, `y(0) = 0`,
//! solved to `t = 2` by `s` steps of the classical Runge-Kutta method; the
//! gradient is that of the last component of `y(2)` with respect to `x`.

use backprop::prelude::*;
use serde_json::Value;

use super::input::{field, usize_of, vector_json, vector_of};
use super::{unknown_function, Output, Prepared};

/// The right-hand side at `y + c k` (a Runge-Kutta stage's point):
/// `z_0 = x_0`, `z_i = x_i (y_{i-1} + c k_{i-1})`, one pass as C++'s
/// `ode_fun` over its `y_tmp`.
#[differentiable(wrt(x, y, k))]
pub fn rhs(x: &Array1<f64>, y: &Array1<f64>, k: &Array1<f64>, c: f64) -> Array1<f64> {
    let mut z = Array1::<f64>::zeros(x.len());
    z[0] = x[0];
    for i in 1..x.len() {
        z[i] = x[i] * (y[i - 1] + c * k[i - 1]);
    }
    z
}

/// `y(2)` after `s` Runge-Kutta steps from `y(0) = 0`.
#[differentiable(wrt(x))]
pub fn ode(x: &Array1<f64>, s: usize) -> Array1<f64> {
    let h = 2.0 / s as f64;
    let mut y = Array1::<f64>::zeros(x.len());
    for _step in 0..s {
        let k1 = rhs(x, &y, &y, 0.0);
        let k2 = rhs(x, &y, &k1, h / 2.0);
        let k3 = rhs(x, &y, &k2, h / 2.0);
        let k4 = rhs(x, &y, &k3, h);
        for i in 0..x.len() {
            y[i] += h * (k1[i] + 2.0 * k2[i] + 2.0 * k3[i] + k4[i]) / 6.0;
        }
    }
    y
}

/// Prepares `primal` (all of `y(2)`) or `gradient` (of its last component).
pub fn prepare(function: &str, input: &Value) -> Result<Prepared, String> {
    let x = vector_of(field(input, "x")?, "x")?;
    let s = usize_of(field(input, "s")?, "s")?;
    if x.is_empty() || s == 0 {
        return Err(format!(
            "`x` must not be empty and `s` must be positive, got {} and {s}",
            x.len()
        ));
    }
    match function {
        "primal" => Ok(Box::new(move || {
            let y = ode(&x, s);
            Output::later(move || vector_json(&y))
        })),
        "gradient" => {
            let mut last = Array1::zeros(x.len());
            last[x.len() - 1] = 1.0;
            Ok(Box::new(move || {
                let g = ode_backward(&x, s, &last).1.x;
                Output::later(move || vector_json(&g))
            }))
        }
        _ => Err(unknown_function("ode", function)),
    }
}
