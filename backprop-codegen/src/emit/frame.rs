//! The frame of the expansion: the gradient struct and its impls, the
//! signatures of `NAME_backward` and its siblings, and the original item.

use crate::ast::{Function, Kind};
use crate::names::{grad_struct_name, Namer};
use proc_macro2::{Ident, TokenStream};
use quote::{format_ident, quote, ToTokens};

/// The gradient struct, its `Differentiable` impl and the signature of
/// `NAME_backward`, shared by the real expansion and the fallback.
pub struct Frame {
    pub struct_name: Ident,
    pub d_out: Ident,
    /// For a tuple output, the name of each component of `d_out`.
    pub d_outs: Vec<Ident>,
    pub items: TokenStream,
    /// What goes beside a method's `impl` block: its gradient struct.
    pub outside: TokenStream,
    pub signature: TokenStream,
    /// The types of `d_out`, of the value and of the gradient (for
    /// `NAME_backward_each`'s signature).
    pub d_out_ty: TokenStream,
    pub ret: TokenStream,
    pub grad_ty: TokenStream,
}

impl Frame {
    /// The upstream gradient of each output: `d_out`, or one per component
    /// of a tuple.
    pub fn upstreams(&self, func: &Function) -> Vec<Ident> {
        if func.tuple.is_some() {
            self.d_outs.clone()
        } else {
            vec![self.d_out.clone()]
        }
    }
}

/// The name of the type a method's `impl` block implements (`Affine` of
/// `impl Affine`, `Mlp` of `impl<T> Mlp<T>`).
fn self_type_name(func: &Function) -> Option<Ident> {
    match func.self_ty.as_ref()? {
        syn::Type::Path(p) => p.path.segments.last().map(|s| s.ident.clone()),
        _ => None,
    }
}

/// The name of a function's gradient struct: `NameGrad`, and for a
/// method `TypeNameGrad` (`AffineEnergyGrad`), since two types may have
/// methods of one name.
pub fn grad_struct_of(func: &Function) -> Ident {
    let name = &func.item.sig.ident;
    match self_type_name(func) {
        Some(ty) if func.method_struct() => {
            format_ident!("{}{}", ty, grad_struct_name(name), span = name.span())
        }
        _ => grad_struct_name(name),
    }
}

/// The field of the gradient struct for a parameter: its name, `self_` for
/// `self`.
pub fn grad_field(p: &crate::ast::Param) -> Ident {
    if p.ident == "self" {
        format_ident!("self_", span = p.ident.span())
    } else {
        p.ident.clone()
    }
}

