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
pub use backprop_macros::differentiable;

/// Marks a hand-written adjoint rule, so that the function may be called in
/// differentiable bodies.
///
/// ```
/// use backprop::prelude::*;
///
/// fn softplus(x: f64) -> f64 {
///     x.max(0.0) + (-x.abs()).exp().ln_1p()
/// }
///
/// /// d softplus(x) / dx = sigmoid(x)
/// #[adjoint(softplus)]
/// fn softplus_adjoint(x: f64, d_out: f64) -> f64 {
///     d_out * sigmoid(x)
/// }
///
/// #[differentiable]
/// fn smooth(x: f64, y: f64) -> f64 {
///     softplus(x * y) + y
/// }
///
/// let (_, grad) = smooth_backward(2.0, 0.5, 1.0);
/// assert!((grad.x - 0.5 * sigmoid(1.0_f64)).abs() < 1e-15);
/// gradcheck(&(2.0, 0.5), |&(x, y)| smooth_backward(x, y, 1.0)).unwrap();
/// ```
pub use backprop_macros::adjoint;
pub use backprop_runtime::gradcheck::{
    self, gradcheck, GradCheck, GradcheckError, Gradient, Params,
};
pub use backprop_runtime::{unbroadcast, Float, Operand, Tensor, Value};
pub use ndarray;

/// The op vocabulary: the functions a differentiable body may call, each
/// beside its adjoint rule (`foo_vjp`, or `foo_vjp_lhs` / `foo_vjp_rhs`).
pub mod ops {
    pub use backprop_runtime::ops::*;
}

/// Everything a differentiable function usually needs: the macro, the ops of
/// the vocabulary and the common ndarray types.
pub mod prelude {
    pub use crate::gradcheck::{gradcheck, GradCheck};
    pub use crate::ops::{
        abs, concat, cos, exp, ln, log_softmax, logsumexp, mean, mean_axis, mse, powi, relu,
        sigmoid, sin, softmax, softmax_cross_entropy, sqrt, square, sum, sum_axis, tan, tanh,
    };
    pub use crate::{adjoint, differentiable};
    pub use ndarray::{
        arr1, arr2, array, Array, Array0, Array1, Array2, Array3, ArrayD, ArrayView, ArrayView1,
        ArrayView2, Axis, Ix1, Ix2,
    };
}

/// What the generated code calls. Not a public API: it may change in any release.
#[doc(hidden)]
pub mod __private {
    pub use backprop_runtime::gradcheck::{flatten, Gradient};
    pub use backprop_runtime::ops::*;
    pub use backprop_runtime::steps::{Rows, Spare};
    pub use backprop_runtime::value::{
        lent, shape_of, stand_in, zeros_in, zeros_like, Cot, NotDifferentiable,
    };
}
