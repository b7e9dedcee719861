//! Elementwise functions, on a scalar (by value or by reference) or an array
//! (by reference). Each adjoint receives the upstream gradient `g`, the input
//! `x` and the forward output `out`, and reuses `g`'s buffer when it owns it.
//!
//! Forward values are those of the `std` float method of the same name applied
//! to every element (`exp(&a)` is `a.mapv(f64::exp)`, bit for bit).
//!
//! Edge values follow IEEE 754 and never panic: a NaN input gives a NaN value
//! and a NaN gradient; where a derivative is infinite (`sqrt` or `ln` at 0) the
//! gradient is `±inf` (or NaN when `g` is 0, as `0 · inf` is). The two kinks,
//! `relu` and `abs` at 0, take the subgradient 0.

use crate::value::{unary_vjp, Cot, Float, Operand, OwnedOf, Tensor, Value};
use num_traits::{Float as _, One as _, Zero as _};

/// Adjoint of a unary op whose derivative depends on the output only:
/// `g ← f(g, out)`, reusing the upstream buffer when it is owned.
#[inline]
fn out_vjp<T: Tensor>(
    g: impl Cot<T>,
    out: &impl Value<Elem = T::Elem>,
    f: impl FnMut(T::Elem, T::Elem) -> T::Elem,
) -> T {
    g.into_owned().zip_with1(out, f)
}

/// `eˣ`, elementwise.
///
/// Adjoint: `∂x = g · eˣ` (the forward output, reused).
///
/// ```
/// use backprop_runtime::ops::exp;
/// use ndarray::array;
/// assert_eq!(exp(0.0_f64), 1.0);
/// let a = array![0.0, 1.0];
/// assert_eq!(exp(&a), a.mapv(f64::exp));
/// ```
#[inline]
pub fn exp<X: Operand>(x: X) -> OwnedOf<X> {
    x.value().map_elems(exp_elem)
}

/// [`exp`] in place, over a temporary that nothing else reads.
#[inline]
pub fn exp_owned<T: Tensor>(x: T) -> T {
    x.map_owned(exp_elem)
}

/// [`exp`] of one element: what the fused in-place forms apply after an
/// arithmetic op (`add_owned_map(h, b, exp_elem)`).
#[inline]
pub fn exp_elem<F: Float>(v: F) -> F {
    v.exp()
}

/// Adjoint of [`exp`]: `g · out`.
#[inline]
pub fn exp_vjp<V: Value>(
    g: impl Cot<V::Owned>,
    _x: &V,
    out: &impl Value<Elem = V::Elem, Dim = V::Dim>,
) -> V::Owned {
    out_vjp(g, out, |g, o| g * o)
}

/// `ln x`, elementwise: `ln 0 = -inf`, `ln` of a negative number is NaN.
///
/// Adjoint: `∂x = g / x`, computed as written, so it follows IEEE: at `x = 0`
/// it is `±inf` (NaN when `g = 0`); at a negative `x` it is the finite `g / x`
/// (the derivative of `ln |x|`, as PyTorch gives), although the value is NaN.
///
/// ```
/// use backprop_runtime::ops::ln;
/// assert_eq!(ln(1.0_f64), 0.0);
/// assert_eq!(ln(0.0_f64), f64::NEG_INFINITY);
/// assert!(ln(-1.0_f64).is_nan());
/// ```
#[inline]
pub fn ln<X: Operand>(x: X) -> OwnedOf<X> {
    x.value().map_elems(|v| v.ln())
}

/// Adjoint of [`ln`]: `g / x`.
#[inline]
pub fn ln_vjp<V: Value>(
    g: impl Cot<V::Owned>,
    x: &V,
    out: &impl Value<Elem = V::Elem, Dim = V::Dim>,
) -> V::Owned {
    unary_vjp(g, x, out, |g, x, _| g / x)
}

/// `√x`, elementwise (NaN for a negative `x`).
///
/// Adjoint: `∂x = g / (2 √x)` (the forward output, reused). At `x = 0` this is
/// `+inf` for a positive `g` (IEEE division by zero, no panic).
///
/// ```
/// use backprop_runtime::ops::sqrt;
/// assert_eq!(sqrt(4.0_f64), 2.0);
/// ```
#[inline]
pub fn sqrt<X: Operand>(x: X) -> OwnedOf<X> {
    x.value().map_elems(sqrt_elem)
}

