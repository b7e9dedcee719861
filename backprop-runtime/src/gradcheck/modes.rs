//! Forward mode against reverse mode: two different transformations of the
//! same function must agree to rounding.

#![allow(
    clippy::result_large_err,
    reason = "a check fails once, at its end: the size of its error costs nothing"
)]

use super::{fit, GradCheck, GradcheckError, Gradient, Output, Params};

/// The outcome of a passed [`jvpcheck`]: the two directional derivatives.
#[derive(Clone, Debug, PartialEq)]
pub struct ModeReport {
    /// `⟨upstream, J·v⟩` from the forward mode (`NAME_jvp`'s tangent).
    pub forward: f64,
    /// `⟨Jᵀ·upstream, v⟩` from the reverse mode (`NAME_backward`'s gradient
    /// dotted with the direction).
    pub reverse: f64,
    /// `Σ_k |g_k · v_k|`: the size of the terms of the dot product, which
    /// the relative tolerance is taken of.
    pub scale: f64,
}

impl GradCheck {
    /// Checks that forward and reverse mode agree: the tangent that
    /// `jvp(params, direction)` returns (as `NAME_jvp` does), contracted
    /// with the upstream (for an array or tuple value, as in
    /// [`check`](GradCheck::check)), equals the gradient that
    /// `backward(params)` returns dotted with `direction`.
    ///
    /// No step is taken, so nothing is lost to truncation: the two agree to
    /// rounding, `|forward − reverse| ≤ atol + rtol · scale`, where `scale`
    /// is the larger of `|forward|` and `Σ_k |g_k · v_k|`. The defaults are
    /// `rtol = 1e-12`, `atol = 1e-14` in double precision and `rtol =
    /// 1e-4`, `atol = 1e-5` when anything is `f32` (the values set with
    /// [`rtol`](GradCheck::rtol) and [`atol`](GradCheck::atol) replace
    /// them; `eps` is not used).
    ///
    /// # Errors
    ///
    /// [`GradcheckError::ModesDisagree`] with both values, or an error of
    /// shape (a gradient without one field per parameter, an array value
    /// without its upstream).
    pub fn check_jvp<P: Params, V: Output, G: Gradient, T: Output>(
        &self,
        params: &P,
        direction: &P,
        backward: impl Fn(&P) -> (V, G),
        jvp: impl Fn(&P, &P) -> (V, T),
    ) -> Result<ModeReport, GradcheckError> {
        let upstream = self.upstream.as_deref();
        let (value, grad) = backward(params);
        let (_, tangent) = jvp(params, direction);
        let single = params.single_precision() || value.single_precision();
        let fields = grad.fields();
        fit(params, &fields)?;
        let forward = tangent.contract_all(upstream)?;
        let (mut reverse, mut scale) = (0.0, 0.0);
        for (i, (_, g)) in fields.iter().enumerate() {
            for (k, gk) in g.iter().enumerate() {
                let term = gk * direction.get(i, k);
                reverse += term;
                scale += term.abs();
            }
        }
        let scale = f64::max(scale, forward.abs());
        let (rtol, atol) = if single { (1e-4, 1e-5) } else { (1e-12, 1e-14) };
        let (rtol, atol) = (self.rtol.unwrap_or(rtol), self.atol.unwrap_or(atol));
        let error = (forward - reverse).abs();
        let tolerance = atol + rtol * scale;
        // A NaN or an infinity on either side fails.
        if forward.is_finite() && reverse.is_finite() && error <= tolerance {
            Ok(ModeReport {
                forward,
                reverse,
                scale,
            })
        } else {
            Err(GradcheckError::ModesDisagree {
                forward,
                reverse,
                error,
                tolerance,
            })
        }
    }
}

/// Checks that `NAME_jvp` and `NAME_backward` agree (see
/// [`GradCheck::check_jvp`], which also takes the upstream of an array or
/// tuple value): for a scalar function, the directional derivative along
/// `direction` from the forward mode equals the gradient from the reverse
/// mode dotted with `direction`, to rounding.
///
/// This is a second, independent oracle beside [`gradcheck`](super::gradcheck):
/// central differences at a loose tolerance can miss a small error and
/// cannot see one in a flat region; the two modes are two different
/// transformations of the function and must agree to the last bits.
///
/// ```
/// use backprop_runtime::gradcheck::{flatten, jvpcheck, Gradient};
///
/// struct Grad { x: f64, y: f64 }
/// impl Gradient for Grad {
///     fn fields(&self) -> Vec<(&'static str, Vec<f64>)> {
///         vec![("x", flatten(&self.x)), ("y", flatten(&self.y))]
///     }
/// }
/// // f(x, y) = x²y, by hand in both modes.
/// let backward = |&(x, y): &(f64, f64)| (x * x * y, Grad { x: 2.0 * x * y, y: x * x });
/// let jvp = |&(x, y): &(f64, f64), &(dx, dy): &(f64, f64)| {
///     (x * x * y, 2.0 * x * y * dx + x * x * dy)
/// };
/// jvpcheck(&(1.5, -0.5), &(0.25, 1.0), backward, jvp).unwrap();
/// // A gradient off by 1e-9 is caught, where central differences pass it.
/// let wrong = |p: &(f64, f64)| {
///     let (v, g) = backward(p);
///     (v, Grad { x: g.x + 1e-9, y: g.y })
/// };
/// assert!(jvpcheck(&(1.5, -0.5), &(0.25, 1.0), wrong, jvp).is_err());
/// ```
///
/// # Errors
///
/// [`GradcheckError::ModesDisagree`] with both values.
pub fn jvpcheck<P: Params, V: Output, G: Gradient, T: Output>(
    params: &P,
    direction: &P,
    backward: impl Fn(&P) -> (V, G),
    jvp: impl Fn(&P, &P) -> (V, T),
) -> Result<ModeReport, GradcheckError> {
    GradCheck::new().check_jvp(params, direction, backward, jvp)
}
