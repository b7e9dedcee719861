//! Regression (found by tools/gen_fuzz_programs.py, branches): an array
//! variable that some arm of an `if` does not assign (an `if` without `else`,
//! an `else if` chain without a final `else`, or arms assigning different
//! variables), returned by name as the function's array output, makes the
//! generated backward fail to compile (error[E0308]:
//! `if` and `else` have incompatible types: expected `(ArrayBase<OwnedRepr<f64>,
//! ..>,)`, found `(&ArrayBase<OwnedRepr<f64>, ..>,)`): the implicit `else`
//! passes the variable through by reference. With an explicit `else`, a
//! scalar, or an output expression (`t * 1.0`) it compiles. Checked by
//! tests/fuzz_regressions.rs.
use backprop::prelude::*;

#[differentiable]
fn scaled_when_positive(m: &Array2<f64>) -> Array2<f64> {
    let mut t = m * 2.0;
    if m[[0, 0]] > 0.0 {
        t *= 3.0;
    }
    t
}

#[differentiable]
fn one_of_two_updated(m: &Array2<f64>) -> Array2<f64> {
    let mut t = m * 2.0;
    let mut u = m * 1.0;
    if m[[0, 0]] > 0.0 {
        t *= 3.0;
    } else {
        u += 1.0;
    }
    let _unused = u;
    t
}

fn main() {
    let m = array![[1.0, -1.0], [0.5, 2.0]];
    let up = array![[1.0, 1.0], [1.0, 2.0]];
    let (v, g) = scaled_when_positive_backward(&m, &up);
    assert_eq!(v, scaled_when_positive(&m));
    assert_eq!(g.m, &up * 6.0);
    let (v, g) = one_of_two_updated_backward(&m, &up);
    assert_eq!(v, one_of_two_updated(&m));
    assert_eq!(g.m, &up * 6.0);
}
