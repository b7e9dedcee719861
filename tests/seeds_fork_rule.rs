//! Every worked number of the fork-rule lesson (shared/seeds/fork-rule-lesson.txt),
//! through the macro, to the lesson's printed precision, and gradcheck.

use backprop::prelude::*;
// The two-head network: the trunk `a1` feeds a classification head and a
// regression head, and the two losses add.
use backprop_testkit::networks::{two_heads, two_heads_backward};

/// The lesson prints three decimals: a match is within half a unit of the last one.
fn printed(actual: &[f64], expected: &[f64]) {
    assert_eq!(actual.len(), expected.len(), "{actual:?} vs {expected:?}");
    for (a, e) in actual.iter().zip(expected) {
        assert!(
            (a - e).abs() <= 5e-4 + 1e-12,
            "{actual:?} vs printed {expected:?}"
        );
    }
}

fn flat<D: ndarray::Dimension>(a: &Array<f64, D>) -> Vec<f64> {
    a.iter().copied().collect()
}

struct Net {
    w1: Array2<f64>,
    b1: Array1<f64>,
    w2: Array2<f64>,
    b2: Array1<f64>,
    v: Array2<f64>,
    c: Array1<f64>,
    x: Array2<f64>,
    labels: [usize; 1],
}

fn net() -> Net {
    Net {
        w1: array![[1.0, -0.5], [-0.5, 1.0]],
        b1: array![0.5, -0.5],
        w2: array![[1.0, 1.0], [-1.0, 0.5]],
        b2: array![-0.5, 0.0],
        v: array![[1.0, -1.0]],
        c: array![0.0],
        x: array![[1.0, 2.0]],
        labels: [1],
    }
}

/// The two heads alone, as a function of the trunk's output: its gradient with
/// respect to `a1` is the gradient at the fork.
#[differentiable(wrt(a1))]
#[allow(clippy::too_many_arguments)]
fn heads(
    a1: &Array2<f64>,
    w2: &Array2<f64>,
    b2: &Array1<f64>,
    v: &Array2<f64>,
    c: &Array1<f64>,
    labels: &[usize],
    y: &Array2<f64>,
    weight_a: f64,
    weight_b: f64,
) -> f64 {
    let loss_a = softmax_cross_entropy(&(a1.dot(&w2.t()) + b2), labels);
    let loss_b = mse(&(a1.dot(&v.t()) + c), y);
    weight_a * loss_a + weight_b * loss_b
}

#[test]
fn two_heads_every_number() {
    let n = net();
    let y = array![[1.0]];
    let (loss, g) = two_heads_backward(
        &n.w1, &n.b1, &n.w2, &n.b2, &n.v, &n.c, &n.x, &n.labels, &y, 1.0,
    );
    assert_eq!(
        loss,
        two_heads(&n.w1, &n.b1, &n.w2, &n.b2, &n.v, &n.c, &n.x, &n.labels, &y)
    );
    printed(&[loss], &[3.563]);
    // "the gradient of W1 with rows (-1.538, -3.076) and (3.366, 6.731)"
    printed(&flat(&g.w1), &[-1.538, -3.076, 3.366, 6.731]);
    // "its own gradients, v gradient (-1.5, -3) and bias gradient -3"
    printed(&flat(&g.v), &[-1.5, -3.0]);
    printed(&flat(&g.c), &[-3.0]);
    // Head A unchanged from DL01.5.1; delta1 = the fork gradient (both units on).
    printed(&flat(&g.b1), &[-1.538, 3.366]);

    let a1 = array![[0.5, 1.0]];
    let (_, at_fork) = heads_backward(&a1, &n.w2, &n.b2, &n.v, &n.c, &n.labels, &y, 1.0, 1.0, 1.0);
    let (loss_a, from_a) =
        heads_backward(&a1, &n.w2, &n.b2, &n.v, &n.c, &n.labels, &y, 1.0, 0.0, 1.0);
    let (loss_b, from_b) =
        heads_backward(&a1, &n.w2, &n.b2, &n.v, &n.c, &n.labels, &y, 0.0, 1.0, 1.0);
    printed(&[loss_a, loss_b], &[1.313, 2.25]);
    assert_eq!(
        loss_a,
        heads(&a1, &n.w2, &n.b2, &n.v, &n.c, &n.labels, &y, 1.0, 0.0)
    );
    // "sends back W2 transposed delta2 equals (1.462, 0.366)"; "(-3, 3)"
    printed(&flat(&from_a.a1), &[1.462, 0.366]);
    printed(&flat(&from_b.a1), &[-3.0, 3.0]);
    // "the sum at the fork (-1.538, 3.366)"
    printed(&flat(&at_fork.a1), &[-1.538, 3.366]);
    assert_eq!(at_fork.a1, &from_a.a1 + &from_b.a1);

    let params = (
        n.w1.clone(),
        n.b1.clone(),
        n.w2.clone(),
        n.b2.clone(),
        n.v.clone(),
        n.c.clone(),
    );
    gradcheck(&params, |(w1, b1, w2, b2, v, c)| {
        two_heads_backward(w1, b1, w2, b2, v, c, &n.x, &n.labels, &y, 1.0)
    })
    .unwrap();
    gradcheck(&(a1.clone(),), |(a1,)| {
        heads_backward(a1, &n.w2, &n.b2, &n.v, &n.c, &n.labels, &y, 1.0, 1.0, 1.0)
    })
    .unwrap();
}

