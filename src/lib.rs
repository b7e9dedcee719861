//! # backprop
//!
//! Reverse-mode automatic differentiation for Rust, done at compile time.
//!
//! Write a plain loss function over `f64` and [`ndarray`] arrays, put
//! [`#[differentiable]`](macro@differentiable) on it, and get a companion
//! `NAME_backward` that returns the value and every gradient. The macro builds
//! the expression DAG of the body and writes the adjoint code explicitly: no
//! runtime tape, no graph object, no boxed closures.
//!
//! ```
//! use backprop::prelude::*;
//!
//! #[differentiable]
//! fn loss(w: f64, x: f64) -> f64 {
//!     (w * x).powi(2) + w
//! }
//!
//! let (value, grad) = loss_backward(0.5, 3.0, 1.0);
//! assert_eq!(value, 2.75);
//! assert_eq!(grad.w, 10.0); // 2·w·x² + 1
//! assert_eq!(grad.x, 1.5); // 2·w²·x
//! ```
//!
//! See the README for the vocabulary, the laws the generated code obeys and
//! what is not supported yet.
#![warn(missing_docs)]

/// The README's examples, compiled and run as doctests (`cargo test --doc`).
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;

/// Writes `NAME_backward` (the value and every gradient) next to a function.
///
/// ```
/// use backprop::prelude::*;
///
/// #[differentiable(wrt(w, b))]
/// fn loss(w: &Array2<f64>, b: &Array1<f64>, x: &Array2<f64>, labels: &[usize]) -> f64 {
///     softmax_cross_entropy(&(x.dot(w) + b), labels)
/// }
///
/// let (w, b) = (array![[0.5, -0.5], [0.25, 1.0]], array![0.0, 0.1]);
/// let x = array![[1.0, 2.0], [-1.0, 0.5]];
/// let (value, grad) = loss_backward(&w, &b, &x, &[1, 0], 1.0);
/// assert_eq!(value, loss(&w, &b, &x, &[1, 0]));
/// assert_eq!(grad.w.shape(), &[2, 2]);
/// // The bias was broadcast over the batch: its gradient sums the rows.
/// assert_eq!(grad.b.shape(), &[2]);
/// gradcheck(&(w.clone(), b.clone()), |(w, b)| loss_backward(w, b, &x, &[1, 0], 1.0)).unwrap();
/// ```
///
/// # Models
///
/// A method differentiates `&self` (the struct must derive
/// [`Differentiable`](derive@Differentiable)); a free function differentiates a
/// model parameter that `wrt(..)` names. The gradient is a value of the
/// model's own type (every parameter holding its gradient, constant fields
/// cloned), so an optimiser pairs model and gradient field by field.
///
/// - A field read in a value (`model.w1`, `self.body.l1.w`, `self.layers[i].b`,
///   `model.weights[k]`, `model.w[[i, j]]`) is borrowed; its gradient goes into
///   the same place of the model's gradient (added there in a loop, so a loop
///   over the layers costs one gradient of the model, not one per iteration).
///   Reads of one field add up (a tied weight).
/// - `for layer in &self.layers`, `self.layers.iter()` (also `.enumerate()`)
///   and `for i in 0..self.layers.len()` walk a `Vec` of the model; the name
///   stands for `self.layers[k]` in the body.
/// - A part of the model bound to a name, `let layer = &self.layers[i];` (also
///   `let enc = &self.encoder;`), is that place wherever the block reads it
///   after (`layer.w`, `layer.forward(&h)`). An index the block changes
///   after the `let` (`i += 1`), or the name bound again, is an error.
/// - A scalar field bound with its type, `let g: f64 = self.g;`, is a float
///   read by value: plain arithmetic, and a closure may capture it
///   (`x.mapv(|v| v * g)`); closures map over array fields like any array
///   (`self.w.mapv(..)`).
/// - A field read as a constant (a loop's bound `0..model.n_layers`, a `match`
///   on `model.act`, an index) is Rust's: such a field must not be a parameter
///   of the model, which the generated code checks (a float read there would
///   get no gradient: `expected ConstantRead, found
///   ParameterOfTheModelReadAsAConstant` at the field). Shape queries
///   (`model.layers.len()`, `model.w.nrows()`) are always fine.
/// - A method differentiates `self` (its gradient is `Self`). To differentiate
///   another parameter beside it, put `#[differentiable]` on the `impl` block
///   too and name both, `#[differentiable(wrt(self, x))]`: the gradient is then
///   a struct written beside the block, named after the type and the method
///   (`AffineEnergyGrad`), with the fields `self_` (of the block's type) and
///   `x`. A free function with `wrt(model, x)` does the same. A method may
///   also differentiate its arguments alone, `self` a constant problem
///   struct holding data (`#[differentiable(wrt(w, b))] fn loss(&self, w:
///   f64, b: f64)`, its fields `Vec`s, arrays or ndarray arrays; with the
///   block's attribute too): the gradient struct has the fields `w` and `b`.
/// - A differentiable method of the model or of one of its fields
///   (`self.encoder.forward_sum(&x)`, `self.helper(..)`) and a differentiable
///   function that takes a model (`penalty(&self.head, 0.5)`) may be called:
///   their `_vjp` gives the model's gradient, added into its place.
/// - Rejected with a spanned error: `&mut self` or `self` by value, a model
///   read as a whole (`let m = model;`), a method that differentiates another
///   parameter without `#[differentiable]` on its `impl` block; a struct
///   parameter that does not derive `Differentiable` is a type error at its
///   type.
///
/// `tests/model_params.rs` checks each form against central differences and
/// the MLP against the same function over loose arrays, bit for bit.
pub use backprop_macros::differentiable;

