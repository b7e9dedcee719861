//! Edge values: what `NAME_backward` returns at kinks, poles, overflow and
//! NaN, through the macro. The conventions, each pinned by a test below:
//!
//! - **No panics.** Edge values follow IEEE 754: an undefined value is NaN,
//!   an infinite one `±inf`; nothing in a generated backward panics on them.
//! - **Kinks take the subgradient 0.** `relu` at exactly `0` (or `-0.0`) has
//!   gradient `0`; `abs` at `±0` has gradient `0` (not `±1` as `signum` would
//!   give).
//! - **Ties go to the first operand.** `a.max(b)` and `a.min(b)` with `a == b`
//!   send the whole gradient to `a`, none to `b`.
//! - **Infinite derivatives are `±inf`.** `sqrt` at `0` has gradient `+inf`;
//!   `ln` at `0` has value `-inf` and gradient `+inf` (`-inf` at `-0.0`);
//!   `recip` at `0` has gradient `-inf`; `x / y` at `y = 0` has
//!   `∂x = g / 0 = ±inf` and `∂y = -g·x / 0 = ∓inf` (NaN when `x = 0` too).
//!   An upstream gradient of `0` times an infinite local derivative is NaN
//!   (`0 · inf`), as IEEE says.
//! - **`ln` of a negative number** has value NaN and the finite gradient
//!   `g / x` (the derivative of `ln |x|`, as PyTorch gives).
//! - **Overflow is not an error.** `exp(1000)` is `+inf` with gradient `+inf`;
//!   `exp(-1000)` is `0` with gradient `0`.
//! - **The row-wise functions are stable.** `softmax`, `log_softmax`,
//!   `logsumexp` and `softmax_cross_entropy` shift each row by its maximum, so
//!   logits of size `1e3`..`1e300` give finite values and gradients, equal to
//!   those of the shifted logits. `sigmoid(±1000)` is exactly `1` or `0` with
//!   gradient `0` (`1 / (1 + exp(-x))` as written: exactly `0` below
//!   `x = -709.78`, where `exp(-x)` overflows). `softplus` and `log_sigmoid`
//!   do not overflow at any `x`: `softplus(±1000)` is `1000` or `0`, with
//!   gradient `σ(x)`, `1` or `0`; `log_sigmoid(±1000)` is `0` or `-1000`,
//!   with gradient `σ(-x)`.
//! - **NaN in, NaN out.** A NaN input gives a NaN value and NaN gradients for
//!   the parameters it reaches, through every elementwise op (including the
//!   kinks: `relu(NaN)` and `abs(NaN)` pass NaN, not 0) and through the
//!   row-wise ones (the row holding the NaN). The exceptions follow the value:
//!   `max`/`min` pick the non-NaN operand (`f64::max(NaN, 1.0) == 1.0`), and
//!   the whole gradient goes to that operand; `powi(x, 0)` is the constant `1`
//!   but its gradient at a NaN `x` is NaN.
//! - **`powf` at a zero base**: `∂b = g·aᵇ·ln a` would be NaN (`0 · -inf`)
//!   at `a = 0`; where `aᵇ = 0` the value does not move with `b`, so the
//!   gradient is `0` (as PyTorch gives).
//! - **Poles of the `f64` methods are `±inf`.** `acosh` at `1`, `atanh` at
//!   `±1`, `asin` at `±1` have gradient `+inf` (`acos`: `-inf`); `ln_1p` at
//!   `-1`, `log2` and `log10` at `0` have value `-inf` and gradient `+inf`;
//!   `cbrt` at `±0` has gradient `+inf`. An upstream `0` gives NaN.
//! - **Piecewise constant methods have gradient 0**, at their jumps too
//!   (`floor ceil round trunc signum`, as PyTorch and JAX give); `fract`
//!   (`x - trunc(x)`) passes `g`. NaN where the value is NaN.
//! - **`clamp(lo, hi)` has the gradient of `x.max(lo).min(hi)`**: `g` on the
//!   closed interval `[lo, hi]` (ties at a bound go to `x`), `0` outside;
//!   at NaN its value is NaN (as `f64::clamp`) and so is its gradient.
//!   Bounds are constants; a differentiable bound is a compile error that
//!   suggests `x.max(lo).min(hi)`.
//! - **`hypot` at the origin** takes the subgradient 0 (as `abs` at 0);
//!   **`atan2` at the origin**, where the angle jumps, has NaN gradients.

