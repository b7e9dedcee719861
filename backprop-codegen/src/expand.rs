//! The pipeline, start to end: parse, read the signature, lower the body to a
//! graph, analyse it, emit. On any error: the errors, plus a fallback
//! expansion so that callers do not drown in secondary errors.

use crate::args::{self, Args};
use crate::ast::Function;
use crate::ctxt::Ctxt;
use crate::emit;
use crate::names::Namer;
use crate::{check, dual, lower, plan};
use proc_macro2::TokenStream;
use quote::quote;
use std::collections::HashSet;
use syn::spanned::Spanned;
use syn::{Item, ItemFn};

/// Expands `#[differentiable(args)] item`: a function, or an `impl` block
/// whose `#[differentiable]` methods it expands (writing their gradient
/// structs beside the block).
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
    let mut used = HashSet::new();
    crate::names::idents(item.clone(), &mut used);
    match syn::parse2::<Item>(item.clone()) {
        Ok(Item::Fn(f)) => {
            let (inside, outside) = function(args::parse(args), f, used);
            quote!(#inside #outside)
        }
        Ok(Item::Impl(i)) if i.trait_.is_none() => impl_block(args, i, used),
        Ok(other) => {
            let e = syn::Error::new(
                item_keyword_span(&other),
                "#[differentiable] applies to a function (`fn`) or to an `impl` block of differentiable methods; put it on the function that computes the value",
            );
            let mut out = e.to_compile_error();
            out.extend(item);
            out
        }
        Err(e) => {
            let mut out = e.to_compile_error();
            out.extend(item);
            out
        }
    }
}

