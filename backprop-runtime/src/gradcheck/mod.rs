//! Checking a backward function against central differences, as
//! `torch.autograd.gradcheck` does.
//!
//! [`gradcheck`] takes the parameters and a closure that runs a backward
//! function on them, and compares the gradient the closure returns with the
//! numeric one: every element `x` of every parameter is moved to `x ± eps`
//! and the derivative estimated as `(f(x + eps) − f(x − eps)) / 2eps`,
//! where `f` is the closure's value (for an array value, its contraction
//! `Σ out ⊙ upstream` with the upstream passed by [`GradCheck::upstream`]).
//! The parameters are either
//!
//! - a tuple of owned values, typically
//!   `|(w, b)| two_heads_backward(w, b, &x, 1.0)`, whose gradient's field
//!   `i` (its [`Gradient::fields`]) is compared with tuple element `i`; an
//!   element may be a float, an array or a model
//!   ([`Differentiable`](crate::model::Differentiable)), whose gradient field
//!   is then a value of its type (`g.model: Mlp`); or
//! - one model, `|m| m.loss_backward(&x, 1.0)`, whose gradient is a value
//!   of its type: its top-level fields are compared one by one.
//!
//! A failure names the element by its path, `model.layers[1].w[[0, 2]]`.
//!
//! A tuple value (a function `-> (f64, Array1<f64>)`, whose backward takes
//! one upstream per component) is checked as the weighted sum of its
//! components, `Σ_k <upstream_k, out_k>`: pass the same tuple to the
//! backward and to [`GradCheck::upstream`] (`.upstream(&(0.5, &d1))`). A
//! tuple of scalars may go without: each component then weighs 1, which
//! matches a backward given `(1.0, 1.0)`; distinct weights check more, since
//! a gradient that mixed up two components would pass with equal ones.
//!
//! An element passes when `|analytic − numeric| ≤ atol + rtol · |numeric|`.
//! The defaults depend on the precision (single precision when any parameter
//! or the value is `f32`):
//!
//! | precision | `eps` | `rtol` | `atol` |
//! |---|---|---|---|
//! | `f64` | `1e-6` | `1e-5` | `1e-7` |
//! | `f32` | `1e-3` | `1e-2` | `1e-3` |
//!
//! `eps` is absolute, and the divisor is the distance between the perturbed
//! values as actually stored (so an `f32` rounding of `x ± eps` does not bias
//! the estimate). Central differences assume `f` is smooth near the
//! parameters: keep them away from kinks (`relu` or `abs` at 0) when checking.
//! A NaN or an infinity on either side always fails.

#![allow(
    clippy::result_large_err,
    reason = "a check fails once, at its end: the size of its error costs nothing"
)]

mod error;
mod modes;
mod output;
mod params;

pub use error::GradcheckError;
pub use modes::{jvpcheck, ModeReport};
pub use output::{Output, Upstream};
pub use params::{flatten, Element, Gradient, Group, Params};

use core::fmt;

/// The outcome of one field of a passed check.
#[derive(Clone, Debug, PartialEq)]
pub struct FieldReport {
    /// The field (parameter) name.
    pub name: &'static str,
    /// Its number of elements.
    pub len: usize,
    /// The largest `|analytic − numeric|` over its elements.
    pub max_abs_error: f64,
    /// The largest `|analytic − numeric| / max(|analytic|, |numeric|)` (0 where
    /// both are 0).
    pub max_rel_error: f64,
}

/// The outcome of a passed check: the largest errors, field by field.
#[derive(Clone, Debug, PartialEq)]
pub struct Report {
    /// One entry per field, in order.
    pub fields: Vec<FieldReport>,
    /// The `eps` used.
    pub eps: f64,
    /// The `rtol` used.
    pub rtol: f64,
    /// The `atol` used.
    pub atol: f64,
}

impl Report {
    /// The largest absolute error of the field `name`, if there is one.
    pub fn max_error(&self, name: &str) -> Option<f64> {
        self.fields
            .iter()
            .find(|r| r.name == name)
            .map(|r| r.max_abs_error)
    }
}

