//! The compiler behind backprop's `#[differentiable]`.
//!
//! The macro reads a plain Rust function over `f64`/`f32` and ndarray arrays,
//! builds the expression DAG of its body and writes `NAME_backward`, which runs
//! the forward pass keeping every intermediate in a local and then the reverse
//! sweep with explicit adjoints.
//!
//! The pipeline, one stage a module: `args` and `ast` read the attribute and
//! the signature, `lower` turns the body into a `graph::Graph`, `check` finds
//! the active values and their uses, `emit` writes the code, and `expand` runs
//! them in order. This crate takes and returns `proc_macro2::TokenStream`, so
//! tests, benches and fuzzers call it directly; `backprop-macros` is the
//! three-line proc-macro entry point. `derive` is `#[derive(Differentiable)]`.
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
mod graph;
mod lower;
mod plan;
mod pretty;
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