#[test]
fn exercise_1_a_head_that_is_right_sends_back_zeros() {
    let n = net();
    let y = array![[-0.5]];
    let a1 = array![[0.5, 1.0]];
    let (loss_b, from_b) =
        heads_backward(&a1, &n.w2, &n.b2, &n.v, &n.c, &n.labels, &y, 0.0, 1.0, 1.0);
    assert_eq!(loss_b, 0.0);
    assert_eq!(from_b.a1, array![[0.0, 0.0]]);
    let (_, at_fork) = heads_backward(&a1, &n.w2, &n.b2, &n.v, &n.c, &n.labels, &y, 1.0, 1.0, 1.0);
    printed(&flat(&at_fork.a1), &[1.462, 0.366]);
    let (_, g) = two_heads_backward(
        &n.w1, &n.b1, &n.w2, &n.b2, &n.v, &n.c, &n.x, &n.labels, &y, 1.0,
    );
    let params = (
        n.w1.clone(),
        n.b1.clone(),
        n.w2.clone(),
        n.b2.clone(),
        n.v.clone(),
        n.c.clone(),
    );
    assert_eq!(g.v, array![[0.0, 0.0]]);
    gradcheck(&params, |(w1, b1, w2, b2, v, c)| {
        two_heads_backward(w1, b1, w2, b2, v, c, &n.x, &n.labels, &y, 1.0)
    })
    .unwrap();
}

/// A residual block `s = a1 + relu(a1 Uᵀ + d)` under head A.
#[differentiable(wrt(a1))]
fn residual(
    a1: &Array2<f64>,
    u: &Array2<f64>,
    d: &Array1<f64>,
    w2: &Array2<f64>,
    b2: &Array1<f64>,
    labels: &[usize],
) -> f64 {
    let s = a1 + &relu(&(a1.dot(&u.t()) + d));
    softmax_cross_entropy(&(s.dot(&w2.t()) + b2), labels)
}

/// Head A as a function of `s`.
#[differentiable(wrt(s))]
fn head_a(s: &Array2<f64>, w2: &Array2<f64>, b2: &Array1<f64>, labels: &[usize]) -> f64 {
    softmax_cross_entropy(&(s.dot(&w2.t()) + b2), labels)
}

#[test]
fn residual_block() {
    let n = net();
    let a1 = array![[0.5, 1.0]];
    let u = array![[1.0, -1.0], [0.5, 0.5]];
    let d = array![0.0, 0.0];
    // The branch's first unit is off: s = a1 + relu((-0.5, 0.75)) = (0.5, 1.75).
    let s = array![[0.5, 1.75]];
    let (_, at_s) = head_a_backward(&s, &n.w2, &n.b2, &n.labels, 1.0);
    printed(&flat(&at_s.s), &[1.596, 0.399]);
    assert_eq!(
        head_a_backward(&s, &n.w2, &n.b2, &n.labels, 1.0).0,
        head_a(&s, &n.w2, &n.b2, &n.labels)
    );
    let (v, at_a1) = residual_backward(&a1, &u, &d, &n.w2, &n.b2, &n.labels, 1.0);
    assert_eq!(v, residual(&a1, &u, &d, &n.w2, &n.b2, &n.labels));
    printed(&flat(&at_a1.a1), &[1.796, 0.599]);
    gradcheck(&(a1.clone(),), |(a1,)| {
        residual_backward(a1, &u, &d, &n.w2, &n.b2, &n.labels, 1.0)
    })
    .unwrap();
    gradcheck(&(s.clone(),), |(s,)| {
        head_a_backward(s, &n.w2, &n.b2, &n.labels, 1.0)
    })
    .unwrap();
}

/// One weight matrix used by both layers.
#[differentiable(wrt(w))]
fn tied(
    w: &Array2<f64>,
    b1: &Array1<f64>,
    b2: &Array1<f64>,
    x: &Array2<f64>,
    labels: &[usize],
) -> f64 {
    let a = relu(&(x.dot(&w.t()) + b1));
    softmax_cross_entropy(&(a.dot(&w.t()) + b2), labels)
}

