//! Elementwise functions, on a scalar (by value or by reference) or an array
//! (by reference, or by value to reuse its buffer): each is one line of
//! maths for its value and one for its adjoint rule (see
//! [`crate::kernels`]).
//!
//! Forward values are those of the `std` float method of the same name applied
//! to every element (`exp(&a)` is `a.mapv(f64::exp)`, bit for bit).
//!
//! Edge values follow IEEE 754 and never panic: a NaN input gives a NaN value
//! and a NaN gradient; where a derivative is infinite (`sqrt` or `ln` at 0) the
//! gradient is `±inf` (or NaN when `g` is 0, as `0 · inf` is): at the poles
//! of `acosh`, `atanh`, `asin`, `acos`, `ln_1p`, `log2`, `log10` and `cbrt`
//! too, each documented below. The two kinks, `relu` and `abs` at 0, take
//! the subgradient 0; the piecewise constant `signum floor ceil round trunc`
//! have gradient 0 at their jumps too, and `fract` `g`.

use crate::kernels::{elementwise, Unary, X};
use crate::value::{Float, Operand, OwnedOf, Value};

elementwise! {
    /// `eˣ`, elementwise.
    ///
    /// Adjoint: `∂x = g · eˣ` (the output, reused).
    ///
    /// ```
    /// use backprop_runtime::ops::exp;
    /// use ndarray::array;
    /// assert_eq!(exp(0.0_f64), 1.0);
    /// let a = array![0.0, 1.0];
    /// assert_eq!(exp(&a), a.mapv(f64::exp));
    /// ```
    exp, Exp: |x| x.exp(), Out |g, out| g * out;

    /// `ln x`, elementwise: `ln 0 = -inf`, `ln` of a negative number is NaN.
    ///
    /// Adjoint: `∂x = g / x`, computed as written, so it follows IEEE: at
    /// `x = 0` it is `±inf` (NaN when `g = 0`); at a negative `x` it is the
    /// finite `g / x` (the derivative of `ln |x|`, as PyTorch gives),
    /// although the value is NaN.
    ///
    /// ```
    /// use backprop_runtime::ops::ln;
    /// assert_eq!(ln(1.0_f64), 0.0);
    /// assert_eq!(ln(0.0_f64), f64::NEG_INFINITY);
    /// assert!(ln(-1.0_f64).is_nan());
    /// ```
    ln, Ln: |x| x.ln(), X |g, x| g / x;

    /// `√x`, elementwise (NaN for a negative `x`).
    ///
    /// Adjoint: `∂x = g / (2 √x)` (the output, reused). At `x = 0` this is
    /// `+inf` for a positive `g` (IEEE division by zero, no panic).
    ///
    /// ```
    /// use backprop_runtime::ops::sqrt;
    /// assert_eq!(sqrt(4.0_f64), 2.0);
    /// ```
    sqrt, Sqrt: |x| x.sqrt(), Out |g, out| g / (out + out);

    /// `x²`, elementwise (computed as `x * x`).
    ///
    /// Adjoint: `∂x = 2 g x`.
    ///
    /// ```
    /// use backprop_runtime::ops::square;
    /// assert_eq!(square(-3.0_f64), 9.0);
    /// ```
    square, Square: |x| x * x, X |g, x| (g + g) * x;

    /// `|x|`, elementwise.
    ///
    /// Adjoint: `∂x = g · sign(x)`, with `sign(±0) = 0` (the subgradient 0 at
    /// the kink, unlike `f64::signum`, which gives `±1`).
    ///
    /// ```
    /// use backprop_runtime::ops::abs;
    /// assert_eq!(abs(-2.5_f64), 2.5);
    /// ```
    abs, Abs: |x| x.abs(), X |g, x| g * sign(x);

    /// `sin x`, elementwise.
    ///
    /// Adjoint: `∂x = g · cos x`.
    ///
    /// ```
    /// use backprop_runtime::ops::sin;
    /// assert_eq!(sin(0.0_f64), 0.0);
    /// ```
    sin, Sin: |x| x.sin(), X |g, x| g * x.cos();

    /// `cos x`, elementwise.
    ///
    /// Adjoint: `∂x = -g · sin x`.
    ///
    /// ```
    /// use backprop_runtime::ops::cos;
    /// assert_eq!(cos(0.0_f64), 1.0);
    /// ```
    cos, Cos: |x| x.cos(), X |g, x| -(g * x.sin());

    /// `tan x`, elementwise.
    ///
    /// Adjoint: `∂x = g · (1 + tan² x)` (the output, reused).
    ///
    /// ```
    /// use backprop_runtime::ops::tan;
    /// assert_eq!(tan(0.0_f64), 0.0);
    /// ```
    tan, Tan: |x| x.tan(), Out |g, out| g * (F::one() + out * out);

    /// `tanh x`, elementwise.
    ///
    /// Adjoint: `∂x = g · (1 - tanh² x)` (the output, reused).
    ///
    /// ```
    /// use backprop_runtime::ops::tanh;
    /// assert_eq!(tanh(0.0_f64), 0.0);
    /// ```
    tanh, Tanh: |x| x.tanh(), Out |g, out| g * (F::one() - out * out);

    /// `σ(x) = 1 / (1 + e⁻ˣ)`, elementwise, computed as written: IEEE
    /// arithmetic keeps it in range, `σ(1000) = 1 / (1 + 0)` is exactly `1`
    /// and `σ(-1000) = 1 / (1 + ∞)` exactly `0` (and their gradients `0`),
    /// never NaN; below `x = -709.78`, where `e⁻ˣ` overflows, the value is
    /// `0` (the true one is below `2⁻¹⁰²²`). No branch on the sign, so a
    /// loop over it vectorizes and inputs of either sign cost the same.
    ///
    /// Adjoint: `∂x = g · σ(x) · (1 - σ(x))` (the output, reused).
    ///
    /// ```
    /// use backprop_runtime::ops::sigmoid;
    /// assert_eq!(sigmoid(0.0_f64), 0.5);
    /// assert_eq!(sigmoid(1000.0_f64), 1.0);
    /// assert_eq!(sigmoid(-1000.0_f64), 0.0);
    /// ```
    sigmoid, Sigmoid: |x| F::one() / (F::one() + (-x).exp()), Out |g, out| g * out * (F::one() - out);

    /// `max(x, 0)`, elementwise (a NaN stays NaN).
    ///
    /// Adjoint: `∂x = g · [x > 0]` (at exactly 0 the gradient is 0), read
    /// from the output: `relu(x) > 0` exactly when `x > 0`.
    ///
    /// ```
    /// use backprop_runtime::ops::relu;
    /// assert_eq!(relu(-2.0_f64), 0.0);
    /// assert_eq!(relu(3.0_f64), 3.0);
    /// ```
    relu, Relu: |x| positive_part(x), Out |g, out| if out > F::zero() { g } else { out * F::zero() };

    /// `1 / x`, elementwise (`±inf` at `±0`).
    ///
    /// Adjoint: `∂x = -g / x² = -g · out²` (the output, reused; `-inf` at 0
    /// for a positive `g`).
    ///
    /// ```
    /// use backprop_runtime::ops::recip;
    /// assert_eq!(recip(4.0_f64), 0.25);
    /// ```
    recip, Recip: |x| x.recip(), Out |g, out| -(g * out * out);

    /// `softplus(x) = ln(1 + eˣ)`, elementwise, stable for large `|x|`:
    /// computed as `max(x, 0) + ln_1p(e^-|x|)`, so `softplus(1000) = 1000`
    /// and `softplus(-1000) = 0` (no overflow), and accurate near 0.
    ///
    /// Adjoint: `∂x = g · σ(x) = g · (1 - e^-out)`, from the output, as
    /// `-g · exp_m1(-out)` (accurate where `σ(x)` is tiny).
    ///
    /// ```
    /// use backprop_runtime::ops::softplus;
    /// assert_eq!(softplus(0.0_f64), std::f64::consts::LN_2);
    /// assert_eq!(softplus(1000.0_f64), 1000.0);
    /// assert_eq!(softplus(-1000.0_f64), 0.0);
    /// ```
    softplus, Softplus: |x| x.max(F::zero()) + (-x.abs()).exp().ln_1p(), Out |g, out| -(g * (-out).exp_m1());

    /// `ln σ(x) = -softplus(-x)`, elementwise, stable for large `|x|`:
    /// computed as `min(x, 0) - ln_1p(e^-|x|)`, so `log_sigmoid(-1000) =
    /// -1000` and `log_sigmoid(1000) = 0` (no overflow).
    ///
    /// Adjoint: `∂x = g · (1 - σ(x)) = g · (1 - e^out)`, from the output, as
    /// `-g · exp_m1(out)` (accurate where `1 - σ(x)` is tiny).
    ///
    /// ```
    /// use backprop_runtime::ops::log_sigmoid;
    /// assert_eq!(log_sigmoid(0.0_f64), -std::f64::consts::LN_2);
    /// assert_eq!(log_sigmoid(-1000.0_f64), -1000.0);
    /// assert_eq!(log_sigmoid(1000.0_f64), 0.0);
    /// ```
    log_sigmoid, LogSigmoid: |x| x.min(F::zero()) - (-x.abs()).exp().ln_1p(), Out |g, out| -(g * out.exp_m1());

    /// `sinh x`, elementwise.
    ///
    /// Adjoint: `∂x = g · cosh x = g · √(1 + sinh² x)`, from the output, as
    /// `g · hypot(1, out)` (no overflow of `out²`; within an ulp or two).
    ///
    /// ```
    /// use backprop_runtime::ops::sinh;
    /// assert_eq!(sinh(0.0_f64), 0.0);
    /// assert_eq!(sinh(1.0_f64), 1.0_f64.sinh());
    /// ```
    sinh, Sinh: |x| x.sinh(), Out |g, out| g * F::one().hypot(out);

    /// `cosh x`, elementwise.
    ///
    /// Adjoint: `∂x = g · sinh x` (the input: the output loses its sign).
    ///
    /// ```
    /// use backprop_runtime::ops::cosh;
    /// assert_eq!(cosh(0.0_f64), 1.0);
    /// ```
    cosh, Cosh: |x| x.cosh(), X |g, x| g * x.sinh();

    /// `asinh x`, elementwise.
    ///
    /// Adjoint: `∂x = g / √(1 + x²)`, as `g / hypot(x, 1)` (no overflow of
    /// `x²`).
    ///
    /// ```
    /// use backprop_runtime::ops::asinh;
    /// assert_eq!(asinh(0.0_f64), 0.0);
    /// ```
    asinh, Asinh: |x| x.asinh(), X |g, x| g / x.hypot(F::one());

    /// `acosh x`, elementwise (NaN below 1).
    ///
    /// Adjoint: `∂x = g / √(x² - 1)`, as `g / (√(x - 1) · √(x + 1))`
    /// (accurate near 1, no overflow of `x²`). At the pole `x = 1` it is
    /// `+inf` for a positive `g` (NaN for `g = 0`); below 1, NaN.
    ///
    /// ```
    /// use backprop_runtime::ops::acosh;
    /// assert_eq!(acosh(1.0_f64), 0.0);
    /// assert!(acosh(0.5_f64).is_nan());
    /// ```
    acosh, Acosh: |x| x.acosh(), X |g, x| g / ((x - F::one()).sqrt() * (x + F::one()).sqrt());

    /// `atanh x`, elementwise (`±inf` at `±1`, NaN beyond).
    ///
    /// Adjoint: `∂x = g / (1 - x²)`, as `g / ((1 - x)(1 + x))` (accurate
    /// near `±1`). At the poles `x = ±1` it is `+inf` for a positive `g`
    /// (NaN for `g = 0`); beyond them the finite `g / (1 - x²)`, although
    /// the value is NaN (as PyTorch gives).
    ///
    /// ```
    /// use backprop_runtime::ops::atanh;
    /// assert_eq!(atanh(0.0_f64), 0.0);
    /// assert_eq!(atanh(1.0_f64), f64::INFINITY);
    /// ```
    atanh, Atanh: |x| x.atanh(), X |g, x| g / ((F::one() - x) * (F::one() + x));

    /// `asin x`, elementwise (NaN outside `[-1, 1]`).
    ///
    /// Adjoint: `∂x = g / √(1 - x²)`, as `g / (√(1 - x) · √(1 + x))`
    /// (accurate near `±1`). At `x = ±1` it is `+inf` for a positive `g`
    /// (NaN for `g = 0`); outside `[-1, 1]`, NaN.
    ///
    /// ```
    /// use backprop_runtime::ops::asin;
    /// assert_eq!(asin(0.0_f64), 0.0);
    /// assert_eq!(asin(1.0_f64), std::f64::consts::FRAC_PI_2);
    /// ```
    asin, Asin: |x| x.asin(), X |g, x| g / ((F::one() - x).sqrt() * (F::one() + x).sqrt());

    /// `acos x`, elementwise (NaN outside `[-1, 1]`).
    ///
    /// Adjoint: `∂x = -g / √(1 - x²)`, as `-g / (√(1 - x) · √(1 + x))`
    /// (accurate near `±1`). At `x = ±1` it is `-inf` for a positive `g`
    /// (NaN for `g = 0`); outside `[-1, 1]`, NaN.
    ///
    /// ```
    /// use backprop_runtime::ops::acos;
    /// assert_eq!(acos(1.0_f64), 0.0);
    /// ```
    acos, Acos: |x| x.acos(), X |g, x| -(g / ((F::one() - x).sqrt() * (F::one() + x).sqrt()));

    /// `atan x`, elementwise.
    ///
    /// Adjoint: `∂x = g / (1 + x²)` (`0` where `x²` overflows, `|x| >
    /// 1.3e154`, where the exact value is below `2⁻¹⁰²²`).
    ///
    /// ```
    /// use backprop_runtime::ops::atan;
    /// assert_eq!(atan(0.0_f64), 0.0);
    /// ```
    atan, Atan: |x| x.atan(), X |g, x| g / (F::one() + x * x);

    /// `2ˣ`, elementwise.
    ///
    /// Adjoint: `∂x = g · ln 2 · 2ˣ` (the output, reused).
    ///
    /// ```
    /// use backprop_runtime::ops::exp2;
    /// assert_eq!(exp2(3.0_f64), 8.0);
    /// ```
    exp2, Exp2: |x| x.exp2(), Out |g, out| g * (out * F::LN_2());

    /// `eˣ - 1`, elementwise, accurate near 0.
    ///
    /// Adjoint: `∂x = g · eˣ`, from the input: `out + 1` would round to 0
    /// where `eˣ` is tiny.
    ///
    /// ```
    /// use backprop_runtime::ops::exp_m1;
    /// assert_eq!(exp_m1(0.0_f64), 0.0);
    /// assert_eq!(exp_m1(1e-20_f64), 1e-20);
    /// ```
    exp_m1, ExpM1: |x| x.exp_m1(), X |g, x| g * x.exp();

    /// `ln(1 + x)`, elementwise, accurate near 0 (`-inf` at `-1`, NaN
    /// below).
    ///
    /// Adjoint: `∂x = g / (1 + x)`, computed as written: at the pole
    /// `x = -1` it is `+inf` for a positive `g` (NaN for `g = 0`); below
    /// `-1` the finite `g / (1 + x)`, although the value is NaN (as for
    /// [`ln`]).
    ///
    /// ```
    /// use backprop_runtime::ops::ln_1p;
    /// assert_eq!(ln_1p(0.0_f64), 0.0);
    /// assert_eq!(ln_1p(-1.0_f64), f64::NEG_INFINITY);
    /// ```
    ln_1p, Ln1p: |x| x.ln_1p(), X |g, x| g / (F::one() + x);

    /// `log₂ x`, elementwise (`-inf` at 0, NaN below).
    ///
    /// Adjoint: `∂x = g / (x ln 2)`, computed as written: `±inf` at `x = 0`
    /// (NaN for `g = 0`), the finite value at a negative `x` (as for
    /// [`ln`]).
    ///
    /// ```
    /// use backprop_runtime::ops::log2;
    /// assert_eq!(log2(8.0_f64), 3.0);
    /// ```
    log2, Log2: |x| x.log2(), X |g, x| g / (x * F::LN_2());

    /// `log₁₀ x`, elementwise (`-inf` at 0, NaN below).
    ///
    /// Adjoint: `∂x = g / (x ln 10)`, computed as written: `±inf` at
    /// `x = 0` (NaN for `g = 0`), the finite value at a negative `x` (as
    /// for [`ln`]).
    ///
    /// ```
    /// use backprop_runtime::ops::log10;
    /// assert_eq!(log10(100.0_f64), 2.0);
    /// ```
    log10, Log10: |x| x.log10(), X |g, x| g / (x * F::LN_10());

    /// `∛x`, elementwise (defined for negative `x`: `∛-8 = -2`).
    ///
    /// Adjoint: `∂x = g / (3 ∛x²)` (the output, reused). At `x = ±0` it is
    /// `+inf` for a positive `g` (NaN for `g = 0`).
    ///
    /// ```
    /// use backprop_runtime::ops::cbrt;
    /// assert_eq!(cbrt(-8.0_f64), -2.0);
    /// ```
    cbrt, Cbrt: |x| x.cbrt(), Out |g, out| g / (out * out * F::from_f64(3.0));

    /// Radians to degrees, `x · 180/π`, elementwise (`f64::to_degrees`).
    ///
    /// Adjoint: `∂x = g · 180/π`, as `g.to_degrees()` (the same constant,
    /// bit for bit).
    ///
    /// ```
    /// use backprop_runtime::ops::to_degrees;
    /// assert_eq!(to_degrees(std::f64::consts::PI), 180.0);
    /// ```
    to_degrees, ToDegrees: |x| x.to_degrees(), G |g| g.to_degrees();

    /// Degrees to radians, `x · π/180`, elementwise (`f64::to_radians`).
    ///
    /// Adjoint: `∂x = g · π/180`, as `g.to_radians()`.
    ///
    /// ```
    /// use backprop_runtime::ops::to_radians;
    /// assert_eq!(to_radians(180.0_f64), std::f64::consts::PI);
    /// ```
    to_radians, ToRadians: |x| x.to_radians(), G |g| g.to_radians();

    /// The sign `±1` of `x`, elementwise (`f64::signum`: `±1` at `±0`, NaN
    /// for NaN).
    ///
    /// Adjoint: `∂x = 0`, also at the jump at 0 (as PyTorch and JAX give);
    /// NaN where `x` is NaN, read from the output, which is NaN exactly
    /// there.
    ///
    /// ```
    /// use backprop_runtime::ops::signum;
    /// assert_eq!(signum(-2.5_f64), -1.0);
    /// assert_eq!(signum(0.0_f64), 1.0);
    /// ```
    signum, Signum: |x| x.signum(), Out |_g, out| flat(out);

    /// The largest integer `≤ x`, elementwise.
    ///
    /// Adjoint: `∂x = 0`, also at the jumps at the integers; NaN where `x`
    /// is NaN (read from the output).
    ///
    /// ```
    /// use backprop_runtime::ops::floor;
    /// assert_eq!(floor(-1.5_f64), -2.0);
    /// ```
    floor, Floor: |x| x.floor(), Out |_g, out| flat(out);

    /// The smallest integer `≥ x`, elementwise.
    ///
    /// Adjoint: `∂x = 0`, also at the jumps at the integers; NaN where `x`
    /// is NaN (read from the output).
    ///
    /// ```
    /// use backprop_runtime::ops::ceil;
    /// assert_eq!(ceil(-1.5_f64), -1.0);
    /// ```
    ceil, Ceil: |x| x.ceil(), Out |_g, out| flat(out);

    /// The nearest integer, halves away from 0 (`f64::round`), elementwise.
    ///
    /// Adjoint: `∂x = 0`, also at the jumps at the halves; NaN where `x` is
    /// NaN (read from the output).
    ///
    /// ```
    /// use backprop_runtime::ops::round;
    /// assert_eq!(round(2.5_f64), 3.0);
    /// ```
    round, Round: |x| x.round(), Out |_g, out| flat(out);

    /// The integer part of `x`, towards 0, elementwise.
    ///
    /// Adjoint: `∂x = 0`, also at the jumps at the integers; NaN where `x`
    /// is NaN (read from the output).
    ///
    /// ```
    /// use backprop_runtime::ops::trunc;
    /// assert_eq!(trunc(-1.5_f64), -1.0);
    /// ```
    trunc, Trunc: |x| x.trunc(), Out |_g, out| flat(out);

    /// The fractional part `x - trunc(x)`, elementwise (with the sign of
    /// `x`; NaN for `±inf`).
    ///
    /// Adjoint: `∂x = g` (`trunc` is locally constant), also at the jumps
    /// at the integers; NaN where the value is NaN (a NaN or infinite `x`).
    ///
    /// ```
    /// use backprop_runtime::ops::fract;
    /// assert_eq!(fract(2.25_f64), 0.25);
    /// assert_eq!(fract(-2.25_f64), -0.25);
    /// ```
    fract, Fract: |x| x.fract(), Out |g, out| if out.is_nan() { out } else { g };
}

