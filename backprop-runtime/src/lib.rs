//! The runtime of `backprop`: the op vocabulary (forward functions), their local
//! adjoint rules (vector-Jacobian products), [`unbroadcast()`] and
//! [`gradcheck`](gradcheck()); models as structs ([`Differentiable`], the
//! [`optim`]isers) and data-parallel gradients ([`parallel`]).
//!
//! Users normally depend on the `backprop` facade, which re-exports this crate.
#![warn(missing_docs)]

pub mod closures;
pub mod contrib;
pub mod dual;
pub mod each;
pub mod fixed;
pub mod gradcheck;
pub mod kernels;
pub mod model;
#[cfg(feature = "nalgebra")]
pub mod nalgebra;
pub mod ops;
pub mod outers;
pub mod parallel;
pub mod plain;
pub mod steps;
pub mod unbroadcast;
pub mod value;

pub use gradcheck::{gradcheck, hvpcheck, jvpcheck, GradCheck, GradcheckError, Gradient, Params};
pub use model::{optim, Differentiable};
pub use unbroadcast::{unbroadcast, SumTo};
pub use value::{zeros_like, Cot, Float, Operand, Tensor, Value};

/// num-traits' `FromPrimitive`, which the copies over duals of
/// `#[differentiable(jvp)]` functions bound their float type with.
#[doc(hidden)]
pub use num_traits::FromPrimitive as __FromPrimitive;

/// serde, for the impls that `__impl_serde!` writes.
#[cfg(feature = "serde")]
#[doc(hidden)]
pub use serde as __serde;
