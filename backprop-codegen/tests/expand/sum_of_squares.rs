// `L = Σ (A − B)²` with `B` broadcast: the sum of squares is one reduction
// (no array of squares), and its rule writes `2·d_out·c` over `c`, which
// nothing reads after it. `d_a` is that same buffer.
use backprop::prelude::*;

#[differentiable]
pub fn broadcast_sub_sq(a: &Array2<f64>, b: &Array2<f64>) -> f64 {
    let c = a - b;
    sum(&(&c * &c))
}

// A bias add and an activation over a product, and a mean squared error:
// each temporary lends its buffer to the one op that reads it, and keeps only
// its shape for the rules.
#[differentiable(wrt(w, b))]
pub fn regression(w: &Array2<f64>, b: &Array1<f64>, x: &Array2<f64>, y: &Array2<f64>) -> f64 {
    let pred = tanh(&(x.dot(w) + b));
    mse(&(pred + 1.0), y) + 0.01 * sum(&square(w))
}