/// The derivative `0` of a piecewise constant function, NaN where its
/// value `out` is NaN.
#[inline]
fn flat<F: Float>(out: F) -> F {
    if out.is_nan() {
        out
    } else {
        F::zero()
    }
}

/// `x` unless `x ≤ 0` (false for a NaN, which is kept): one comparison, so
/// that a loop over it vectorizes.
#[inline]
fn positive_part<F: Float>(x: F) -> F {
    #[allow(
        clippy::neg_cmp_op_on_partial_ord,
        reason = "the NaN case is the point"
    )]
    if !(x <= F::zero()) {
        x
    } else {
        F::zero()
    }
}

/// The sign of `x` with `sign(±0) = 0` and `sign(NaN) = NaN`.
#[inline]
fn sign<F: Float>(x: F) -> F {
    let zero = F::zero();
    if x > zero {
        F::one()
    } else if x < zero {
        -F::one()
    } else if x.is_nan() {
        x
    } else {
        zero
    }
}

/// `xⁿ` for an integer `n`, elementwise (`f64::powi`).
///
/// Adjoint: `∂x = g · n · xⁿ⁻¹`. For `n = 0` the function is the constant 1
/// and the gradient is 0 (NaN for a NaN `x`), even at `x = 0`.
///
/// ```
/// use backprop_runtime::ops::powi;
/// assert_eq!(powi(3.0_f64, 2), 9.0);
/// assert_eq!(powi(2.0_f64, -1), 0.5);
/// ```
#[inline]
pub fn powi<X: Operand>(x: X, n: i32) -> OwnedOf<X> {
    crate::kernels::map(x, Powi(n))
}

