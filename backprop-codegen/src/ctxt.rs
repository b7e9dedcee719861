//! Collects every error of a function, so a user sees them all in one build.

use proc_macro2::{Span, TokenStream};
use std::fmt::Display;

/// The errors found so far.
#[derive(Default)]
pub struct Ctxt {
    errors: Vec<syn::Error>,
}

impl Ctxt {
    /// Records an error at `span`.
    pub fn error(&mut self, span: Span, message: impl Display) {
        self.errors.push(syn::Error::new(span, message));
    }

    /// Records an error spanning the tokens of `node`.
    pub fn error_at(&mut self, node: &impl quote::ToTokens, message: impl Display) {
        self.errors.push(syn::Error::new_spanned(node, message));
    }

    /// Records a ready error.
    pub fn push(&mut self, error: syn::Error) {
        self.errors.push(error);
    }

    /// Takes over the errors of another context.
    pub fn merge(&mut self, other: Ctxt) {
        self.errors.extend(other.errors);
    }

    /// Whether anything went wrong.
    pub fn has_errors(&self) -> bool {
        !self.errors.is_empty()
    }

    /// All errors as `compile_error!` invocations.
    pub fn to_compile_errors(&self) -> TokenStream {
        self.errors
            .iter()
            .map(syn::Error::to_compile_error)
            .collect()
    }
}
