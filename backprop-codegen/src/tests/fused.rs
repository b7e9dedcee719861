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
    // A `while` loop, whose condition reads the sum.
    assert!(fused(
        "fn f(x: &Array1<f64>) -> f64 {
            let mut s = 0.0;
            let mut i = 0;
            while i < x.len() && s < 10.0 { s += x[i]; i += 1; }
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

/// Whether the function's one loop and the loop nested in it are fused.
fn fused_nested(source: &str) -> (bool, bool) {
    let mut fused = None;
    with_plan(source, Options::default(), |p| {
        let outer = p.body.loops.values().next().expect("a loop");
        let inner = outer.body.loops.values().next().expect("a nested loop");
        fused = Some((outer.fused, inner.fused));
    });
    fused.expect("planned")
}

#[test]
fn a_sum_through_nested_loops_is_fused_at_every_level() {
    assert_eq!(
        fused_nested(
            "fn f(x: &Array1<f64>, c: f64) -> f64 {
                let mut s = 0.0;
                for i in 0..x.len() {
                    for j in i..x.len() { s += (x[i] * x[j] - c).tanh(); }
                }
                s
            }"
        ),
        (true, true)
    );
    // A value of the outer iteration read by the inner (its accumulator
    // the inner loop's own), and `-=`.
    assert_eq!(
        fused_nested(
            "fn f(x: &Array1<f64>, c: f64) -> f64 {
                let mut s = 0.0;
                for i in 0..x.len() {
                    let a = (c * x[i]).sin();
                    for j in 0..i { s -= a * x[j]; }
                }
                s * s
            }"
        ),
        (true, true)
    );
}

#[test]
fn a_nested_loop_the_sum_does_not_pass_through_is_not_fused() {
    // The inner sum is squared before it is added: the outer is a sum,
    // the inner's adjoint is not the outer's.
    assert_eq!(
        fused_nested(
            "fn f(x: &Array1<f64>) -> f64 {
                let mut s = 0.0;
                for i in 0..x.len() {
                    let mut t = 0.0;
                    for j in 0..i { t += x[i] * x[j]; }
                    s += t * t;
                }
                s
            }"
        ),
        (true, false)
    );
    // The inner loop multiplies: neither is a sum.
    assert_eq!(
        fused_nested(
            "fn f(x: &Array1<f64>) -> f64 {
                let mut s = 1.0;
                for i in 0..x.len() {
                    for j in 0..i { s = s * x[j] + x[i]; }
                }
                s
            }"
        ),
        (false, false)
    );
}
