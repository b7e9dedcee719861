//! The standard networks: the nine-parameter sigmoid network of the
//! backprop-by-hand lesson, the two-head network of the fork-rule lesson,
//! an MLP and an Elman RNN (the benchmarks' workloads (a), (b), (c), (e)),
//! a recurrence whose step is a call of another differentiable function,
//! and an RNN written into a state buffer beside the same RNN with its
//! state carried (workload (g)).

use backprop::prelude::*;

/// The lesson's network: `L = ½ (σ(v1 h1 + v2 h2 + c) − y)²` with
/// `h_i = σ(w_i1 x1 + w_i2 x2 + b_i)`.
#[differentiable(hvp, wrt(w11, w12, b1, w21, w22, b2, v1, v2, c))]
#[allow(clippy::too_many_arguments)] // the lesson's twelve numbers, as written
pub fn network(
    w11: f64,
    w12: f64,
    b1: f64,
    w21: f64,
    w22: f64,
    b2: f64,
    v1: f64,
    v2: f64,
    c: f64,
    x1: f64,
    x2: f64,
    y: f64,
) -> f64 {
    let h1 = sigmoid(w11 * x1 + w12 * x2 + b1);
    let h2 = sigmoid(w21 * x1 + w22 * x2 + b2);
    let p = sigmoid(v1 * h1 + v2 * h2 + c);
    0.5 * (p - y).powi(2)
}

/// The fork-rule lesson's network: the trunk `a1` feeds both heads, a
/// softmax classifier and a regression.
#[differentiable(hvp, wrt(w1, b1, w2, b2, v, c))]
#[allow(clippy::too_many_arguments)] // the network's parameters and data, as written
pub fn two_heads(
    w1: &Array2<f64>,
    b1: &Array1<f64>,
    w2: &Array2<f64>,
    b2: &Array1<f64>,
    v: &Array2<f64>,
    c: &Array1<f64>,
    x: &Array2<f64>,
    labels: &[usize],
    y: &Array2<f64>,
) -> f64 {
    let a1 = relu(&(x.dot(&w1.t()) + b1));
    let loss_a = softmax_cross_entropy(&(a1.dot(&w2.t()) + b2), labels);
    let loss_b = mse(&(a1.dot(&v.t()) + c), y);
    loss_a + loss_b
}

/// A one-hidden-layer classifier: ReLU, then softmax cross-entropy.
#[differentiable(hvp, wrt(w1, b1, w2, b2))]
pub fn mlp(
    w1: &Array2<f64>,
    b1: &Array1<f64>,
    w2: &Array2<f64>,
    b2: &Array1<f64>,
    x: &Array2<f64>,
    labels: &[usize],
) -> f64 {
    let h = relu(&(x.dot(w1) + b1));
    let logits = h.dot(w2) + b2;
    softmax_cross_entropy(&logits, labels)
}

/// An Elman RNN over the rows of `xs`: one recurrent matrix `w` shared by
/// every step, and a squared error summed over the steps.
#[differentiable(wrt(w, u, b, v))]
pub fn rnn(
    w: &Array2<f64>,
    u: &Array2<f64>,
    b: &Array1<f64>,
    v: &Array1<f64>,
    h0: &Array1<f64>,
    xs: &Array2<f64>,
    ys: &Array1<f64>,
) -> f64 {
    let mut h = h0.to_owned();
    let mut loss = 0.0;
    for t in 0..xs.nrows() {
        h = tanh(&(w.dot(&h) + u.dot(&xs.row(t)) + b));
        let pred = v.dot(&h);
        loss += (pred - ys[t]).powi(2);
    }
    loss
}

/// One step of a recurrence, for [`rnn_of_calls`]: its rule takes the state
/// as the `&Array1<f64>` its signature says, so a loop that calls it keeps
/// the state as arrays, handing each back from one iteration to the one
/// before.
#[differentiable(wrt(w, h))]
pub fn cell(w: &Array2<f64>, h: &Array1<f64>, x: &Array1<f64>) -> Array1<f64> {
    tanh(&(w.dot(h) + x))
}

/// A recurrence whose step is a call of [`cell`].
#[differentiable(wrt(w, h0))]
pub fn rnn_of_calls(w: &Array2<f64>, h0: &Array1<f64>, xs: &Array2<f64>) -> f64 {
    let mut h = h0.to_owned();
    let mut loss = 0.0;
    for t in 0..xs.nrows() {
        h = cell(w, &h, &xs.row(t).to_owned());
        loss += sum(&(&h * &h));
    }
    loss
}

/// An RNN whose states are the rows of one zero-initialised buffer:
/// `h[t + 1] = tanh(W h[t] + x_t)`, written with `h.row_mut(t + 1)`, the
/// loss the sum of the rows after the first (`tests/writes.rs`, and the
/// bench's workload (g)).
#[differentiable(wrt(w))]
pub fn rnn_buffer(w: &Array2<f64>, xs: &Array2<f64>) -> f64 {
    let (t_max, n) = xs.dim();
    let mut h = Array2::<f64>::zeros((t_max + 1, n));
    for t in 0..t_max {
        let next = (w.dot(&h.row(t)) + xs.row(t)).tanh();
        h.row_mut(t + 1).assign(&next);
    }
    h.slice(s![1.., ..]).sum()
}

/// [`rnn_buffer`] with the state carried from one step to the next: the
/// same work.
#[differentiable(wrt(w))]
pub fn rnn_carried(w: &Array2<f64>, xs: &Array2<f64>) -> f64 {
    let n = xs.ncols();
    let mut state = Array1::<f64>::zeros(n);
    let mut total = 0.0;
    for t in 0..xs.nrows() {
        state = (w.dot(&state) + xs.row(t)).tanh();
        total += state.sum();
    }
    total
}
