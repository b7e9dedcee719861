// An RNN whose states are written into the rows of one zero buffer: the
// write takes the buffer (the row read before it is copied, and its rule
// reads only the buffer's shape), so each step keeps the row it read, not
// the buffer, and the reverse sweep clears and adds rows of one gradient.
use backprop::prelude::*;

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
