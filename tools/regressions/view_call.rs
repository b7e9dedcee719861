//! Regression (found by tools/gen_fuzz_programs.py, calls of generated
//! functions): a differentiable function that takes an `ArrayView` parameter,
//! called as `g(p.view())` (or with a local bound to `p.view()`), compiles as
//! plain Rust, but the generated `f_backward` does not: `.view()` is
//! transparent to the macro, so the call inside the backward passes `p`, a
//! `&Array1<f64>`, where `g_backward` / `g_vjp` expect an `ArrayView1<f64>`
//! (error[E0308]: expected `ArrayBase<ViewRepr<&f64>, ..>`, found
//! `&ArrayBase<OwnedRepr<f64>, ..>`). Checked by tests/fuzz_regressions.rs.
use backprop::prelude::*;

#[differentiable]
fn g(v: ArrayView1<f64>) -> f64 {
    sum(&v) + v.dot(&v)
}

#[differentiable]
fn through_view(p: &Array1<f64>) -> f64 {
    g(p.view())
}

#[differentiable]
fn through_a_local_view(p: &Array1<f64>) -> f64 {
    let v = p.view();
    g(v) * 2.0
}

fn main() {
    let p = array![1.0, -2.0];
    let (v, grad) = through_view_backward(&p, 1.0);
    assert_eq!(v, through_view(&p));
    assert_eq!(grad.p, array![3.0, -3.0]);
    let (v, grad) = through_a_local_view_backward(&p, 1.0);
    assert_eq!(v, through_a_local_view(&p));
    assert_eq!(grad.p, array![6.0, -6.0]);
}
