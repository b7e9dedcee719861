//! The op vocabulary: every forward function beside its adjoint rule.
//!
//! A forward function `foo` has adjoint rules `foo_vjp` (one differentiable
//! operand) or `foo_vjp_lhs` / `foo_vjp_rhs` (two). Each takes the upstream
//! gradient first (owned or borrowed, see [`Cot`](crate::Cot)), then the
//! forward arguments by reference (constants such as an `Axis`, an index or
//! labels by value), then what the rule reuses from the forward pass (its
//! output, or saved intermediates), and returns the gradient of its operand,
//! always of the operand's own shape.
//!
//! | family | ops |
//! |---|---|
//! | [`arith`] | `add sub mul div neg max min powf` |
//! | [`elementwise`] | `exp ln sqrt square abs sin cos tan tanh sigmoid relu recip powi` |
//! | [`reduce`] | `sum mean sum_axis mean_axis` |
//! | [`linalg`] | `dot t` |
//! | [`structure`] | `concat row column index copy` |
//! | [`nn`] | `softmax log_softmax logsumexp softmax_cross_entropy mse` |

pub mod arith;
pub mod elementwise;
pub mod linalg;
pub mod nn;
pub mod reduce;
pub mod structure;

pub use arith::*;
pub use elementwise::*;
pub use linalg::*;
pub use nn::*;
pub use reduce::*;
pub use structure::*;
