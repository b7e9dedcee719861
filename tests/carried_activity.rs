//! Activity belongs to each definition of a variable, not to the variable
//! (issue 29): a loop-carried value whose new value is a constant still sends
//! the adjoints its earlier reads gave it to the value it had before the
//! loop, and a loop that may run no iteration passes that value through.
//!
//! One test per form in which the rule could be decided once for the
//! variable: `for`, `while`, `loop`, nested loops, a branch or a `match` arm
//! inside a loop, a `break`, a `return`, an array, an element write, a
//! closure that captures the value, a fold, a constant from a parameter
//! outside `wrt(..)`, a field of a model, and loops that run no iteration.
//! Each function is checked against its derivative worked out by hand,
//! against central differences (`gradcheck`), forward mode against reverse
//! mode (`jvpcheck`: `NAME_jvp` against the gradient dotted with a
//! direction), and where it has one, `NAME_hvp` against central differences
//! of the gradient and the second derivative by hand.

use backprop::prelude::*;
use backprop::Gradient;

/// The gradient's field `x` of a backward, as `check_scalar` takes it.
macro_rules! field_x {
    ($backward:ident) => {
        |x| {
            let (v, g) = $backward(x, 1.0);
            (v, g.x)
        }
    };
}

/// `f` at `x`: its value and derivative through the four transformations,
/// checked against the derivative by hand.
fn check_scalar(
    x: f64,
    backward: impl Fn(f64) -> (f64, f64),
    jvp: impl Fn(f64, f64) -> (f64, f64),
    derivative: f64,
) {
    let (_, g) = backward(x);
    assert!(
        (g - derivative).abs() <= 1e-12 * derivative.abs().max(1.0),
        "reverse mode: {g}, by hand: {derivative}"
    );
    let (_, t) = jvp(x, 1.0);
    assert!(
        (t - derivative).abs() <= 1e-12 * derivative.abs().max(1.0),
        "forward mode: {t}, by hand: {derivative}"
    );
    struct G(f64);
    impl Gradient for G {
        fn fields(&self) -> Vec<(&'static str, Vec<f64>)> {
            vec![("x", vec![self.0])]
        }
    }
    gradcheck(&(x,), |&(x,)| {
        let (v, g) = backward(x);
        (v, G(g))
    })
    .unwrap();
    jvpcheck(
        &(x,),
        &(0.75,),
        |&(x,)| {
            let (v, g) = backward(x);
            (v, G(g))
        },
        |&(x,), &(t,)| jvp(x, t),
    )
    .unwrap();
}

// ---------- a reset after the first read (the `for` loops of the issue
// are `b` and `e` in tests/fuzz_regressions.rs)

/// `(3x - x² - 2) · 2` in a `while` loop.
#[differentiable(hvp)]
fn while_reset(x: f64) -> f64 {
    let mut t1 = x * 3.0;
    let mut t2 = x * x;
    let mut n = 0;
    while n < 2 {
        t1 -= t2;
        t2 = 2.0;
        n += 1;
    }
    t1 * t2
}

#[test]
fn a_while_loop_reset() {
    for x in [0.5, 1.5, -2.0] {
        check_scalar(
            x,
            field_x!(while_reset_backward),
            while_reset_jvp,
            2.0 * (3.0 - 2.0 * x),
        );
        let (_, _, hv) = while_reset_hvp(x, 1.0);
        assert_eq!(hv.x, -4.0);
    }
}

/// `loop { .. break }`: x · x² · 2 · 2.
#[differentiable(hvp)]
fn loop_reset(x: f64) -> f64 {
    let mut t1 = x;
    let mut t2 = x * x;
    let mut n = 0;
    loop {
        t1 *= t2;
        t2 = 2.0;
        n += 1;
        if n >= 3 {
            break;
        }
    }
    t1 + t2
}