/// `real` is false for the fallback expansion, whose functions cannot run.
pub fn frame(func: &Function, krate: &TokenStream, namer: &mut Namer, real: bool) -> Frame {
    let sig = &func.item.sig;
    let vis = &func.item.vis;
    let name = &sig.ident;
    let struct_name = grad_struct_of(func);
    let backward_name = format_ident!("{}_backward", name, span = name.span());
    let fields: Vec<TokenStream> = func
        .params
        .iter()
        .filter(|p| p.differentiable)
        .map(|p| {
            let ident = grad_field(p);
            let ty = match (&p.kind, &func.self_ty) {
                (Kind::Scalar(e), _) => e.ident().into_token_stream(),
                // Beside the `impl` block `Self` is the block's type.
                (Kind::Model { .. }, Some(self_ty)) if p.ident == "self" => {
                    self_ty.to_token_stream()
                }
                (Kind::Array { owned, .. } | Kind::Model { owned }, _) => owned.clone(),
                (Kind::Constant, _) => unreachable!("only float parameters are differentiable"),
            };
            let doc = format!(" The gradient with respect to `{}`.", p.ident);
            quote!(#[doc = #doc] pub #ident: #ty)
        })
        .collect();
    let struct_doc = format!(
        " The gradient of [`{name}`] with respect to its differentiable parameters, one field each, written by `#[differentiable]`."
    );
    let (struct_params, struct_args) = match &func.float_param {
        Some(t) => (quote!(<#t: #krate::__private::Float>), quote!(<#t>)),
        None => (TokenStream::new(), TokenStream::new()),
    };
    let grad_struct = quote! {
        #[doc = #struct_doc]
        #[derive(Debug, Clone)]
        #vis struct #struct_name #struct_params {
            #(#fields,)*
        }
    };
    // A gradient is a model: optimisers and `gradcheck` take it.
    let differentiable = crate::derive::gradient_impl(grad_struct.clone(), krate);
    let items = quote!(#grad_struct #differentiable);
    let d_out = namer.fresh("d_out");
    let ret = match &sig.output {
        syn::ReturnType::Type(_, ty) => ty.to_token_stream(),
        syn::ReturnType::Default => quote!(()),
    };
    let (d_out_ty, d_outs) = match (&func.tuple, &sig.output) {
        (Some(arrays), syn::ReturnType::Type(_, ty)) => {
            let types = components(ty);
            let d_types = types.iter().zip(arrays).map(|(t, array)| {
                if *array {
                    quote!(&#t)
                } else {
                    func.elem.ident().into_token_stream()
                }
            });
            let names = (0..arrays.len())
                .map(|k| namer.fresh(&format!("{d_out}_{k}")))
                .collect();
            (quote!((#(#d_types,)*)), names)
        }
        _ if func.array_output => (quote!(&#ret), Vec::new()),
        _ => (func.elem.ident().into_token_stream(), Vec::new()),
    };
    let inputs = strip_mut(sig.inputs.iter());
    let generics = &sig.generics;
    let doc = if func.tuple.is_some() {
        format!(
            " Runs [`{name}`] and its reverse sweep: returns the value and the gradient of `Σ_k d_out.k · {name}(..).k` (one upstream gradient per component of the value) with respect to every differentiable parameter. Written by `#[differentiable]`."
        )
    } else {
        format!(
            " Runs [`{name}`] and its reverse sweep: returns the value and the gradient of `d_out · {name}(..)` with respect to every differentiable parameter (pass `d_out = 1.0` for a scalar loss). Written by `#[differentiable]`."
        )
    };
    let many = many_arguments(func);
    let inline = inline_of(func);
    let unused = (!real).then(|| {
        quote!(#[allow(unused_variables, reason = "this function cannot run: #[differentiable] reported an error")])
    });
    // A method's gradient is `Self`, or a struct beside its `impl` block.
    let (grad_ty, items, outside) = if func.method_struct() && func.self_ty.is_some() {
        (quote!(#struct_name #struct_args), TokenStream::new(), items)
    } else if func.is_method() {
        (quote!(Self), TokenStream::new(), TokenStream::new())
    } else {
        (quote!(#struct_name #struct_args), items, TokenStream::new())
    };
    let where_clause = where_clause(func, krate);
    let bounds = func.float_param.as_ref().map(|_| {
        quote!(#[allow(clippy::multiple_bound_locations, reason = "the user's bounds, and the runtime's float trait")])
    });
    let signature = quote! {
        #[doc = #doc]
        #many
        #inline
        #unused
        #bounds
        #vis fn #backward_name #generics(#(#inputs,)* #d_out: #d_out_ty) -> (#ret, #grad_ty) #where_clause
    };
    let vjp = super::vjp::item(func, krate, namer, &d_out, &ret, real);
    let items = quote!(#items #vjp);
    Frame {
        struct_name,
        d_out,
        d_outs,
        items,
        outside,
        signature,
        d_out_ty,
        ret,
        grad_ty,
    }
}

/// The component types of a tuple type (`(f64, Array1<f64>)`).
pub fn components(ty: &syn::Type) -> Vec<&syn::Type> {
    match ty {
        syn::Type::Tuple(t) => t.elems.iter().collect(),
        syn::Type::Group(g) => components(&g.elem),
        syn::Type::Paren(p) => components(&p.elem),
        other => vec![other],
    }
}

/// The `where` clause of the generated functions: the user's, and the
/// runtime's float trait on the float type parameter (a user's
/// `T: num_traits::Float` is `f32` or `f64` where the backward is called).
pub fn where_clause(func: &Function, krate: &TokenStream) -> TokenStream {
    let user = func
        .item
        .sig
        .generics
        .where_clause
        .iter()
        .flat_map(|w| w.predicates.iter());
    match &func.float_param {
        Some(t) => quote!(where #(#user,)* #t: #krate::__private::Float),
        None => TokenStream::new(),
    }
}

/// Clippy's `too_many_arguments` allowed where the generated functions have
/// more than seven parameters: the user's, and `d_out`.
pub fn many_arguments(func: &Function) -> Option<TokenStream> {
    (func.params.len() + 1 > 7).then(|| {
        quote!(#[allow(clippy::too_many_arguments, reason = "the function's parameters and `d_out`")])
    })
}

/// The user's `#[inline]` (or `#[inline(always)]`, `#[inline(never)]`),
/// carried over to each function written from theirs: a `_backward` called
/// from another crate is inlined only if it says so.
pub fn inline_of(func: &Function) -> TokenStream {
    let attrs = func
        .item
        .attrs
        .iter()
        .filter(|a| a.path().is_ident("inline"));
    quote!(#(#attrs)*)
}

/// The user's function, unchanged but for one lint: a `for` loop over a range
/// is the only loop a differentiable function may have, so clippy's advice to
/// iterate over the indexed data instead (`needless_range_loop`) cannot be
/// followed there.
pub fn original_item(func: &Function) -> TokenStream {
    struct HasLoop(bool);
    impl<'ast> syn::visit::Visit<'ast> for HasLoop {
        fn visit_expr_for_loop(&mut self, _: &'ast syn::ExprForLoop) {
            self.0 = true;
        }
    }
    // The body as the user wrote it.
    let mut item = func.item.clone();
    if let Some(written) = &func.written {
        item.block = written.clone();
    }
    let mut v = HasLoop(false);
    syn::visit::Visit::visit_block(&mut v, &item.block);
    let item = &item;
    if v.0 {
        quote!(#[allow(clippy::needless_range_loop)] #item)
    } else {
        item.to_token_stream()
    }
}

/// The parameters without `mut`: that is for the user's body, not ours.
pub fn strip_mut<'a>(
    inputs: impl Iterator<Item = &'a syn::FnArg> + 'a,
) -> impl Iterator<Item = syn::FnArg> + 'a {
    inputs.cloned().map(|mut arg| {
        if let syn::FnArg::Typed(pt) = &mut arg {
            if let syn::Pat::Ident(pi) = &mut *pt.pat {
                pi.mutability = None;
            }
        }
        arg
    })
}
