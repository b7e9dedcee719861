//! `kmeans`: the cost `Σ_i min_j |c_j - p_i|²` of centroids `c` for points
//! `p`, and the Newton direction `J H⁻¹` (`H` the Hessian's diagonal).

use backprop::prelude::*;
use serde_json::Value;

use super::input::{field, matrix_of};
use super::{unknown_function, Prepared};

/// `Σ_i min_j |c_j - p_i|²`, the squared distances of all pairs at once as
/// `|c_j|² + |p_i|² - 2 c_j·p_i`, a row per centroid.
#[differentiable(wrt(centroids))]
pub fn cost(points: &Array2<f64>, centroids: &Array2<f64>) -> f64 {
    let p2 = (points * points).sum_axis(Axis(1));
    let c2 = (centroids * centroids)
        .sum_axis(Axis(1))
        .insert_axis(Axis(1));
    let dists = -2.0 * centroids.dot(&points.t()) + c2 + p2;
    dists
        .fold_axis(Axis(0), f64::INFINITY, |m, &v| m.min(v))
        .sum()
}

/// Prepares `cost` (`dir` needs second derivatives, which backprop cannot
/// take yet).
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
        "cost" => Ok(Box::new(move || Value::from(cost(&points, &centroids)))),
        "dir" => Err("`dir` needs the Hessian of the cost (a second derivative); backprop has no forward mode and cannot differentiate a generated `_backward` yet".to_string()),
        _ => Err(unknown_function("kmeans", function)),
    }
}
