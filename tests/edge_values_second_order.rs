//! Edge values at second order: what `NAME_hvp` (and `NAME_jvp`) return at
//! the kinks, poles, ties, bounds and saturations of `tests/edge_values.rs`,
//! each against the exact second derivative where the maths gives one and
//! against central differences of the gradient (`hvpcheck`) at ordinary
//! points beside the edge. The conventions, each pinned by a test below:
//!
//! - **The HVP is the derivative of the gradient the backward returns**,
//!   first-order conventions included: where the gradient is taken by a
//!   convention (a kink's subgradient 0, a tie's first operand), its
//!   derivative is that of the branch the convention picks, as forward mode
//!   follows the values. So `relu(x)²` and `|x|·|x|` have second derivative
//!   0 at `x = 0` (their gradient `2·relu(x)·[x > 0]` and `2|x|·sign(x)`
//!   is 0 there and stays 0 along the direction), although `x²` has 2;
//!   `a.max(b)` at `a == b` is `a`'s branch; `x.clamp(lo, hi)` at a bound is
//!   `x`'s.
//! - **Piecewise linear ops have second derivative 0**, kinks included
//!   (`relu`, `abs`, `max`, `min`, `clamp`).
//! - **Poles are `±inf`, as the one-sided limit.** `sqrt` at `0` has HVP
//!   `-inf` (`-¼ x^{-3/2}`), `ln` at `0` has `-inf` (`-1/x²`) for a positive
//!   direction; near the pole the HVP is the exact value, to rounding.
//! - **Saturation is exact.** `tanh` and `sigmoid` at `±1000`, whose values
//!   are exactly `±1`, `1` or `0`, have JVP and HVP exactly `0`, not NaN
//!   (a quotient by an infinite divisor, `1 / (1 + e^{1000})`, is a
//!   constant 0 of the derivative).
//! - **The row-wise functions are stable at second order too.** The HVP of
//!   `logsumexp` and `softmax_cross_entropy` at logits shifted by `1e3` or
//!   `1e300` is that at the unshifted logits (`diag(s) − s sᵀ` by row); an
//!   entry at `-inf` (or `-1e300`) has probability 0 and takes no part.
//! - **Powers at 0** have `n (n−1) xⁿ⁻²` (`powi`: 0, 0, 2, 0 for
//!   `n = 0, 1, 2, 3`; `powf(x, 2.0)`: 2); `a.powf(b)` at `a = 0`, whose
//!   `∂b` is 0 by the first-order convention (`0ᵇ` does not move with `b`),
//!   has the Hessian `[[b (b−1) 0^{b−2}, 0], [0, 0]]`, with no NaN from
//!   `ln 0`.

// The tests call the generated `_hvp` functions; most originals are unused.
#![allow(dead_code)]

use backprop::prelude::*;

const INF: f64 = f64::INFINITY;

/// `|a − b| ≤ tol · max(1, |b|)`.
fn near(a: f64, b: f64, tol: f64) -> bool {
    (a - b).abs() <= tol * b.abs().max(1.0)
}

/// One `#[differentiable(hvp)]` function of `x` per line.
macro_rules! functions_of {
    ($($name:ident($x:ident) = $body:expr;)*) => {$(
        #[differentiable(hvp)]
        fn $name($x: f64) -> f64 {
            $body
        }
    )*};
}

functions_of! {
    relu_of(x) = relu(x);
    relu_squared(x) = relu(x) * relu(x);
    abs_of(x) = x.abs();
    abs_squared(x) = x.abs() * abs(x);
    sqrt_of(x) = x.sqrt();
    ln_of(x) = ln(x);
    clamped_squared(x) = x.clamp(-1.0, 1.0).powi(2);
    tanh_of(x) = x.tanh();
    sigmoid_of(x) = sigmoid(x);
    softplus_of(x) = softplus(x) + 2.0 * log_sigmoid(x);
    powi_0(x) = x.powi(0);
    powi_1(x) = x.powi(1);
    powi_2(x) = x.powi(2);
    powi_3(x) = x.powi(3);
    powf_2(x) = x.powf(2.0);
}

