//! Comparing values and gradients of two implementations.

use backprop::ndarray;

use crate::Grads;

/// Relative tolerance of every comparison.
pub const RTOL: f64 = 1e-9;
/// Absolute floor, for entries that are zero in exact arithmetic and come out
/// as rounding noise in one implementation.
pub const ATOL: f64 = 1e-15;

/// `|a - b| <= RTOL · max(|a|, |b|)`, or below [`ATOL`].
pub fn close(a: f64, b: f64) -> bool {
    let d = (a - b).abs();
    d <= RTOL * a.abs().max(b.abs()) || d <= ATOL
}

/// Checks that `(value, grads)` of `name` equals the reference's.
pub fn same(
    workload: &str,
    name: &str,
    reference: &(f64, Grads),
    other: &(f64, Grads),
) -> Result<(), String> {
    if !close(reference.0, other.0) {
        return Err(format!(
            "{workload}: {name} value {} differs from the reference's {}",
            other.0, reference.0
        ));
    }
    if reference.1.len() != other.1.len() {
        return Err(format!(
            "{workload}: {name} has {} gradients, the reference {}",
            other.1.len(),
            reference.1.len()
        ));
    }
    for ((rn, rv), (on, ov)) in reference.1.iter().zip(&other.1) {
        if rn != on || rv.len() != ov.len() {
            return Err(format!(
                "{workload}: {name} gradient {on} ({} elements) vs reference {rn} ({})",
                ov.len(),
                rv.len()
            ));
        }
        if let Some((i, (r, o))) = rv
            .iter()
            .zip(ov)
            .enumerate()
            .find(|(_, (r, o))| !close(**r, **o))
        {
            return Err(format!(
                "{workload}: {name} d{on}[{i}] = {o}, reference {r}"
            ));
        }
    }
    Ok(())
}

/// Checks the generated code, candle, burn, the hand-written forward and the
/// original function against the hand-written forward+backward `reference`.
pub fn agree(
    workload: &str,
    reference: &(f64, Grads),
    generated: &(f64, Grads),
    candle: &(f64, Grads),
    burn: &(f64, Grads),
    forward: f64,
    original: f64,
) -> Result<(), String> {
    same(workload, "generated", reference, generated)?;
    same(workload, "candle", reference, candle)?;
    same(workload, "burn", reference, burn)?;
    same_value(workload, "forward", reference.0, forward)?;
    same_value(workload, "original fn", reference.0, original)
}

/// Checks a forward-only value against the reference's.
pub fn same_value(workload: &str, name: &str, reference: f64, value: f64) -> Result<(), String> {
    if close(reference, value) {
        Ok(())
    } else {
        Err(format!(
            "{workload}: {name} value {value} differs from the reference's {reference}"
        ))
    }
}

/// The elements of an ndarray array in logical row-major order.
pub fn flat<S: ndarray::Data<Elem = f64>, D: ndarray::Dimension>(
    a: &ndarray::ArrayBase<S, D>,
) -> Vec<f64> {
    a.iter().copied().collect()
}

/// The elements of a candle tensor, flattened.
pub fn flat_candle(t: &candle_core::Tensor) -> Vec<f64> {
    t.flatten_all()
        .and_then(|t| t.to_vec1::<f64>())
        .expect("an f64 tensor flattens")
}
