//! The `#[differentiable]` attribute macro of [backprop](https://docs.rs/backprop).
//!
//! The macro reads a plain Rust function over `f64`/`f32` and ndarray arrays,
//! builds the expression DAG of its body and writes `NAME_backward`, which runs
//! the forward pass keeping every intermediate in a local and then the reverse
//! sweep with explicit adjoints. Use it through the `backprop` crate, which
//! re-exports it; see that crate's documentation for the vocabulary.
//!
//! The pipeline, one stage a module: [`args`] and [`ast`] read the attribute
//! and the signature, [`lower`] turns the body into a [`graph::Graph`],
//! [`check`] finds the active values and their uses, [`emit`] writes the code,
//! and [`expand`] runs them in order.

mod args;
mod ast;
mod check;
mod ctxt;
mod emit;
mod expand;
mod graph;
mod lower;

use proc_macro::TokenStream;

/// Writes `NAME_backward` and the gradient struct `NameGrad` next to a function.
///
/// `#[differentiable]`, `#[differentiable(wrt(a, b))]` (only these parameters
/// are differentiable), `#[differentiable(crate = path)]` (where to find the
/// `backprop` facade). See the `backprop` crate for the full contract.
#[proc_macro_attribute]
pub fn differentiable(args: TokenStream, item: TokenStream) -> TokenStream {
    expand::differentiable(args.into(), item.into()).into()
}

#[cfg(test)]
mod snapshots;
