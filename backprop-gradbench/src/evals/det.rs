//! `det`: the determinant by expansion by minors (cmpad's `det_by_minor`),
//! recursive along the first row of each minor, and its gradient.

use backprop::prelude::*;
use serde_json::Value;

use super::input::{field, usize_of, vector_json, vector_of};
use super::{unknown_function, Output, Prepared};

/// The determinant of the minor of `a` made of the rows `row..` and the
/// columns whose bits are set in `cols` (as many as there are rows), by
/// expansion along its first row.
#[differentiable(wrt(a))]
pub fn det_of_minor(a: &Array2<f64>, row: usize, cols: u64) -> f64 {
    if row + 1 == a.nrows() {
        return a[[row, cols.trailing_zeros() as usize]];
    }
    let mut det = 0.0;
    let mut sign = 1.0;
    // The minor's columns: the set bits of `cols`, lowest first.
    let mut rest = cols;
    for _ in row..a.nrows() {
        let j = rest.trailing_zeros() as usize;
        rest = rest & (rest - 1);
        det += sign * a[[row, j]] * det_of_minor(a, row + 1, cols & !(1 << j));
        sign = -sign;
    }
    det
}

/// `det a`, for a square `a` of side 1 to 64.
#[differentiable]
pub fn det(a: &Array2<f64>) -> f64 {
    det_of_minor(a, 0, u64::MAX >> (64 - a.ncols()))
}

/// Prepares `primal` or `gradient`: `A` is the matrix in row-major order,
/// `ell` its side.
pub fn prepare(function: &str, input: &Value) -> Result<Prepared, String> {
    let flat = vector_of(field(input, "A")?, "A")?;
    let ell = usize_of(field(input, "ell")?, "ell")?;
    if ell == 0 || ell > 64 || flat.len() != ell * ell {
        return Err(format!(
            "`A` must hold ell² numbers with 1 <= ell <= 64; ell = {ell}, {} numbers",
            flat.len()
        ));
    }
    let a = flat
        .into_shape_with_order((ell, ell))
        .map_err(|e| e.to_string())?;
    match function {
        "primal" => Ok(Box::new(move || {
            let v = det(&a);
            Output::later(move || Value::from(v))
        })),
        "gradient" => Ok(Box::new(move || {
            let grad = det_backward(&a, 1.0).1.a;
            Output::later(move || vector_json(&grad.iter().copied().collect()))
        })),
        _ => Err(unknown_function("det", function)),
    }
}