/// The kernel of [`powi`]: `xⁿ` for its `n`.
#[doc(hidden)]
#[derive(Clone, Copy, Debug)]
pub struct Powi(pub i32);

impl Unary for Powi {
    type Reads = X;
    #[inline]
    fn f<F: Float>(self, x: F) -> F {
        x.powi(self.0)
    }
    #[inline]
    fn vjp<F: Float>(self, g: F, x: F, _out: F) -> F {
        let n = self.0;
        if n == 0 {
            return if x.is_nan() { x } else { F::zero() };
        }
        let nf = <F as num_traits::NumCast>::from(n).expect("an i32 is a float");
        let d = match n.checked_sub(1) {
            Some(m) => x.powi(m),
            None => x.powf(nf - F::one()),
        };
        g * nf * d
    }
}

/// `x` clamped to `[lo, hi]` for constants `lo ≤ hi`, elementwise: `lo`
/// below `lo`, `hi` above `hi`, NaN for NaN (`f64::clamp`, bit for bit).
///
/// Adjoint: `∂x = g · [lo ≤ x ≤ hi]`: the gradient of `x.max(lo).min(hi)`,
/// whose ties at a bound send it to `x` (see `max` and `min`); NaN where
/// `x` is NaN.
///
/// # Panics
///
/// Where `f64::clamp` and ndarray's `clamp` panic, so does the function
/// the user wrote: if `lo > hi` or either is NaN.
///
/// ```
/// use backprop_runtime::ops::clamp;
/// use ndarray::array;
/// assert_eq!(clamp(2.5_f64, 0.0, 1.0), 1.0);
/// let a = array![-1.0, 0.5, 3.0];
/// assert_eq!(clamp(&a, 0.0, 1.0), array![0.0, 0.5, 1.0]);
/// ```
#[inline]
pub fn clamp<X: Operand>(
    x: X,
    lo: <X::Value as Value>::Elem,
    hi: <X::Value as Value>::Elem,
) -> OwnedOf<X> {
    assert!(
        lo <= hi,
        "min > max, or either was NaN. min = {lo:?}, max = {hi:?}"
    );
    crate::kernels::map(x, Clamp(lo, hi))
}

/// The kernel of [`clamp`]: its bounds `lo ≤ hi`.
#[doc(hidden)]
#[derive(Clone, Copy, Debug)]
pub struct Clamp<T>(pub T, pub T);

impl<T: Float> Clamp<T> {
    /// The bounds in the element type `F` (the same type in the generated
    /// code, where the conversion is the identity).
    #[inline]
    fn bounds<F: Float>(self) -> (F, F) {
        (F::from_f64(self.0.to_f64()), F::from_f64(self.1.to_f64()))
    }
}

impl<T: Float> Unary for Clamp<T> {
    type Reads = X;
    #[inline]
    fn f<F: Float>(self, x: F) -> F {
        let (lo, hi) = self.bounds();
        if x < lo {
            lo
        } else if x > hi {
            hi
        } else {
            x
        }
    }
    #[inline]
    fn vjp<F: Float>(self, g: F, x: F, _out: F) -> F {
        let (lo, hi) = self.bounds();
        if lo <= x && x <= hi {
            g
        } else if x.is_nan() {
            x
        } else {
            F::zero()
        }
    }
}
