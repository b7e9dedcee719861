//! Calls from one differentiable function to another, across modules, and
//! user-defined adjoint rules.

use backprop::prelude::*;

mod layers {
    use backprop::prelude::*;

    /// A dense layer: `relu(x Wᵀ + b)`.
    #[differentiable]
    pub fn linear_relu(w: &Array2<f64>, b: &Array1<f64>, x: &Array2<f64>) -> Array2<f64> {
        relu(&(x.dot(&w.t()) + b))
    }
}

/// A plain dense layer, in this module.
#[differentiable]
fn linear(w: &Array2<f64>, b: &Array1<f64>, x: &Array2<f64>) -> Array2<f64> {
    x.dot(&w.t()) + b
}

/// A two-layer network written as two calls.
#[differentiable(wrt(w1, b1, w2, b2))]
fn two_layers(
    w1: &Array2<f64>,
    b1: &Array1<f64>,
    w2: &Array2<f64>,
    b2: &Array1<f64>,
    x: &Array2<f64>,
    labels: &[usize],
) -> f64 {
    let h = layers::linear_relu(w1, b1, x);
    let logits = linear(w2, b2, &h);
    softmax_cross_entropy(&logits, labels)
}

/// The same network inlined, as the reference.
#[differentiable(wrt(w1, b1, w2, b2))]
fn two_layers_inline(
    w1: &Array2<f64>,
    b1: &Array1<f64>,
    w2: &Array2<f64>,
    b2: &Array1<f64>,
    x: &Array2<f64>,
    labels: &[usize],
) -> f64 {
    let h = relu(&(x.dot(&w1.t()) + b1));
    softmax_cross_entropy(&(h.dot(&w2.t()) + b2), labels)
}

/// The fork-rule lesson's trunk and head A: W1, b1, W2, b2, x, labels.
type Net = (
    Array2<f64>,
    Array1<f64>,
    Array2<f64>,
    Array1<f64>,
    Array2<f64>,
    [usize; 1],
);

fn net() -> Net {
    (
        array![[1.0, -0.5], [-0.5, 1.0]],
        array![0.5, -0.5],
        array![[1.0, 1.0], [-1.0, 0.5]],
        array![-0.5, 0.0],
        array![[1.0, 2.0]],
        [1],
    )
}

#[test]
fn two_layers_as_two_calls() {
    let (w1, b1, w2, b2, x, labels) = net();
    let (v, g) = two_layers_backward(&w1, &b1, &w2, &b2, &x, &labels, 1.0);
    let (v_ref, g_ref) = two_layers_inline_backward(&w1, &b1, &w2, &b2, &x, &labels, 1.0);
    assert_eq!(v, two_layers(&w1, &b1, &w2, &b2, &x, &labels));
    assert_eq!(v, v_ref);
    assert_eq!(v_ref, two_layers_inline(&w1, &b1, &w2, &b2, &x, &labels));
    for (a, b) in [(&g.w1, &g_ref.w1), (&g.w2, &g_ref.w2)] {
        assert!(a.iter().zip(b.iter()).all(|(p, q)| (p - q).abs() < 1e-14));
    }
    assert!(g
        .b1
        .iter()
        .zip(g_ref.b1.iter())
        .all(|(p, q)| (p - q).abs() < 1e-14));
    // The lesson's numbers: head A alone (DL01.5.1): W1 rows (1.462, 2.924), (0.366, 0.731).
    let printed = [1.462, 2.924, 0.366, 0.731];
    assert!(g.w1.iter().zip(printed).all(|(a, e)| (a - e).abs() <= 5e-4));
    let params = (w1.clone(), b1.clone(), w2.clone(), b2.clone());
    gradcheck(&params, |(w1, b1, w2, b2)| {
        two_layers_backward(w1, b1, w2, b2, &x, &labels, 1.0)
    })
    .unwrap();
}

/// A tied-weight network: the same function called twice with the same weight.
#[differentiable(wrt(w))]
fn tied_by_calls(
    w: &Array2<f64>,
    b1: &Array1<f64>,
    b2: &Array1<f64>,
    x: &Array2<f64>,
    labels: &[usize],
) -> f64 {
    let h = layers::linear_relu(w, b1, x);
    let logits = linear(w, b2, &h);
    softmax_cross_entropy(&logits, labels)
}