#[test]
fn a_loop_with_a_break_reset() {
    let x = 1.5;
    check_scalar(
        x,
        field_x!(loop_reset_backward),
        loop_reset_jvp,
        12.0 * x * x,
    );
    assert_eq!(loop_reset_hvp(x, 1.0).2.x, 24.0 * x);
}

/// Set from `x` at the top of each outer iteration, reset to a constant
/// after its first read in the inner loop: `2 (x² + 2x) + 1`.
#[differentiable(hvp)]
fn nested_reset(x: f64) -> f64 {
    let mut s = 0.0;
    let mut t = 0.0;
    for _ in 0..2 {
        t = x;
        for _ in 0..3 {
            s += t * x;
            t = 1.0;
        }
    }
    s + t
}

#[test]
fn nested_loops_reset_in_the_inner_one() {
    for x in [1.5, -0.25] {
        check_scalar(
            x,
            field_x!(nested_reset_backward),
            nested_reset_jvp,
            4.0 * x + 4.0,
        );
        assert_eq!(nested_reset_hvp(x, 1.0).2.x, 4.0);
    }
}

/// An array reset to a constant array after its first read:
/// `Σ x² + Σ x + n`.
#[differentiable(jvp)]
fn array_reset(x: &Array1<f64>) -> f64 {
    let mut h = x.to_owned();
    let mut s = 0.0;
    for _ in 0..2 {
        s += (&h * x).sum();
        h = Array1::ones(x.len());
    }
    s + h.sum()
}

#[test]
fn an_array_reset_to_a_constant_array() {
    let x = array![1.5, 0.5, -2.0];
    let (v, g) = array_reset_backward(&x, 1.0);
    assert_eq!(v, array_reset(&x));
    assert_eq!(g.x, x.mapv(|v| 2.0 * v + 1.0));
    gradcheck(&(x.clone(),), |(x,)| array_reset_backward(x, 1.0)).unwrap();
    let v = array![0.25, -1.0, 0.5];
    jvpcheck(
        &(x.clone(),),
        &(v,),
        |(x,)| array_reset_backward(x, 1.0),
        |(x,), (v,)| array_reset_jvp(x, v),
    )
    .unwrap();
}

/// An element written with a constant after its first read:
/// `x0 x1 + 2 x1`.
#[differentiable(jvp)]
fn element_reset(x: &Array1<f64>) -> f64 {
    let mut y = x.to_owned();
    let mut s = 0.0;
    for _ in 0..2 {
        s += y[0] * y[1];
        y[0] = 2.0;
    }
    s
}

#[test]
fn an_element_written_with_a_constant() {
    let x = array![1.5, 0.5];
    let (_, g) = element_reset_backward(&x, 1.0);
    assert_eq!(g.x, array![x[1], x[0] + 2.0]);
    gradcheck(&(x.clone(),), |(x,)| element_reset_backward(x, 1.0)).unwrap();
    jvpcheck(
        &(x.clone(),),
        &(array![0.3, -0.7],),
        |(x,)| element_reset_backward(x, 1.0),
        |(x,), (v,)| element_reset_jvp(x, v),
    )
    .unwrap();
}

/// The value first read inside a closure: `Σ a x + Σ a`.
#[differentiable(jvp)]
fn closure_reads_before_the_reset(x: f64, a: &Array1<f64>) -> f64 {
    let mut t = x;
    let mut s = 0.0;
    for _ in 0..2 {
        s += a.mapv(|v| v * t).sum();
        t = 1.0;
    }
    s
}

#[test]
fn a_closure_reads_the_value_before_its_reset() {
    let (x, a) = (1.5, array![1.5, 0.5, -0.25]);
    let (_, g) = closure_reads_before_the_reset_backward(x, &a, 1.0);
    assert_eq!(g.x, a.sum());
    assert_eq!(g.a, a.mapv(|_| x + 1.0));
    gradcheck(&(x, a.clone()), |(x, a)| {
        closure_reads_before_the_reset_backward(*x, a, 1.0)
    })
    .unwrap();
    jvpcheck(
        &(x, a.clone()),
        &(0.5, array![1.0, -1.0, 0.25]),
        |(x, a)| closure_reads_before_the_reset_backward(*x, a, 1.0),
        |(x, a), (tx, ta)| closure_reads_before_the_reset_jvp(*x, a, *tx, ta),
    )
    .unwrap();
}