/// [`sqrt`] in place, over a temporary that nothing else reads.
#[inline]
pub fn sqrt_owned<T: Tensor>(x: T) -> T {
    x.map_owned(sqrt_elem)
}

/// [`sqrt`] of one element: what the fused in-place forms apply after an
/// arithmetic op (`add_owned_map(h, b, sqrt_elem)`).
#[inline]
pub fn sqrt_elem<F: Float>(v: F) -> F {
    v.sqrt()
}

/// Adjoint of [`sqrt`]: `g / (2 · out)`.
#[inline]
pub fn sqrt_vjp<V: Value>(
    g: impl Cot<V::Owned>,
    _x: &V,
    out: &impl Value<Elem = V::Elem, Dim = V::Dim>,
) -> V::Owned {
    out_vjp(g, out, |g, o| g / (o + o))
}

/// `x²`, elementwise (computed as `x * x`).
///
/// Adjoint: `∂x = 2 g x`.
///
/// ```
/// use backprop_runtime::ops::square;
/// assert_eq!(square(-3.0_f64), 9.0);
/// ```
#[inline]
pub fn square<X: Operand>(x: X) -> OwnedOf<X> {
    x.value().map_elems(|v| v * v)
}

/// Adjoint of [`square`]: `2 g x`.
#[inline]
pub fn square_vjp<V: Value>(
    g: impl Cot<V::Owned>,
    x: &V,
    out: &impl Value<Elem = V::Elem, Dim = V::Dim>,
) -> V::Owned {
    unary_vjp(g, x, out, |g, x, _| (g + g) * x)
}

/// `|x|`, elementwise.
///
/// Adjoint: `∂x = g · sign(x)`, with `sign(±0) = 0` (the subgradient 0 at the
/// kink, unlike `f64::signum`, which gives `±1`).
///
/// ```
/// use backprop_runtime::ops::abs;
/// assert_eq!(abs(-2.5_f64), 2.5);
/// ```
#[inline]
pub fn abs<X: Operand>(x: X) -> OwnedOf<X> {
    x.value().map_elems(|v| v.abs())
}

/// Adjoint of [`abs`]: `g · sign(x)`, 0 at `x = 0`.
#[inline]
pub fn abs_vjp<V: Value>(
    g: impl Cot<V::Owned>,
    x: &V,
    out: &impl Value<Elem = V::Elem, Dim = V::Dim>,
) -> V::Owned {
    let zero = V::Elem::zero();
    unary_vjp(g, x, out, |g, x, _| {
        if x > zero {
            g
        } else if x < zero {
            -g
        } else if x.is_nan() {
            x
        } else {
            zero
        }
    })
}

/// `sin x`, elementwise.
///
/// Adjoint: `∂x = g · cos x`.
///
/// ```
/// use backprop_runtime::ops::sin;
/// assert_eq!(sin(0.0_f64), 0.0);
/// ```
#[inline]
pub fn sin<X: Operand>(x: X) -> OwnedOf<X> {
    x.value().map_elems(|v| v.sin())
}

/// Adjoint of [`sin`]: `g · cos x`.
#[inline]
pub fn sin_vjp<V: Value>(
    g: impl Cot<V::Owned>,
    x: &V,
    out: &impl Value<Elem = V::Elem, Dim = V::Dim>,
) -> V::Owned {
    unary_vjp(g, x, out, |g, x, _| g * x.cos())
}

/// `cos x`, elementwise.
///
/// Adjoint: `∂x = -g · sin x`.
///
/// ```
/// use backprop_runtime::ops::cos;
/// assert_eq!(cos(0.0_f64), 1.0);
/// ```
#[inline]
pub fn cos<X: Operand>(x: X) -> OwnedOf<X> {
    x.value().map_elems(|v| v.cos())
}

/// Adjoint of [`cos`]: `-g · sin x`.
#[inline]
pub fn cos_vjp<V: Value>(
    g: impl Cot<V::Owned>,
    x: &V,
    out: &impl Value<Elem = V::Elem, Dim = V::Dim>,
) -> V::Owned {
    unary_vjp(g, x, out, |g, x, _| -(g * x.sin()))
}