// The tests call the generated `_backward` functions; most originals are unused.
#![allow(dead_code)]

use backprop::prelude::*;

const INF: f64 = f64::INFINITY;

#[differentiable]
fn relu_of(x: f64) -> f64 {
    relu(x)
}

#[differentiable]
fn relu_of_array(x: &Array1<f64>) -> f64 {
    sum(&relu(x))
}

#[test]
fn relu_at_exactly_zero_has_gradient_zero() {
    let (v, g) = relu_of_backward(0.0, 1.0);
    assert_eq!((v, g.x), (0.0, 0.0));
    let (v, g) = relu_of_backward(-0.0, 1.0);
    assert_eq!(v, 0.0);
    assert_eq!(g.x, 0.0);
    let (v, g) = relu_of_backward(2.0, 1.0);
    assert_eq!((v, g.x), (2.0, 1.0));
    let (v, g) = relu_of_backward(-2.0, 1.0);
    assert_eq!((v, g.x), (0.0, 0.0));
    let (v, g) = relu_of_array_backward(&array![-1.0, 0.0, -0.0, 1e-300, 3.0], 1.0);
    assert_eq!(v, 1e-300 + 3.0);
    assert_eq!(g.x, array![0.0, 0.0, 0.0, 1.0, 1.0]);
}

#[differentiable]
fn abs_of(x: f64) -> f64 {
    x.abs() + abs(x)
}

#[differentiable]
fn abs_of_array(x: &Array1<f64>) -> f64 {
    sum(&abs(x))
}

#[test]
fn abs_at_zero_has_gradient_zero() {
    for zero in [0.0, -0.0] {
        let (v, g) = abs_of_backward(zero, 1.0);
        assert_eq!(v, 0.0);
        assert_eq!(g.x, 0.0);
        assert!(!g.x.is_nan());
    }
    let (_, g) = abs_of_backward(-3.0, 1.0);
    assert_eq!(g.x, -2.0);
    let (_, g) = abs_of_array_backward(&array![-2.0, -0.0, 0.0, 5.0], 1.0);
    assert_eq!(g.x, array![-1.0, 0.0, 0.0, 1.0]);
}

#[differentiable]
fn max_of(a: f64, b: f64) -> f64 {
    a.max(b)
}

#[differentiable]
fn min_of(a: f64, b: f64) -> f64 {
    a.min(b)
}

#[test]
fn max_and_min_ties_send_the_gradient_to_the_first_operand() {
    let (v, g) = max_of_backward(1.5, 1.5, 1.0);
    assert_eq!((v, g.a, g.b), (1.5, 1.0, 0.0));
    let (v, g) = min_of_backward(1.5, 1.5, 1.0);
    assert_eq!((v, g.a, g.b), (1.5, 1.0, 0.0));
    // Zeros of either sign are a tie too.
    let (_, g) = max_of_backward(-0.0, 0.0, 1.0);
    assert_eq!((g.a, g.b), (1.0, 0.0));
    let (_, g) = min_of_backward(0.0, -0.0, 1.0);
    assert_eq!((g.a, g.b), (1.0, 0.0));
    // Away from a tie, to the one chosen.
    let (_, g) = max_of_backward(1.0, 2.0, 1.0);
    assert_eq!((g.a, g.b), (0.0, 1.0));
    let (_, g) = min_of_backward(1.0, 2.0, 1.0);
    assert_eq!((g.a, g.b), (1.0, 0.0));
}

#[differentiable]
fn sqrt_of(x: f64) -> f64 {
    x.sqrt()
}

#[differentiable]
fn sqrt_of_array(x: &Array1<f64>) -> f64 {
    sum(&sqrt(x))
}

#[test]
fn sqrt_at_zero_has_gradient_plus_infinity() {
    let (v, g) = sqrt_of_backward(0.0, 1.0);
    assert_eq!((v, g.x), (0.0, INF));
    let (v, g) = sqrt_of_array_backward(&array![0.0, 4.0], 1.0);
    assert_eq!(v, 2.0);
    assert_eq!(g.x, array![INF, 0.25]);
    // 0 · inf is NaN: an upstream gradient of 0 does not hide the pole.
    let (_, g) = sqrt_of_backward(0.0, 0.0);
    assert!(g.x.is_nan());
    // Below the domain: NaN value and gradient.
    let (v, g) = sqrt_of_backward(-1.0, 1.0);
    assert!(v.is_nan() && g.x.is_nan());
}

