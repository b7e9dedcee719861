//! `ode`: cmpad's `an_ode`, `y'_0 = x_0`, `y'_i = x_i y_{i-1}`, `y(0) = 0`,
//! solved to `t = 2` by `s` steps of the classical Runge-Kutta method; the
//! gradient is that of the last component of `y(2)` with respect to `x`.

use backprop::prelude::*;
use serde_json::Value;

use super::input::{field, usize_of, vector_json, vector_of};
use super::{unknown_function, Output, Prepared};

/// The right-hand side: `z_0 = x_0`, `z_i = x_i y_{i-1}`.
#[differentiable(wrt(x, y))]
pub fn rhs(x: &Array1<f64>, y: &Array1<f64>) -> Array1<f64> {
    let mut z = x.to_owned();
    z.slice_mut(s![1..])
        .assign(&(&x.slice(s![1..]) * &y.slice(s![..-1])));
    z
}

/// `y(2)` after `s` Runge-Kutta steps from `y(0) = 0`.
#[differentiable(wrt(x))]
pub fn ode(x: &Array1<f64>, s: usize) -> Array1<f64> {
    let h = 2.0 / s as f64;
    let mut y = Array1::<f64>::zeros(x.len());
    for _step in 0..s {
        let k1 = rhs(x, &y);
        let k2 = rhs(x, &(h / 2.0 * &k1 + &y));
        let k3 = rhs(x, &(h / 2.0 * &k2 + &y));
        let k4 = rhs(x, &(h * &k3 + &y));
        y = (k1 + 2.0 * k2 + 2.0 * k3 + k4) * (h / 6.0) + &y;
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
