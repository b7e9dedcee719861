//! Checking a backward function against central differences, as
//! `torch.autograd.gradcheck` does.
//!
//! [`gradcheck`] takes the parameters as a tuple of owned values and a closure
//! that runs a backward function on them, typically
//! `|(w, b)| two_heads_backward(w, b, &x, 1.0)`. It compares the gradient the
//! closure returns (its [`Gradient::fields`], field `i` against tuple element
//! `i`) with the numeric one: every element `x` of every parameter is moved to
//! `x ± eps` and the derivative estimated as `(f(x + eps) − f(x − eps)) / 2eps`,
//! where `f` is the closure's value (for an array value, its contraction
//! `Σ out ⊙ upstream` with the upstream passed by [`GradCheck::upstream`]).
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

use crate::value::{Float, Value};
use core::fmt;
use ndarray::{Array, Dimension};

/// A gradient whose fields `gradcheck` can read: the macro implements it for
/// every generated gradient struct.
pub trait Gradient {
    /// Every field's name and its elements in logical row-major order, as
    /// `f64` (see [`flatten`]), in the order of the parameters.
    fn fields(&self) -> Vec<(&'static str, Vec<f64>)>;
}

/// The elements of a scalar or an array in logical row-major order (whatever
/// its memory layout), as `f64`.
///
/// ```
/// use backprop_runtime::gradcheck::flatten;
/// use ndarray::array;
/// let a = array![[1.0, 2.0], [3.0, 4.0]];
/// assert_eq!(flatten(&a.t()), vec![1.0, 3.0, 2.0, 4.0]);
/// assert_eq!(flatten(&2.5_f32), vec![2.5]);
/// ```
pub fn flatten<V: Value>(v: &V) -> Vec<f64> {
    v.view().iter().map(|&x| Float::to_f64(x)).collect()
}

/// One parameter that `gradcheck` can perturb: an owned `f32`, `f64` or
/// `Array<F, D>`. Elements are numbered in logical row-major order, whatever
/// the memory layout.
pub trait Param: Clone {
    /// The element type.
    type Elem: Float;
    /// The shape (empty for a scalar).
    fn param_shape(&self) -> Vec<usize>;
    /// The number of elements.
    fn param_len(&self) -> usize;
    /// Element `k`, as `f64`.
    fn get(&self, k: usize) -> f64;
    /// Sets element `k` to `v`, rounded to the element type.
    fn set(&mut self, k: usize, v: f64);
}

macro_rules! scalar_param {
    ($($f:ty),*) => {$(
        impl Param for $f {
            type Elem = $f;
            fn param_shape(&self) -> Vec<usize> {
                Vec::new()
            }
            fn param_len(&self) -> usize {
                1
            }
            fn get(&self, k: usize) -> f64 {
                assert_eq!(k, 0, "a scalar has one element");
                Float::to_f64(*self)
            }
            fn set(&mut self, k: usize, v: f64) {
                assert_eq!(k, 0, "a scalar has one element");
                *self = <$f as Float>::from_f64(v);
            }
        }
    )*};
}
scalar_param!(f32, f64);

/// The index of element `k` (row-major) of an array of dimension `dim`.
fn unravel<D: Dimension>(dim: &D, mut k: usize) -> D {
    let mut idx = dim.clone();
    for ax in (0..dim.ndim()).rev() {
        let n = dim[ax];
        idx[ax] = k % n;
        k /= n;
    }
    idx
}

impl<F: Float, D: Dimension> Param for Array<F, D> {
    type Elem = F;
    fn param_shape(&self) -> Vec<usize> {
        self.shape().to_vec()
    }
    fn param_len(&self) -> usize {
        self.len()
    }
    fn get(&self, k: usize) -> f64 {
        Float::to_f64(self[unravel(&self.raw_dim(), k)])
    }
    fn set(&mut self, k: usize, v: f64) {
        let idx = unravel(&self.raw_dim(), k);
        self[idx] = F::from_f64(v);
    }
}

/// The parameters of a check: a tuple of 1 to 12 [`Param`]s (owned `f32`,
/// `f64` or arrays), each perturbed element by element.
pub trait Params: Clone {
    /// The number of parameters (the tuple's length).
    const COUNT: usize;
    /// The shape of parameter `i`.
    fn param_shape(&self, i: usize) -> Vec<usize>;
    /// The number of elements of parameter `i`.
    fn param_len(&self, i: usize) -> usize;
    /// Element `k` of parameter `i`.
    fn get(&self, i: usize, k: usize) -> f64;
    /// Sets element `k` of parameter `i`.
    fn set(&mut self, i: usize, k: usize, v: f64);
    /// Whether any parameter is single precision.
    fn single_precision(&self) -> bool;
}

macro_rules! tuple_params {
    ($n:expr; $($T:ident $i:tt),+) => {
        impl<$($T: Param),+> Params for ($($T,)+) {
            const COUNT: usize = $n;
            fn param_shape(&self, i: usize) -> Vec<usize> {
                match i {
                    $($i => self.$i.param_shape(),)+
                    _ => panic!("parameter {i} of {}", $n),
                }
            }
            fn param_len(&self, i: usize) -> usize {
                match i {
                    $($i => self.$i.param_len(),)+
                    _ => panic!("parameter {i} of {}", $n),
                }
            }
            fn get(&self, i: usize, k: usize) -> f64 {
                match i {
                    $($i => self.$i.get(k),)+
                    _ => panic!("parameter {i} of {}", $n),
                }
            }
            fn set(&mut self, i: usize, k: usize, v: f64) {
                match i {
                    $($i => self.$i.set(k, v),)+
                    _ => panic!("parameter {i} of {}", $n),
                }
            }
            fn single_precision(&self) -> bool {
                false $(|| core::mem::size_of::<$T::Elem>() == 4)+
            }
        }
    };
}
tuple_params!(1; A 0);
tuple_params!(2; A 0, B 1);
tuple_params!(3; A 0, B 1, C 2);
tuple_params!(4; A 0, B 1, C 2, E 3);
tuple_params!(5; A 0, B 1, C 2, E 3, G 4);
tuple_params!(6; A 0, B 1, C 2, E 3, G 4, H 5);
tuple_params!(7; A 0, B 1, C 2, E 3, G 4, H 5, I 6);
tuple_params!(8; A 0, B 1, C 2, E 3, G 4, H 5, I 6, J 7);
tuple_params!(9; A 0, B 1, C 2, E 3, G 4, H 5, I 6, J 7, K 8);
tuple_params!(10; A 0, B 1, C 2, E 3, G 4, H 5, I 6, J 7, K 8, L 9);
tuple_params!(11; A 0, B 1, C 2, E 3, G 4, H 5, I 6, J 7, K 8, L 9, M 10);
tuple_params!(12; A 0, B 1, C 2, E 3, G 4, H 5, I 6, J 7, K 8, L 9, M 10, N 11);

/// The value of the checked function, reduced to the scalar whose gradient
/// the backward computes.
pub trait Output {
    /// A scalar is used as is (times the upstream, when one is given); an
    /// array is contracted with the upstream, `Σ out ⊙ upstream`, which must
    /// be given. `upstream` is `(shape, elements in row-major order)`.
    fn contract(&self, upstream: Option<(&[usize], &[f64])>) -> Result<f64, GradcheckError>;
    /// Whether the value is single precision.
    fn single_precision(&self) -> bool;
    /// The value contracted with the upstream given to
    /// [`GradCheck::upstream`], one per component: a scalar or an array has
    /// one, a tuple one per element (and sums its contracted elements).
    fn contract_all(
        &self,
        upstream: Option<&[(Vec<usize>, Vec<f64>)]>,
    ) -> Result<f64, GradcheckError> {
        match upstream {
            None => self.contract(None),
            Some([(shape, u)]) => self.contract(Some((shape, u))),
            Some(all) => Err(GradcheckError::UpstreamCount {
                components: 1,
                upstreams: all.len(),
            }),
        }
    }
}

macro_rules! scalar_output {
    ($($f:ty),*) => {$(
        impl Output for $f {
            fn contract(&self, upstream: Option<(&[usize], &[f64])>) -> Result<f64, GradcheckError> {
                match upstream {
                    None => Ok(Float::to_f64(*self)),
                    Some(([], [u])) => Ok(Float::to_f64(*self) * u),
                    Some((shape, _)) => Err(GradcheckError::UpstreamShape { output: Vec::new(), upstream: shape.to_vec() }),
                }
            }
            fn single_precision(&self) -> bool {
                core::mem::size_of::<$f>() == 4
            }
        }
    )*};
}
scalar_output!(f32, f64);

impl<F: Float, S: ndarray::Data<Elem = F>, D: Dimension> Output for ndarray::ArrayBase<S, D> {
    fn contract(&self, upstream: Option<(&[usize], &[f64])>) -> Result<f64, GradcheckError> {
        let Some((shape, u)) = upstream else {
            return Err(GradcheckError::MissingUpstream {
                shape: self.shape().to_vec(),
            });
        };
        if shape != self.shape() {
            return Err(GradcheckError::UpstreamShape {
                output: self.shape().to_vec(),
                upstream: shape.to_vec(),
            });
        }
        Ok(self.iter().zip(u).map(|(o, u)| Float::to_f64(*o) * u).sum())
    }
    fn single_precision(&self) -> bool {
        core::mem::size_of::<F>() == 4
    }
}

/// A tuple value: the sum of its components, each contracted with its own
/// upstream (or as it is, without upstreams, where every component is a
/// scalar).
macro_rules! tuple_output {
    ($n:expr; $($T:ident $i:tt),+) => {
        impl<$($T: Output),+> Output for ($($T,)+) {
            fn contract(&self, upstream: Option<(&[usize], &[f64])>) -> Result<f64, GradcheckError> {
                match upstream {
                    None => Ok(0.0 $(+ self.$i.contract(None)?)+),
                    Some(_) => Err(GradcheckError::UpstreamCount { components: $n, upstreams: 1 }),
                }
            }
            fn single_precision(&self) -> bool {
                false $(|| self.$i.single_precision())+
            }
            fn contract_all(&self, upstream: Option<&[(Vec<usize>, Vec<f64>)]>) -> Result<f64, GradcheckError> {
                match upstream {
                    None => self.contract(None),
                    Some(all) if all.len() == $n => {
                        Ok(0.0 $(+ self.$i.contract(Some((&all[$i].0, &all[$i].1)))?)+)
                    }
                    Some(all) => Err(GradcheckError::UpstreamCount { components: $n, upstreams: all.len() }),
                }
            }
        }
    };
}
tuple_output!(1; A 0);
tuple_output!(2; A 0, B 1);
tuple_output!(3; A 0, B 1, C 2);
tuple_output!(4; A 0, B 1, C 2, E 3);
tuple_output!(5; A 0, B 1, C 2, E 3, G 4);
tuple_output!(6; A 0, B 1, C 2, E 3, G 4, H 5);

/// The upstream gradient a backward was given, as [`GradCheck::upstream`]
/// takes it: a scalar, an array (or a reference to one), or a tuple of them
/// for a tuple value (`(0.5, &d1)`), one per component.
pub trait Upstream {
    /// Each component's `(shape, elements in row-major order)`.
    fn components(&self) -> Vec<(Vec<usize>, Vec<f64>)>;
}

macro_rules! scalar_upstream {
    ($($f:ty),*) => {$(
        impl Upstream for $f {
            fn components(&self) -> Vec<(Vec<usize>, Vec<f64>)> {
                vec![(Vec::new(), vec![Float::to_f64(*self)])]
            }
        }
    )*};
}
scalar_upstream!(f32, f64);

impl<F: Float, S: ndarray::Data<Elem = F>, D: Dimension> Upstream for ndarray::ArrayBase<S, D> {
    fn components(&self) -> Vec<(Vec<usize>, Vec<f64>)> {
        vec![(self.shape().to_vec(), flatten(self))]
    }
}

impl<T: Upstream + ?Sized> Upstream for &T {
    fn components(&self) -> Vec<(Vec<usize>, Vec<f64>)> {
        (**self).components()
    }
}

macro_rules! tuple_upstream {
    ($($T:ident $i:tt),+) => {
        impl<$($T: Upstream),+> Upstream for ($($T,)+) {
            fn components(&self) -> Vec<(Vec<usize>, Vec<f64>)> {
                let mut all = Vec::new();
                $(all.extend(self.$i.components());)+
                all
            }
        }
    };
}
tuple_upstream!(A 0);
tuple_upstream!(A 0, B 1);
tuple_upstream!(A 0, B 1, C 2);
tuple_upstream!(A 0, B 1, C 2, E 3);
tuple_upstream!(A 0, B 1, C 2, E 3, G 4);
tuple_upstream!(A 0, B 1, C 2, E 3, G 4, H 5);

/// Why a check failed.
#[derive(Clone, PartialEq)]
#[non_exhaustive]
pub enum GradcheckError {
    /// The analytic and numeric gradients differ beyond the tolerance.
    Mismatch {
        /// The gradient field (parameter) name.
        field: &'static str,
        /// The first failing element, in row-major order.
        index: usize,
        /// The same element as a multi-index into the parameter's shape.
        position: Vec<usize>,
        /// The backward's value for this element.
        analytic: f64,
        /// The central-difference estimate.
        numeric: f64,
        /// `|analytic − numeric|`.
        error: f64,
        /// `atol + rtol · |numeric|`.
        tolerance: f64,
        /// The absolute tolerance used.
        atol: f64,
        /// The relative tolerance used.
        rtol: f64,
        /// How many elements of this field fail.
        failures: usize,
        /// How many elements the field has.
        len: usize,
        /// How many elements fail in all fields.
        total_failures: usize,
    },
    /// The gradient does not have one field per parameter.
    FieldCount {
        /// The gradient's field names.
        fields: Vec<&'static str>,
        /// The number of parameters.
        params: usize,
    },
    /// A gradient field does not have its parameter's number of elements.
    FieldSize {
        /// The field name.
        field: &'static str,
        /// The position of the field and of its parameter.
        position: usize,
        /// The parameter's shape.
        shape: Vec<usize>,
        /// The parameter's number of elements.
        expected: usize,
        /// The field's number of elements.
        got: usize,
    },
    /// The value is an array but no upstream was given to contract it with.
    MissingUpstream {
        /// The value's shape.
        shape: Vec<usize>,
    },
    /// The upstream does not have the value's shape.
    UpstreamShape {
        /// The value's shape.
        output: Vec<usize>,
        /// The upstream's shape.
        upstream: Vec<usize>,
    },
    /// The value has not as many components (a tuple's elements) as the
    /// upstream given.
    UpstreamCount {
        /// The value's number of components (1 unless it is a tuple).
        components: usize,
        /// The number of upstreams given.
        upstreams: usize,
    },
}

impl fmt::Display for GradcheckError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Mismatch {
                field,
                index,
                position,
                analytic,
                numeric,
                error,
                tolerance,
                atol,
                rtol,
                failures,
                len,
                total_failures,
            } => {
                write!(
                    f,
                    "gradcheck: the gradient of `{field}` is wrong at element {index} (index {position:?}): \
                     analytic {analytic:e}, numeric {numeric:e}, |analytic - numeric| = {error:e} \
                     exceeds the tolerance {tolerance:e} (atol {atol:e} + rtol {rtol:e} * |numeric|); \
                     {failures} of {len} elements of `{field}` fail"
                )?;
                if total_failures > failures {
                    write!(f, ", {total_failures} in all fields")?;
                }
                Ok(())
            }
            Self::FieldCount { fields, params } => write!(
                f,
                "gradcheck: the gradient has {} fields {fields:?} but there are {params} parameters; \
                 field i must be the gradient of tuple element i",
                fields.len()
            ),
            Self::FieldSize { field, position, shape, expected, got } => write!(
                f,
                "gradcheck: field `{field}` (field {position}) has {got} elements but parameter {position} \
                 has {expected} (shape {shape:?})"
            ),
            Self::MissingUpstream { shape } => write!(
                f,
                "gradcheck: the function's value is an array of shape {shape:?}; pass the upstream gradient \
                 given to the backward with `.upstream(&d_out)` (GradCheck::new().upstream(&d_out).check(..))"
            ),
            Self::UpstreamShape { output, upstream } => write!(
                f,
                "gradcheck: the upstream has shape {upstream:?} but the function's value has shape {output:?}"
            ),
            Self::UpstreamCount { components, upstreams } => write!(
                f,
                "gradcheck: the function's value has {components} component(s) but {upstreams} upstream(s) were given; \
                 for a tuple value pass the backward's tuple `d_out` with `.upstream(&d_out)`, one per component"
            ),
        }
    }
}

