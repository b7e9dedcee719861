//! A loop's carried array that the reverse sweep reads is kept as the rows of
//! one buffer (`bp::Rows`), and its new value is computed into the buffer of
//! the value before (`bp::Spare`, `bp::dot_reuse`), as a hand-written
//! recurrent network keeps its states. Each function here takes that path in
//! another form (a vector-matrix product, a state that changes shape, a state
//! read by many ops, nested loops; `control_flow.rs` runs the Elman network
//! over no step, one and more) or must not take it
//! (a called function reads the state): the value must equal the original
//! function's bit for bit, and every gradient must pass central differences
//! and equal the same function unrolled by hand.

use backprop::prelude::*;
use backprop_testkit::networks::{rnn_of_calls, rnn_of_calls_backward};
use backprop_testkit::random;

/// A vector-matrix recurrence, `h ← tanh(h W + x_t)`, loss `Σ_t Σ h_t`.
#[differentiable(wrt(w, h0))]
fn row_rnn(w: &Array2<f64>, h0: &Array1<f64>, xs: &Array2<f64>) -> f64 {
    let mut h = h0.to_owned();
    let mut loss = 0.0;
    for t in 0..xs.nrows() {
        h = tanh(&(h.dot(w) + xs.row(t)));
        loss += sum(&h);
    }
    loss
}

/// [`row_rnn`] over three steps, unrolled.
#[differentiable(wrt(w, h0))]
fn row_rnn_unrolled(w: &Array2<f64>, h0: &Array1<f64>, xs: &Array2<f64>) -> f64 {
    let h1 = tanh(&(h0.dot(w) + xs.row(0)));
    let h2 = tanh(&(h1.dot(w) + xs.row(1)));
    let h3 = tanh(&(h2.dot(w) + xs.row(2)));
    sum(&h1) + sum(&h2) + sum(&h3)
}

#[test]
fn a_vector_matrix_recurrence() {
    let mut s = 31;
    let w = random((4, 4), &mut s);
    let h0 = random(4, &mut s);
    let xs = random((3, 4), &mut s);
    let (v, g) = row_rnn_backward(&w, &h0, &xs, 1.0);
    assert_eq!(v.to_bits(), row_rnn(&w, &h0, &xs).to_bits());
    let (vu, gu) = row_rnn_unrolled_backward(&w, &h0, &xs, 1.0);
    assert!((v - vu).abs() < 1e-14);
    for (a, b) in g.w.iter().zip(&gu.w).chain(g.h0.iter().zip(&gu.h0)) {
        assert!((a - b).abs() < 1e-13, "{a} vs {b}");
    }
    gradcheck(&(w, h0), |(w, h0)| row_rnn_backward(w, h0, &xs, 1.0)).unwrap();
}

/// A `(1, n)` state broadcast against an `(m, n)` input: the state is
/// `(m, n)` from the first iteration on, so its rows differ in shape.
#[differentiable(wrt(a, h0))]
fn growing_state(a: &Array2<f64>, h0: &Array2<f64>, steps: usize) -> f64 {
    let mut h = h0.to_owned();
    let mut loss = 0.0;
    for _ in 0..steps {
        h = sigmoid(&(&h * 0.5 + a));
        loss += mean(&(&h * &h));
    }
    loss
}

#[differentiable(wrt(a, h0))]
fn growing_state_unrolled(a: &Array2<f64>, h0: &Array2<f64>) -> f64 {
    let h1 = sigmoid(&(h0 * 0.5 + a));
    let h2 = sigmoid(&(&h1 * 0.5 + a));
    let h3 = sigmoid(&(&h2 * 0.5 + a));
    mean(&(&h1 * &h1)) + mean(&(&h2 * &h2)) + mean(&(&h3 * &h3))
}

