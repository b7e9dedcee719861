//! backprop as a [GradBench](https://github.com/gradbench/gradbench) tool.
//!
//! [`protocol`] speaks GradBench's JSON-lines protocol; [`evals`] holds one
//! module per eval, each objective written once as a `#[differentiable]`
//! function and every derivative taken from the generated `_backward`.
//! The binary (`src/main.rs`) serves the protocol on standard input and
//! output.

pub mod evals;
pub mod protocol;
