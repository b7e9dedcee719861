//! `NAME_backward_each` (`#[differentiable(backward_each)]`): one forward
//! pass, then one reverse sweep per upstream gradient. The rows of a
//! tuple-valued function's Jacobian (`d_outs` the unit vectors) cost one
//! forward pass instead of one per row.
//!
//! ```text
//! Before: #[differentiable(backward_each)]
//!         fn polar(r: f64, t: f64) -> (f64, f64) { (r * t.cos(), r * t.sin()) }
//! After:  pub fn polar_backward_each<const K: usize>(r: f64, t: f64,
//!             d_outs: [(f64, f64); K]) -> ((f64, f64), [PolarGrad; K]) {
//!             <the forward pass of `polar_backward`>
//!             let grads = bp::each(d_outs, |d_out| {
//!                 let (d_out_0, d_out_1) = d_out;
//!                 <the reverse sweep of `polar_backward`>
//!                 PolarGrad { r: d_r, t: d_t }
//!             });
//!             ((out_0, out_1), grads)
//!         }
//! ```
//!
//! The sweep is a closure that `bp::each` takes as `Fn`: it reads the
//! forward pass's values and cannot write over them. `plan::each` accepts
//! only functions whose sweep reads nothing but floats, so that it compiles.

use super::{inline_of, many_arguments, strip_mut, where_clause, Frame};
use crate::ast::Function;
use crate::names::Namer;
use proc_macro2::TokenStream;
use quote::{format_ident, quote};

/// The body of `NAME_backward_each` in three parts: what runs once before
/// the sweeps (the forward pass), one sweep (from `d_out` to the gradient),
/// and the value.
pub struct Body {
    pub once: TokenStream,
    pub sweep: TokenStream,
    pub value: TokenStream,
}

/// `NAME_backward_each`; `body` is `None` for the fallback, which cannot run.
pub fn item(
    func: &Function,
    frame: &Frame,
    krate: &TokenStream,
    namer: &mut Namer,
    bp: &proc_macro2::Ident,
    body: Option<Body>,
) -> TokenStream {
    let sig = &func.item.sig;
    let vis = &func.item.vis;
    let name = &sig.ident;
    let each_name = format_ident!("{}_backward_each", name, span = name.span());
    let k = namer.fresh("K");
    let d_outs = namer.fresh("d_outs");
    let mut generics = sig.generics.clone();
    generics.params.push(syn::parse_quote!(const #k: usize));
    let inputs = strip_mut(sig.inputs.iter());
    let Frame {
        d_out,
        d_out_ty,
        ret,
        grad_ty,
        ..
    } = frame;
    let doc = format!(
        " Runs [`{name}`] once and its reverse sweep once per upstream gradient in `d_outs`: returns the value and, for each `d_outs[k]`, the gradient that `{name}_backward(.., d_outs[k])` returns. Written by `#[differentiable(backward_each)]`."
    );
    let many = many_arguments(func);
    let inline = inline_of(func);
    let where_clause = where_clause(func, krate);
    let bounds = func.float_param.as_ref().map(|_| {
        quote!(#[allow(clippy::multiple_bound_locations, reason = "the user's bounds, and the runtime's float trait")])
    });
    let (unused, block) = match body {
        Some(Body { once, sweep, value }) => {
            let grads = namer.fresh("grads");
            let block = quote! {
                #[allow(unused_imports, reason = "plain arithmetic calls nothing of the runtime")]
                use #krate::__private as #bp;
                #once
                let #grads = #bp::each(#d_outs, |#d_out: #d_out_ty| { #sweep });
                (#value, #grads)
            };
            (None, block)
        }
        None => (
            Some(
                quote!(#[allow(unused_variables, reason = "this function cannot run: #[differentiable] reported an error")]),
            ),
            quote!(::core::unreachable!(
                "#[differentiable] reported an error for this function"
            )),
        ),
    };
    quote! {
        #[doc = #doc]
        #many
        #inline
        #bounds
        #unused
        #vis fn #each_name #generics(#(#inputs,)* #d_outs: [#d_out_ty; #k]) -> (#ret, [#grad_ty; #k]) #where_clause {
            #block
        }
    }
}