#[test]
fn a_state_that_changes_shape() {
    let mut s = 37;
    let a = random((3, 2), &mut s);
    let h0 = random((1, 2), &mut s);
    let (v, g) = growing_state_backward(&a, &h0, 3, 1.0);
    assert_eq!(v.to_bits(), growing_state(&a, &h0, 3).to_bits());
    assert_eq!(g.h0.shape(), &[1, 2]);
    let (vu, gu) = growing_state_unrolled_backward(&a, &h0, 1.0);
    assert!((v - vu).abs() < 1e-14);
    for (x, y) in g.a.iter().zip(&gu.a).chain(g.h0.iter().zip(&gu.h0)) {
        assert!((x - y).abs() < 1e-14, "{x} vs {y}");
    }
    gradcheck(&(a, h0), |(a, h0)| growing_state_backward(a, h0, 3, 1.0)).unwrap();
}

/// The starting state and the new one, each read by several ops: an
/// element, a product, a sum, a mean and the recurrence itself.
#[differentiable(wrt(w, h0))]
fn read_many_ways(w: &Array2<f64>, h0: &Array1<f64>, xs: &Array2<f64>) -> f64 {
    let mut h = h0.to_owned();
    let mut loss = 0.0;
    for t in 0..xs.nrows() {
        let gate = sigmoid(h[0]);
        let next = tanh(&(w.dot(&h) * gate + xs.row(t)));
        loss += next.dot(&h) + mean(&next) * sum(&h);
        h = next;
    }
    loss + sum(&h)
}

/// The `_backward` of a recurrence of `(w, h0)` over the rows of `xs`.
type Backward<G> = fn(&Array2<f64>, &Array1<f64>, &Array2<f64>, f64) -> (f64, G);

/// A recurrence of `(w, h0)` over the rows of `xs`, on random inputs: the
/// value equals the original function's bit for bit and the gradients pass
/// central differences.
fn check_recurrence<G: backprop::Gradient>(
    seed: u64,
    original: fn(&Array2<f64>, &Array1<f64>, &Array2<f64>) -> f64,
    backward: Backward<G>,
) {
    let mut s = seed;
    let w = random((3, 3), &mut s);
    let h0 = random(3, &mut s);
    let xs = random((4, 3), &mut s);
    let (v, _) = backward(&w, &h0, &xs, 1.0);
    assert_eq!(v.to_bits(), original(&w, &h0, &xs).to_bits());
    gradcheck(&(w, h0), |(w, h0)| backward(w, h0, &xs, 1.0)).unwrap();
}

#[test]
fn a_state_read_by_many_ops() {
    check_recurrence(41, read_many_ways, read_many_ways_backward);
}

#[test]
fn a_state_passed_to_a_called_function() {
    check_recurrence(43, rnn_of_calls, rnn_of_calls_backward);
}

/// A recurrence inside a loop over epochs: the inner loop's rows are made
/// anew for each outer iteration and kept with it.
#[differentiable(wrt(w, h0))]
fn nested_recurrence(w: &Array2<f64>, h0: &Array1<f64>, xs: &Array2<f64>, epochs: usize) -> f64 {
    let mut total = 0.0;
    let mut start = h0.to_owned();
    for _ in 0..epochs {
        let mut h = start.to_owned();
        for t in 0..xs.nrows() {
            h = tanh(&(w.dot(&h) + xs.row(t)));
            total += sum(&h);
        }
        start = &h * 0.5;
    }
    total
}

#[test]
fn a_recurrence_inside_a_loop() {
    let mut s = 47;
    let w = random((3, 3), &mut s);
    let h0 = random(3, &mut s);
    let xs = random((3, 3), &mut s);
    let (v, _) = nested_recurrence_backward(&w, &h0, &xs, 3, 1.0);
    assert_eq!(v.to_bits(), nested_recurrence(&w, &h0, &xs, 3).to_bits());
    gradcheck(&(w, h0), |(w, h0)| {
        nested_recurrence_backward(w, h0, &xs, 3, 1.0)
    })
    .unwrap();
}
