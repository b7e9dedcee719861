//! `lse`: LogSumExp with the maximum subtracted first, and its gradient.

use backprop::prelude::*;
use serde_json::Value;

use super::input::{field, vector_json, vector_of};
use super::{unknown_function, Output, Prepared};

/// `a + ln Σ exp(x_i - a)` with `a = max x`.
#[differentiable]
pub fn logsumexp(x: &Array1<f64>) -> f64 {
    let a = x
        .fold_axis(Axis(0), f64::NEG_INFINITY, |m, &v| m.max(v))
        .sum();
    (x - a).mapv(f64::exp).sum().ln() + a
}

/// Prepares `primal` or `gradient`.
pub fn prepare(function: &str, input: &Value) -> Result<Prepared, String> {
    let x = vector_of(field(input, "x")?, "x")?;
    if x.is_empty() {
        return Err("`x` must not be empty".to_string());
    }
    match function {
        "primal" => Ok(Box::new(move || {
            let v = logsumexp(&x);
            Output::later(move || Value::from(v))
        })),
        "gradient" => Ok(Box::new(move || {
            let g = logsumexp_backward(&x, 1.0).1.x;
            Output::later(move || vector_json(&g))
        })),
        _ => Err(unknown_function("lse", function)),
    }
}
