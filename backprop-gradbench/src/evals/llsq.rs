//! `llsq`: the linear least squares objective of cmpad's `llsq_obj`,
//! `½ Σ_i (s_i - Σ_j x_j t_iʲ)²` over `n` points `t_i` evenly spaced on
//! `[-1, 1]`, `s_i` the sign of `t_i`; and its gradient.

use backprop::prelude::*;
use serde_json::Value;

use super::input::{field, usize_of, vector_json, vector_of};
use super::{unknown_function, Output, Prepared};

/// `t_i = -1 + 2i / (n - 1)`, `i < n`.
pub fn grid(n: usize) -> Array1<f64> {
    Array1::from_shape_fn(n, |i| -1.0 + i as f64 * 2.0 / (n as f64 - 1.0))
}

/// The sign of each `t_i`: `1`, `-1`, or `0` at `0`.
pub fn signs(t: &Array1<f64>) -> Array1<f64> {
    t.mapv(|t| {
        if t > 0.0 {
            1.0
        } else if t < 0.0 {
            -1.0
        } else {
            0.0
        }
    })
}

/// The Vandermonde matrix `V[i, j] = t_iʲ`, `j < m`.
pub fn vandermonde(t: &Array1<f64>, m: usize) -> Array2<f64> {
    let mut v = Array2::zeros((t.len(), m));
    for (mut row, &t) in v.rows_mut().into_iter().zip(t) {
        let mut power = 1.0;
        for entry in row.iter_mut() {
            *entry = power;
            power *= t;
        }
    }
    v
}

/// `½ |s - V x|²`.
#[differentiable(wrt(x))]
pub fn llsq(x: &Array1<f64>, n: usize) -> f64 {
    let t = grid(n);
    let residual = signs(&t) - vandermonde(&t, x.len()).dot(x);
    0.5 * residual.dot(&residual)
}

/// Prepares `primal` or `gradient`.
pub fn prepare(function: &str, input: &Value) -> Result<Prepared, String> {
    let x = vector_of(field(input, "x")?, "x")?;
    let n = usize_of(field(input, "n")?, "n")?;
    if n < 2 {
        return Err(format!("`n` must be at least 2, got {n}"));
    }
    match function {
        "primal" => Ok(Box::new(move || {
            let v = llsq(&x, n);
            Output::later(move || Value::from(v))
        })),
        "gradient" => Ok(Box::new(move || {
            let g = llsq_backward(&x, n, 1.0).1.x;
            Output::later(move || vector_json(&g))
        })),
        _ => Err(unknown_function("llsq", function)),
    }
}
