//! The `fused_sums` pass: which loops run their reverse in the forward.

use super::*;

/// Whether the function's one loop is a fused sum.
fn fused(source: &str) -> bool {
    let mut fused = None;
    with_plan(source, Options::default(), |p| {
        let l = p.body.loops.values().next().expect("a loop");
        fused = Some(l.fused);
    });
    fused.expect("planned")
}

#[test]
fn a_sum_of_terms_that_do_not_read_it_is_fused() {
    assert!(fused(
        "fn f(x: &Array1<f64>, k: f64) -> f64 {
            let mut s = 0.0;
            for i in 0..x.len() { s += (k * x[i]).tanh(); }
            s / 2.0
        }"
    ));
    // `s -= e`, and a carried count without an adjoint beside it.
    assert!(fused(
        "fn f(x: &Array1<f64>, k: f64) -> f64 {
            let mut s = 0.0;
            let mut m = 0;
            for i in 0..x.len() { s -= k * x[i] * m as f64; m += 1; }
            s
        }"
    ));
}

#[test]
fn a_loop_whose_adjoint_changes_from_one_iteration_to_the_next_is_not() {
    for source in [
        // The term reads the sum.
        "fn f(x: &Array1<f64>) -> f64 {
            let mut s = 1.0;
            for i in 0..x.len() { s += s * x[i]; }
            s
        }",
        // A product, not a sum.
        "fn f(x: &Array1<f64>) -> f64 {
            let mut s = 1.0;
            for i in 0..x.len() { s = s * x[i]; }
            s
        }",
        // Two carried adjoints.
        "fn f(x: &Array1<f64>) -> f64 {
            let (mut s, mut t) = (0.0, 0.0);
            for i in 0..x.len() { s += x[i]; t += s * x[i]; }
            s + t
        }",
        // The sum read by a condition.
        "fn f(x: &Array1<f64>) -> f64 {
            let mut s = 0.0;
            for i in 0..x.len() { if s > 1.0 { s += x[i]; } else { s += 2.0 * x[i]; } }
            s
        }",
        // A `while` loop.
        "fn f(x: &Array1<f64>) -> f64 {
            let mut s = 0.0;
            let mut i = 0;
            while i < x.len() { s += x[i]; i += 1; }
            s
        }",
        // An array sum.
        "fn f(x: &Array2<f64>) -> f64 {
            let mut s = Array1::<f64>::zeros(x.ncols());
            for i in 0..x.nrows() { s = s + tanh(&x.row(i)); }
            sum(&s)
        }",
    ] {
        assert!(!fused(source), "fused: {source}");
    }
}

#[test]
fn the_pass_can_be_switched_off() {
    with_plan(
        "fn f(x: &Array1<f64>) -> f64 {
            let mut s = 0.0;
            for i in 0..x.len() { s += x[i].sin(); }
            s
        }",
        unfused(),
        |p| assert!(!p.body.loops.values().next().expect("a loop").fused),
    );
}