/// The constant from a parameter outside `wrt(..)`: `x · x · c`.
#[differentiable(hvp, wrt(x))]
fn reset_to_a_constant_parameter(x: f64, c: f64) -> f64 {
    let mut t1 = x;
    let mut t2 = x;
    for _ in 0..2 {
        t1 *= t2;
        t2 = c;
    }
    t1
}

#[test]
fn a_reset_to_a_parameter_outside_wrt() {
    let c = 0.7;
    check_scalar(
        1.5,
        |x| {
            let (v, g) = reset_to_a_constant_parameter_backward(x, c, 1.0);
            (v, g.x)
        },
        |x, t| reset_to_a_constant_parameter_jvp(x, c, t),
        2.0 * 1.5 * c,
    );
    assert_eq!(reset_to_a_constant_parameter_hvp(1.5, c, 1.0).2.x, 2.0 * c);
}

// ---------- resets that were right, pinned: branch, match, break, swap

/// Reset in one iteration only, by an `if`: `x · x² · 2 · 2`.
#[differentiable(hvp)]
fn branch_reset(x: f64) -> f64 {
    let mut t1 = x;
    let mut t2 = x * x;
    for i in 0..3 {
        t1 *= t2;
        if i == 0 {
            t2 = 2.0;
        }
    }
    t1
}

/// The same by a `match` arm.
#[allow(
    clippy::single_match,
    reason = "a reset in a `match` arm is the form tested"
)]
#[differentiable(hvp)]
fn match_reset(x: f64) -> f64 {
    let mut t1 = x;
    let mut t2 = x * x;
    for i in 0..3 {
        t1 *= t2;
        match i {
            0 => {
                t2 = 2.0;
            }
            _ => {}
        }
    }
    t1
}

/// A reset and a `break` that is not taken.
#[differentiable(hvp)]
fn break_after_reset(x: f64) -> f64 {
    let mut t1 = x;
    let mut t2 = x * x;
    for _ in 0..3 {
        t1 *= t2;
        t2 = 2.0;
        if t1 > 1000.0 {
            break;
        }
    }
    t1
}

/// A reset and an early `return` that is not taken.
#[differentiable(hvp)]
fn return_after_reset(x: f64) -> f64 {
    let mut t1 = x;
    let mut t2 = x * x;
    for _ in 0..3 {
        t1 *= t2;
        t2 = 2.0;
        if t1 > 1000.0 {
            return t1;
        }
    }
    t1
}

#[test]
fn a_reset_in_a_branch_a_match_arm_before_a_break_and_a_return() {
    let x = 1.5;
    let (d, dd) = (12.0 * x * x, 24.0 * x);
    check_scalar(x, field_x!(branch_reset_backward), branch_reset_jvp, d);
    check_scalar(x, field_x!(match_reset_backward), match_reset_jvp, d);
    check_scalar(
        x,
        field_x!(break_after_reset_backward),
        break_after_reset_jvp,
        d,
    );
    check_scalar(
        x,
        field_x!(return_after_reset_backward),
        return_after_reset_jvp,
        d,
    );
    assert_eq!(branch_reset_hvp(x, 1.0).2.x, dd);
    assert_eq!(match_reset_hvp(x, 1.0).2.x, dd);
    assert_eq!(break_after_reset_hvp(x, 1.0).2.x, dd);
    assert_eq!(return_after_reset_hvp(x, 1.0).2.x, dd);
}