/// `#[differentiable] impl Model { #[differentiable(..)] fn loss(&self, ..) }`:
/// each marked method expanded in the block (with the block's `crate =` if
/// it has one), and the gradient structs of the methods that differentiate
/// parameters beside `self` written after the block.
fn impl_block(args: TokenStream, mut block: syn::ItemImpl, used: HashSet<String>) -> TokenStream {
    let outer = match args::parse(args) {
        Ok(a) => a,
        Err(e) => {
            let e = e.to_compile_error();
            return quote!(#e #block);
        }
    };
    let mut inside = TokenStream::new();
    let mut outside = TokenStream::new();
    for item in std::mem::take(&mut block.items) {
        let syn::ImplItem::Fn(f) = item else {
            inside.extend(quote!(#item));
            continue;
        };
        let mut item_fn = method_as_fn(f);
        let Some(tokens) = take_attribute(&mut item_fn.attrs) else {
            inside.extend(quote!(#item_fn));
            continue;
        };
        let mut args = match args::parse(tokens) {
            Ok(a) => a,
            Err(e) => {
                inside.extend(e.to_compile_error());
                inside.extend(quote!(#item_fn));
                continue;
            }
        };
        if args.krate.is_none() {
            args.krate = outer.krate.clone();
        }
        args.self_ty = Some((*block.self_ty).clone());
        args.impl_float = crate::ast::float_param_of(&block.generics);
        let (i, o) = function(Ok(args), item_fn, used.clone());
        inside.extend(i);
        outside.extend(o);
    }
    let attrs = &block.attrs;
    let (impl_generics, self_ty) = (&block.generics, &block.self_ty);
    let where_clause = &block.generics.where_clause;
    quote! {
        #(#attrs)* impl #impl_generics #self_ty #where_clause { #inside }
        #outside
    }
}

/// The arguments of a `#[differentiable(..)]` among `attrs`, which it
/// removes; `None` if there is none.
pub(crate) fn take_attribute(attrs: &mut Vec<syn::Attribute>) -> Option<TokenStream> {
    let pos = attrs
        .iter()
        .position(|a| a.path().is_ident("differentiable"))?;
    Some(match attrs.remove(pos).meta {
        syn::Meta::List(l) => l.tokens,
        _ => TokenStream::new(),
    })
}

/// A method of an `impl` block as the function the pipeline reads (a
/// signature with `&self`); its tokens are the method's.
pub(crate) fn method_as_fn(f: syn::ImplItemFn) -> ItemFn {
    let syn::ImplItemFn {
        attrs,
        vis,
        modifiers,
        sig,
        block,
    } = f;
    ItemFn {
        attrs,
        vis,
        modifiers,
        sig,
        block: Box::new(block),
    }
}

/// A function's expansion: what stands where it was, and what goes beside
/// its `impl` block (a method's gradient struct). Arguments that do not
/// parse are reported beside the fallback expansion.
fn function(
    args: syn::Result<Args>,
    item_fn: ItemFn,
    used: HashSet<String>,
) -> (TokenStream, TokenStream) {
    let mut cx = Ctxt::default();
    let args = args.unwrap_or_else(|e| {
        cx.push(e);
        Args::default()
    });
    let krate = match &args.krate {
        Some(path) => quote!(#path),
        None => quote!(::backprop),
    };
    let original = item_fn.clone();
    let Some(func) = Function::from_item(item_fn, &args, &krate, &mut cx) else {
        let errors = cx.to_compile_errors();
        return (quote!(#errors #original), TokenStream::new());
    };
    let mut used = used;
    if func.written.is_some() {
        // The names a body over nalgebra values was written with.
        crate::names::idents(quote::ToTokens::to_token_stream(&func.item), &mut used);
    }
    if args.second.any() {
        dual::check(&func, args.second, &mut cx);
    }
    let lowered = if cx.has_errors() {
        None
    } else {
        let env = lower::Env {
            krate: krate.clone(),
            opts: args.opts,
            dual: args.dual_copy,
            names: crate::generic::names_module(&func).cloned(),
        };
        lower::lower_with(&func, &mut cx, &env)
    };
    match lowered {
        Some(l) if !cx.has_errors() => {
            // A second-order function's copy over duals, from the user's item.
            let copy = args.second.any().then(|| dual::copy(&func, &krate));
            let names = dual::names(&func, &l.dual_calls);
            let params: Vec<bool> = func.params.iter().map(|p| p.differentiable).collect();
            let analysis = check::analyse(&l, &params);
            // The function as the user wrote it; its copy over duals runs
            // forward as the macro's forward pass, planned with nothing
            // active.
            let mut inside = if args.dual_copy {
                let inactive = check::analyse(&l, &vec![false; params.len()]);
                let mut namer = Namer::new(used.clone());
                let bp = namer.fresh("bp");
                let frame = emit::frame(&func, &krate, &mut namer, false);
                let mut sh = plan::Shared {
                    func: &func,
                    namer,
                    opts: args.opts,
                };
                let plan = plan::plan(&l, &inactive, &mut sh, &frame.upstreams(&func));
                emit::forward_item(&func, &l, &plan, &bp, &krate)
            } else {
                emit::original_item(&func)
            };
            let mut namer = Namer::new(used.clone());
            let frame = emit::frame(&func, &krate, &mut namer, true);
            let bp = namer.fresh("bp");
            let mut sh = plan::Shared {
                func: &func,
                namer,
                opts: args.opts,
            };
            let plan = plan::plan(&l, &analysis, &mut sh, &frame.upstreams(&func));
            inside.extend(emit::emit(
                &func,
                &l,
                &plan,
                &frame,
                &bp,
                &krate,
                &mut sh.namer,
                args.each,
            ));
            let mut outside = frame.outside;
            if args.dual_copy {
                let d_out = Namer::new(used.clone()).fresh("d_out");
                inside.extend(dual::calls(&func, &krate, &d_out));
                inside.extend(names);
            }
            if let Some(copy) = copy {
                let copy_args = Args {
                    wrt: args.wrt.clone(),
                    krate: args.krate.clone(),
                    opts: args.opts,
                    dual_copy: true,
                    self_ty: args.self_ty.clone(),
                    impl_float: args.impl_float.clone(),
                    ..Args::default()
                };
                // A method's copy is a method too; its gradient struct goes
                // beside the block.
                let (copied, copied_outside) = function(Ok(copy_args), copy, used);
                inside.extend(dual::hidden(copied));
                outside.extend(dual::hidden(copied_outside));
                inside.extend(dual::wrappers(&func, args.second, &krate));
            }
            (inside, outside)
        }
        _ => fallback(&func, &krate, &cx, used, args.each),
    }
}

/// The original function, the gradient struct and a `NAME_backward` that
/// cannot run, beside the errors.
fn fallback(
    func: &Function,
    krate: &TokenStream,
    cx: &Ctxt,
    used: HashSet<String>,
    each: Option<proc_macro2::Span>,
) -> (TokenStream, TokenStream) {
    let mut namer = Namer::new(used);
    let frame = emit::frame(func, krate, &mut namer, false);
    let each = each.map(|_| emit::each_fallback(func, &frame, krate, &mut namer));
    let errors = cx.to_compile_errors();
    let item = emit::original_item(func);
    let items = &frame.items;
    let signature = &frame.signature;
    let inside = quote! {
        #errors
        #item
        #items
        #signature {
            ::core::unreachable!("#[differentiable] reported an error for this function")
        }
        #each
    };
    (inside, frame.outside)
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
