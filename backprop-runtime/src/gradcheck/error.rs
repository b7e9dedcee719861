//! Why a check failed.

use core::fmt;

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
        /// The same element as a multi-index into its array (empty for a
        /// float).
        position: Vec<usize>,
        /// The element's path: `w[[1, 2]]`, `b`, `model.layers[1].w[[0, 2]]`.
        path: String,
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
    /// The parameters are a model, and the gradient's fields are not the
    /// model's (a gradient of a model is a value of the model's type).
    FieldNames {
        /// The gradient's field names.
        fields: Vec<&'static str>,
        /// The model's fields that hold floats.
        params: Vec<&'static str>,
    },
    /// A gradient field does not have its parameter's number of elements.
    FieldSize {
        /// The field name.
        field: &'static str,
        /// The position of the field and of its parameter.
        position: usize,
        /// The parameter's shape (its number of elements, as a 1-d shape, for
        /// a parameter of several leaves).
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
    /// The forward mode's directional derivative and the reverse mode's
    /// gradient dotted with the direction differ beyond rounding
    /// ([`jvpcheck`](super::jvpcheck)).
    ModesDisagree {
        /// `⟨upstream, J·v⟩` from the forward mode.
        forward: f64,
        /// `⟨Jᵀ·upstream, v⟩` from the reverse mode.
        reverse: f64,
        /// `|forward − reverse|`.
        error: f64,
        /// `atol + rtol · scale`.
        tolerance: f64,
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
                path,
                analytic,
                numeric,
                error,
                tolerance,
                atol,
                rtol,
                failures,
                len,
                total_failures,
                ..
            } => {
                let of = if field.is_empty() {
                    String::new()
                } else {
                    format!(" of `{field}`")
                };
                write!(
                    f,
                    "gradcheck: the gradient{of} is wrong at element {index}, `{path}`: \
                     analytic {analytic:e}, numeric {numeric:e}, |analytic - numeric| = {error:e} \
                     exceeds the tolerance {tolerance:e} (atol {atol:e} + rtol {rtol:e} * |numeric|); \
                     {failures} of {len} elements{of} fail"
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
            Self::FieldNames { fields, params } => write!(
                f,
                "gradcheck: the gradient has the fields {fields:?} but the model's fields are {params:?}; \
                 the gradient of a model is a value of its type (to check a gradient struct with a field \
                 per parameter, pass the parameters as a tuple)"
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
            Self::ModesDisagree { forward, reverse, error, tolerance } => write!(
                f,
                "jvpcheck: forward and reverse mode disagree: the directional derivative is {forward:e} \
                 by the forward mode and {reverse:e} by the reverse mode (the gradient dotted with the \
                 direction); |forward - reverse| = {error:e} exceeds the tolerance {tolerance:e}"
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
