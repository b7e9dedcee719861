//! Regression (found by tools/gen_fuzz_programs.py, closures): in an
//! iterator closure `|u|` (`u: &f64`), a dereference `*u` in the condition
//! of an `if` in the body did not compile through the macro: error[E0614]
//! "type `f64` cannot be dereferenced" (the closure's reverse binds `u` as an
//! `f64` and passes the condition through as written). `*u` in the arms, or
//! a method of `u` in the condition (`u.sin() < 0.0371`), compiles.
use backprop::prelude::*;

#[differentiable]
fn deref_in_condition(p0: &Array1<f64>) -> f64 {
    p0.iter()
        .map(|u| if *u < 0.0371 { u.exp() } else { u.cos() })
        .sum::<f64>()
}

fn main() {
    let x = array![0.5, -0.3];
    let (v, _) = deref_in_condition_backward(&x, 1.0);
    assert_eq!(v, deref_in_condition(&x));
}
