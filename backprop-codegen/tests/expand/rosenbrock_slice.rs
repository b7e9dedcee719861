// Rosenbrock's function over a slice: a sum, whose one carried adjoint each
// iteration passes on unchanged, so the forward loop runs each iteration's
// reverse right after it, seeded with one, and the reverse sweep scales the
// gradient it added up by `d_out` (`fused_sums`). Nothing is kept; the only
// allocation is the gradient's buffer, given back as a `Vec`.
use backprop::prelude::*;

#[differentiable]
pub fn rosenbrock(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..x.len() - 1 {
        s += 100.0 * (x[i + 1] - x[i] * x[i]).powi(2) + (1.0 - x[i]).powi(2);
    }
    s
}
