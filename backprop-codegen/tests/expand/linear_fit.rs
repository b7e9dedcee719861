// Least squares over two slices, as Rust users write it: the sum of the
// iterator is the loop it is, each element read by index (`xs[k]`, no copy
// of the data), in plain `f64` arithmetic, and the sum's reverse runs in
// that loop (`fused_sums`); nothing is allocated.
use backprop::prelude::*;

#[differentiable(wrt(w, b))]
pub fn linear_fit(w: f64, b: f64, xs: &[f64], ys: &[f64]) -> f64 {
    xs.iter().zip(ys).map(|(x, y)| (w * x + b - y).powi(2)).sum::<f64>() / xs.len() as f64
}