/// Marks a hand-written adjoint rule, so that the function may be called in
/// differentiable bodies.
///
/// ```
/// use backprop::prelude::*;
///
/// /// `ln cosh x`, stable for large `|x|`.
/// fn logcosh(x: f64) -> f64 {
///     x.abs() + (-2.0 * x.abs()).exp().ln_1p() - std::f64::consts::LN_2
/// }
///
/// /// d ln cosh(x) / dx = tanh(x)
/// #[adjoint(logcosh)]
/// fn logcosh_adjoint(x: f64, d_out: f64) -> f64 {
///     d_out * x.tanh()
/// }
///
/// #[differentiable]
/// fn smooth(x: f64, y: f64) -> f64 {
///     logcosh(x * y) + y
/// }
///
/// let (_, grad) = smooth_backward(2.0, 0.5, 1.0);
/// assert!((grad.x - 0.5 * 1.0_f64.tanh()).abs() < 1e-15);
/// gradcheck(&(2.0, 0.5), |&(x, y)| smooth_backward(x, y, 1.0)).unwrap();
/// ```
pub use backprop_macros::adjoint;

/// Implements [`Differentiable`](trait@Differentiable) for a struct of float
/// parameters: `f32`/`f64` fields, ndarray float arrays, nested models,
/// `Vec`, `[T; N]`, `Box` and `Option` of them. Other fields are constants
/// (cloned into a gradient, left alone by an update): integers, `bool`,
/// strings, integer arrays, and any type that does not implement
/// `Differentiable` (an `enum Activation { Relu, Tanh }` needs no
/// annotation). The struct must also derive `Clone` and `Debug`.
///
/// `#[backprop(constant)]` on a field makes it a constant whatever its
/// type; `#[backprop(crate = path)]` on the struct says where the
/// `backprop` crate is when it is re-exported. With the `serde` feature,
/// the struct is also `Serialize` and `Deserialize` (every field's type must
/// be serde's too).
///
/// ```
/// use backprop::prelude::*;
/// use backprop::Float;
///
/// #[derive(Clone, Copy, Debug, PartialEq)]
/// enum Activation { Relu, Tanh }
///
/// #[derive(Clone, Debug, Differentiable)]
/// struct Dense<T: Float> {
///     w: Array2<T>,
///     b: Array1<T>,
///     act: Activation,
/// }
///
/// #[derive(Clone, Debug, Differentiable)]
/// struct Mlp {
///     layers: Vec<Dense<f64>>,
///     #[backprop(constant)]
///     scale: f64,
/// }
///
/// let dense = |n, m, act| Dense { w: Array2::ones((n, m)), b: Array1::zeros(m), act };
/// let mlp = Mlp { layers: vec![dense(2, 3, Activation::Relu), dense(3, 1, Activation::Tanh)], scale: 0.5 };
/// assert_eq!(mlp.leaf_paths(), ["layers[0].w", "layers[0].b", "layers[1].w", "layers[1].b"]);
/// assert_eq!(mlp.num_params(), 6 + 3 + 3 + 1);
/// let zero = mlp.zeros_like();
/// assert_eq!((zero.scale, zero.layers[1].act), (0.5, Activation::Tanh));
/// ```
pub use backprop_macros::Differentiable;
pub use backprop_runtime::dual::{self, Dual};
pub use backprop_runtime::gradcheck::{
    self, gradcheck, hvpcheck, jvpcheck, GradCheck, GradcheckError, Gradient, Params,
};
pub use backprop_runtime::model::{self, optim, Differentiable};
pub use backprop_runtime::parallel;
pub use backprop_runtime::{unbroadcast, Float, Operand, Tensor, Value};
/// The nalgebra whose statically sized vectors, matrices and points
/// `#[differentiable]` takes (with the `nalgebra` feature).
#[cfg(feature = "nalgebra")]
pub use nalgebra;
pub use ndarray;