#[test]
fn tied_weights_through_two_calls() {
    let (w1, b1, _, b2, x, labels) = net();
    let (v, g) = tied_by_calls_backward(&w1, &b1, &b2, &x, &labels, 1.0);
    assert_eq!(v, tied_by_calls(&w1, &b1, &b2, &x, &labels));
    // The fork-rule lesson: the sum of the two uses, rows (0.445, 0.891), (-0.445, -0.891).
    let printed = [0.445, 0.891, -0.445, -0.891];
    assert!(
        g.w.iter().zip(printed).all(|(a, e)| (a - e).abs() <= 5e-4),
        "{:?}",
        g.w
    );
    gradcheck(&(w1.clone(),), |(w,)| {
        tied_by_calls_backward(w, &b1, &b2, &x, &labels, 1.0)
    })
    .unwrap();
}

/// `ln cosh x`, computed stably (`|x| + ln(1 + e^-2|x|) - ln 2`); its
/// rule is written by hand.
fn logcosh(x: f64) -> f64 {
    x.abs() + (-2.0 * x.abs()).exp().ln_1p() - std::f64::consts::LN_2
}

/// d ln cosh(x) / dx = tanh(x).
#[adjoint(logcosh)]
fn logcosh_adjoint(x: f64, d_out: f64) -> f64 {
    d_out * x.tanh()
}

/// A rule with two differentiable parameters and a constant one.
fn scaled_hypot(a: f64, b: f64, scale: usize) -> f64 {
    (a * a + b * b).sqrt() * scale as f64
}

#[adjoint(scaled_hypot)]
fn scaled_hypot_adjoint(a: f64, b: f64, scale: usize, d_out: f64) -> (f64, f64) {
    let r = (a * a + b * b).sqrt();
    (d_out * scale as f64 * a / r, d_out * scale as f64 * b / r)
}

#[differentiable]
fn uses_rules(x: f64, y: f64) -> f64 {
    let s = logcosh(x * y) + logcosh(y);
    s * scaled_hypot(x, s, 3)
}

#[test]
fn user_defined_adjoint_rules() {
    let (v, g) = uses_rules_backward(0.7, -1.3, 1.0);
    assert_eq!(v, uses_rules(0.7, -1.3));
    assert!(g.x.is_finite() && g.y.is_finite());
    gradcheck(&(0.7, -1.3), |&(x, y)| uses_rules_backward(x, y, 1.0)).unwrap();
    gradcheck(&(-2.0, 0.4), |&(x, y)| uses_rules_backward(x, y, 1.0)).unwrap();
}

/// A scalar differentiable function called with a computed argument by value.
#[differentiable]
fn square_plus(a: f64, b: f64) -> f64 {
    a * a + b
}

#[differentiable]
fn calls_by_value(x: f64) -> f64 {
    let t = x * 3.0;
    square_plus(t, x) * square_plus(x, 2.0)
}

#[test]
fn calls_with_scalars_and_constants() {
    let (v, _) = calls_by_value_backward(0.9, 1.0);
    assert_eq!(v, calls_by_value(0.9));
    gradcheck(&(0.9,), |&(x,)| calls_by_value_backward(x, 1.0)).unwrap();
    assert_eq!(square_plus_backward(2.0, 1.0, 1.0).1.a, 4.0);
}

/// A function over row views, `Σ q l + q·q`.
#[differentiable]
fn precision_factor(q: ArrayView1<f64>, l: ArrayView1<f64>) -> f64 {
    (&q * &l).sum() + q.dot(&q)
}

/// Rows passed straight to a function that takes views, in a loop (whose
/// reverse keeps a row of a local as an owned copy) and after it.
#[differentiable]
fn rows_as_views(q: &Array2<f64>, l: &Array2<f64>) -> f64 {
    let qdiag = q * 2.0;
    let mut total = 0.0;
    for c in 0..qdiag.nrows() {
        total += precision_factor(qdiag.row(c), l.row(c));
    }
    total + precision_factor(qdiag.row(0), l.row(1))
}

#[test]
fn rows_passed_as_views() {
    let q = array![[0.5, -1.0], [2.0, 0.25]];
    let l = array![[1.0, 2.0], [-0.5, 0.75]];
    let (v, g) = rows_as_views_backward(&q, &l, 1.0);
    assert_eq!(v, rows_as_views(&q, &l));
    // With d = 2q: Σ_c (d_c·l_c + d_c·d_c) + d_0·l_1 + d_0·d_0.
    let d = &q * 2.0;
    let mut dq = (&l + &(&d * 2.0)) * 2.0;
    let extra = (&l.row(1) + &(&d.row(0) * 2.0)) * 2.0;
    dq.row_mut(0).scaled_add(1.0, &extra);
    let mut dl = d.clone();
    dl.row_mut(1).scaled_add(1.0, &d.row(0));
    assert_eq!(g.q, dq);
    assert_eq!(g.l, dl);
    gradcheck(&(q.clone(), l.clone()), |(q, l)| {
        rows_as_views_backward(q, l, 1.0)
    })
    .unwrap();
}