/// A swap through a temporary: `(a, b) <- (b·a, a)` three times.
#[differentiable(hvp)]
fn swap(x: f64, y: f64) -> f64 {
    let mut a = x;
    let mut b = y;
    for _ in 0..3 {
        let t = a;
        a *= b;
        b = t;
    }
    a + b
}

#[test]
fn a_swap_through_a_temporary() {
    // a = x²y·xy... by iterations: (x, y) -> (xy, x) -> (x²y, xy) -> (x³y², x²y).
    let (x, y) = (1.5, 0.5);
    let (v, g) = swap_backward(x, y, 1.0);
    assert_eq!(v, x.powi(3) * y * y + x * x * y);
    assert!((g.x - (3.0 * x * x * y * y + 2.0 * x * y)).abs() < 1e-12);
    assert!((g.y - (2.0 * x.powi(3) * y + x * x)).abs() < 1e-12);
    gradcheck(&(x, y), |&(x, y)| swap_backward(x, y, 1.0)).unwrap();
    jvpcheck(
        &(x, y),
        &(0.3, -0.8),
        |&(x, y)| swap_backward(x, y, 1.0),
        |&(x, y), &(tx, ty)| swap_jvp(x, y, tx, ty),
    )
    .unwrap();
    hvpcheck(&(x, y), &(0.3, -0.8), |&(x, y), &(tx, ty)| {
        swap_hvp(x, y, tx, ty)
    })
    .unwrap();
}

/// A reset outside any loop, in a branch.
#[differentiable(hvp)]
fn branch_reset_outside_a_loop(x: f64) -> f64 {
    let mut t1 = x * x;
    let t2 = t1 * x;
    if x > 0.0 {
        t1 = 2.0;
    }
    t1 + t2
}

#[test]
fn a_reset_in_a_branch_outside_a_loop() {
    for (x, d) in [(1.5, 3.0 * 1.5 * 1.5), (-0.5, 2.0 * -0.5 + 3.0 * 0.25)] {
        check_scalar(
            x,
            field_x!(branch_reset_outside_a_loop_backward),
            branch_reset_outside_a_loop_jvp,
            d,
        );
    }
}

/// A model's field carried and reset.
#[derive(Clone, Debug, Differentiable)]
struct Pair<T: backprop::Float> {
    a: T,
    b: T,
}

#[differentiable(hvp, wrt(m))]
fn field_reset(m: &Pair<f64>, n: usize) -> f64 {
    let mut t1 = m.a;
    let mut t2 = m.b;
    for _ in 0..n {
        t1 *= t2;
        t2 = 2.0;
    }
    t1 + t2
}

#[test]
fn a_field_of_a_model_reset() {
    let m = Pair { a: 1.5, b: 0.5 };
    let d = Pair { a: 0.25, b: -1.0 };
    for n in 0..4 {
        let (v, g) = field_reset_backward(&m, n, 1.0);
        assert_eq!(v, field_reset(&m, n));
        let (da, db) = match n {
            0 => (1.0, 1.0),
            // a · b · 2^(n-1) + 2
            _ => (m.b * 2f64.powi(n as i32 - 1), m.a * 2f64.powi(n as i32 - 1)),
        };
        assert_eq!((g.m.a, g.m.b), (da, db), "n = {n}");
        gradcheck(&m, |m| {
            let (v, g) = field_reset_backward(m, n, 1.0);
            (v, g.m)
        })
        .unwrap();
        jvpcheck(
            &m,
            &d,
            |m| {
                let (v, g) = field_reset_backward(m, n, 1.0);
                (v, g.m)
            },
            |m, d| field_reset_jvp(m, n, d),
        )
        .unwrap();
        hvpcheck(&m, &d, |m, d| {
            let (v, g, hv) = field_reset_hvp(m, n, d);
            (v, g.m, hv.m)
        })
        .unwrap();
    }
}

// ---------- loops that may run no iteration: the value before passes through