#[cfg(feature = "argmin")]
pub mod argmin;

/// The op vocabulary: the functions a differentiable body may call, each
/// documented with its adjoint rule. The operators (`+ - * /`, unary `-`)
/// and the float and array methods of the vocabulary (`x.exp()`,
/// `a.dot(&b)`, `a.t()`, `a.sum_axis(Axis(k))`, ...) are Rust's and
/// ndarray's own.
///
/// Every unary function here is also a method of `f64` and `f32`
/// (`x.sinh()`, `f64::sinh(x)`) and of ndarray's arrays (`z.sinh()`), and
/// the macro takes any of those spellings, as it does `x.clamp(lo, hi)`
/// for [`clamp`](crate::ops::clamp). The binary float methods have no function here, only
/// their spellings `a.name(b)` and `f64::name(a, b)`; their rules:
///
/// | method | adjoint |
/// |---|---|
/// | `a.max(b)`, `a.min(b)` | `g` to the operand chosen; a tie to `a` |
/// | `a.powf(b)` | `∂a = g·b·aᵇ⁻¹`, `∂b = g·aᵇ·ln a` (`0` where `aᵇ = 0`) |
/// | `y.atan2(x)` | `∂y = g·x/r²`, `∂x = -g·y/r²`, `r = hypot(x, y)` (NaN at the origin) |
/// | `x.hypot(y)` | `∂x = g·x/r`, `∂y = g·y/r` (`0` at the origin) |
/// | `x.log(b)` | `∂x = g/(x ln b)`, `∂b = -g·ln x/(b ln² b)` |
/// | `x.mul_add(a, b)` | `∂x = g·a`, `∂a = g·x`, `∂b = g` (scalars; one rounding) |
///
/// On arrays, ndarray has `z.hypot(s)` and `z.log(s)` with a scalar `s`
/// (its gradient is summed), and no `atan2`, `max`, `min` or `mul_add`.
///
/// # Edge values
///
/// What the generated backward returns at kinks, poles, overflow and NaN (each
/// convention pinned by `tests/edge_values.rs`):
///
/// - No panics: edge values follow IEEE 754 (an undefined value is NaN, an
///   infinite one `±inf`).
/// - Kinks take the subgradient 0: `relu` at exactly `0`, `abs` at `±0`.
/// - Ties go to the first operand: `a.max(b)` and `a.min(b)` with `a == b` send
///   the whole gradient to `a`.
/// - Infinite derivatives are `±inf`: `sqrt` at `0`; `ln` at `0` (value `-inf`,
///   gradient `+inf`); `recip` at `0`; `x / 0`. An upstream `0` times an infinite
///   local derivative is NaN.
/// - `ln` of a negative number: value NaN, gradient `g / x` (as PyTorch).
/// - Overflow is not an error: `exp(1000)` is `+inf` with gradient `+inf`.
/// - The row-wise functions are stable: `softmax`, `log_softmax`, `logsumexp`,
///   `softmax_cross_entropy` shift each row by its maximum (finite results for
///   logits up to `1e300`). `sigmoid(x)` is `1 / (1 + exp(-x))` as written:
///   `sigmoid(±1000)` is exactly `1`/`0` with gradient `0`, and below
///   `x = -709.78` (where `exp(-x)` overflows) the value is exactly `0`
///   where the true one is below `1e-308`. `softplus` and `log_sigmoid` are
///   computed as `max(x, 0) + ln_1p(e^-|x|)` and `min(x, 0) - ln_1p(e^-|x|)`:
///   no overflow at any `x` (`softplus(1000) = 1000`, `log_sigmoid(-1000) =
///   -1000`), within a few ulps of the exact value, and their gradients
///   (`σ(x)`, `σ(-x)`) are accurate where they are tiny.
/// - NaN in, NaN out, through every op (`relu(NaN)` is NaN); `max`/`min` follow
///   `f64::max`, which picks the non-NaN operand, and so does the gradient.
/// - `a.powf(b)` where `aᵇ = 0` (a zero base): `∂b = 0`, not `0 · ln 0`.
/// - Poles of the `f64` methods are `±inf`, as IEEE division gives: `acosh`
///   at `1`, `atanh` and `asin` at `±1`, `acos` at `±1` (`-inf`), `ln_1p` at
///   `-1`, `log2` and `log10` at `0` (as `ln`), `cbrt` at `±0`. The rules are
///   written to stay accurate up to the poles and at huge or tiny inputs
///   (`asin` as `g / (√(1 - x) √(1 + x))`, `asinh` as `g / hypot(x, 1)`,
///   `exp_m1` from the input, not from `out + 1`): within 2 ulps of the exact
///   derivative at the points `backprop-runtime/tests/elementwise.rs` checks.
/// - The piecewise constant `signum floor ceil round trunc` have gradient `0`,
///   at their jumps too (as PyTorch and JAX); `fract` passes `g`.
/// - `x.clamp(lo, hi)` has the gradient of `x.max(lo).min(hi)`: `g` on the
///   closed interval `[lo, hi]`, `0` outside; for a NaN `x` the value (as
///   `f64::clamp`) and the gradient are NaN. It panics where `f64::clamp`
///   does (`lo > hi` or a NaN bound), as the function the user wrote does.
///   Its bounds are constants: a differentiable bound is a compile error
///   whose hint is `x.max(lo).min(hi)`.
/// - `x.hypot(y)` takes the subgradient `0` at the origin (as `abs` at `0`);
///   `y.atan2(x)` has NaN gradients there, where the angle jumps.
/// - `x.mul_add(a, b)` is `f64::mul_add`, one rounding, bit for bit.
pub mod ops {
    pub use backprop_runtime::ops::vocabulary::*;
}