#[differentiable]
fn ln_of(x: f64) -> f64 {
    x.ln()
}

#[differentiable]
fn ln_of_array(x: &Array1<f64>) -> Array1<f64> {
    ln(x)
}

#[test]
fn ln_of_zero_and_of_negative_numbers() {
    let (v, g) = ln_of_backward(0.0, 1.0);
    assert_eq!((v, g.x), (-INF, INF));
    let (v, g) = ln_of_backward(-0.0, 1.0);
    assert_eq!((v, g.x), (-INF, -INF));
    // A negative number: NaN value, the finite gradient g / x.
    let (v, g) = ln_of_backward(-2.0, 1.0);
    assert!(v.is_nan());
    assert_eq!(g.x, -0.5);
    // Elementwise on an array, with an upstream.
    let up = array![1.0, 2.0, 0.0];
    let (v, g) = ln_of_array_backward(&array![0.0, -4.0, 0.0], &up);
    assert_eq!(v[0], -INF);
    assert!(v[1].is_nan());
    assert_eq!(g.x[0], INF);
    assert_eq!(g.x[1], -0.5);
    assert!(g.x[2].is_nan()); // 0 / 0
}

#[differentiable]
fn quotient(x: f64, y: f64) -> f64 {
    x / y
}

#[differentiable]
fn reciprocal(x: f64) -> f64 {
    x.recip()
}

#[differentiable]
fn quotient_of_arrays(x: &Array1<f64>, y: &Array1<f64>) -> f64 {
    sum(&(x / y))
}

#[test]
fn division_by_zero_gives_infinities_not_panics() {
    let (v, g) = quotient_backward(1.0, 0.0, 1.0);
    assert_eq!((v, g.x, g.y), (INF, INF, -INF));
    let (v, g) = quotient_backward(-1.0, 0.0, 1.0);
    assert_eq!((v, g.x, g.y), (-INF, INF, INF));
    let (v, g) = quotient_backward(1.0, -0.0, 1.0);
    assert_eq!((v, g.x, g.y), (-INF, -INF, -INF));
    // 0 / 0: NaN value; ∂x = 1/0 = inf, ∂y = -0/0 = NaN.
    let (v, g) = quotient_backward(0.0, 0.0, 1.0);
    assert!(v.is_nan());
    assert_eq!(g.x, INF);
    assert!(g.y.is_nan());
    let (v, g) = reciprocal_backward(0.0, 1.0);
    assert_eq!((v, g.x), (INF, -INF));
    let (v, g) = quotient_of_arrays_backward(&array![1.0, 2.0], &array![0.0, 2.0], 1.0);
    assert_eq!(v, INF);
    assert_eq!(g.x, array![INF, 0.5]);
    assert_eq!(g.y, array![-INF, -0.5]);
}

#[differentiable]
fn exp_of(x: f64) -> f64 {
    x.exp()
}

#[differentiable]
fn exp_sum(x: &Array1<f64>) -> f64 {
    sum(&exp(x))
}

#[test]
fn exp_overflow_is_infinite_not_an_error() {
    let (v, g) = exp_of_backward(1000.0, 1.0);
    assert_eq!((v, g.x), (INF, INF));
    let (v, g) = exp_of_backward(-1000.0, 1.0);
    assert_eq!((v, g.x), (0.0, 0.0));
    // The largest argument that does not overflow, and the first that does.
    let (v, g) = exp_of_backward(709.0, 1.0);
    assert!(v.is_finite() && g.x.is_finite());
    let (v, g) = exp_of_backward(710.0, 1.0);
    assert_eq!((v, g.x), (INF, INF));
    let (v, g) = exp_sum_backward(&array![1000.0, 0.0, -1000.0], 1.0);
    assert_eq!(v, INF);
    assert_eq!(g.x, array![INF, 1.0, 0.0]);
}

#[differentiable]
fn rows(z: &Array2<f64>, p: &Array2<f64>) -> f64 {
    sum(&(softmax(z) * p)) + sum(&(log_softmax(z) * p)) + sum(&logsumexp(z))
}

#[differentiable]
fn cross_entropy(z: &Array2<f64>, labels: &[usize]) -> f64 {
    softmax_cross_entropy(z, labels)
}

