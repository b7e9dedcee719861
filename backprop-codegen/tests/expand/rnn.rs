// An Elman RNN: `h` and `loss` are carried across the steps and the recurrent
// weight `w` is used at every step, so its gradient is accumulated over the
// reversed iterations; each step's values are kept in `steps`.
use backprop::prelude::*;

#[differentiable(wrt(w, u, v))]
pub fn rnn(w: &Array2<f64>, u: &Array2<f64>, v: &Array1<f64>, h0: &Array1<f64>, xs: &Array2<f64>) -> f64 {
    let mut h = h0.to_owned();
    let mut loss = 0.0;
    for t in 0..xs.nrows() {
        h = tanh(&(w.dot(&h) + u.dot(&xs.row(t))));
        loss += v.dot(&h);
    }
    loss
}
