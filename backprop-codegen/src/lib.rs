//! The compiler behind backprop's `#[differentiable]`.
//!
//! The macro reads a plain Rust function over `f64`/`f32` and ndarray arrays,
//! builds the expression DAG of its body and writes `NAME_backward`, which runs
//! the forward pass keeping every intermediate in a local and then the reverse
//! sweep with explicit adjoints.
//!
//! The pipeline, one stage a module, each using only the stages before it
//! (`tests/stages.rs` checks it):
//!
//! ```text
//! args (the attribute)   ast (the signature)        vocab (the op table)
//!   -> lower   the body to a graph: one node per value, regions for loops,
//!              branches and closures (graph, with types: what is known of
//!              each value's type)
//!   -> check   which values are live and active, and each one's uses
//!   -> plan    every decision about the code: names, where each value
//!              lives, what loops keep, where each contribution goes
//!   -> emit    the plan as tokens: NAME_backward, its gradient struct
//! ```
//!
//! `expand` runs them for a function and, for `jvp`/`hvp`, runs them again
//! on its copy over dual numbers (`dual`, with `generic` for the copy's
//! float type), then writes `NAME_jvp` and `NAME_hvp`. This crate takes and
//! returns `proc_macro2::TokenStream`, so tests, benches and fuzzers call it
//! directly; `backprop-macros` is the three-line proc-macro entry point.
//! `derive` is `#[derive(Differentiable)]`, `adjoint` is `#[adjoint]` (a
//! user's own rule), `pretty` prints expansions.
#![warn(missing_docs)]

mod adjoint;
mod args;
mod ast;
mod check;
mod ctxt;
mod derive;
mod dual;
mod emit;
mod expand;
mod generic;
mod graph;
mod lower;
mod names;
mod plan;
mod pretty;
#[cfg(test)]
mod tests;
mod types;
mod vocab;

pub use adjoint::adjoint;
pub use derive::derive;
pub use expand::differentiable as expand;
pub use pretty::{expand_source, pretty_backward};

/// Every op of the table, by its name in the table and its example body
/// (see `tests/vocab.rs` of the `backprop` crate, which compiles one
/// differentiable function per row and gradchecks it). Not a public API.
#[doc(hidden)]
pub fn vocabulary_examples() -> Vec<(String, &'static str)> {
    vocab::Op::ALL
        .iter()
        .map(|op| (format!("{op:?}"), op.def().example))
        .collect()
}
