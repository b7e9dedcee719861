//! Workload (g): an RNN `h_{t+1} = tanh(W h_t + x_t)` (hidden 16), the loss
//! the sum of the states, written two ways that do the same work: each
//! state written into row `t + 1` of one zero `(T + 1, n)` buffer
//! (`h.row_mut(t + 1).assign(..)`, the loss the sum of the slice `h[1..]`),
//! and the state carried from one iteration to the next
//! (`backprop_testkit::networks::{rnn_buffer, rnn_carried}`). Issue 16 asks
//! the written form to cost at most 1.1× the carried one.

use crate::check::same;
use backprop::prelude::*;
use backprop_testkit::networks::{
    rnn_buffer, rnn_buffer_backward, rnn_carried, rnn_carried_backward,
};
use backprop_testkit::random;

/// The hidden size.
pub const N: usize = 16;

/// `W` and the inputs `x_t` as the rows of `xs`.
#[derive(Clone, Debug)]
#[allow(missing_docs)]
pub struct Inputs {
    pub w: Array2<f64>,
    pub xs: Array2<f64>,
}

impl Inputs {
    /// Deterministic random inputs for `t` steps.
    pub fn new(t: usize) -> Self {
        let mut s = 41;
        Inputs {
            w: random((N, N), &mut s) * 0.3,
            xs: random((t, N), &mut s),
        }
    }
}

/// The buffer form's `_backward`.
#[inline(never)]
pub fn buffer(i: &Inputs) -> (f64, Array2<f64>) {
    let (v, g) = rnn_buffer_backward(&i.w, &i.xs, 1.0);
    (v, g.w)
}

/// The carried form's `_backward`.
#[inline(never)]
pub fn carried(i: &Inputs) -> (f64, Array2<f64>) {
    let (v, g) = rnn_carried_backward(&i.w, &i.xs, 1.0);
    (v, g.w)
}

/// The two agree (1e-9 relative), and each `_backward`'s value is its
/// function's.
pub fn verify() -> Result<(), String> {
    let i = Inputs::new(20);
    let (cv, cw) = carried(&i);
    let (bv, bw) = buffer(&i);
    if bv != rnn_buffer(&i.w, &i.xs) || cv != rnn_carried(&i.w, &i.xs) {
        return Err("(g) a backward's value is not its function's".to_owned());
    }
    let want = (cv, vec![("w", cw.iter().copied().collect())]);
    let got = (bv, vec![("w", bw.iter().copied().collect())]);
    same("(g) state buffer", "buffer", &want, &got)
}