/// `x²` if `n == 0`, else 2.
#[differentiable(hvp, wrt(x))]
fn zero_trip_for(x: f64, n: usize) -> f64 {
    let mut t = x * x;
    for _ in 0..n {
        t = 2.0;
    }
    t
}

/// The same as a `while` loop.
#[differentiable(hvp, wrt(x))]
fn zero_trip_while(x: f64, n: usize) -> f64 {
    let mut t = x * x;
    let mut i = 0;
    while i < n {
        t = 2.0;
        i += 1;
    }
    t
}

/// The same inside a loop that runs.
#[differentiable(hvp, wrt(x))]
fn zero_trip_nested(x: f64, n: usize) -> f64 {
    let mut t = x * x;
    for _ in 0..2 {
        for _ in 0..n {
            t = 2.0;
        }
    }
    t
}

/// The same as a fold over an array of constants.
#[differentiable(hvp, wrt(x))]
fn zero_trip_fold(x: f64, c: &Array1<f64>) -> f64 {
    c.iter().fold(x * x, |_acc, &ci| ci)
}

#[test]
fn a_loop_that_runs_no_iteration_passes_the_value_through() {
    let x = 1.5;
    let twos = Array1::from_elem(3, 2.0);
    for n in 0..3 {
        let d = if n == 0 { 2.0 * x } else { 0.0 };
        let dd = if n == 0 { 2.0 } else { 0.0 };
        check_scalar(
            x,
            |x| {
                let (v, g) = zero_trip_for_backward(x, n, 1.0);
                (v, g.x)
            },
            |x, t| zero_trip_for_jvp(x, n, t),
            d,
        );
        check_scalar(
            x,
            |x| {
                let (v, g) = zero_trip_while_backward(x, n, 1.0);
                (v, g.x)
            },
            |x, t| zero_trip_while_jvp(x, n, t),
            d,
        );
        check_scalar(
            x,
            |x| {
                let (v, g) = zero_trip_nested_backward(x, n, 1.0);
                (v, g.x)
            },
            |x, t| zero_trip_nested_jvp(x, n, t),
            d,
        );
        let c = &twos.slice(s![..n]).to_owned();
        check_scalar(
            x,
            |x| {
                let (v, g) = zero_trip_fold_backward(x, c, 1.0);
                (v, g.x)
            },
            |x, t| zero_trip_fold_jvp(x, c, t),
            d,
        );
        assert_eq!(zero_trip_for_hvp(x, n, 1.0).2.x, dd);
        assert_eq!(zero_trip_while_hvp(x, n, 1.0).2.x, dd);
        assert_eq!(zero_trip_nested_hvp(x, n, 1.0).2.x, dd);
        assert_eq!(zero_trip_fold_hvp(x, c, 1.0).2.x, dd);
    }
}

/// An array that a loop of `0..n` resets.
#[differentiable(jvp, wrt(x))]
fn zero_trip_array(x: &Array1<f64>, n: usize) -> f64 {
    let mut h = x * x;
    for _ in 0..n {
        h = Array1::ones(2);
    }
    h.sum()
}

#[test]
fn an_array_a_loop_of_no_iteration_passes_through() {
    let x = array![1.5, -0.5];
    for n in 0..3 {
        let (_, g) = zero_trip_array_backward(&x, n, 1.0);
        let by_hand = if n == 0 { &x * 2.0 } else { Array1::zeros(2) };
        assert_eq!(g.x, by_hand);
        gradcheck(&(x.clone(),), |(x,)| zero_trip_array_backward(x, n, 1.0)).unwrap();
        jvpcheck(
            &(x.clone(),),
            &(array![0.5, 2.0],),
            |(x,)| zero_trip_array_backward(x, n, 1.0),
            |(x,), (v,)| zero_trip_array_jvp(x, n, v),
        )
        .unwrap();
    }
}

// ---------- the planning passes under a reset: rows kept in a buffer, a
// loop's accumulators in a nested loop, values computed again in the
// reverse, row writes, exits, branch values, shadowing, closures

