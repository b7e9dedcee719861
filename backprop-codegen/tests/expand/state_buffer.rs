// An RNN whose states are written into the rows of one zero buffer: the
// write takes the buffer (its rule reads only the buffer's shape), the
// rows read and written are settled (the loop counts up and writes row
// `t + 1`), so each step keeps neither: the reverse sweep reads them back
// from the buffer the loop leaves, and clears and adds rows of one
// gradient.
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
