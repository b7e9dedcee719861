//! The `#[differentiable]` attribute macro and `#[derive(Differentiable)]` of [backprop](https://docs.rs/backprop).
//!
//! A thin entry point: the compiler itself is `backprop-codegen`, which takes
//! and returns `proc_macro2::TokenStream` so that ordinary tests, benches and
//! fuzzers can call it. Use the macro through the `backprop` crate, which
//! re-exports it; see that crate's documentation for the vocabulary.

use proc_macro::TokenStream;

/// Writes `NAME_backward` and the gradient struct `NameGrad` next to a function.
///
/// `#[differentiable]`, `#[differentiable(wrt(a, b))]` (only these parameters
/// are differentiable), `#[differentiable(crate = path)]` (where to find the
/// `backprop` facade). See the `backprop` crate for the full contract.
#[proc_macro_attribute]
pub fn differentiable(args: TokenStream, item: TokenStream) -> TokenStream {
    backprop_codegen::expand(args.into(), item.into()).into()
}

/// Marks a hand-written adjoint rule for a function the macro cannot see into.
///
/// `#[adjoint(logcosh)] fn logcosh_adjoint(x: f64, d_out: f64) -> f64` takes
/// the forward function's parameters, then the upstream gradient `d_out` last,
/// and returns one gradient per float parameter (a tuple when several). After
/// it, `logcosh(...)` may be called in any `#[differentiable]` body that can
/// also name `logcosh_vjp` (define the rule beside the function).
#[proc_macro_attribute]
pub fn adjoint(args: TokenStream, item: TokenStream) -> TokenStream {
    backprop_codegen::adjoint(args.into(), item.into()).into()
}

/// Implements `backprop::Differentiable` for a struct of float parameters.
///
/// Fields of type `f32`, `f64`, ndarray float arrays, other models, and
/// `Vec`, `[T; N]`, `Box`, `Option` of them are visited; other fields are
/// constants. `#[backprop(constant)]` on a field, `#[backprop(crate = path)]`
/// on the struct. See the `backprop` crate for the full contract.
#[proc_macro_derive(Differentiable, attributes(backprop))]
pub fn derive_differentiable(input: TokenStream) -> TokenStream {
    backprop_codegen::derive(input.into()).into()
}