/// Everything a differentiable function usually needs: the macro, the ops of
/// the vocabulary and the common ndarray types.
pub mod prelude {
    pub use crate::gradcheck::{gradcheck, hvpcheck, jvpcheck, GradCheck};
    pub use crate::ops::*;
    pub use crate::{adjoint, differentiable, Differentiable};
    pub use ndarray::{
        arr1, arr2, array, concatenate, s, stack, Array, Array0, Array1, Array2, Array3, ArrayD,
        ArrayView, ArrayView1, ArrayView2, Axis, Ix1, Ix2, NewAxis, Slice, Zip,
    };
}

/// What the generated code calls. Not a public API: it may change in any release.
#[doc(hidden)]
pub mod __private {
    pub use backprop_runtime::__FromPrimitive as FromPrimitive;
    pub use backprop_runtime::__impl_serde as impl_serde;
    pub use backprop_runtime::closures::{
        closure_map, closure_map_back, closure_sum_back, closure_sum_map, closure_sum_zip,
        closure_sum_zip_back, closure_zip, closure_zip3, closure_zip3_back, closure_zip4,
        closure_zip4_back, closure_zip5, closure_zip5_back, closure_zip_back,
    };
    pub use backprop_runtime::dual::{
        Dual, Dualize, Lift, LiftAsIs, LiftConstant, SecondOrderCalls, Unlift, UnliftAsIs,
        UnliftFloat,
    };
    pub use backprop_runtime::each::each;
    pub use backprop_runtime::fixed::{
        fixed_copy, fixed_index, fixed_index_vjp, fixed_view, fixed_zeros,
    };
    pub use backprop_runtime::gradcheck::{flatten, Gradient};
    pub use backprop_runtime::kernels::{map_vjp, map_vjp_g, map_vjp_out, map_vjp_x, zip, zip_map};
    pub use backprop_runtime::model::fields::{
        assert_model, field_vjp, model_zeros, sum_models, ConstantRead,
    };
    pub use backprop_runtime::model::probe::{ConstantField, Probe, ViaConstant, ViaModel};
    pub use backprop_runtime::model::{
        visit_field, visit_field_mut, Differentiable, Path, Visitor, VisitorMut,
    };
    #[cfg(feature = "nalgebra")]
    pub use backprop_runtime::nalgebra::{pack_matrix, pack_matrix_vjp};
    pub use backprop_runtime::ops::*;
    pub use backprop_runtime::plain::{
        plain_from, plain_owned, plain_slice, plain_view, plain_view_vjp,
    };
    pub use backprop_runtime::steps::{Rows, Spare};
    pub use backprop_runtime::value::{
        call_arg, lent, one_like, scaled, scaled_add, shape_of, stand_in, zeros_in, zeros_like,
        Cot, NotDifferentiable, Plain,
    };
    pub use backprop_runtime::value::{ArithByRef, RefArith};
    pub use backprop_runtime::Float;
}
