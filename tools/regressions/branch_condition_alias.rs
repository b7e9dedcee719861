//! Regression (found by tools/gen_fuzz_programs.py, branches): an `if`
//! condition that passes a local reference alias to an op (`let t2 = &t1;
//! if sum(t2) > 0.5`) compiles as plain Rust, but the generated backward
//! does not: the alias is replaced by the owned value, so the condition calls
//! `sum(<Array1<f64>>)` (error[E0277]: `ArrayBase<OwnedRepr<f64>, ..>:
//! Operand` is not satisfied). `sum(&t1)` in the condition, or `t2.sum()`,
//! are fine. Checked by tests/fuzz_regressions.rs.
use backprop::prelude::*;

#[differentiable]
fn alias_in_condition(p: &Array1<f64>, x: f64) -> f64 {
    let t1 = p * x;
    let t2 = &t1;
    let mut s = x;
    if sum(t2) > 0.5 {
        s = s * 2.0;
    }
    s + sum(t2)
}

fn main() {
    let p = array![1.0, 2.0];
    let (v, g) = alias_in_condition_backward(&p, 0.5, 1.0);
    assert_eq!(v, alias_in_condition(&p, 0.5));
    // sum(t1) = 1.5 > 0.5: s = 2x, value 2x + 3x; d/dx = 5, d/dp = x each.
    assert_eq!(g.x, 2.0 + 3.0);
    assert_eq!(g.p, array![0.5, 0.5]);
}