/// `tan x`, elementwise.
///
/// Adjoint: `∂x = g · (1 + tan² x)` (the forward output, reused).
///
/// ```
/// use backprop_runtime::ops::tan;
/// assert_eq!(tan(0.0_f64), 0.0);
/// ```
#[inline]
pub fn tan<X: Operand>(x: X) -> OwnedOf<X> {
    x.value().map_elems(tan_elem)
}

/// [`tan`] in place, over a temporary that nothing else reads.
#[inline]
pub fn tan_owned<T: Tensor>(x: T) -> T {
    x.map_owned(tan_elem)
}

/// [`tan`] of one element: what the fused in-place forms apply after an
/// arithmetic op (`add_owned_map(h, b, tan_elem)`).
#[inline]
pub fn tan_elem<F: Float>(v: F) -> F {
    v.tan()
}

/// Adjoint of [`tan`]: `g · (1 + out²)`.
#[inline]
pub fn tan_vjp<V: Value>(
    g: impl Cot<V::Owned>,
    _x: &V,
    out: &impl Value<Elem = V::Elem, Dim = V::Dim>,
) -> V::Owned {
    let one = V::Elem::one();
    out_vjp(g, out, |g, o| g * (one + o * o))
}

/// `tanh x`, elementwise.
///
/// Adjoint: `∂x = g · (1 - tanh² x)` (the forward output, reused).
///
/// ```
/// use backprop_runtime::ops::tanh;
/// assert_eq!(tanh(0.0_f64), 0.0);
/// ```
#[inline]
pub fn tanh<X: Operand>(x: X) -> OwnedOf<X> {
    x.value().map_elems(tanh_elem)
}

/// [`tanh`] in place, over a temporary that nothing else reads.
#[inline]
pub fn tanh_owned<T: Tensor>(x: T) -> T {
    x.map_owned(tanh_elem)
}

/// [`tanh`] of one element: what the fused in-place forms apply after an
/// arithmetic op (`add_owned_map(h, b, tanh_elem)`).
#[inline]
pub fn tanh_elem<F: Float>(v: F) -> F {
    v.tanh()
}

/// Adjoint of [`tanh`]: `g · (1 - out²)`.
#[inline]
pub fn tanh_vjp<V: Value>(
    g: impl Cot<V::Owned>,
    _x: &V,
    out: &impl Value<Elem = V::Elem, Dim = V::Dim>,
) -> V::Owned {
    let one = V::Elem::one();
    out_vjp(g, out, |g, o| g * (one - o * o))
}

/// `σ(x) = 1 / (1 + e⁻ˣ)`, elementwise, computed as written: IEEE
/// arithmetic keeps it in range, `σ(1000) = 1 / (1 + 0)` is exactly `1` and
/// `σ(-1000) = 1 / (1 + ∞)` exactly `0` (and their gradients `0`), never
/// NaN; below `x = -709.78`, where `e⁻ˣ` overflows, the value is `0` (the
/// true one is below `2⁻¹⁰²²`). No branch on the sign, so a loop over it
/// vectorizes and inputs of either sign cost the same.
///
/// Adjoint: `∂x = g · σ(x) · (1 - σ(x))` (the forward output, reused).
///
/// ```
/// use backprop_runtime::ops::sigmoid;
/// assert_eq!(sigmoid(0.0_f64), 0.5);
/// assert_eq!(sigmoid(1000.0_f64), 1.0);
/// assert_eq!(sigmoid(-1000.0_f64), 0.0);
/// ```
#[inline]
pub fn sigmoid<X: Operand>(x: X) -> OwnedOf<X> {
    x.value().map_elems(sigmoid_elem)
}

/// [`sigmoid`] in place, over a temporary that nothing else reads.
#[inline]
pub fn sigmoid_owned<T: Tensor>(x: T) -> T {
    x.map_owned(sigmoid_elem)
}

/// [`sigmoid`] of one element; also what the fused in-place forms apply
/// after an arithmetic op (`add_owned_map(h, b, sigmoid_elem)`).
#[inline]
pub fn sigmoid_elem<F: Float>(x: F) -> F {
    let one = F::one();
    one / (one + (-x).exp())
}