/// The same text as `Display`, so that `.unwrap()` on a failed check reads well.
impl fmt::Debug for GradcheckError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

impl std::error::Error for GradcheckError {}

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
    /// for tuple element `i`), `f(..).0` at perturbed parameters gives the
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
        let (eps, rtol, atol) = if single {
            (1e-3, 1e-2, 1e-3)
        } else {
            (1e-6, 1e-5, 1e-7)
        };
        let eps = self.eps.unwrap_or(eps);
        let rtol = self.rtol.unwrap_or(rtol);
        let atol = self.atol.unwrap_or(atol);

        let fields = grad.fields();
        if fields.len() != P::COUNT {
            return Err(GradcheckError::FieldCount {
                fields: fields.iter().map(|(n, _)| *n).collect(),
                params: P::COUNT,
            });
        }
        for (i, (name, g)) in fields.iter().enumerate() {
            if g.len() != params.param_len(i) {
                return Err(GradcheckError::FieldSize {
                    field: name,
                    position: i,
                    shape: params.param_shape(i),
                    expected: params.param_len(i),
                    got: g.len(),
                });
            }
        }

        let mut work = params.clone();
        let mut reports = Vec::with_capacity(fields.len());
        // (field, element, analytic, numeric, error, tolerance, failures in the field)
        let mut first = None;
        let mut total_failures = 0;
        for (i, (name, analytic)) in fields.iter().enumerate() {
            let mut report = FieldReport {
                name,
                len: analytic.len(),
                max_abs_error: 0.0,
                max_rel_error: 0.0,
            };
            let mut failures = 0;
            let mut first_here = None;
            for (k, &a) in analytic.iter().enumerate() {
                let x0 = work.get(i, k);
                work.set(i, k, x0 + eps);
                let xp = work.get(i, k);
                let fp = f(&work).0.contract_all(upstream)?;
                work.set(i, k, x0 - eps);
                let xm = work.get(i, k);
                let fm = f(&work).0.contract_all(upstream)?;
                work.set(i, k, x0);
                let numeric = (fp - fm) / (xp - xm);

                let error = (a - numeric).abs();
                let tolerance = atol + rtol * numeric.abs();
                let scale = a.abs().max(numeric.abs());
                report.max_abs_error = report.max_abs_error.max(error);
                report.max_rel_error =
                    report
                        .max_rel_error
                        .max(if scale == 0.0 { 0.0 } else { error / scale });
                // A NaN or an infinity on either side fails.
                let ok = a.is_finite() && numeric.is_finite() && error <= tolerance;
                if !ok {
                    failures += 1;
                    first_here.get_or_insert((k, a, numeric, error, tolerance));
                }
            }
            total_failures += failures;
            if first.is_none() {
                first = first_here.map(|(k, a, n, e, t)| (i, k, a, n, e, t, failures));
            }
            reports.push(report);
        }
        match first {
            None => Ok(Report {
                fields: reports,
                eps,
                rtol,
                atol,
            }),
            Some((i, index, analytic, numeric, error, tolerance, failures)) => {
                Err(GradcheckError::Mismatch {
                    field: fields[i].0,
                    index,
                    position: unravel_shape(&params.param_shape(i), index),
                    analytic,
                    numeric,
                    error,
                    tolerance,
                    atol,
                    rtol,
                    failures,
                    len: fields[i].1.len(),
                    total_failures,
                })
            }
        }
    }
}

/// The multi-index of element `k` (row-major) of an array of shape `shape`.
fn unravel_shape(shape: &[usize], mut k: usize) -> Vec<usize> {
    let mut idx = vec![0; shape.len()];
    for ax in (0..shape.len()).rev() {
        idx[ax] = k % shape[ax];
        k /= shape[ax];
    }
    idx
}

/// Checks the gradient that `f` returns against central differences of its
/// value, with the default settings (see the [module](self) documentation;
/// [`GradCheck`] sets them, and the upstream of an array value).
///
/// `params` is a tuple of owned parameters; `f` runs the backward on them and
/// returns `(value, gradient)`, whose field `i` is the gradient of tuple
/// element `i`.
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
/// assert!(err.to_string().contains("`w` is wrong at element 1"));
/// ```
pub fn gradcheck<P: Params, V: Output, G: Gradient>(
    params: &P,
    f: impl Fn(&P) -> (V, G),
) -> Result<Report, GradcheckError> {
    GradCheck::new().check(params, f)
}
