//! backprop as a GradBench tool: each eval's objective written once as a
//! `#[differentiable]` function, its derivatives from the generated code.

pub mod evals;