/// Adjoint of [`sigmoid`]: `g · out · (1 - out)`.
#[inline]
pub fn sigmoid_vjp<V: Value>(
    g: impl Cot<V::Owned>,
    _x: &V,
    out: &impl Value<Elem = V::Elem, Dim = V::Dim>,
) -> V::Owned {
    let one = V::Elem::one();
    out_vjp(g, out, |g, o| g * o * (one - o))
}

/// `max(x, 0)`, elementwise (a NaN stays NaN).
///
/// Adjoint: `∂x = g · [x > 0]` (at exactly 0 the gradient is 0).
///
/// ```
/// use backprop_runtime::ops::relu;
/// assert_eq!(relu(-2.0_f64), 0.0);
/// assert_eq!(relu(3.0_f64), 3.0);
/// ```
#[inline]
pub fn relu<X: Operand>(x: X) -> OwnedOf<X> {
    x.value().map_elems(relu_elem)
}

/// [`relu`] in place, over a temporary that nothing else reads.
#[inline]
pub fn relu_owned<T: Tensor>(x: T) -> T {
    x.map_owned(relu_elem)
}

/// [`relu`] of one element, a NaN kept: written as one comparison (`v`
/// unless `v ≤ 0`, which is false for a NaN) so that the loop vectorizes;
/// also what the fused in-place forms apply after an arithmetic op
/// (`add_owned_map(h, b, relu_elem)`).
#[inline]
pub fn relu_elem<F: Float>(v: F) -> F {
    #[allow(clippy::neg_cmp_op_on_partial_ord)] // the NaN case is the point
    if !(v <= F::zero()) {
        v
    } else {
        F::zero()
    }
}

/// Adjoint of [`relu`]: `g · [x > 0]`.
#[inline]
pub fn relu_vjp<V: Value>(
    g: impl Cot<V::Owned>,
    x: &V,
    out: &impl Value<Elem = V::Elem, Dim = V::Dim>,
) -> V::Owned {
    let _ = x;
    let zero = V::Elem::zero();
    // The mask comes from the output alone: relu(x) > 0 exactly when x > 0.
    // Otherwise the output is +0, or NaN for a NaN input, and `o · 0` is
    // then 0 or NaN: one select, no branch, so the loop vectorizes.
    g.into_owned()
        .zip_with1(out, |g, o| if o > zero { g } else { o * zero })
}

/// `1 / x`, elementwise (`±inf` at `±0`).
///
/// Adjoint: `∂x = -g / x² = -g · out²` (the forward output, reused; `-inf`
/// at 0 for a positive `g`).
///
/// ```
/// use backprop_runtime::ops::recip;
/// assert_eq!(recip(4.0_f64), 0.25);
/// ```
#[inline]
pub fn recip<X: Operand>(x: X) -> OwnedOf<X> {
    x.value().map_elems(recip_elem)
}

/// [`recip`] in place, over a temporary that nothing else reads.
#[inline]
pub fn recip_owned<T: Tensor>(x: T) -> T {
    x.map_owned(recip_elem)
}

/// [`recip`] of one element: what the fused in-place forms apply after an
/// arithmetic op (`add_owned_map(h, b, recip_elem)`).
#[inline]
pub fn recip_elem<F: Float>(v: F) -> F {
    v.recip()
}

/// Adjoint of [`recip`]: `-g · out²`.
#[inline]
pub fn recip_vjp<V: Value>(
    g: impl Cot<V::Owned>,
    _x: &V,
    out: &impl Value<Elem = V::Elem, Dim = V::Dim>,
) -> V::Owned {
    out_vjp(g, out, |g, o| -(g * o * o))
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
    x.value().map_elems(|v| v.powi(n))
}

/// Adjoint of [`powi`]: `g · n · xⁿ⁻¹`.
#[inline]
pub fn powi_vjp<V: Value>(
    g: impl Cot<V::Owned>,
    x: &V,
    n: i32,
    out: &impl Value<Elem = V::Elem, Dim = V::Dim>,
) -> V::Owned {
    let zero = V::Elem::zero();
    let nf = <V::Elem as num_traits::NumCast>::from(n).expect("an i32 is a float");
    unary_vjp(g, x, out, |g, x, _| {
        if n == 0 {
            return if x.is_nan() { x } else { zero };
        }
        let d = match n.checked_sub(1) {
            Some(m) => x.powi(m),
            None => x.powf(nf - V::Elem::one()),
        };
        g * nf * d
    })
}
