//! The ops: every forward function beside its adjoint rule, by family.
//!
//! [`vocabulary`] is what a differentiable body calls as functions (it is
//! `backprop::ops`); the rest is what the generated code calls: the forms of
//! the operators and methods (`a + b`, `a.dot(&b)`, `a.t()`, ...), the
//! rules, and the kernels of the elementwise ops, hidden from these docs.
//!
//! An elementwise op is one row of [`elementwise`]: one line of maths for its
//! value and one for its rule (see [`crate::kernels`]). A rule takes the
//! upstream gradient first (owned or borrowed, see [`Cot`](crate::Cot)), then
//! what it reads of the forward pass, and returns the gradient of its
//! operand, always of the operand's own shape; the rules that a fork or a
//! loop may add up return a [`Contribution`](crate::contrib::Contribution).
//!
//! | family | ops |
//! |---|---|
//! | [`arith`] | `+ - * /`, unary `-`, `max min powf atan2 hypot log mul_add` |
//! | [`elementwise`] | the maps of one value: `exp ln tanh relu powi sinh ln_1p floor clamp ...`, one row each |
//! | [`reduce`] | `sum mean sum_axis mean_axis var std_dev var_axis std_dev_axis product product_axis max_axis min_axis`, `a.iter().sum()`, `a.iter().product()` |
//! | [`linalg`] | `dot t` |
//! | [`structure`] | `concat concatenate stack row column index to_owned insert_axis select slice slice_axis index_axis remove_axis reshape permuted_axes broadcast` |
//! | [`nn`] | `softmax log_softmax logsumexp softmax_cross_entropy mse` |

pub mod arith;
pub mod elementwise;
pub mod linalg;
pub mod nn;
pub mod places;
pub mod reduce;
pub mod structure;
pub mod writes;

pub use arith::*;
pub use elementwise::*;
pub use linalg::*;
pub use nn::*;
pub use reduce::*;
pub use structure::*;
pub use writes::*;

/// The functions a differentiable body may call: `backprop::ops`.
pub mod vocabulary {
    pub use super::elementwise::vocabulary::*;
    pub use super::elementwise::{clamp, powi};
    pub use super::nn::{log_softmax, logsumexp, mse, softmax, softmax_cross_entropy};
    pub use super::reduce::{mean, mean_axis, sum, sum_axis};
    pub use super::structure::concat;
}
