//! `hello`: `square(x) = x²` and `double`, its derivative, from the
//! generated `square_backward`. The input is a bare number.

use backprop::prelude::*;
use serde_json::Value;

use super::{input::f64_of, unknown_function, Output, Prepared};

/// `x²`.
#[differentiable]
pub fn square(x: f64) -> f64 {
    x * x
}

/// Prepares `square` or `double` on the number `input`.
pub fn prepare(function: &str, input: &Value) -> Result<Prepared, String> {
    let x = f64_of(input, "input")?;
    match function {
        "square" => Ok(Box::new(move || {
            let v = square(x);
            Output::later(move || Value::from(v))
        })),
        "double" => Ok(Box::new(move || {
            let v = square_backward(x, 1.0).1.x;
            Output::later(move || Value::from(v))
        })),
        _ => Err(unknown_function("hello", function)),
    }
}