#[differentiable]
fn squashed(x: f64) -> f64 {
    sigmoid(x) + x.tanh()
}

fn close(a: &Array2<f64>, b: &Array2<f64>, tol: f64) -> bool {
    a.shape() == b.shape() && a.iter().zip(b).all(|(x, y)| (x - y).abs() <= tol)
}

#[test]
fn softmax_and_cross_entropy_of_large_logits_are_finite() {
    let p = array![[0.3, -0.2, 0.5], [1.0, 0.25, -0.75]];
    let base = array![[0.5, -1.0, 2.0], [0.0, 3.0, -2.0]];
    let (_, g0) = rows_backward(&base, &p, 1.0);
    for shift in [1e3, -1e3, 1e6, 1e300] {
        let z = &base + shift;
        let (v, g) = rows_backward(&z, &p, 1.0);
        assert!(v.is_finite(), "value at shift {shift}: {v}");
        assert!(
            g.z.iter().all(|x| x.is_finite()),
            "gradient at shift {shift}: {}",
            g.z
        );
        if shift.abs() <= 1e3 {
            // The gradient does not depend on a shift of the rows.
            assert!(close(&g.z, &g0.z, 1e-9), "{} vs {}", g.z, g0.z);
        }
    }
    // Rows far apart from each other, and within a row.
    let z = array![[1000.0, -1000.0, 0.0], [-1000.0, 1000.0, 1000.0]];
    let labels = [1, 2];
    let (v, g) = cross_entropy_backward(&z, &labels, 1.0);
    assert_eq!(v, cross_entropy(&z, &labels));
    assert!(v.is_finite());
    // Row 0 puts all its mass on class 0, its label is 1: loss 2000 / 2 rows;
    // row 1 splits it between classes 1 and 2: loss ln 2 / 2.
    assert!(
        (v - (2000.0 + std::f64::consts::LN_2) / 2.0).abs() < 1e-9,
        "{v}"
    );
    let expect = array![[0.5, -0.5, 0.0], [0.0, 0.25, -0.25]];
    assert!(close(&g.z, &expect, 1e-12), "{}", g.z);
    // sigmoid and tanh saturate exactly, with gradient 0.
    for x in [1000.0, -1000.0] {
        let (v, g) = squashed_backward(x, 1.0);
        assert_eq!(v, if x > 0.0 { 2.0 } else { -1.0 });
        assert_eq!(g.x, 0.0);
    }
}

#[differentiable]
fn soft(x: f64) -> f64 {
    softplus(x) + 2.0 * log_sigmoid(x)
}

#[differentiable]
fn soft_arrays(x: &Array1<f64>) -> f64 {
    sum(&softplus(x)) + 2.0 * sum(&log_sigmoid(&(x * 1.0)))
}

#[test]
fn softplus_and_log_sigmoid_do_not_overflow() {
    // softplus(x) + 2 log σ(x): the derivative is σ(x) + 2 σ(-x).
    for (x, value, gradient) in [
        (1000.0, 1000.0, 1.0),
        (-1000.0, -2000.0, 2.0),
        (0.0, -std::f64::consts::LN_2, 1.5),
    ] {
        let (v, g) = soft_backward(x, 1.0);
        assert_eq!((v, g.x), (value, gradient), "at {x}");
    }
    let x = array![1000.0, -1000.0, 0.0, 40.0, -40.0];
    let (v, g) = soft_arrays_backward(&x, 1.0);
    let want: f64 = x.iter().map(|&x| soft(x)).sum();
    assert_eq!(v, want);
    assert_eq!(g.x.slice(backprop::ndarray::s![..3]), array![1.0, 2.0, 1.5]);
    // Where σ is tiny its value comes through, not a rounded 0 or 1.
    let (tiny, near_one) = (4.248354255291589e-18, 1.0 - 4.248354255291589e-18);
    assert!((g.x[3] - (near_one + 2.0 * tiny)).abs() < 1e-15);
    assert!((g.x[4] - (tiny + 2.0 * near_one)).abs() < 1e-15);
    assert!(g.x.iter().all(|d| d.is_finite()));
    gradcheck(&(array![3.0, -2.0, 0.5, 10.0, -10.0],), |(x,)| {
        soft_arrays_backward(x, 1.0)
    })
    .unwrap();
    // sigmoid is exactly 0 where exp(-x) overflows, with gradient 0.
    let (v, g) = squashed_backward(-709.79, 1.0);
    assert_eq!(v, (-709.79_f64).tanh());
    assert_eq!(g.x, 0.0);
}

