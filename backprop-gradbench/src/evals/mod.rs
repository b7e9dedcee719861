//! One module per GradBench eval. Each has `prepare(function, input)`, which
//! parses the input (untimed) and returns a closure that evaluates the named
//! function once and returns its output in the layout of the `manual` tool.

pub mod ba;
pub mod gmm;
pub mod ht;
pub mod lstm;
