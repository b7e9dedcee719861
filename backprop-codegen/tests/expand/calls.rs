// A differentiable function calling another one: the forward calls `linear`,
// the reverse sweep calls `linear_vjp` for the positional gradients.
// `linear`'s `#[inline]` is carried over to `linear_backward` and `linear_vjp`.
use backprop::prelude::*;

#[differentiable]
#[inline]
pub fn linear(w: &Array2<f64>, b: &Array1<f64>, x: &Array2<f64>) -> Array2<f64> {
    x.dot(&w.t()) + b
}

#[differentiable(wrt(w1, b1, w2, b2))]
pub fn two_layers(
    w1: &Array2<f64>, b1: &Array1<f64>, w2: &Array2<f64>, b2: &Array1<f64>,
    x: &Array2<f64>, labels: &[usize],
) -> f64 {
    let h = relu(&linear(w1, b1, x));
    softmax_cross_entropy(&linear(w2, b2, &h), labels)
}