/// The value, the gradient and the second derivative of a function of
/// one float (its HVP along 1).
macro_rules! second {
    ($f:ident, $x:expr) => {{
        let (v, g, h) = $f($x, 1.0);
        (v, g.x, h.x)
    }};
}

/// `hvpcheck` of a function of one float at `x`, along `±1`.
macro_rules! check_at {
    ($f:ident, $($x:expr),*) => {$(
        for d in [1.0, -1.0] {
            hvpcheck(&$x, &d, |&x, &d| $f(x, d))
                .unwrap_or_else(|e| panic!("{} at {}: {e}", stringify!($f), $x));
        }
    )*};
}

#[test]
fn kinks_have_second_derivative_zero() {
    for x in [0.0, -0.0, 1e-300, -1e-300, 2.0, -2.0] {
        assert_eq!(second!(relu_of_hvp, x).2, 0.0, "relu at {x}");
        assert_eq!(second!(abs_of_hvp, x).2, 0.0, "abs at {x}");
    }
    check_at!(relu_of_hvp, 0.5, -0.5);
    check_at!(abs_of_hvp, 0.5, -0.5);
    // relu(x)² is x² on the right, 0 on the left.
    assert_eq!(second!(relu_squared_hvp, 0.5), (0.25, 1.0, 2.0));
    assert_eq!(second!(relu_squared_hvp, 1e-300).2, 2.0);
    assert_eq!(second!(relu_squared_hvp, -0.5), (0.0, 0.0, 0.0));
    check_at!(relu_squared_hvp, 0.5, -0.5);
    // At the kink: the gradient 2·relu(x)·[x > 0] is 0 and so is its
    // derivative along either direction.
    for d in [1.0, -1.0] {
        let (v, g, h) = relu_squared_hvp(0.0, d);
        assert_eq!((v, g.x, h.x), (0.0, 0.0, 0.0));
        assert_eq!(relu_of_jvp(0.0, d), (0.0, 0.0));
    }
    // |x|·|x| is x², 2 everywhere but at 0, where |x|' = 0 (the
    // first-order convention) makes the gradient's derivative 0.
    assert_eq!(second!(abs_squared_hvp, -3.0), (9.0, -6.0, 2.0));
    assert_eq!(second!(abs_squared_hvp, 0.0), (0.0, 0.0, 0.0));
    check_at!(abs_squared_hvp, 0.25, -0.25);
    assert_eq!(abs_of_jvp(0.0, 1.0), (0.0, 0.0));
}

#[differentiable(hvp)]
fn max_squared(a: f64, b: f64) -> f64 {
    a.max(b).powi(2)
}

#[differentiable(hvp)]
fn min_squared(a: f64, b: f64) -> f64 {
    a.min(b).powi(2)
}

/// The Hessian of a function of two floats, by HVPs with unit directions.
fn hessian2<G>(
    f: impl Fn(f64, f64, f64, f64) -> (f64, G, G),
    get: impl Fn(&G) -> [f64; 2],
    a: f64,
    b: f64,
) -> [[f64; 2]; 2] {
    let (_, _, c0) = f(a, b, 1.0, 0.0);
    let (_, _, c1) = f(a, b, 0.0, 1.0);
    let (c0, c1) = (get(&c0), get(&c1));
    [[c0[0], c1[0]], [c0[1], c1[1]]]
}