#[differentiable]
fn everything(x: f64, y: f64) -> f64 {
    let a = relu(x) + x.abs() + sigmoid(x) + x.tanh() + x.exp() + x.sin() * x.cos();
    let b = (x * x + 1.0).ln() + (x * x + 1.0).sqrt() + x.powi(3) + square(x) / (y * y + 1.0);
    a * b + y
}

#[differentiable]
fn everything_on_arrays(z: &Array2<f64>, w: &Array2<f64>) -> f64 {
    let h = relu(&z.dot(w)) + abs(z) + tanh(z);
    sum(&softmax(&h)) + mse(&h, z) + sum(&logsumexp(&h)) + mean(&sum_axis(&h, Axis(0)))
}

#[differentiable]
fn nan_through_max(x: f64, y: f64) -> f64 {
    x.max(y) + x.min(y)
}

#[differentiable]
fn powi_zero(x: f64) -> f64 {
    x.powi(0) + powi(x, 0)
}

#[test]
fn nan_inputs_propagate_to_nan_gradients_without_panicking() {
    let nan = f64::NAN;
    let (v, g) = everything_backward(nan, 0.5, 1.0);
    assert!(v.is_nan());
    assert!(g.x.is_nan());
    // y only meets NaN through `a * b`: its gradient is NaN too.
    assert!(g.y.is_nan());
    // The kinks pass NaN through rather than choosing a side.
    assert!(relu_of_backward(nan, 1.0).1.x.is_nan());
    assert!(abs_of_backward(nan, 1.0).1.x.is_nan());
    // Arrays: one NaN element poisons the values it reaches.
    let mut z = array![[0.5, -1.0], [2.0, 0.25]];
    let w = array![[1.0, 0.0], [0.5, -1.0]];
    z[[1, 0]] = nan;
    let (v, g) = everything_on_arrays_backward(&z, &w, 1.0);
    assert!(v.is_nan());
    assert!(g.z[[1, 0]].is_nan());
    assert!(g.w.iter().any(|x| x.is_nan()));
    // A NaN upstream gradient, with finite inputs.
    let (v, g) = everything_backward(0.5, 0.5, nan);
    assert!(v.is_finite());
    assert!(g.x.is_nan() && g.y.is_nan());
    // max/min follow their value: f64::max(NaN, 1) is 1, and the gradient
    // goes to the operand that was chosen.
    let (v, g) = nan_through_max_backward(nan, 1.0, 1.0);
    assert_eq!(v, 2.0);
    assert_eq!((g.x, g.y), (0.0, 2.0));
    let (v, g) = nan_through_max_backward(1.0, nan, 1.0);
    assert_eq!(v, 2.0);
    assert_eq!((g.x, g.y), (2.0, 0.0));
    // x⁰ is the constant 1: gradient 0, even at 0, but NaN at NaN.
    let (v, g) = powi_zero_backward(0.0, 1.0);
    assert_eq!((v, g.x), (2.0, 0.0));
    let (v, g) = powi_zero_backward(nan, 1.0);
    assert_eq!(v, 2.0);
    assert!(g.x.is_nan());
}

#[differentiable]
fn power(a: f64, b: f64) -> f64 {
    a.powf(b)
}

#[test]
fn powf_at_a_zero_base() {
    let (v, g) = power_backward(0.0, 2.0, 1.0);
    assert_eq!(v, 0.0);
    assert_eq!(g.a, 0.0);
    // ∂b = g · 0² · ln 0 would be 0 · -inf = NaN; 0^b does not move with b: 0.
    assert_eq!(g.b, 0.0);
    let (v, g) = power_backward(0.0, 0.5, 1.0);
    assert_eq!((v, g.a), (0.0, INF));
}

/// One differentiable function of `x` per line.
macro_rules! functions_of {
    ($($name:ident($x:ident) = $body:expr;)*) => {$(
        #[differentiable]
        fn $name($x: f64) -> f64 {
            $body
        }
    )*};
}

functions_of! {
    acosh_of(x) = x.acosh();
    atanh_of(x) = f64::atanh(x);
    asin_of(x) = asin(x);
    acos_of(x) = x.acos();
    ln_1p_of(x) = (x - 1.0).ln_1p();
    log2_of(x) = x.log2();
    log10_of(x) = f64::log10(x);
    cbrt_of(x) = cbrt(x);
}

