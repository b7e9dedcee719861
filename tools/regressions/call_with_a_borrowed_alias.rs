//! Regression (found by tools/gen_fuzz_programs.py, calls): a local bound to
//! a borrow (`let r = &t;` of a local, or `let r = &out;` of an owned
//! parameter) passed to a differentiable function that takes `&Array2<f64>`
//! compiles as plain Rust, but the generated backward does not (error[E0308]
//! mismatched types: the alias is replaced by the owned value, or by `&&`).
//! `g(&t)` and an alias of a reference parameter (`let r = p; g(r)`) are
//! fine. Checked by tests/fuzz_regressions.rs.
use backprop::prelude::*;

#[differentiable]
fn g(m: &Array2<f64>) -> f64 {
    sum(m)
}

#[differentiable]
fn alias_of_a_local(p: &Array2<f64>) -> f64 {
    let t = p * 2.0;
    let r = &t;
    g(r)
}

#[differentiable]
fn alias_of_an_owned_parameter(out: Array2<f64>) -> f64 {
    let r = &out;
    g(r) * 3.0
}

fn main() {
    let p = array![[1.0, 2.0], [3.0, 4.0]];
    let (v, grad) = alias_of_a_local_backward(&p, 1.0);
    assert_eq!(v, alias_of_a_local(&p));
    assert_eq!(grad.p, Array2::from_elem((2, 2), 2.0));
    let (v, grad) = alias_of_an_owned_parameter_backward(p.clone(), 1.0);
    assert_eq!(v, alias_of_an_owned_parameter(p.clone()));
    assert_eq!(grad.out, Array2::from_elem((2, 2), 3.0));
}
