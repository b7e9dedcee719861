// Nested loops that keep records: the inner loop's records of every run
// go into one vector of the whole function (`steps_1`, declared first),
// each run marking where its own start (`steps_1_at`), which is all the
// outer loop keeps of it; the reverse sweep drains each run's records
// from its mark, the runs in reverse order.
use backprop::prelude::*;

#[differentiable]
pub fn damped(x: &[f64], k: f64) -> f64 {
    let mut s = 1.0;
    for i in 0..x.len() {
        for j in 0..i {
            s = (s * k + x[i] * x[j]).tanh();
        }
    }
    s
}