impl fmt::Display for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "gradcheck passed (eps {:e}, rtol {:e}, atol {:e})",
            self.eps, self.rtol, self.atol
        )?;
        for r in &self.fields {
            write!(
                f,
                "\n  {}: {} elements, max abs error {:e}, max rel error {:e}",
                r.name, r.len, r.max_abs_error, r.max_rel_error
            )?;
        }
        Ok(())
    }
}

/// A configured gradient check: `GradCheck::new().eps(..).rtol(..).atol(..)
/// .upstream(&d_out).check(&params, f)`. Unset values take the defaults of the
/// [module](self) documentation.
///
/// ```
/// use backprop_runtime::gradcheck::{flatten, GradCheck, Gradient};
/// use ndarray::{array, Array1};
///
/// // y = 3 w (an array output), by hand.
/// struct Grad { w: Array1<f64> }
/// impl Gradient for Grad {
///     fn fields(&self) -> Vec<(&'static str, Vec<f64>)> {
///         vec![("w", flatten(&self.w))]
///     }
/// }
/// fn triple_backward(w: &Array1<f64>, d_out: &Array1<f64>) -> (Array1<f64>, Grad) {
///     (w * 3.0, Grad { w: d_out * 3.0 })
/// }
///
/// let d_out = array![1.0, -2.0];
/// let report = GradCheck::new()
///     .upstream(&d_out)
///     .check(&(array![0.5, 1.5],), |(w,)| triple_backward(w, &d_out))
///     .unwrap();
/// assert!(report.max_error("w").unwrap() < 1e-6);
/// ```
#[derive(Clone, Debug, Default)]
pub struct GradCheck {
    eps: Option<f64>,
    rtol: Option<f64>,
    atol: Option<f64>,
    upstream: Option<Vec<(Vec<usize>, Vec<f64>)>>,
}

impl GradCheck {
    /// A check with the default settings.
    pub fn new() -> Self {
        Self::default()
    }

    /// The perturbation: every element is evaluated at `x + eps` and `x − eps`.
    pub fn eps(mut self, eps: f64) -> Self {
        self.eps = Some(eps);
        self
    }

    /// The relative tolerance.
    pub fn rtol(mut self, rtol: f64) -> Self {
        self.rtol = Some(rtol);
        self
    }

    /// The absolute tolerance.
    pub fn atol(mut self, atol: f64) -> Self {
        self.atol = Some(atol);
        self
    }

    /// The upstream gradient `d_out` that the closure passes to the backward:
    /// required when the value is an array, which is then contracted with it
    /// (`Σ out ⊙ d_out`). For a scalar value it multiplies the value. For a
    /// tuple value, a tuple of one upstream per component (`&(0.5, &d1)`):
    /// the value checked is `Σ_k <d_out.k, out.k>`.
    ///
    /// ```
    /// use backprop_runtime::gradcheck::{flatten, GradCheck, Gradient};
    ///
    /// // (x², 3x), a tuple value, with its backward by hand.
    /// struct Grad { x: f64 }
    /// impl Gradient for Grad {
    ///     fn fields(&self) -> Vec<(&'static str, Vec<f64>)> {
    ///         vec![("x", flatten(&self.x))]
    ///     }
    /// }
    /// fn f_backward(x: f64, d_out: (f64, f64)) -> ((f64, f64), Grad) {
    ///     ((x * x, 3.0 * x), Grad { x: 2.0 * x * d_out.0 + 3.0 * d_out.1 })
    /// }
    ///
    /// let d_out = (0.5, -2.0);
    /// GradCheck::new()
    ///     .upstream(&d_out)
    ///     .check(&(1.5,), |&(x,)| f_backward(x, d_out))
    ///     .unwrap();
    /// ```
    pub fn upstream<U: Upstream + ?Sized>(mut self, d_out: &U) -> Self {
        self.upstream = Some(d_out.components());
        self
    }

