// A fixed-size array read element by element in nested loops: the
// generated code holds it as `bp::Fixed` and its gradient on the stack, the
// reverse reads each element again from the array and computes the inner
// loop's bounds again (`j_start = i`), so no loop keeps a record and the
// backward allocates nothing.
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