#[test]
fn ties_of_max_and_min_take_the_first_operands_branch() {
    let max_h = |a, b| hessian2(max_squared_hvp, |g| [g.a, g.b], a, b);
    let min_h = |a, b| hessian2(min_squared_hvp, |g| [g.a, g.b], a, b);
    // At the tie, as where a wins: the Hessian of a².
    assert_eq!(max_h(1.0, 1.0), [[2.0, 0.0], [0.0, 0.0]]);
    assert_eq!(min_h(1.0, 1.0), [[2.0, 0.0], [0.0, 0.0]]);
    assert_eq!(max_h(0.5, 1.0), [[0.0, 0.0], [0.0, 2.0]]);
    assert_eq!(min_h(0.5, 1.0), [[2.0, 0.0], [0.0, 0.0]]);
    // The JVP at the tie is a's tangent.
    assert_eq!(max_squared_jvp(1.0, 1.0, 0.25, 4.0), (1.0, 0.5));
    for (a, b) in [(0.5, 1.0), (1.0, 0.5)] {
        for d in [(1.0, 0.0), (0.3, -0.7)] {
            hvpcheck(&(a, b), &d, |&(a, b), &(da, db)| {
                max_squared_hvp(a, b, da, db)
            })
            .unwrap();
            hvpcheck(&(a, b), &d, |&(a, b), &(da, db)| {
                min_squared_hvp(a, b, da, db)
            })
            .unwrap();
        }
    }
}

#[test]
fn clamp_bounds_take_the_branch_of_x() {
    // x.clamp(-1, 1)²: x² on the closed interval, constant outside.
    for x in [-1.0, -0.5, 0.0, 1.0] {
        assert_eq!(
            second!(clamped_squared_hvp, x),
            (x * x, 2.0 * x, 2.0),
            "at {x}"
        );
    }
    for x in [-1.0 - 1e-15, 1.0 + 1e-15, 3.0, -INF, INF] {
        assert_eq!(second!(clamped_squared_hvp, x), (1.0, 0.0, 0.0), "at {x}");
    }
    check_at!(clamped_squared_hvp, 0.5, 2.0, -2.0);
}

#[test]
fn sqrt_and_ln_near_their_poles() {
    // sqrt'' = -¼ x^{-3/2}, ln'' = -1/x², to rounding, down to the pole.
    for x in [1e-6, 1e-12, 1e-100, 4.0] {
        let (_, _, h) = second!(sqrt_of_hvp, x);
        assert!(near(h, -0.25 * x.powf(-1.5), 1e-14), "sqrt at {x}: {h}");
        let (_, _, h) = second!(ln_of_hvp, x);
        assert!(near(h, -1.0 / (x * x), 1e-14), "ln at {x}: {h}");
    }
    check_at!(sqrt_of_hvp, 1e-2, 2.0);
    check_at!(ln_of_hvp, 1e-2, 2.0);
    // At the pole, the one-sided limits: the gradient +inf, its derivative
    // along a positive direction -inf.
    assert_eq!(second!(sqrt_of_hvp, 0.0), (0.0, INF, -INF));
    assert_eq!(second!(ln_of_hvp, 0.0), (-INF, INF, -INF));
    // ln'' underflows to -inf where 1/x² overflows.
    assert_eq!(second!(ln_of_hvp, 1e-200).2, -INF);
}