    /// Runs the check: `f(params).1` is the analytic gradient (its field `i`
    /// for parameter `i`), `f(..).0` at perturbed parameters gives the
    /// numeric one.
    ///
    /// # Errors
    ///
    /// A [`GradcheckError`] naming the first failing field and element, or the
    /// field or upstream that does not fit.
    pub fn check<P: Params, V: Output, G: Gradient>(
        &self,
        params: &P,
        f: impl Fn(&P) -> (V, G),
    ) -> Result<Report, GradcheckError> {
        let upstream = self.upstream.as_deref();
        let (value, grad) = f(params);
        let single = params.single_precision() || value.single_precision();
        // An array value without an upstream is reported before anything else.
        value.contract_all(upstream)?;
        let tol = self.tolerance(single);
        let fields = grad.fields();
        fit(params, &fields)?;

        let mut work = params.clone();
        compare_fields(params, &fields, &tol, |i, k| {
            let x0 = work.get(i, k);
            // The value at `x` and `x` as stored (rounded to `f32`).
            let mut at = |x: f64| {
                work.set(i, k, x);
                let stored = work.get(i, k);
                f(&work).0.contract_all(upstream).map(|v| (stored, v))
            };
            let plus = at(x0 + tol.eps);
            let minus = at(x0 - tol.eps);
            work.set(i, k, x0);
            let ((xp, fp), (xm, fm)) = (plus?, minus?);
            Ok((fp - fm) / (xp - xm))
        })
    }

    /// The step and tolerances of a check: the user's where set, else
    /// defaults for `f64` or, when anything is `f32`, looser ones.
    fn tolerance(&self, single: bool) -> Tolerance {
        let (eps, rtol, atol) = if single {
            (1e-3, 1e-2, 1e-3)
        } else {
            (1e-6, 1e-5, 1e-7)
        };
        Tolerance {
            eps: self.eps.unwrap_or(eps),
            rtol: self.rtol.unwrap_or(rtol),
            atol: self.atol.unwrap_or(atol),
        }
    }
}

impl GradCheck {
    /// Checks a Hessian-vector product: `f(params, direction)` returns the
    /// value, the gradient and `H·direction` (as `NAME_hvp` does); the
    /// product is compared with central differences of the gradient along
    /// the direction, `(∇f(x + ε·d) − ∇f(x − ε·d)) / 2ε`, field by field.
    /// `direction` has the type of `params`.
    ///
    /// # Errors
    ///
    /// A [`GradcheckError`] naming the first field and element where the
    /// product and the differences disagree.
    pub fn check_hvp<P: Params, V, G: Gradient>(
        &self,
        params: &P,
        direction: &P,
        f: impl Fn(&P, &P) -> (V, G, G),
    ) -> Result<Report, GradcheckError> {
        let single = params.single_precision();
        let tol = self.tolerance(single);
        let (_, _, hv) = f(params, direction);
        let fields = hv.fields();
        fit(params, &fields)?;
        // The gradient at `x + h·d`.
        let gradient_at = |h: f64| {
            let mut moved = params.clone();
            for (i, group) in params.groups().iter().enumerate() {
                for k in 0..group.len {
                    moved.set(i, k, params.get(i, k) + h * direction.get(i, k));
                }
            }
            f(&moved, direction).1.fields()
        };
        let plus = gradient_at(tol.eps);
        let minus = gradient_at(-tol.eps);
        compare_fields(params, &fields, &tol, |i, k| {
            Ok((plus[i].1[k] - minus[i].1[k]) / (2.0 * tol.eps))
        })
    }
}

