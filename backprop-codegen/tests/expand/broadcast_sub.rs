// The broadcast subtraction of the broadcast-gradient post: `b` is (3, 1) and
// is broadcast across the columns of `a`, so its gradient is a row sum.
use backprop::prelude::*;

#[differentiable]
pub fn broadcast_sub(a: &Array2<f64>, b: &Array2<f64>) -> Array2<f64> {
    a - b
}
