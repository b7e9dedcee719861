//! The pipeline, start to end: parse, read the signature, lower the body to a
//! graph, analyse it, emit. On any error: the errors, plus a fallback
//! expansion so that callers do not drown in secondary errors.

use crate::args::{self, Args};
use crate::ast::Function;
use crate::ctxt::Ctxt;
use crate::emit;
use crate::plan::Namer;
use crate::{check, lower};
use proc_macro2::TokenStream;
use quote::quote;
use std::collections::HashSet;
use syn::spanned::Spanned;
use syn::{Item, ItemFn};

/// Expands `#[differentiable(args)] item`.
pub fn differentiable(args: TokenStream, item: TokenStream) -> TokenStream {
    // syn's parser recurses once per nested group: stop before it would
    // overflow the compiler's stack, and let the compiler parse the item.
    if let Some(span) = too_deep(&item, MAX_NESTING) {
        let e = syn::Error::new(
            span,
            format!("this function nests brackets more than {MAX_NESTING} levels deep, more than #[differentiable] handles; split the expression with `let` bindings"),
        );
        let mut out = e.to_compile_error();
        out.extend(item);
        return out;
    }
    let mut cx = Ctxt::default();
    let item_fn: ItemFn = match syn::parse2::<Item>(item.clone()) {
        Ok(Item::Fn(f)) => f,
        Ok(other) => {
            let e = syn::Error::new(
                item_keyword_span(&other),
                "#[differentiable] applies to a free function (`fn`); put it on the function that computes the value",
            );
            let mut out = e.to_compile_error();
            out.extend(item);
            return out;
        }
        Err(e) => {
            let mut out = e.to_compile_error();
            out.extend(item);
            return out;
        }
    };
    let args = args::parse(args).unwrap_or_else(|e| {
        cx.push(e);
        Args::default()
    });
    let krate = match &args.krate {
        Some(path) => quote!(#path),
        None => quote!(::backprop),
    };
    let mut used = HashSet::new();
    emit::idents(item, &mut used);

    let original = item_fn.clone();
    let Some(func) = Function::from_item(item_fn, &args, &krate, &mut cx) else {
        let errors = cx.to_compile_errors();
        return quote!(#errors #original);
    };
    let lowered = if cx.has_errors() {
        None
    } else {
        let env = lower::Env {
            krate: krate.clone(),
            opts: args.opts,
        };
        lower::lower_with(&func, &mut cx, &env)
    };
    match lowered {
        Some(l) if !cx.has_errors() => {
            let params: Vec<bool> = func.params.iter().map(|p| p.differentiable).collect();
            let analysis = check::analyse(&l, &params);
            emit::emit(&func, &l, &analysis, &krate, Namer::new(used), args.opts)
        }
        _ => fallback(&func, &krate, &cx, used),
    }
}

/// The original function, the gradient struct and a `NAME_backward` that
/// cannot run, beside the errors.
fn fallback(func: &Function, krate: &TokenStream, cx: &Ctxt, used: HashSet<String>) -> TokenStream {
    let mut namer = Namer::new(used);
    let frame = emit::frame(func, krate, &mut namer, false);
    let errors = cx.to_compile_errors();
    let item = emit::original_item(func);
    let items = &frame.items;
    let signature = &frame.signature;
    quote! {
        #errors
        #item
        #items
        #signature {
            ::core::unreachable!("#[differentiable] reported an error for this function")
        }
    }
}

/// Where to point when the attribute is on something that is not a function.
fn item_keyword_span(item: &Item) -> proc_macro2::Span {
    match item {
        Item::Struct(s) => s.struct_token.span,
        Item::Enum(e) => e.enum_token.span,
        Item::Impl(i) => i.impl_token.span,
        Item::Trait(t) => t.trait_token.span,
        Item::Mod(m) => m.mod_token.span,
        Item::Const(c) => c.const_token.span,
        Item::Static(s) => s.static_token.span,
        Item::Type(t) => t.type_token.span,
        Item::Use(u) => u.use_token.span,
        other => other.span(),
    }
}

/// How deep brackets may nest in a differentiable function.
const MAX_NESTING: usize = 256;

/// The span of the first group nested deeper than `limit`, found without recursion.
fn too_deep(tokens: &TokenStream, limit: usize) -> Option<proc_macro2::Span> {
    let mut stack = vec![tokens.clone().into_iter()];
    while let Some(top) = stack.last_mut() {
        match top.next() {
            Some(proc_macro2::TokenTree::Group(g)) => {
                if stack.len() > limit {
                    return Some(g.span());
                }
                stack.push(g.stream().into_iter());
            }
            Some(_) => {}
            None => {
                stack.pop();
            }
        }
    }
    None
}
