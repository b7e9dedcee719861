// A fixed-size array read element by element in nested loops: the
// generated code holds it as `bp::Fixed` and its gradient on the stack,
// and the sum through both loops is fused (`fused_sums`): each inner
// iteration's reverse runs right after it, seeded with one, into the
// outer's accumulators, which are scaled by `d_out` at the end. No loop
// keeps a record and the backward allocates nothing.
use backprop::prelude::*;

#[differentiable]
pub fn pairs(x: [f64; 4], c: f64) -> f64 {
    let mut s = 0.0;
    for i in 0..x.len() {
        for j in i..x.len() {
            s += c * x[i] * x[j];
        }
    }
    s
}