#[differentiable(jvp)]
fn settled_reset(x: &Array2<f64>) -> f64 {
    let mut h = Array2::<f64>::zeros((2, 2));
    let mut acc = 0.0;
    for t in 0..2 {
        for i in 0..2 {
            h[[t, i]] = x[[t, i]] * acc + x[[t, i]];
        }
        for i in 0..2 {
            acc += h[[t, i]] * h[[t, i]];
        }
        h = Array2::zeros((2, 2));
    }
    acc + h.sum()
}

#[differentiable(jvp)]
fn rows_reset(w: &Array2<f64>, x: &Array1<f64>) -> f64 {
    let mut h = x.to_owned();
    let mut s = 0.0;
    for t in 0..4 {
        h = tanh(&w.dot(&h));
        s += h.sum();
        if t == 1 {
            h = Array1::ones(2);
        }
    }
    s
}

#[differentiable(jvp)]
fn nested_acc_reset(w: &Array1<f64>, x: f64) -> f64 {
    let mut s = 0.0;
    let mut c = x;
    for _ in 0..2 {
        for i in 0..2 {
            s += w[i] * c;
            c = 0.5;
        }
        c = x * x;
    }
    s + c
}

#[differentiable(jvp)]
fn remat_reset(x: &Array1<f64>, y: f64) -> f64 {
    let mut a = y;
    let mut s = 0.0;
    for i in 0..3 {
        let e = x[i] * a;
        s += e.sin();
        a = 1.5;
    }
    s
}

#[differentiable(jvp)]
fn write_then_reset_row(x: &Array2<f64>) -> f64 {
    let mut y = x.to_owned();
    let mut s = 0.0;
    for i in 0..2 {
        s += y.row(i).sum() * y[[1 - i, 0]];
        y.row_mut(i).assign(&Array1::ones(2));
    }
    s + y.sum()
}

#[differentiable(jvp)]
fn while_break_reset(x: f64) -> f64 {
    let mut a = x;
    let mut b = x * x;
    let mut n = 0;
    while n < 5 {
        a += b.sin();
        b = 0.25;
        n += 1;
        if a > 100.0 {
            break;
        }
    }
    a * b
}

#[differentiable(jvp)]
fn branch_value_reset(x: f64) -> f64 {
    let mut a = x;
    let mut b = x;
    for i in 0..3 {
        a = if i == 1 { a * b } else { a + b };
        b = if i == 0 { 2.0 } else { b };
    }
    a + b
}

#[differentiable(jvp)]
fn shadow_reset(x: f64) -> f64 {
    let mut t = x;
    let mut s = 0.0;
    for _ in 0..2 {
        let u = t;
        s += u * x;
        t = 3.0;
        let t2 = u;
        s += t2;
    }
    s + t
}

#[differentiable(jvp)]
fn closure_fold_reset(x: f64, c: &Array1<f64>) -> f64 {
    let mut t = x;
    let mut s = 0.0;
    for _ in 0..2 {
        s += c.iter().fold(0.0, |acc, &ci| acc + ci * t);
        t = 0.5;
    }
    s
}

#[differentiable(jvp)]
fn zip_reset(x: f64, a: &Array1<f64>, b: &Array1<f64>) -> f64 {
    let mut t = x;
    let mut s = 0.0;
    for _ in 0..2 {
        s += Zip::from(a).and(b).map_collect(|&u, &v| u * v * t).sum();
        t = 0.5;
    }
    s
}

/// `gradcheck` and `jvpcheck` of a backward and its `_jvp` at `params`
/// along `direction`.
fn check_modes<
    P: backprop::Params,
    V: backprop::gradcheck::Output,
    G: Gradient,
    T: backprop::gradcheck::Output,