#[test]
fn saturated_tanh_and_sigmoid_have_second_derivative_zero() {
    for x in [1000.0, -1000.0] {
        for (name, (v, g, h)) in [
            ("tanh", second!(tanh_of_hvp, x)),
            ("sigmoid", second!(sigmoid_of_hvp, x)),
        ] {
            assert!(v.is_finite(), "{name} at {x}: {v}");
            assert_eq!((g, h), (0.0, 0.0), "{name} at {x}");
        }
        assert_eq!(tanh_of_jvp(x, 1.0).1, 0.0);
        assert_eq!(sigmoid_of_jvp(x, 1.0).1, 0.0, "sigmoid's JVP at {x}");
    }
    // Nearly saturated: σ(40) rounds to 1, σ(-40) is 4e-18; both
    // derivatives are within rounding of 0.
    for x in [40.0, -40.0] {
        for (g, h) in [
            (second!(tanh_of_hvp, x).1, second!(tanh_of_hvp, x).2),
            (second!(sigmoid_of_hvp, x).1, second!(sigmoid_of_hvp, x).2),
        ] {
            assert!(g.abs() < 1e-15 && h.abs() < 1e-15, "at {x}: {g}, {h}");
        }
    }
    // Beside saturation, the exact second derivatives:
    // tanh'' = -2 t (1 − t²), σ'' = σ (1 − σ)(1 − 2σ).
    for x in [-3.0, -0.5, 0.0, 0.7, 5.0] {
        let t = f64::tanh(x);
        assert!(near(
            second!(tanh_of_hvp, x).2,
            -2.0 * t * (1.0 - t * t),
            1e-14
        ));
        let s = 1.0 / (1.0 + (-x).exp());
        assert!(near(
            second!(sigmoid_of_hvp, x).2,
            s * (1.0 - s) * (1.0 - 2.0 * s),
            1e-14
        ));
    }
    check_at!(tanh_of_hvp, 3.0, -3.0);
    check_at!(sigmoid_of_hvp, 3.0, -3.0);
    // softplus(x) + 2 log σ(x): second derivative σ'(x) − 2 σ'(−x) = −σ'(x),
    // 0 and finite at ±1000.
    for x in [1000.0, -1000.0] {
        let (v, g, h) = second!(softplus_of_hvp, x);
        assert!(v.is_finite() && g.is_finite());
        assert_eq!(h, 0.0, "at {x}");
    }
    check_at!(softplus_of_hvp, 2.0, -2.0);
}

#[differentiable(hvp)]
fn lse(z: &Array1<f64>) -> f64 {
    logsumexp(z)
}

#[differentiable(hvp)]
fn cross_entropy(z: &Array2<f64>, labels: &[usize]) -> f64 {
    softmax_cross_entropy(z, labels)
}

/// `(diag(s) − s sᵀ) v` with `s = softmax(z)`: logsumexp's HVP.
fn lse_hvp_exact(z: &Array1<f64>, v: &Array1<f64>) -> Array1<f64> {
    let m = z.fold(-INF, |a, &b| a.max(b));
    let e = z.mapv(|x| (x - m).exp());
    let s = &e / e.sum();
    let sv = s.dot(v);
    &s * &(v - sv)
}

