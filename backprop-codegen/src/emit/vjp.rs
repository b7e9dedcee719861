//! `NAME_vjp`: the gradients by parameter position, for the differentiable
//! functions that call this one (their reverse sweep calls it with the
//! upstream gradient of the call's value; see `plan::routing`).
//!
//! ```text
//! Before: #[differentiable] fn polar(x: f64, y: f64) -> (f64, f64) { .. }
//! After:  pub fn polar_vjp(x: f64, y: f64,
//!             d_out: (impl Cot<f64>, impl Cot<f64>)) -> (f64, f64) {
//!             let (d_out_0, d_out_1) = d_out;
//!             let (_, grad) = polar_backward(x, y, (*Cot::get(&d_out_0), *Cot::get(&d_out_1)));
//!             (grad.x, grad.y)
//!         }
//! ```
//!
//! A function whose value is a tuple takes one upstream gradient per
//! component, each in the form a one-valued function's `_vjp` takes it
//! (owned or borrowed, `impl Cot<T>`).

use super::{components, inline_of, many_arguments, strip_mut};
use crate::ast::{Function, Kind};
use crate::names::Namer;
use proc_macro2::{Ident, TokenStream};
use quote::{format_ident, quote, ToTokens};

/// `NAME_vjp` (`real` false: the fallback's, which cannot run).
pub fn item(
    func: &Function,
    krate: &TokenStream,
    namer: &Namer,
    d_out: &Ident,
    ret: &TokenStream,
    real: bool,
) -> TokenStream {
    let sig = &func.item.sig;
    let vis = &func.item.vis;
    let name = &sig.ident;
    let generics = &sig.generics;
    let vjp_name = format_ident!("{}_vjp", name, span = name.span());
    let mut names = namer.fresh_for_user();
    let grad = names.fresh("grad");
    let upstream = upstream(func, krate, &mut names, d_out, ret);
    let positional: Vec<TokenStream> = func
        .params
        .iter()
        .map(|p| {
            let ident = &p.ident;
            if p.differentiable && ident == "self" && func.method_struct() {
                quote!(#grad.self_)
            } else if p.differentiable && ident == "self" {
                // A method's gradient is `Self`.
                quote!(#grad)
            } else if p.differentiable && p.kind.plain().is_some() {
                // A container's gradient as the array its callers hold.
                quote!(#krate::__private::plain_owned(&#grad.#ident))
            } else if p.differentiable {
                quote!(#grad.#ident)
            } else {
                quote!(#krate::__private::NotDifferentiable)
            }
        })
        .collect();
    let positional_types = positional_types(func, krate);
    let per_component = if func.tuple.is_some() {
        ", given one upstream gradient per component of its value"
    } else {
        ""
    };
    let vjp_doc = format!(
        " The gradients of [`{name}`] by parameter position (`NotDifferentiable` for a constant){per_component}, for differentiable functions that call `{name}`. Written by `#[differentiable]`."
    );
    let inputs = strip_mut(sig.inputs.iter());
    let many = many_arguments(func);
    let Upstream { ty, unpack, arg } = upstream;
    let where_clause = super::where_clause(func, krate);
    let bounds = func.float_param.as_ref().map(|_| {
        quote!(#[allow(clippy::multiple_bound_locations, reason = "the user's bounds, and the runtime's float trait")])
    });
    let signature = quote! {
        #bounds
        #vis fn #vjp_name #generics(#(#inputs,)* #d_out: #ty) -> (#(#positional_types,)*) #where_clause
    };
    if !real {
        return quote! {
            #[doc(hidden)]
            #many
            #[allow(unused_variables, reason = "this function cannot run: #[differentiable] reported an error")]
            #signature {
                ::core::unreachable!("#[differentiable] reported an error for this function")
            }
        };
    }
    let arg_names = func.params.iter().map(|p| &p.ident);
    let backward_name = format_ident!("{}_backward", name, span = name.span());
    let backward_name = if func.is_method() {
        quote!(Self::#backward_name)
    } else {
        backward_name.to_token_stream()
    };
    let inline = inline_of(func);
    quote! {
        #[doc = #vjp_doc]
        #[doc(hidden)]
        #many
        #inline
        #[allow(clippy::type_complexity, reason = "one gradient per parameter, by position")]
        #signature {
            #unpack
            let (_, #grad) = #backward_name(#(#arg_names,)* #arg);
            (#(#positional,)*)
        }
    }
}

/// The types `NAME_vjp` returns, one per parameter: its gradient's, or
/// `NotDifferentiable`.
pub fn positional_types(func: &Function, krate: &TokenStream) -> Vec<TokenStream> {
    func.params
        .iter()
        .map(|p| match (&p.kind, p.differentiable) {
            (Kind::Scalar(e), true) => e.ident().into_token_stream(),
            (
                Kind::Array {
                    elem,
                    axes: Some(axes),
                    plain: Some(_),
                    ..
                },
                true,
            ) => {
                let e = elem.ident();
                let dim = quote::format_ident!("Ix{}", axes);
                quote!(#krate::ndarray::Array<#e, #krate::ndarray::#dim>)
            }
            (Kind::Array { owned, .. } | Kind::Model { owned }, true) => owned.clone(),
            _ => quote!(#krate::__private::NotDifferentiable),
        })
        .collect()
}

/// How `NAME_vjp` takes its upstream gradient and hands it to
/// `NAME_backward`.
pub struct Upstream {
    /// Its type: `impl Cot<T>`, or a tuple of them, one per component.
    pub ty: TokenStream,
    /// `let (d_out_0, d_out_1) = d_out;` for a tuple.
    unpack: TokenStream,
    /// The argument `NAME_backward` takes: a float by value, an array by
    /// reference (a tuple of them).
    arg: TokenStream,
}

/// The upstream gradient of a function's value: one `impl Cot<T>` for a
/// value, one per component for a tuple.
pub fn upstream(
    func: &Function,
    krate: &TokenStream,
    names: &mut Namer,
    d_out: &Ident,
    ret: &TokenStream,
) -> Upstream {
    let elem = func.elem.ident().into_token_stream();
    // `Cot<T>` of one value, and that value as `NAME_backward` takes it.
    let one = |local: &Ident, array: bool, ty: TokenStream| {
        let arg = if array {
            quote!(#krate::__private::Cot::get(&#local))
        } else {
            quote!(*#krate::__private::Cot::get(&#local))
        };
        (quote!(impl #krate::__private::Cot<#ty>), arg)
    };
    if func.plain_output.is_some() {
        // A container (`Vec<f64>`) by reference, as `NAME_backward` takes it.
        return Upstream {
            ty: quote!(&#ret),
            unpack: TokenStream::new(),
            arg: d_out.to_token_stream(),
        };
    }
    let (Some(arrays), syn::ReturnType::Type(_, ret_ty)) = (&func.tuple, &func.item.sig.output)
    else {
        let ty = if func.array_output { ret.clone() } else { elem };
        let (ty, arg) = one(d_out, func.array_output, ty);
        return Upstream {
            ty,
            unpack: TokenStream::new(),
            arg,
        };
    };
    let locals: Vec<Ident> = (0..arrays.len())
        .map(|k| names.fresh(&format!("{d_out}_{k}")))
        .collect();
    let (types, args): (Vec<_>, Vec<_>) = components(ret_ty)
        .into_iter()
        .zip(arrays)
        .zip(&locals)
        .map(|((ty, &array), local)| {
            let ty = if array {
                ty.to_token_stream()
            } else {
                elem.clone()
            };
            one(local, array, ty)
        })
        .unzip();
    Upstream {
        ty: quote!((#(#types,)*)),
        unpack: quote!(let (#(#locals,)*) = #d_out;),
        arg: quote!((#(#args,)*)),
    }
}
