//! Reading the fields of an eval's input, with an error message (never a
//! panic) for a missing field or a value of the wrong type.

use ndarray::{Array1, Array2};
use serde_json::Value;

/// The field `name` of `input`.
pub fn field<'a>(input: &'a Value, name: &str) -> Result<&'a Value, String> {
    input
        .get(name)
        .ok_or_else(|| format!("the input has no field `{name}`"))
}

/// A number.
pub fn f64_of(v: &Value, what: &str) -> Result<f64, String> {
    v.as_f64()
        .ok_or_else(|| format!("`{what}` must be a number, got {v}"))
}

/// A non-negative integer.
pub fn usize_of(v: &Value, what: &str) -> Result<usize, String> {
    v.as_u64()
        .and_then(|n| usize::try_from(n).ok())
        .ok_or_else(|| format!("`{what}` must be a non-negative integer, got {v}"))
}

/// An array of numbers.
pub fn vector_of(v: &Value, what: &str) -> Result<Array1<f64>, String> {
    let items = v
        .as_array()
        .ok_or_else(|| format!("`{what}` must be an array of numbers"))?;
    items
        .iter()
        .map(|x| f64_of(x, what))
        .collect::<Result<Vec<_>, _>>()
        .map(Array1::from)
}

/// An array of rows of numbers, all of one length, as a matrix.
pub fn matrix_of(v: &Value, what: &str) -> Result<Array2<f64>, String> {
    let rows = v
        .as_array()
        .ok_or_else(|| format!("`{what}` must be an array of arrays of numbers"))?;
    let ncols = match rows.first() {
        Some(row) => row.as_array().map_or(0, Vec::len),
        None => 0,
    };
    let mut data = Vec::with_capacity(rows.len() * ncols);
    for row in rows {
        let row = vector_of(row, what)?;
        if row.len() != ncols {
            return Err(format!(
                "the rows of `{what}` must have one length, got {ncols} and {}",
                row.len()
            ));
        }
        data.extend(row);
    }
    Array2::from_shape_vec((rows.len(), ncols), data).map_err(|e| e.to_string())
}

/// A vector as JSON.
pub fn vector_json(v: &Array1<f64>) -> Value {
    Value::from(v.to_vec())
}

/// A matrix as JSON, an array of its rows.
pub fn matrix_json(m: &Array2<f64>) -> Value {
    Value::from(m.rows().into_iter().map(|r| r.to_vec()).collect::<Vec<_>>())
}
