//! Regression (found by tools/gen_fuzz_programs.py, loops and branches): a
//! view of a temporary computed inside an `if` arm or a `for` body
//! (`exp(m).t()`, `m.t().t()`) compiles as plain Rust, and the same code
//! compiles through the macro in straight-line code, but inside a region the
//! generated backward does not: error[E0505] "cannot move out of value
//! because it is borrowed" for `exp(m).t()`, error[E0716] "temporary value
//! dropped while borrowed" for `m.t().t()` (the region keeps its values for
//! the reverse sweep, moving the temporary the view still borrows). A view
//! of a name (`a.t()`) is fine. Checked by tests/fuzz_regressions.rs.
use backprop::prelude::*;

#[differentiable]
fn transpose_in_an_arm(m: &Array2<f64>) -> f64 {
    let t = if m[[0, 0]] > 0.0 {
        exp(m).t().dot(m)
    } else {
        m * 2.0
    };
    sum(&t)
}

#[differentiable]
fn double_transpose_in_an_arm(m: &Array2<f64>) -> f64 {
    let t = if m[[0, 0]] > 0.0 {
        m.t().t().dot(m)
    } else {
        m * 2.0
    };
    sum(&t)
}

#[differentiable]
fn transpose_in_a_loop(m: &Array2<f64>) -> f64 {
    let mut s = 0.0;
    for _i in 0..2 {
        s += sum(&exp(m).t());
    }
    s
}

fn main() {
    let m = array![[0.5, -1.0], [0.25, 2.0]];
    let (v, _) = transpose_in_an_arm_backward(&m, 1.0);
    assert_eq!(v, transpose_in_an_arm(&m));
    backprop::gradcheck(&(m.clone(),), |(m,)| transpose_in_an_arm_backward(m, 1.0)).unwrap();
    let (v, _) = double_transpose_in_an_arm_backward(&m, 1.0);
    assert_eq!(v, double_transpose_in_an_arm(&m));
    backprop::gradcheck(&(m.clone(),), |(m,)| {
        double_transpose_in_an_arm_backward(m, 1.0)
    })
    .unwrap();
    let (v, g) = transpose_in_a_loop_backward(&m, 1.0);
    assert_eq!(v, transpose_in_a_loop(&m));
    assert_eq!(g.m, m.mapv(f64::exp) * 2.0);
}