#[test]
fn softmax_rows_are_stable_at_second_order() {
    let base = array![0.5, -1.0, 2.0];
    let v = array![0.3, -0.8, 0.45];
    let exact = lse_hvp_exact(&base, &v);
    for shift in [0.0, 1e3, -1e3, 1e300] {
        let z = &base + shift;
        let (value, _, h) = lse_hvp(&z, &v);
        assert!(value.is_finite());
        assert!(h.z.iter().all(|x| x.is_finite()), "shift {shift}: {}", h.z);
        if shift == 1e300 {
            // The entries are all 1e300: the shift rounds the row away.
            continue;
        }
        for (a, b) in h.z.iter().zip(&exact) {
            assert!(
                near(*a, *b, 1e-12),
                "shift {shift}: {} against {exact}",
                h.z
            );
        }
    }
    hvpcheck(&(base.clone(),), &(v.clone(),), |(z,), (v,)| lse_hvp(z, v)).unwrap();
    // An entry at -inf (or -1e300) has probability 0: its row and column
    // of the Hessian are 0, the rest is that of the other entries.
    for low in [-INF, -1e300] {
        let z = array![0.0, low, 1.0];
        let (value, g, h) = lse_hvp(&z, &v);
        assert!(near(value, lse(&array![0.0, 1.0]), 1e-15));
        assert_eq!(g.z[1], 0.0);
        assert!(h.z.iter().all(|x| x.is_finite()), "{low}: {}", h.z);
        assert_eq!(h.z[1], 0.0);
        let rest = lse_hvp_exact(&array![0.0, 1.0], &array![v[0], v[2]]);
        assert!(
            near(h.z[0], rest[0], 1e-14) && near(h.z[2], rest[1], 1e-14),
            "{low}: {}",
            h.z
        );
    }
    // softmax cross-entropy: the Hessian of each row's logsumexp, over the
    // batch, whatever the shift.
    let z = array![[0.5, -1.0, 2.0], [0.0, 3.0, -2.0]];
    let d = array![[0.3, -0.8, 0.45], [1.0, 0.25, -0.5]];
    let labels = [2, 0];
    let (_, _, h0) = cross_entropy_hvp(&z, &labels, &d);
    for r in 0..2 {
        let exact = lse_hvp_exact(&z.row(r).to_owned(), &d.row(r).to_owned()) / 2.0;
        for (a, b) in h0.z.row(r).iter().zip(&exact) {
            assert!(near(*a, *b, 1e-14), "row {r}: {} against {exact}", h0.z);
        }
    }
    for shift in [1e3, -1e3, 1e300] {
        let (value, _, h) = cross_entropy_hvp(&(&z + shift), &labels, &d);
        assert!(value.is_finite());
        assert!(h.z.iter().all(|x| x.is_finite()), "shift {shift}: {}", h.z);
        if shift == 1e300 {
            continue;
        }
        for (a, b) in h.z.iter().zip(&h0.z) {
            assert!(
                near(*a, *b, 1e-12),
                "shift {shift}: {} against {}",
                h.z,
                h0.z
            );
        }
    }
    hvpcheck(&(z.clone(),), &(d.clone(),), |(z,), (d,)| {
        cross_entropy_hvp(z, &labels, d)
    })
    .unwrap();
    // Saturated rows: all the mass on one class, a Hessian of 0.
    let far = array![[1000.0, -1000.0, 0.0], [-1000.0, 1000.0, 0.0]];
    let (_, _, h) = cross_entropy_hvp(&far, &labels, &d);
    assert!(h.z.iter().all(|&x| x == 0.0), "{}", h.z);
}

#[differentiable(hvp)]
fn power(a: f64, b: f64) -> f64 {
    a.powf(b)
}

#[test]
fn powers_at_zero() {
    for (n, (v, g, h)) in [
        second!(powi_0_hvp, 0.0),
        second!(powi_1_hvp, 0.0),
        second!(powi_2_hvp, 0.0),
        second!(powi_3_hvp, 0.0),
    ]
    .into_iter()
    .enumerate()
    {
        // xⁿ, n xⁿ⁻¹ and n (n − 1) xⁿ⁻² at 0.
        let expect = [
            (1.0, 0.0, 0.0),
            (0.0, 1.0, 0.0),
            (0.0, 0.0, 2.0),
            (0.0, 0.0, 0.0),
        ];
        assert_eq!((v, g, h), expect[n], "powi({n}) at 0");
    }
    assert_eq!(second!(powf_2_hvp, 0.0), (0.0, 0.0, 2.0));
    check_at!(powi_3_hvp, 0.5, -0.5);
    check_at!(powf_2_hvp, 0.5);
    // a^b at a = 0, b = 2: ∂b = 0 by convention; the Hessian is
    // [[2, 0], [0, 0]] (every term with ln 0 is multiplied by 0ᵇ or 0^{b−1}).
    let h = hessian2(power_hvp, |g| [g.a, g.b], 0.0, 2.0);
    assert_eq!(h, [[2.0, 0.0], [0.0, 0.0]]);
    assert_eq!(power_jvp(0.0, 2.0, 1.0, 1.0), (0.0, 0.0));
    hvpcheck(&(0.5, 2.0), &(0.3, -0.7), |&(a, b), &(da, db)| {
        power_hvp(a, b, da, db)
    })
    .unwrap();
}
