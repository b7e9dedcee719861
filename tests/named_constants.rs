//! Named constants in first and second order: imported ones (`PI`, `E`,
//! `LN_2`), the user's `const` and `static` floats, a `let` of one,
//! associated constants (`f64::EPSILON`, a type's `K`), on either side of
//! an operator, in a condition, as a call's argument, in a closure, in a
//! loop, in `f32`. Each function is `#[differentiable(hvp)]` (or `jvp`):
//! its value is the original's, its gradient and Hessian the ones worked
//! out by hand, and `gradcheck`, `jvpcheck` and `hvpcheck` pass.

use backprop::prelude::*;
use std::f64::consts::{E, LN_2, PI};

const C: f64 = 0.5;
static S: f64 = 1.5;
const F: f32 = 0.25;

struct Problem;

impl Problem {
    const K: f64 = 2.0;
}

/// `cos(2πx)`.
#[differentiable(hvp)]
fn wave(x: f64) -> f64 {
    (2.0 * PI * x).cos()
}

/// Constants on either side, in a `let`, static and associated.
#[differentiable(hvp)]
fn mixed(x: f64) -> f64 {
    let pi: f64 = PI;
    let c = C;
    x * E + PI * x * x + pi * c * x + S * x - Problem::K + x * f64::EPSILON - LN_2 / x
}

/// A constant in a condition, negated, under a method, as an exponent.
#[differentiable(hvp)]
fn branchy(x: f64) -> f64 {
    if x > PI / 4.0 {
        x.powf(E) + PI.sqrt() * x
    } else {
        -PI * x + C
    }
}

/// A constant passed to a differentiable function, and a call of one
/// with constants only.
#[differentiable(hvp)]
fn calls(x: f64) -> f64 {
    wave(PI * x) + wave(C) * x
}

/// Constants in closures and in a loop.
#[differentiable(jvp)]
fn in_closures(a: &Array1<f64>) -> f64 {
    let mut s = a.mapv(|v| v * PI + C).sum();
    for i in 0..a.len() {
        s += (a[i] * E).sin() * Problem::K;
    }
    s
}

/// Constants a loop captures: a `let` of one, an imported one, one in a
/// `while`; `3 (C x + π)`, then `((x k − C) k − C)` with `k = 2π`.
#[differentiable(hvp)]
fn in_loops(x: f64) -> f64 {
    let c = C;
    let k = PI * 2.0;
    let mut s = 0.0;
    for _ in 0..3 {
        s += c * x + PI;
    }
    let mut t = x;
    let mut n = 0;
    while n < 2 {
        t = t * k - C;
        n += 1;
    }
    s + t
}

/// A `let` of a named constant captured by closures, and one typed a
/// float that a loop's carried value is reset to (found by backprop-fuzz:
/// both were `f64` in the copy over duals, beside its `__F`):
/// `3 C x² + 3 (sin x + π)`, then `0.375 tanh x + 2.5 π`.
#[differentiable(hvp)]
fn captured_and_reset(x: f64) -> f64 {
    let v = Array1::from_elem(3, 1.0) * x;
    let c: f64 = C;
    let k = PI;
    let closures = v.mapv(|z| c * z * z).sum() + v.mapv(|z| z.sin() + k).sum();
    let p: f64 = PI;
    let mut t = x.tanh();
    let mut u = t;
    let mut n = 0;
    while n < 3 {
        t = t * 0.5 + u;
        u = p;
        n += 1;
    }
    closures + t + u
}

/// A constant of `f32`.
#[differentiable(hvp)]
fn single(x: f32) -> f32 {
    x * F + x * x * F
}

/// `(value, f', f'')` of `f` by hand at `x`, against `_backward` and
/// `_hvp` (to 1e-12 relative), and the three checks.
fn check(
    x: f64,
    by_hand: (f64, f64, f64),
    backward: impl Fn(f64) -> (f64, f64) + Copy,
    jvp: impl Fn(f64, f64) -> (f64, f64),
    hvp: impl Fn(f64, f64) -> (f64, f64, f64),
) {
    let close = |a: f64, b: f64| (a - b).abs() <= 1e-12 * b.abs().max(1.0);
    let (v, g) = backward(x);
    let (hv_v, hv_g, h) = hvp(x, 1.0);
    assert!(close(v, by_hand.0), "value {v} against {}", by_hand.0);
    assert!(close(g, by_hand.1), "gradient {g} against {}", by_hand.1);
    assert!(close(h, by_hand.2), "Hessian {h} against {}", by_hand.2);
    assert_eq!((hv_v, hv_g), (v, g));
    let wrap = |&(x,): &(f64,)| {
        let (v, g) = backward(x);
        (v, Scalar(g))
    };
    gradcheck(&(x,), wrap).unwrap();
    jvpcheck(&(x,), &(0.7,), wrap, |&(x,), &(t,)| jvp(x, t)).unwrap();
    hvpcheck(&(x,), &(0.7,), |&(x,), &(t,)| {
        let (v, g, h) = hvp(x, t);
        (v, Scalar(g), Scalar(h))
    })
    .unwrap();
}

