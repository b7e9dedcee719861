//! `kmeans`: the cost `Σ_i min_j |c_j - p_i|²` of centroids `c` for points
//! `p`, and the Newton direction `J H⁻¹` (`J` the gradient, `H` the
//! Hessian's diagonal, both with respect to the centroids).

use backprop::prelude::*;
use serde_json::Value;

use super::input::{field, matrix_json, matrix_of};
use super::{unknown_function, Output, Prepared};

/// `Σ_i min_j |c_j - p_i|²`, the squared distances of all pairs at once as
/// `|c_j|² + |p_i|² - 2 c_j·p_i`, a row per centroid.
#[differentiable(hvp, wrt(centroids))]
pub fn cost(points: &Array2<f64>, centroids: &Array2<f64>) -> f64 {
    let p2 = (points * points).sum_axis(Axis(1));
    let c2 = (centroids * centroids)
        .sum_axis(Axis(1))
        .insert_axis(Axis(1));
    let dists = centroids.dot(&points.t()) * -2.0 + c2 + p2;
    dists
        .fold_axis(Axis(0), f64::INFINITY, |m, &v| m.min(v))
        .sum()
}

/// The Newton direction `J ⊘ diag(H)`, element by element, from one
/// Hessian-vector product along the all-ones direction.
///
/// Why one product is the whole diagonal: where no point is at the same
/// distance from two centroids (everywhere but on a set of measure zero,
/// and the minimum's derivative takes the nearest centroid's branch as a
/// constant there too), the cost is `Σ_i Σ_l (c_{a(i), l} - p_{i, l})²`
/// with each point's nearest centroid `a(i)` fixed near `c`. Each term is a
/// function of one coordinate `c_{j, l}` alone, so every mixed second
/// derivative `∂²/∂c_{j, l} ∂c_{j', l'}` with `(j, l) ≠ (j', l')` is zero:
/// `H` is diagonal, `H_{(j, l), (j, l)} = 2 n_j` with `n_j` the points
/// nearest `c_j`. For a diagonal `H`, `(H 1)_m = Σ_{m'} H_{m, m'} = H_{m, m}`:
/// the product with the all-ones direction is the diagonal exactly. The
/// eval guarantees every `n_j ≥ 1`.
/// A centroid nearest to no point has a zero diagonal, and no direction:
/// an error.
pub fn dir(points: &Array2<f64>, centroids: &Array2<f64>) -> Result<Array2<f64>, String> {
    let ones = Array2::ones(centroids.raw_dim());
    let (_, j, h) = cost_hvp(points, centroids, &ones);
    if let Some(empty) = h
        .centroids
        .rows()
        .into_iter()
        .position(|r| r.iter().any(|&v| v == 0.0))
    {
        return Err(format!(
            "centroid {empty} is nearest to no point: the Hessian is singular"
        ));
    }
    Ok(j.centroids / h.centroids)
}

/// Prepares `cost` or `dir`.
pub fn prepare(function: &str, input: &Value) -> Result<Prepared, String> {
    let points = matrix_of(field(input, "points")?, "points")?;
    let centroids = matrix_of(field(input, "centroids")?, "centroids")?;
    if points.ncols() != centroids.ncols() || centroids.nrows() == 0 {
        return Err(format!(
            "`points` ({} columns) and `centroids` ({} columns, {} rows) must have one dimension and a centroid",
            points.ncols(),
            centroids.ncols(),
            centroids.nrows()
        ));
    }
    match function {
        "cost" => Ok(Box::new(move || {
            let v = cost(&points, &centroids);
            Output::later(move || Value::from(v))
        })),
        "dir" => {
            // Checked once, untimed: a centroid nearest to no point.
            dir(&points, &centroids)?;
            Ok(Box::new(move || match dir(&points, &centroids) {
                Ok(d) => Output::later(move || matrix_json(&d)),
                Err(e) => unreachable!("checked before: {e}"),
            }))
        }
        _ => Err(unknown_function("kmeans", function)),
    }
}