/// The same network with the two uses as two parameters: each gradient is one use.
#[differentiable(wrt(first, second))]
fn untied(
    first: &Array2<f64>,
    second: &Array2<f64>,
    b1: &Array1<f64>,
    b2: &Array1<f64>,
    x: &Array2<f64>,
    labels: &[usize],
) -> f64 {
    let a = relu(&(x.dot(&first.t()) + b1));
    softmax_cross_entropy(&(a.dot(&second.t()) + b2), labels)
}

#[test]
fn tied_weights_sum_the_two_uses() {
    let n = net();
    let (v, g) = tied_backward(&n.w1, &n.b1, &n.b2, &n.x, &n.labels, 1.0);
    assert_eq!(v, tied(&n.w1, &n.b1, &n.b2, &n.x, &n.labels));
    let (v_untied, uses) = untied_backward(&n.w1, &n.w1, &n.b1, &n.b2, &n.x, &n.labels, 1.0);
    assert_eq!(
        v_untied,
        untied(&n.w1, &n.w1, &n.b1, &n.b2, &n.x, &n.labels)
    );
    assert_eq!(v_untied, v);
    printed(&flat(&uses.first), &[0.334, 0.668, -0.334, -0.668]);
    printed(&flat(&uses.second), &[0.111, 0.223, -0.111, -0.223]);
    printed(&flat(&g.w), &[0.445, 0.891, -0.445, -0.891]);
    let sum = &uses.first + &uses.second;
    for (a, b) in g.w.iter().zip(sum.iter()) {
        assert!((a - b).abs() < 1e-15);
    }
    gradcheck(&(n.w1.clone(),), |(w,)| {
        tied_backward(w, &n.b1, &n.b2, &n.x, &n.labels, 1.0)
    })
    .unwrap();
}

/// Concatenation splits the gradient; a sum copies it to every term.
#[differentiable(wrt(a, b))]
fn concat_then_weigh(a: &Array1<f64>, b: &Array1<f64>, r: &Array1<f64>) -> f64 {
    let c = concat(Axis(0), &[a, b]);
    sum(&(c * r))
}

#[differentiable]
fn sum_copies(v: &Array1<f64>) -> f64 {
    3.0 * sum(v)
}

#[test]
fn concatenation_splits_and_a_sum_copies_back() {
    let a = array![1.0, 2.0];
    let b = array![3.0, 4.0, 5.0];
    let r = array![0.1, -0.2, 0.3, -0.4, 0.5];
    let (v, g) = concat_then_weigh_backward(&a, &b, &r, 1.0);
    assert_eq!(v, concat_then_weigh(&a, &b, &r));
    assert_eq!(g.a, array![0.1, -0.2]);
    assert_eq!(g.b, array![0.3, -0.4, 0.5]);
    let (v, g) = sum_copies_backward(&array![1.0, -1.0, 2.0, 0.5], 1.0);
    assert_eq!(v, sum_copies(&array![1.0, -1.0, 2.0, 0.5]));
    assert_eq!(g.v, array![3.0, 3.0, 3.0, 3.0]);
    gradcheck(&(a.clone(), b.clone()), |(a, b)| {
        concat_then_weigh_backward(a, b, &r, 1.0)
    })
    .unwrap();
}

/// Exercise 3: `c = [a; x]`, `z = U c`; `a` receives `U_aᵀ δ` and `x` receives `U_xᵀ δ`.
#[differentiable]
fn stacked(a: &Array1<f64>, x: &Array1<f64>, u: &Array2<f64>, r: &Array1<f64>) -> f64 {
    let c = concat(Axis(0), &[a, x]);
    let z = u.dot(&c);
    z.dot(r)
}

#[test]
fn exercise_3_concat_of_hidden_and_raw_input() {
    let a = array![0.5, 1.0];
    let x = array![1.0, 2.0];
    let u = array![[1.0, -1.0, 0.5, 2.0], [0.25, 0.5, -1.5, 1.0]];
    let delta = array![0.7, -0.3]; // dL/dz
    let (v, g) = stacked_backward(&a, &x, &u, &delta, 1.0);
    assert_eq!(v, stacked(&a, &x, &u, &delta));
    let u_a = u.slice(ndarray::s![.., ..2]).to_owned();
    let u_x = u.slice(ndarray::s![.., 2..]).to_owned();
    assert_eq!(g.a, u_a.t().dot(&delta));
    assert_eq!(g.x, u_x.t().dot(&delta));
    gradcheck(
        &(a.clone(), x.clone(), u.clone(), delta.clone()),
        |(a, x, u, r)| stacked_backward(a, x, u, r, 1.0),
    )
    .unwrap();
}