/// The poles of the `f64` methods: `±inf` gradients as IEEE division
/// gives, never a panic; an upstream 0 gives NaN (`0 · inf`).
#[test]
fn poles_of_the_float_methods_give_infinite_gradients() {
    // acosh, atanh, asin, acos at 1: derivatives +inf, +inf, +inf, -inf.
    assert_eq!(acosh_of_backward(1.0, 1.0).0, 0.0);
    assert_eq!(acosh_of_backward(1.0, 1.0).1.x, INF);
    assert_eq!(atanh_of_backward(1.0, 1.0).0, INF);
    assert_eq!(atanh_of_backward(1.0, 1.0).1.x, INF);
    assert_eq!(asin_of_backward(1.0, 1.0).1.x, INF);
    assert_eq!(acos_of_backward(1.0, 1.0).1.x, -INF);
    // atanh, asin, acos at -1; acosh is NaN there, its gradient too.
    assert_eq!(atanh_of_backward(-1.0, 1.0).0, -INF);
    assert_eq!(atanh_of_backward(-1.0, 1.0).1.x, INF);
    assert_eq!(asin_of_backward(-1.0, 1.0).1.x, INF);
    assert_eq!(acos_of_backward(-1.0, 1.0).1.x, -INF);
    let (v, g) = acosh_of_backward(-1.0, 1.0);
    assert!(v.is_nan() && g.x.is_nan());
    // ln_1p at -1 (x = 0 here), log2, log10 and cbrt at 0.
    let pole = |f: fn(f64, f64) -> (f64, f64)| {
        assert_eq!(f(0.0, 1.0), (-INF, INF));
        // An upstream 0 times the infinite derivative: NaN.
        assert!(f(0.0, 0.0).1.is_nan());
    };
    pole(|x, d| (ln_1p_of_backward(x, d).0, ln_1p_of_backward(x, d).1.x));
    pole(|x, d| (log2_of_backward(x, d).0, log2_of_backward(x, d).1.x));
    pole(|x, d| (log10_of_backward(x, d).0, log10_of_backward(x, d).1.x));
    let (v, g) = cbrt_of_backward(0.0, 1.0);
    assert_eq!((v, g.x), (0.0, INF));
    assert_eq!(cbrt_of_backward(-0.0, 1.0).1.x, INF);
    assert_eq!(cbrt_of_backward(-8.0, 1.0).1.x, 1.0 / 12.0);
    // log2 at -0: -inf, as ln at -0.
    assert_eq!(log2_of_backward(-0.0, 1.0).1.x, -INF);
}

#[differentiable]
fn steps(x: f64) -> f64 {
    x.floor() + f64::ceil(x) + round(x) + x.trunc() + x.signum() + x.fract() * 2.0
}

#[differentiable]
fn steps_of_array(z: &Array1<f64>) -> f64 {
    sum(&(z.floor() + z.round() + z.signum())) + sum(&z.fract())
}

/// The piecewise constant methods have gradient 0 everywhere, their jumps
/// included (as PyTorch and JAX give); `fract = x - trunc(x)` has gradient
/// `g`. A NaN input gives a NaN gradient, as for every op.
#[test]
fn piecewise_constant_methods_have_gradient_zero_even_at_their_jumps() {
    for x in [-2.5, -1.0, -0.5, -0.0, 0.0, 0.3, 0.5, 1.0, 2.5, 7.25] {
        let (v, g) = steps_backward(x, 1.0);
        assert_eq!(v.to_bits(), steps(x).to_bits(), "value at {x}");
        assert_eq!(g.x, 2.0, "at {x}: only fract moves");
    }
    assert!(steps_backward(f64::NAN, 1.0).1.x.is_nan());
    // fract(±inf) is NaN, and so is its gradient.
    let (v, g) = steps_backward(INF, 1.0);
    assert!(v.is_nan() && g.x.is_nan());
    let z = array![-1.5, -0.5, 0.0, 0.5, 1.0, 2.5];
    let (v, g) = steps_of_array_backward(&z, 1.0);
    assert_eq!(v, steps_of_array(&z));
    assert_eq!(g.z, Array1::ones(6));
}

#[differentiable]
fn clamped(x: f64) -> f64 {
    x.clamp(-1.0, 1.0) * 3.0
}

