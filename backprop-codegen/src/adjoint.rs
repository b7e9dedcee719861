//! `#[adjoint(name)]`: a user-written adjoint rule for a function the macro
//! cannot see into (a numerically special function, an external solver).
//!
//! The rule takes the forward function's parameters, then the upstream
//! gradient `d_out` last, and returns one gradient per differentiable
//! parameter (a tuple when several). The macro writes `name_vjp` beside it, the
//! positional gradients that differentiable callers of `name` use.

use crate::ast::{classify, strip_type, Kind};
use crate::ctxt::Ctxt;
use proc_macro2::TokenStream;
use quote::{format_ident, quote};
use syn::parse::Parser;
use syn::{FnArg, Ident, ItemFn, Pat, Path, Type};

/// Expands `#[adjoint(args)] item`.
pub fn adjoint(args: TokenStream, item: TokenStream) -> TokenStream {
    let mut cx = Ctxt::default();
    let rule: ItemFn = match syn::parse2(item.clone()) {
        Ok(f) => f,
        Err(e) => {
            let mut out = e.to_compile_error();
            out.extend(item);
            return out;
        }
    };
    let (target, krate, hvp) = match parse_args(args) {
        Ok(a) => a,
        Err(e) => {
            let mut out = e.to_compile_error();
            out.extend(quote!(#rule));
            return out;
        }
    };
    let krate = krate.map(|p| quote!(#p)).unwrap_or(quote!(::backprop));
    let sig = &rule.sig;
    // A rule generic over its float type (`T: backprop::Float`) serves
    // every precision, and duals: its derivative is its second order.
    let float = crate::ast::float_param_of(&sig.generics);
    let mut params =
        crate::ast::with_float_param(float.clone(), || rule_params(sig, &krate, &mut cx));
    let others = sig
        .generics
        .params
        .iter()
        .filter(|g| !matches!(g, syn::GenericParam::Type(t) if Some(&t.ident) == float.as_ref()))
        .count();
    if others > 0 {
        cx.error_at(
            &sig.generics,
            "an adjoint rule may be generic only over its float type (`T: backprop::Float`); write it for concrete types otherwise",
        );
    }
    if hvp && float.is_none() {
        cx.error_at(
            &sig.ident,
            "`#[adjoint(.., hvp)]` takes the rule's derivative by forward mode, which runs it on dual numbers: write the rule, and the function it is the adjoint of, generic over their float type (`fn rule<T: backprop::Float>(x: T, d_out: T) -> T`)",
        );
    }
    let Some((d_out, d_out_ty, _, _)) = params.pop() else {
        cx.error_at(
            &sig.ident,
            "an adjoint rule takes the forward function's parameters and then the upstream gradient `d_out` last",
        );
        return with_errors(&cx, &rule);
    };
    // The upstream gradient: one, or one per component of a tuple value
    // (`d_out: (f64, &Array1<f64>)`).
    let tuple = match strip_type(&d_out_ty) {
        Type::Tuple(t) if !t.elems.is_empty() => Some(t.elems.iter().collect::<Vec<_>>()),
        _ => None,
    };
    let components: Vec<&Type> = tuple.clone().unwrap_or_else(|| vec![&d_out_ty]);
    let mut upstream = Vec::new();
    for ty in &components {
        let (kind, by_ref) = crate::ast::with_float_param(float.clone(), || classify(ty, &krate));
        match &kind {
            Kind::Scalar(e) => {
                let e = e.ident();
                upstream.push((quote!(#e), kind, by_ref));
            }
            Kind::Array { owned, .. } => upstream.push((owned.clone(), kind, by_ref)),
            Kind::Model { .. } | Kind::Constant => {
                let message = if tuple.is_some() {
                    "each component of the upstream gradient `d_out` of a tuple value is an `f64`, an `f32` or a float array (by value or by reference)"
                } else {
                    "the last parameter of an adjoint rule is the upstream gradient `d_out`: an `f64`, `f32` or a float array (a tuple of them for a function that returns a tuple)"
                };
                cx.error_at(ty, message);
                return with_errors(&cx, &rule);
            }
        }
    }
    if hvp && tuple.is_some() {
        cx.error_at(
            &d_out_ty,
            "`#[adjoint(.., hvp)]` of a function that returns a tuple is not supported yet (second order of a tuple value); drop `hvp`",
        );
        return with_errors(&cx, &rule);
    }
    let owned: Vec<&TokenStream> = upstream.iter().map(|u| &u.0).collect();
    let d_owned = match &tuple {
        Some(_) => quote!((#(#owned,)*)),
        None => owned[0].clone(),
    };
    // `d_out` as the rule takes it: each component given as its type says.
    let give = |d: &TokenStream, kind: &Kind, by_ref: bool| match (kind, by_ref) {
        (Kind::Scalar(_), _) => quote!(*#krate::__private::Cot::get(&#d)),
        (_, true) => quote!(#krate::__private::Cot::get(&#d)),
        (_, false) => quote!(#krate::__private::Cot::into_owned(#d)),
    };
    let differentiable: Vec<&(Ident, Type, Kind, bool)> = params
        .iter()
        .filter(|p| !matches!(p.2, Kind::Model { .. } | Kind::Constant))
        .collect();
    if differentiable.is_empty() {
        cx.error_at(
            &sig.ident,
            "an adjoint rule needs at least one float parameter to return a gradient for",
        );
    }
    if cx.has_errors() {
        return with_errors(&cx, &rule);
    }
    let rule_name = &sig.ident;
    let vjp = format_ident!("{}_vjp", target.segments.last().expect("a path").ident);
    let vis = &rule.vis;
    let names: Vec<&Ident> = params.iter().map(|p| &p.0).collect();
    let types: Vec<&Type> = params.iter().map(|p| &p.1).collect();
    let grads: Vec<Ident> = differentiable
        .iter()
        .map(|p| format_ident!("d_{}", p.0))
        .collect();
    // `d_out: (impl Cot<C0>, ..)` for a tuple value, split into its parts.
    let (d_param_ty, split, d_arg) = match &tuple {
        Some(_) => {
            let parts: Vec<Ident> = (0..upstream.len())
                .map(|k| format_ident!("{}_{}", d_out, k))
                .collect();
            let given = parts
                .iter()
                .zip(&upstream)
                .map(|(d, (_, kind, by_ref))| give(&quote!(#d), kind, *by_ref));
            (
                quote!((#(impl #krate::__private::Cot<#owned>,)*)),
                quote!(let (#(#parts,)*) = #d_out;),
                quote!((#(#given,)*)),
            )
        }
        None => {
            let (_, kind, by_ref) = &upstream[0];
            (
                quote!(impl #krate::__private::Cot<#d_owned>),
                quote!(),
                give(&quote!(#d_out), kind, *by_ref),
            )
        }
    };
    let bind = if grads.len() == 1 {
        quote!(#(#grads)*)
    } else {
        quote!((#(#grads),*))
    };
    let positional: Vec<TokenStream> = params
        .iter()
        .map(|p| match p.2 {
            Kind::Model { .. } | Kind::Constant => quote!(#krate::__private::NotDifferentiable),
            _ => {
                let g = format_ident!("d_{}", p.0);
                quote!(#g)
            }
        })
        .collect();
    let positional_types: Vec<TokenStream> = params
        .iter()
        .map(|p| match &p.2 {
            Kind::Model { .. } | Kind::Constant => quote!(#krate::__private::NotDifferentiable),
            Kind::Scalar(e) => {
                let e = e.ident();
                quote!(#e)
            }
            Kind::Array { owned, .. } => owned.clone(),
        })
        .collect();
    let doc = format!(
        " The gradients of `{}` by parameter position, from the adjoint rule [`{rule_name}`]. Written by `#[adjoint]`.",
        quote!(#target)
    );
    // The rule's parameters and `d_out`.
    let many = (params.len() + 1 > 7).then(|| {
        quote!(#[allow(clippy::too_many_arguments, reason = "the function's parameters and `d_out`")])
    });
    let generics = &sig.generics;
    let where_clause = &generics.where_clause;
    // The gradient struct's name, which callers over duals reach the
    // function's copies through (see `crate::dual`): for `hvp`, the
    // function and this rule run on duals; otherwise nothing, so that
    // such a caller's message names what to add.
    let name = &target.segments.last().expect("a path").ident;
    let grad = crate::names::grad_struct_name(name);
    let marker = quote! {
        #[doc(hidden)]
        #vis struct #grad {}
    };
    let second = hvp.then(|| {
        let calls = format_ident!("{}Copies", grad);
        let t = float.as_ref().expect("checked");
        quote! {
            #[doc(hidden)]
            #vis struct #calls;
            impl #grad {
                #vis fn __copies<C>() -> #calls {
                    #calls
                }
            }
            impl #calls {
                #[allow(clippy::too_many_arguments, reason = "the function's parameters")]
                #vis fn call #generics(self, #(#names: #types,)*) -> #d_out_ty #where_clause {
                    #target::<#t>(#(#names,)*)
                }
                #[allow(clippy::too_many_arguments, reason = "the function's parameters and `d_out`")]
                #vis fn vjp #generics(self, #(#names: #types,)* #d_out: impl #krate::__private::Cot<#d_owned>) -> (#(#positional_types,)*) #where_clause {
                    #vjp::<#t>(#(#names,)* #d_out)
                }
            }
        }
    });
    quote! {
        #rule

        #[doc = #doc]
        #[doc(hidden)]
        #many
        #vis fn #vjp #generics(#(#names: #types,)* #d_out: #d_param_ty) -> (#(#positional_types,)*) #where_clause {
            #split
            let #bind = #rule_name(#(#names,)* #d_arg);
            (#(#positional,)*)
        }
        #marker
        #second
    }
}

/// The rule's parameters: name, type, kind, and whether behind `&`.
fn rule_params(
    sig: &syn::Signature,
    krate: &TokenStream,
    cx: &mut Ctxt,
) -> Vec<(Ident, Type, Kind, bool)> {
    let mut params = Vec::new();
    for arg in &sig.inputs {
        match arg {
            FnArg::Typed(pt) => match &*pt.pat {
                Pat::Ident(pi) => {
                    let (kind, by_ref) = classify(&pt.ty, krate);
                    params.push((pi.ident.clone(), (*pt.ty).clone(), kind, by_ref));
                }
                other => cx.error_at(
                    other,
                    "an adjoint rule needs a plain name for every parameter",
                ),
            },
            FnArg::Receiver(r) => {
                cx.error_at(r, "an adjoint rule is a free function, not a method")
            }
        }
    }
    params
}

fn with_errors(cx: &Ctxt, rule: &ItemFn) -> TokenStream {
    let errors = cx.to_compile_errors();
    quote!(#errors #rule)
}

/// `name`, then `hvp` and `crate = path` if given.
fn parse_args(args: TokenStream) -> syn::Result<(Path, Option<Path>, bool)> {
    let mut target: Option<Path> = None;
    let mut krate = None;
    let mut hvp = false;
    let span = proc_macro2::Span::call_site();
    let parser = syn::meta::parser(|meta| {
        if meta.path.is_ident("crate") {
            krate = Some(meta.value()?.parse()?);
            Ok(())
        } else if target.is_some() && meta.path.is_ident("hvp") {
            hvp = true;
            Ok(())
        } else if target.is_none() && (meta.input.is_empty() || meta.input.peek(syn::Token![,])) {
            target = Some(meta.path.clone());
            Ok(())
        } else {
            Err(meta.error("expected the forward function's name, as in `#[adjoint(logcosh)]`"))
        }
    });
    parser.parse2(args)?;
    match target {
        Some(t) => Ok((t, krate, hvp)),
        None => Err(syn::Error::new(
            span,
            "name the function this rule is the adjoint of, as in `#[adjoint(logcosh)]`",
        )),
    }
}
