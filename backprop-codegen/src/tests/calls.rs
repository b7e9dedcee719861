//! Plans of calls: a tuple call's upstreams, the sweeps `backward_each`
//! repeats, and the `sin_cos` pass.

use super::*;

/// The upstream gradients of each call's rule, in the order of the
/// reverse sweep: an adjoint by name, or `zero of c`.
fn call_upstreams(r: &Region) -> Vec<Vec<String>> {
    r.reverse
        .iter()
        .filter_map(|s| match s {
            RevStep::Call { upstreams, .. } => Some(
                upstreams
                    .iter()
                    .map(|u| match u {
                        Upstream::Adj(d) => d.to_string(),
                        Upstream::Zero(o) => format!("zero of {}", name(r, *o)),
                    })
                    .collect(),
            ),
            _ => None,
        })
        .collect()
}

#[test]
fn a_tuple_call_passes_one_upstream_per_component() {
    // In a loop: where the angle gets no gradient, its value is kept for
    // the zero each iteration passes.
    let source = |tail: &str| {
        format!(
            "fn radii(x: f64, y: f64, n: usize) -> f64 {{
                let mut a = x;
                for _ in 0..n {{
                    let (r, theta) = polar(a, y);
                    a = {tail};
                }}
                a
            }}"
        )
    };
    let looped = |tail: &str, want: &[&str], keeps_theta: bool| {
        with_plan(&source(tail), Options::default(), |p| {
            let l = p.body.loops.values().next().expect("a loop");
            // One call of `polar_vjp`, not one per component.
            assert_eq!(call_upstreams(&l.body), [want]);
            let kept: Vec<String> = l.kept.iter().map(Ident::to_string).collect();
            assert_eq!(kept.contains(&"theta".to_owned()), keeps_theta, "{kept:?}");
        });
    };
    looped("r.exp()", &["d_r", "zero of theta"], true);
    // `exp`'s rule reads its output: nothing reads the angle.
    looped("r.exp() + theta.exp()", &["d_r", "d_theta"], false);
    // A `_` is bound where its zero needs its value.
    let unused = "fn f(x: f64, y: f64) -> f64 {
        let (r, _) = polar(x, y);
        let (_, t) = polar(y, x);
        r * t
    }";
    with_plan(unused, Options::default(), |p| {
        assert_eq!(
            call_upstreams(&p.body),
            [["zero of polar_0", "d_t"], ["d_r", "zero of polar_1"]]
        );
    });
    // A call of constants is a constant: no call, no rule.
    let constant = "fn f(x: f64, n: usize) -> f64 {
        let (r, _) = polar(n as f64, 1.0);
        x * r
    }";
    with_plan(constant, Options::default(), |p| {
        assert!(p.body.graph.calls.is_empty());
        assert!(call_upstreams(&p.body).is_empty());
    });
}

/// `check` of `plan::each` on `source`'s plan: `Ok`, or which refusal.
fn repeatable(source: &str) -> Result<(), &'static str> {
    let mut out = Ok(());
    with_plan(source, Options::default(), |p| {
        out = crate::plan::each::check(&p.body).map_err(|e| match e {
            crate::plan::each::Unrepeatable::Loop(_) => "loop",
            crate::plan::each::Unrepeatable::NotFloat(_) => "not a float",
        });
    });
    out
}

#[test]
fn each_repeats_a_sweep_of_floats_only() {
    // Floats through a branch, and a constant tuple's components (of its
    // signature's float type).
    assert_eq!(
        repeatable(
            "fn f(x: f64, y: f64, t: (f64, f64)) -> (f64, f64) {
                let s = x * x + y * y;
                let (mut a, mut b) = (0.0, 0.0);
                if s != 0.0 {
                    let r = s.sqrt();
                    a = x / r;
                    b = y.sin() * r;
                } else {
                    a = x;
                    b = y;
                }
                (a * (x - t.0), b * (y - t.1))
            }"
        ),
        Ok(())
    );
    assert_eq!(
        repeatable(
            "fn f(x: f64, n: usize) -> (f64, f64) {
                let mut p = 1.0;
                for _ in 0..n { p = p * x; }
                (p, x)
            }"
        ),
        Err("loop")
    );
    assert_eq!(
        repeatable("fn f(x: &Array1<f64>) -> (f64, f64) { (x.sum(), sum(&(x * x))) }"),
        Err("not a float")
    );
    // A component of a constant tuple not of the float type is not known.
    assert_eq!(
        repeatable("fn f(x: f64, t: (f32, f64)) -> (f64, f64) { (x * t.0, x * t.1) }"),
        Err("not a float")
    );
}

#[test]
fn sin_cos_pairs_the_sine_and_cosine_of_one_float() {
    let source = "fn f(t: f64, u: f64, x: &Array1<f64>) -> f64 {
        let (c, s) = (t.cos(), t.sin());
        let other = u.sin();
        c * s + other + sum(&(sin(x) * cos(x)))
    }";
    with_plan(source, Options::default(), |p| {
        let r = &p.body;
        let (sin, cos) = (ops(r, Op::Sin), ops(r, Op::Cos));
        // `t`'s pair; not `u`'s sine (no cosine), not the array's.
        assert_eq!(r.sin_cos.len(), 2);
        assert_eq!(r.sin_cos.get(&sin[0]), Some(&cos[0]));
        assert_eq!(r.sin_cos.get(&cos[0]), Some(&sin[0]));
    });
    let mut opts = Options::default();
    assert!(opts.switch_off("sin_cos"));
    with_plan(source, opts, |p| assert!(p.body.sin_cos.is_empty()));
}