#[differentiable]
#[allow(
    clippy::manual_clamp,
    reason = "the form clamp's gradient is compared with"
)]
fn max_min(x: f64) -> f64 {
    x.max(-1.0).min(1.0) * 3.0
}

#[differentiable(wrt(z))]
fn clamped_array(z: &Array1<f64>, lo: f64) -> f64 {
    sum(&clamp(z, lo, 1.0))
}

/// `clamp` has the gradient of `x.max(lo).min(hi)`: `g` on the closed
/// interval (a tie at a bound goes to `x`, as `max`/`min` send it to their
/// first operand), 0 outside; at NaN, where `max` would pick the bound,
/// the value and the gradient are NaN, as `f64::clamp` gives.
#[test]
fn clamp_has_the_gradient_of_max_then_min() {
    for x in [
        -INF,
        -2.0,
        -1.0,
        -0.5,
        -0.0,
        0.0,
        0.5,
        1.0,
        1.0 + 1e-15,
        3.0,
        INF,
    ] {
        let (v, g) = clamped_backward(x, 1.0);
        assert_eq!(v.to_bits(), clamped(x).to_bits(), "value at {x}");
        assert_eq!(g.x, max_min_backward(x, 1.0).1.x, "gradient at {x}");
    }
    assert_eq!(clamped_backward(1.0, 1.0).1.x, 3.0);
    assert_eq!(clamped_backward(-1.0, 1.0).1.x, 3.0);
    let (v, g) = clamped_backward(f64::NAN, 1.0);
    assert!(v.is_nan() && g.x.is_nan());
    // A parameter that is not differentiated as a bound.
    let z = array![-2.0, 0.0, 0.5, 2.0];
    let (v, g) = clamped_array_backward(&z, 0.0, 1.0);
    assert_eq!(v, 1.5);
    assert_eq!(g.z, array![0.0, 1.0, 1.0, 0.0]);
}

#[differentiable]
fn radius(x: f64, y: f64) -> f64 {
    x.hypot(y)
}

#[differentiable]
fn angle(x: f64, y: f64) -> f64 {
    f64::atan2(y, x)
}

/// `hypot` takes the subgradient 0 at the origin (as `abs` at 0: it is
/// `|x|` on an axis); `atan2` jumps there and its gradient is NaN.
#[test]
fn hypot_and_atan2_at_the_origin() {
    let (v, g) = radius_backward(0.0, 0.0, 1.0);
    assert_eq!((v, g.x, g.y), (0.0, 0.0, 0.0));
    let (v, g) = angle_backward(0.0, 0.0, 1.0);
    assert_eq!(v, 0.0);
    assert!(g.x.is_nan() && g.y.is_nan());
    // On an axis, hypot is |x|: gradient ±1.
    assert_eq!(radius_backward(-2.0, 0.0, 1.0).1.x, -1.0);
    // Huge coordinates: no overflow of x² + y².
    let (v, g) = radius_backward(3e200, 4e200, 1.0);
    assert_eq!(v, radius(3e200, 4e200));
    assert!((v / 5e200 - 1.0).abs() < 1e-15);
    assert!((g.x - 0.6).abs() < 1e-15 && (g.y - 0.8).abs() < 1e-15);
    let (_, g) = angle_backward(3e200, 4e200, 1.0);
    assert!((g.x + 1.6e-201).abs() < 1e-215 && (g.y - 1.2e-201).abs() < 1e-215);
}

#[differentiable]
fn overflowing(x: f64) -> f64 {
    x.sinh() + x.cosh() + x.exp2() + x.exp_m1()
}

/// Overflow is not an error: `sinh`, `cosh`, `exp2`, `exp_m1` at 1000 are
/// `+inf` with gradient `+inf`; at -2000 the gradient is finite.
#[test]
fn hyperbolic_and_exponential_methods_overflow_to_infinities() {
    let (v, g) = overflowing_backward(1000.0, 1.0);
    assert_eq!((v, g.x), (INF, INF));
    let (v, g) = overflowing_backward(-2000.0, 1.0);
    assert!(v.is_nan(), "sinh(-2000) + cosh(-2000) = -inf + inf");
    assert!(g.x.is_nan(), "cosh'(-2000) + sinh'(-2000) = -inf + inf");
    let (v, g) = overflowing_backward(-800.0, 1.0);
    assert!(v.is_nan() && g.x.is_nan());
}
