//! Regression (found by tools/gen_fuzz_programs.py --seed 803, program
//! f0079): an early `return` inside an `if` inside an `if` in a loop. The
//! outer arm's reverse sweep holds its array result by reference (it
//! borrows it from the branch's result), and the inner arm's rules passed
//! it as `&t` again, a `&&Array` no rule takes: the generated backward did
//! not compile. Checked by tests/fuzz_regressions.rs.
use backprop::prelude::*;

#[differentiable]
fn nested_return(p1: &Array1<f64>, p2: &Array1<f64>) -> f64 {
    let mut t2 = p2.mapv(|v| v * v);
    let t3 = p2.sum();
    for i in 0..p2.len() - 1 {
        t2 -= p2[i + 1] - p2[i];
        if p1.sum() >= 0.0371 || (p2[i + 1] - p2[i]) > 0.0 {
            return (&t2 + t3).mean().unwrap();
        }
    }
    t3 + p2.dot(&t2)
}

fn main() {
    for (p1, p2) in [
        (array![1.0, 0.5], array![0.5, -1.0, 2.0]),
        (array![-1.0, 0.5], array![2.0, 1.0, 0.5]),
    ] {
        let (v, _) = nested_return_backward(&p1, &p2, 1.0);
        assert_eq!(v, nested_return(&p1, &p2));
        gradcheck(&(p1.clone(), p2.clone()), |(p1, p2)| nested_return_backward(p1, p2, 1.0))
            .unwrap();
    }
}
