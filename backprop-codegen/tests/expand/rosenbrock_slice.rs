// Rosenbrock's function over a slice. Each element the reverse sweep reads
// is read again from the borrowed slice, a load and a few flops at the head
// of the iteration's reverse, so the loop keeps no record at all (`remat`):
// the only allocation is the gradient's buffer, given back as a `Vec`.
use backprop::prelude::*;

#[differentiable]
pub fn rosenbrock(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..x.len() - 1 {
        s += 100.0 * (x[i + 1] - x[i] * x[i]).powi(2) + (1.0 - x[i]).powi(2);
    }
    s
}