>(
    params: &P,
    direction: &P,
    backward: impl Fn(&P) -> (V, G) + Copy,
    jvp: impl Fn(&P, &P) -> (V, T),
) {
    gradcheck(params, backward).unwrap();
    jvpcheck(params, direction, backward, jvp).unwrap();
}

#[test]
fn resets_through_the_planning_passes() {
    let (x2, d2) = (
        array![[0.3, -0.5], [0.8, 0.2]],
        array![[0.1, 0.7], [-0.4, 0.9]],
    );
    let (x1, d1) = (array![0.3, -0.5], array![0.6, 0.2]);
    let (x3, d3) = (array![0.3, -0.5, 0.9], array![0.6, 0.2, -0.1]);
    check_modes(
        &(x2.clone(),),
        &(d2.clone(),),
        |(x,)| settled_reset_backward(x, 1.0),
        |(x,), (v,)| settled_reset_jvp(x, v),
    );
    check_modes(
        &(x2.clone(), x1.clone()),
        &(d2.clone(), d1.clone()),
        |(w, x)| rows_reset_backward(w, x, 1.0),
        |(w, x), (dw, dx)| rows_reset_jvp(w, x, dw, dx),
    );
    check_modes(
        &(x1.clone(), 0.7),
        &(d1.clone(), 0.3),
        |(w, x)| nested_acc_reset_backward(w, *x, 1.0),
        |(w, x), (dw, dx)| nested_acc_reset_jvp(w, *x, dw, *dx),
    );
    check_modes(
        &(x3.clone(), 0.7),
        &(d3.clone(), 0.3),
        |(x, y)| remat_reset_backward(x, *y, 1.0),
        |(x, y), (dx, dy)| remat_reset_jvp(x, *y, dx, *dy),
    );
    check_modes(
        &(x2.clone(),),
        &(d2.clone(),),
        |(x,)| write_then_reset_row_backward(x, 1.0),
        |(x,), (v,)| write_then_reset_row_jvp(x, v),
    );
    check_modes(
        &(0.7,),
        &(1.0,),
        |&(x,)| while_break_reset_backward(x, 1.0),
        |&(x,), &(t,)| while_break_reset_jvp(x, t),
    );
    check_modes(
        &(0.7,),
        &(1.0,),
        |&(x,)| branch_value_reset_backward(x, 1.0),
        |&(x,), &(t,)| branch_value_reset_jvp(x, t),
    );
    check_modes(
        &(0.7,),
        &(1.0,),
        |&(x,)| shadow_reset_backward(x, 1.0),
        |&(x,), &(t,)| shadow_reset_jvp(x, t),
    );
    check_modes(
        &(0.7, x1.clone()),
        &(1.0, d1.clone()),
        |(x, c)| closure_fold_reset_backward(*x, c, 1.0),
        |(x, c), (tx, tc)| closure_fold_reset_jvp(*x, c, *tx, tc),
    );
    check_modes(
        &(0.7, x1.clone(), x1.clone()),
        &(1.0, d1.clone(), d1.clone()),
        |(x, a, b)| zip_reset_backward(*x, a, b, 1.0),
        |(x, a, b), (tx, ta, tb)| zip_reset_jvp(*x, a, b, *tx, ta, tb),
    );
    // By hand, the ones the class got wrong: x·(w0 + w1·0.5)·... see each.
    // nested_acc_reset: s = Σ_outer (w0 c_o + w1 · 0.5), c_0 = x, c_1 = x², then + x².
    let (w, x) = (x1.clone(), 0.7);
    let (_, g) = nested_acc_reset_backward(&w, x, 1.0);
    assert!(
        (g.x - (w[0] + w[0] * 2.0 * x + 2.0 * x)).abs() < 1e-12,
        "{}",
        g.x
    );
    // shadow_reset: s = (x·x + x) + (3x + 3), + 3.
    let (_, g) = shadow_reset_backward(x, 1.0);
    assert!((g.x - (2.0 * x + 1.0 + 3.0)).abs() < 1e-12, "{}", g.x);
}
