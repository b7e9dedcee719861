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
//! gradient is `±inf` (or NaN when `g` is 0, as `0 · inf` is). The two kinks,
//! `relu` and `abs` at 0, take the subgradient 0.

use crate::kernels::{elementwise, Unary, X};
use crate::value::{Float, Operand, OwnedOf};

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
