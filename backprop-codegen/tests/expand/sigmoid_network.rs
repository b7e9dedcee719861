// The nine-parameter network of the backprop-by-hand lesson.
use backprop::prelude::*;

#[differentiable(wrt(w11, w12, b1, w21, w22, b2, v1, v2, c))]
#[allow(clippy::too_many_arguments)] // the lesson's twelve numbers, as written
pub fn network(
    w11: f64, w12: f64, b1: f64,
    w21: f64, w22: f64, b2: f64,
    v1: f64, v2: f64, c: f64,
    x1: f64, x2: f64, y: f64,
) -> f64 {
    let h1 = sigmoid(w11 * x1 + w12 * x2 + b1);
    let h2 = sigmoid(w21 * x1 + w22 * x2 + b2);
    let p = sigmoid(v1 * h1 + v2 * h2 + c);
    0.5 * (p - y).powi(2)
}
