// The two-head network of the fork-rule lesson (DESIGN.md): the trunk `a1`
// feeds both heads, so its adjoint is the sum of the two heads' contributions.
use backprop::prelude::*;

#[differentiable(wrt(w1, b1, w2, b2, v, c))]
#[allow(clippy::too_many_arguments)] // the network's parameters and data, as written
pub fn two_heads(
    w1: &Array2<f64>, b1: &Array1<f64>, w2: &Array2<f64>, b2: &Array1<f64>,
    v: &Array2<f64>, c: &Array1<f64>,
    x: &Array2<f64>, labels: &[usize], y: &Array2<f64>,
) -> f64 {
    let a1 = relu(&(x.dot(&w1.t()) + b1));
    let loss_a = softmax_cross_entropy(&(a1.dot(&w2.t()) + b2), labels);
    let loss_b = mse(&(a1.dot(&v.t()) + c), y);
    loss_a + loss_b
}