/// Compares every field's analytic values with `numeric(field, element)`;
/// on failure, names the first failing element and counts all of them.
fn compare_fields<P: Params>(
    params: &P,
    fields: &[(&'static str, Vec<f64>)],
    tol: &Tolerance,
    mut numeric: impl FnMut(usize, usize) -> Result<f64, GradcheckError>,
) -> Result<Report, GradcheckError> {
    let mut reports = Vec::with_capacity(fields.len());
    let mut first: Option<(usize, Failure)> = None;
    let mut total_failures = 0;
    for (i, (name, analytic)) in fields.iter().enumerate() {
        let (report, failure) = compare(name, analytic, |k| numeric(i, k), tol)?;
        total_failures += failure.as_ref().map_or(0, |f| f.failures);
        if let (None, Some(failure)) = (&first, failure) {
            first = Some((i, failure));
        }
        reports.push(report);
    }
    let Some((i, failure)) = first else {
        return Ok(Report {
            fields: reports,
            eps: tol.eps,
            rtol: tol.rtol,
            atol: tol.atol,
        });
    };
    let element = params.element(i, failure.index);
    let path = match params.groups()[i].name {
        Some(_) => element.path,
        None => join(fields[i].0, &element.path),
    };
    Err(GradcheckError::Mismatch {
        field: fields[i].0,
        index: failure.index,
        position: element.position,
        path,
        analytic: failure.analytic,
        numeric: failure.numeric,
        error: failure.error,
        tolerance: failure.tolerance,
        atol: tol.atol,
        rtol: tol.rtol,
        failures: failure.failures,
        len: fields[i].1.len(),
        total_failures,
    })
}

/// The settings of a check.
struct Tolerance {
    eps: f64,
    rtol: f64,
    atol: f64,
}

/// The first failing element of a field, and how many fail.
struct Failure {
    index: usize,
    analytic: f64,
    numeric: f64,
    error: f64,
    tolerance: f64,
    failures: usize,
}

/// Compares one field's analytic gradient with `numeric(k)`, element by
/// element.
fn compare(
    name: &'static str,
    analytic: &[f64],
    mut numeric: impl FnMut(usize) -> Result<f64, GradcheckError>,
    tol: &Tolerance,
) -> Result<(FieldReport, Option<Failure>), GradcheckError> {
    let mut report = FieldReport {
        name,
        len: analytic.len(),
        max_abs_error: 0.0,
        max_rel_error: 0.0,
    };
    let mut failure: Option<Failure> = None;
    for (k, &a) in analytic.iter().enumerate() {
        let numeric = numeric(k)?;
        let error = (a - numeric).abs();
        let tolerance = tol.atol + tol.rtol * numeric.abs();
        let scale = a.abs().max(numeric.abs());
        report.max_abs_error = report.max_abs_error.max(error);
        report.max_rel_error =
            report
                .max_rel_error
                .max(if scale == 0.0 { 0.0 } else { error / scale });
        // A NaN or an infinity on either side fails.
        if !(a.is_finite() && numeric.is_finite() && error <= tolerance) {
            match &mut failure {
                Some(f) => f.failures += 1,
                None => {
                    failure = Some(Failure {
                        index: k,
                        analytic: a,
                        numeric,
                        error,
                        tolerance,
                        failures: 1,
                    })
                }
            }
        }
    }
    Ok((report, failure))
}

/// Checks that the gradient has one field per parameter, named as the
/// model's fields where the parameters are a model's, each with its
/// parameter's number of elements.
fn fit<P: Params>(params: &P, fields: &[(&'static str, Vec<f64>)]) -> Result<(), GradcheckError> {
    let groups = params.groups();
    let names = || fields.iter().map(|(n, _)| *n).collect::<Vec<_>>();
    if fields.len() != groups.len() {
        return Err(GradcheckError::FieldCount {
            fields: names(),
            params: groups.len(),
        });
    }
    if groups
        .iter()
        .zip(fields)
        .any(|(g, (n, _))| g.name.is_some_and(|m| m != *n))
    {
        return Err(GradcheckError::FieldNames {
            fields: names(),
            params: groups.iter().map(|g| g.name.unwrap_or("")).collect(),
        });
    }
    for (i, ((name, g), group)) in fields.iter().zip(&groups).enumerate() {
        if g.len() != group.len {
            return Err(GradcheckError::FieldSize {
                field: name,
                position: i,
                shape: group.shape.clone(),
                expected: group.len,
                got: g.len(),
            });
        }
    }
    Ok(())
}

/// A gradient field's name and a path below it: `w` and `[[0, 2]]` make
/// `w[[0, 2]]`, `model` and `layers[1].w` make `model.layers[1].w`.
fn join(field: &str, below: &str) -> String {
    if field.is_empty() || below.is_empty() || below.starts_with('[') {
        format!("{field}{below}")
    } else {
        format!("{field}.{below}")
    }
}

/// Checks the gradient that `f` returns against central differences of its
/// value, with the default settings (see the [module](self) documentation;
/// [`GradCheck`] sets them, and the upstream of an array value).
///
/// `params` is a tuple of owned parameters, or one model; `f` runs the
/// backward on them and returns `(value, gradient)`, whose field `i` is the
/// gradient of tuple element `i` (of the model's field `i`, for a model).
///
/// # Errors
///
/// A [`GradcheckError`] naming the field and element that fail, the analytic
/// and numeric values and the error.
///
/// ```
/// use backprop_runtime::gradcheck::{flatten, gradcheck, Gradient};
/// use ndarray::{array, Array1};
///
/// // f(w, b) = Σ (w ⊙ x + b)², with its backward written by hand.
/// struct FGrad { w: Array1<f64>, b: f64 }
/// impl Gradient for FGrad {
///     fn fields(&self) -> Vec<(&'static str, Vec<f64>)> {
///         vec![("w", flatten(&self.w)), ("b", flatten(&self.b))]
///     }
/// }
/// fn f_backward(w: &Array1<f64>, b: f64, x: &Array1<f64>, d_out: f64) -> (f64, FGrad) {
///     let z = w * x + b;
///     let d_z = &z * (2.0 * d_out);
///     (z.mapv(|v| v * v).sum(), FGrad { w: &d_z * x, b: d_z.sum() })
/// }
///
/// let x = array![1.0, -2.0, 0.5];
/// let params = (array![0.3, 0.1, -0.7], 0.2);
/// gradcheck(&params, |(w, b)| f_backward(w, *b, &x, 1.0)).unwrap();
///
/// // A wrong gradient is reported with its field and element.
/// let err = gradcheck(&params, |(w, b)| {
///     let (v, mut g) = f_backward(w, *b, &x, 1.0);
///     g.w[1] += 0.5;
///     (v, g)
/// })
/// .unwrap_err();
/// assert!(err.to_string().contains("`w` is wrong at element 1, `w[1]`"));
///
/// // A model is checked field by field, and named by path.
/// let layers = vec![array![0.5, -1.0], array![2.0]];
/// let sum_sq = |m: &Vec<Array1<f64>>| {
///     let value: f64 = m.iter().map(|a| a.mapv(|v| v * v).sum()).sum();
///     let mut g: Vec<Array1<f64>> = m.iter().map(|a| a * 2.0).collect();
///     g[1][0] += 1.0; // wrong
///     (value, g)
/// };
/// let err = gradcheck(&layers, sum_sq).unwrap_err();
/// assert!(err.to_string().contains("`[1][0]`"), "{err}");
/// ```
pub fn gradcheck<P: Params, V: Output, G: Gradient>(
    params: &P,
    f: impl Fn(&P) -> (V, G),
) -> Result<Report, GradcheckError> {
    GradCheck::new().check(params, f)
}

/// Checks the Hessian-vector product that `f` returns (`NAME_hvp`'s third
/// value) against central differences of its gradient (the second) along
/// `direction`, with the default settings (see [`GradCheck::check_hvp`]).
///
/// ```
/// use backprop_runtime::gradcheck::{flatten, hvpcheck, Gradient};
///
/// struct Grad { x: f64, y: f64 }
/// impl Gradient for Grad {
///     fn fields(&self) -> Vec<(&'static str, Vec<f64>)> {
///         vec![("x", flatten(&self.x)), ("y", flatten(&self.y))]
///     }
/// }
/// // f(x, y) = x²y: ∇f = (2xy, x²), H = [[2y, 2x], [2x, 0]].
/// let f_hvp = |&(x, y): &(f64, f64), &(dx, dy): &(f64, f64)| {
///     let g = Grad { x: 2.0 * x * y, y: x * x };
///     let hv = Grad { x: 2.0 * y * dx + 2.0 * x * dy, y: 2.0 * x * dx };
///     (x * x * y, g, hv)
/// };
/// hvpcheck(&(1.5, -0.5), &(0.25, 1.0), f_hvp).unwrap();
/// // A wrong product is named.
/// let wrong = |p: &(f64, f64), d: &(f64, f64)| {
///     let (v, g, hv) = f_hvp(p, d);
///     (v, g, Grad { x: hv.x, y: hv.y + 1.0 })
/// };
/// let err = hvpcheck(&(1.5, -0.5), &(0.25, 1.0), wrong).unwrap_err();
/// assert!(err.to_string().contains("`y`"), "{err}");
/// ```
pub fn hvpcheck<P: Params, V, G: Gradient>(
    params: &P,
    direction: &P,
    f: impl Fn(&P, &P) -> (V, G, G),
) -> Result<Report, GradcheckError> {
    GradCheck::new().check_hvp(params, direction, f)
}
