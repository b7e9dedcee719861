//! `hvp` on a function whose value is an array or a tuple writes its
//! `NAME_jvp` (a Hessian is of a float value): a layer marked `hvp` is
//! called by a scalar loss with `hvp`, as DESIGN.md says.

use backprop::prelude::*;

#[differentiable(hvp)]
fn layer(w: &Array2<f64>, x: &Array1<f64>) -> Array1<f64> {
    w.dot(x).mapv(|v| v.tanh())
}

#[differentiable(hvp)]
fn polar(x: f64, y: f64) -> (f64, f64) {
    ((x * x + y * y).sqrt(), y.atan2(x))
}

#[differentiable(hvp)]
fn loss(w: &Array2<f64>, x: &Array1<f64>) -> f64 {
    let h = layer(w, x);
    let (r, theta) = polar(h[0], h[1]);
    r * r + theta
}

#[test]
fn a_layer_with_hvp_has_its_jvp_and_serves_a_loss_with_hvp() {
    let w = array![[0.5, -1.0, 0.25], [1.5, 0.5, -0.75]];
    let x = array![0.3, -0.2, 0.8];
    let (tw, tx) = (
        array![[1.0, 0.0, -0.5], [0.25, 1.0, 0.5]],
        array![0.5, 1.0, -1.0],
    );
    // The layer's and the tuple's jvp against their backward.
    let upstream = array![1.0, -2.0];
    GradCheck::new()
        .upstream(&upstream)
        .check_jvp(
            &(w.clone(), x.clone()),
            &(tw.clone(), tx.clone()),
            |(w, x)| layer_backward(w, x, &upstream),
            |(w, x), (tw, tx)| layer_jvp(w, x, tw, tx),
        )
        .unwrap();
    let (value, tangent) = polar_jvp(0.6, 0.8, 1.0, 0.0);
    assert_eq!(value, polar(0.6, 0.8));
    assert!((tangent.0 - 0.6).abs() < 1e-15 && (tangent.1 + 0.8).abs() < 1e-15);
    // The loss's hvp through both.
    let params = (w.clone(), x.clone());
    gradcheck(&params, |(w, x)| loss_backward(w, x, 1.0)).unwrap();
    hvpcheck(&params, &(tw.clone(), tx.clone()), |(w, x), (tw, tx)| {
        loss_hvp(w, x, tw, tx)
    })
    .unwrap();
    jvpcheck(
        &params,
        &(tw, tx),
        |(w, x)| loss_backward(w, x, 1.0),
        |(w, x), (tw, tx)| loss_jvp(w, x, tw, tx),
    )
    .unwrap();
}