/// A float gradient as `gradcheck` reads it.
struct Scalar(f64);

impl backprop::Gradient for Scalar {
    fn fields(&self) -> Vec<(&'static str, Vec<f64>)> {
        vec![("x", vec![self.0])]
    }
}

macro_rules! scalar_fn {
    ($f:ident, $backward:ident, $jvp:ident, $hvp:ident) => {
        (
            |x| {
                let (v, g) = $backward(x, 1.0);
                (v, g.x)
            },
            $jvp,
            |x, t| {
                let (v, g, h) = $hvp(x, t);
                (v, g.x, h.x)
            },
        )
    };
}

#[test]
fn imported_constants_in_second_order() {
    let (b, j, h) = scalar_fn!(wave, wave_backward, wave_jvp, wave_hvp);
    for x in [0.3, -1.1] {
        let w = 2.0 * PI;
        let by_hand = ((w * x).cos(), -w * (w * x).sin(), -w * w * (w * x).cos());
        assert_eq!(wave(x), by_hand.0);
        check(x, by_hand, b, j, h);
    }
}

#[test]
fn constants_on_either_side_static_let_and_associated() {
    let (b, j, h) = scalar_fn!(mixed, mixed_backward, mixed_jvp, mixed_hvp);
    let x = 0.8;
    let value = mixed(x);
    let d = E + 2.0 * PI * x + PI * C + S + f64::EPSILON + LN_2 / (x * x);
    let dd = 2.0 * PI - 2.0 * LN_2 / (x * x * x);
    check(x, (value, d, dd), b, j, h);
}

#[test]
fn constants_in_conditions_methods_and_exponents() {
    let (b, j, h) = scalar_fn!(branchy, branchy_backward, branchy_jvp, branchy_hvp);
    let x: f64 = 1.3;
    let by_hand = (
        x.powf(E) + PI.sqrt() * x,
        E * x.powf(E - 1.0) + PI.sqrt(),
        E * (E - 1.0) * x.powf(E - 2.0),
    );
    check(x, by_hand, b, j, h);
    let x = 0.3;
    check(x, (-PI * x + C, -PI, 0.0), b, j, h);
}

#[test]
fn constants_as_arguments_of_calls() {
    let (b, j, h) = scalar_fn!(calls, calls_backward, calls_jvp, calls_hvp);
    let x = 0.3;
    let w = 2.0 * PI;
    let by_hand = (
        (w * PI * x).cos() + (w * C).cos() * x,
        -w * PI * (w * PI * x).sin() + (w * C).cos(),
        -(w * PI) * (w * PI) * (w * PI * x).cos(),
    );
    check(x, by_hand, b, j, h);
}

#[test]
fn constants_in_closures_and_loops() {
    let a = array![0.3, -0.2, 1.1];
    let (v, g) = in_closures_backward(&a, 1.0);
    assert_eq!(v, in_closures(&a));
    let by_hand = a.mapv(|v| PI + (v * E).cos() * E * Problem::K);
    for (g, e) in g.a.iter().zip(&by_hand) {
        assert!((g - e).abs() < 1e-12, "{g} against {e}");
    }
    gradcheck(&(a.clone(),), |(a,)| in_closures_backward(a, 1.0)).unwrap();
    jvpcheck(
        &(a.clone(),),
        &(array![0.5, 1.0, -0.25],),
        |(a,)| in_closures_backward(a, 1.0),
        |(a,), (t,)| in_closures_jvp(a, t),
    )
    .unwrap();
}

#[test]
fn constants_captured_by_loops() {
    let (b, j, h) = scalar_fn!(in_loops, in_loops_backward, in_loops_jvp, in_loops_hvp);
    let x = 0.3;
    let k = PI * 2.0;
    let by_hand = (
        3.0 * (C * x + PI) + (x * k - C) * k - C,
        3.0 * C + k * k,
        0.0,
    );
    check(x, by_hand, b, j, h);
}

#[test]
fn constants_captured_by_closures_and_reset_in_loops() {
    let (b, j, h) = scalar_fn!(
        captured_and_reset,
        captured_and_reset_backward,
        captured_and_reset_jvp,
        captured_and_reset_hvp
    );
    let x: f64 = 0.3;
    let sech2 = 1.0 - x.tanh().powi(2);
    let by_hand = (
        3.0 * C * x * x + 3.0 * (x.sin() + PI) + 0.375 * x.tanh() + 2.5 * PI,
        6.0 * C * x + 3.0 * x.cos() + 0.375 * sech2,
        6.0 * C - 3.0 * x.sin() - 0.75 * x.tanh() * sech2,
    );
    check(x, by_hand, b, j, h);
}

#[test]
fn a_constant_of_single_precision() {
    let x = 0.3_f32;
    let (v, g, h) = single_hvp(x, 1.0);
    assert_eq!(v, single(x));
    assert!((g.x - (F + 2.0 * x * F)).abs() < 1e-6);
    assert!((h.x - 2.0 * F).abs() < 1e-6);
}
