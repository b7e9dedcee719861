//! Second order: `#[differentiable(jvp)]` and `#[differentiable(hvp)]`.
//!
//! Forward mode over the generated reverse sweep. The function is copied,
//! generic over its float type, as `NAME_dual<__F>` (its `f64`s become
//! `__F`, its calls of other differentiable functions call their copies), and
//! the copy is expanded like any function, so that `NAME_dual_backward`
//! exists. The runtime's `Dual<f64>` is a float whose tangent rides along:
//!
//! - `NAME_jvp(.., t_x, ..)` runs `NAME_dual` on the point with the tangent
//!   `t_x`: the value and the directional derivative;
//! - `NAME_hvp(.., t_x, ..)` runs `NAME_dual_backward` on the same duals
//!   with `d_out = 1`: the values of its gradient are the gradient, their
//!   tangents the derivative of the gradient along `t`, which is `H·t`.
//!
//! A callee must be marked `jvp` or `hvp` too (its copy is what the copy
//! calls); a function with a user `#[adjoint]` rule gets its copy from
//! `#[adjoint(f, hvp)]` on a rule generic over the float type. The copy
//! reaches the callee's copies through its gradient struct, which every
//! differentiable function (and every `#[adjoint]` rule) writes:
//! `FGrad::__copies::<f>()` is, for a second-order `f`, a value whose
//! `.call(..)` and `.vjp(..)` are `f_dual` and `f_dual_vjp` ([`calls`]);
//! for any other `f` it is the runtime's `SecondOrderCalls::__copies`,
//! whose bound fails with a message naming `f` and what to add.

use crate::args::SecondOrder;
use crate::ast::{Function, Kind};
use crate::ctxt::Ctxt;
use crate::emit::{grad_field, strip_mut};
use crate::generic::{
    dual_name, float_path, is_float_ident, is_function_path, names_module, visit_macro_exprs, FLOAT,
};
use crate::names::grad_struct_name;
use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote, quote_spanned, ToTokens};
use syn::spanned::Spanned;
use syn::visit_mut::VisitMut;
use syn::{Expr, ItemFn, Type};

/// `#[doc(hidden)] mod NAME_dual { pub struct f {} .. }` for the functions
/// `names` a copy calls (see [`names_module`]).
pub fn names(copy: &Function, names: &std::collections::BTreeSet<String>) -> TokenStream {
    let Some(module) = names_module(copy).filter(|_| !names.is_empty()) else {
        return TokenStream::new();
    };
    let names = names.iter().map(|n| syn::Ident::new(n, Span::call_site()));
    quote! {
        #[doc(hidden)]
        #[allow(non_camel_case_types, dead_code, reason = "a type named after each function the copy calls, for the message of a call without a second order")]
        mod #module {
            #(pub struct #names {})*
        }
    }
}

/// What a second-order function's copy writes for the copies that call it
/// (see [`gate`]): `NameGradCopies`, whose `call` and `vjp` are the copy
/// (`func`) and its `_vjp`, and `NameGrad::__copies`, which makes one.
pub fn calls(func: &Function, krate: &TokenStream, d_out: &syn::Ident) -> TokenStream {
    let sig = &func.item.sig;
    let copy = &sig.ident;
    let copy_name = copy.to_string();
    let Some(name) = copy_name.strip_suffix("_dual") else {
        return TokenStream::new();
    };
    if func.self_ty.is_some() {
        return TokenStream::new();
    }
    let vis = &func.item.vis;
    let grad = grad_struct_name(&syn::Ident::new(name, copy.span()));
    let calls = format_ident!("{}Copies", grad);
    let copy_vjp = format_ident!("{}_vjp", copy);
    let inputs: Vec<syn::FnArg> = strip_mut(sig.inputs.iter()).collect();
    let names: Vec<&syn::Ident> = func.params.iter().map(|p| &p.ident).collect();
    let ret = match &sig.output {
        syn::ReturnType::Type(_, ty) => ty.to_token_stream(),
        syn::ReturnType::Default => quote!(()),
    };
    let positional = crate::emit::vjp::positional_types(func, krate);
    let mut namer = crate::names::Namer::new(Default::default());
    let upstream = crate::emit::vjp::upstream(func, krate, &mut namer, d_out, &ret).ty;
    let where_clause = crate::emit::where_clause(func, krate);
    let generics = &sig.generics;
    let many = quote!(#[allow(clippy::too_many_arguments, reason = "the function's parameters")]);
    // The user's float type parameter is the gradient struct's too
    // (`FGrad<T>`); the copy's own (`__F`) is the methods'.
    let user = func.float_param.as_ref().filter(|t| *t != FLOAT);
    let (impl_generics, impl_where, method_generics, method_where) = match user {
        Some(_) => (
            quote!(#generics),
            where_clause,
            TokenStream::new(),
            TokenStream::new(),
        ),
        None => (
            TokenStream::new(),
            TokenStream::new(),
            quote!(#generics),
            where_clause,
        ),
    };
    let of = user.map(|t| quote!(<#t>));
    let (field, make) = match user {
        Some(t) => (
            quote!((::core::marker::PhantomData<#t>)),
            quote!(#calls(::core::marker::PhantomData)),
        ),
        None => (TokenStream::new(), quote!(#calls)),
    };
    quote! {
        #vis struct #calls #of #field;
        impl #impl_generics #grad #of #impl_where {
            #vis fn __copies<C>() -> #calls #of {
                #make
            }
        }
        impl #impl_generics #calls #of #impl_where {
            #many
            #vis fn call #method_generics(self, #(#inputs,)*) -> #ret #method_where {
                #copy(#(#names,)*)
            }
            #many
            #[allow(clippy::type_complexity, reason = "one gradient per parameter, by position")]
            #vis fn vjp #method_generics(self, #(#inputs,)* #d_out: #upstream) -> (#(#positional,)*) #method_where {
                #copy_vjp(#(#names,)* #d_out)
            }
        }
    }
}

/// Checks that `func` can be carried over to duals; each reason it cannot
/// is an error in `cx`.
pub fn check(func: &Function, order: SecondOrder, cx: &mut Ctxt) {
    let what = if order.hvp { "hvp" } else { "jvp" };
    let mut elems = Vec::new();
    for p in &func.params {
        match &p.kind {
            // A constant `self` (a problem's data): its fields read as the
            // copy's floats (see `copy`).
            _ if p.ident == "self" && !p.differentiable => {}
            // A model of an `impl<T: Float>` block: the copy runs on the
            // model over duals (`Model<Dual<T>>`, its `Dualize`).
            Kind::Model { .. } if p.ident == "self" && func.float_param.is_some() => {}
            Kind::Model { .. } if p.ident == "self" => cx.error(
                p.ident.span(),
                format!("`{what}` takes a method whose `self` is differentiable only in an `impl<T: backprop::Float> Model<T>` block (the model runs on dual numbers); name the other parameters in `wrt(..)` for a constant `self`, or write a free function that takes the model (`fn loss(model: &Mlp<f64>, ..)`)"),
            ),
            Kind::Model { .. } if !mentions_float(&p.ty) => cx.error_at(
                &p.ty,
                format!("`{what}` runs the model on dual numbers, so its struct must be generic over its float type: `#[derive(Differentiable)] struct Model<T: backprop::Float> {{ .. }}`, taken here as `&Model<f64>`"),
            ),
            Kind::Model { .. } => {}
            Kind::Scalar(e) | Kind::Array { elem: e, .. } => elems.push(e.clone()),
            Kind::Constant if mentions_float(&p.ty) => cx.error_at(
                &p.ty,
                format!("`{what}` carries every float of the function to dual numbers, and cannot carry a constant of this type; pass `{}` as an `f64` or an ndarray array (it stays a constant when `wrt(..)` does not name it)", p.ident),
            ),
            Kind::Constant => {}
        }
    }
    elems.dedup();
    if elems.len() > 1 {
        cx.error(
            func.item.sig.ident.span(),
            format!("`{what}` needs one float type in the whole function; this one mixes `f32` and `f64`"),
        );
    }
}

/// Whether a type mentions `f32` or `f64`.
fn mentions_float(ty: &Type) -> bool {
    fn any(tokens: TokenStream) -> bool {
        tokens.into_iter().any(|t| match t {
            proc_macro2::TokenTree::Ident(i) => i == "f64" || i == "f32",
            proc_macro2::TokenTree::Group(g) => any(g.stream()),
            _ => false,
        })
    }
    any(ty.to_token_stream())
}

/// The copy of the function over a generic float: renamed `NAME_dual`,
/// with a float type parameter `__F` where it has none (every `f64` and
/// `f32` of its signature and body becomes `__F`, `f64::consts::PI` becomes
/// `__F::PI()`, `n as f64` becomes `__F::from_f64(n as f64)`).
pub fn copy(func: &Function, krate: &TokenStream) -> ItemFn {
    let mut item = func.item.clone();
    item.sig.ident = dual_name(&item.sig.ident);
    item.attrs.retain(|a| a.path().is_ident("allow"));
    if func.float_param.is_none() {
        let t = syn::Ident::new(FLOAT, Span::call_site());
        // `FromPrimitive` for ndarray's `mean` and `var`, which the
        // item calls (the macro's own code calls the runtime's).
        item.sig
            .generics
            .params
            .push(syn::parse_quote!(#t: #krate::Float + #krate::__private::FromPrimitive));
        // Arithmetic on references (`v * v` of `v: &f64`), as `f64` has it.
        item.sig
            .generics
            .make_where_clause()
            .predicates
            .push(syn::parse_quote!(for<'__r> &'__r #t: #krate::__private::RefArith<#t>));
        item.sig
            .generics
            .make_where_clause()
            .predicates
            .push(syn::parse_quote!(#t: #krate::__private::ArithByRef));
        let mut to_generic = ToGeneric { krate };
        to_generic.visit_signature_mut(&mut item.sig);
        to_generic.visit_block_mut(&mut item.block);
    }
    item
}

/// Rewrites a body over `f64`/`f32` to one over `__F` (see [`copy`]).
struct ToGeneric<'a> {
    krate: &'a TokenStream,
}

impl VisitMut for ToGeneric<'_> {
    fn visit_macro_mut(&mut self, mac: &mut syn::Macro) {
        visit_macro_exprs(mac, &mut |e| self.visit_expr_mut(e));
    }

    fn visit_type_mut(&mut self, ty: &mut Type) {
        if let Type::Path(p) = ty {
            if p.qself.is_none() && p.path.get_ident().is_some_and(is_float_ident) {
                let span = p.span();
                let t = syn::Ident::new(FLOAT, span);
                *ty = syn::parse_quote_spanned!(span=> #t);
                return;
            }
        }
        syn::visit_mut::visit_type_mut(self, ty);
    }

    fn visit_expr_mut(&mut self, e: &mut Expr) {
        let krate = self.krate;
        let t = syn::Ident::new(FLOAT, e.span());
        match e {
            Expr::Lit(l) => {
                if let syn::Lit::Float(f) = &l.lit {
                    if !f.suffix().is_empty() {
                        // The macro writes an unsuffixed literal in the
                        // float type of the function.
                        let digits = syn::LitFloat::new(f.base10_digits(), f.span());
                        l.lit = syn::Lit::Float(digits);
                    }
                }
                return;
            }
            Expr::Cast(c) => {
                self.visit_expr_mut(&mut c.expr);
                if let Type::Path(p) = &*c.ty {
                    if p.path.get_ident().is_some_and(is_float_ident) {
                        let inner = &c.expr;
                        *e = syn::parse_quote_spanned!(c.span()=> <#t as #krate::Float>::from_f64((#inner) as f64));
                    }
                }
                return;
            }
            Expr::Path(p) if p.qself.is_none() => {
                // Constants now; functions (`f64::max`) are ops the lowering
                // knows by that path, renamed in the item (`finish_body`).
                if let Some(new) = float_path(&p.path, &t).filter(|_| !is_function_path(&p.path)) {
                    *e = new;
                    return;
                }
            }
            Expr::Call(c) => {
                // `f64::from(n)`: a conversion, not the float's `NumCast::from`.
                if let Expr::Path(p) = &*c.func {
                    let segs: Vec<String> = p
                        .path
                        .segments
                        .iter()
                        .map(|s| s.ident.to_string())
                        .collect();
                    if segs.len() == 2
                        && (segs[0] == "f64" || segs[0] == "f32")
                        && segs[1] == "from"
                    {
                        for a in c.args.iter_mut() {
                            self.visit_expr_mut(a);
                        }
                        let args = &c.args;
                        *e = syn::parse_quote_spanned!(c.span()=> <#t as #krate::Float>::from_f64(f64::from(#args)));
                        return;
                    }
                }
            }
            _ => {}
        }
        syn::visit_mut::visit_expr_mut(self, e);
    }
}

/// `NAME_jvp` and, for `hvp`, `NAME_hvp`: the copy run on duals.
pub fn wrappers(func: &Function, order: SecondOrder, krate: &TokenStream) -> TokenStream {
    let sig = &func.item.sig;
    let vis = &func.item.vis;
    let name = &sig.ident;
    let copy = dual_name(name);
    let elem = func.elem.ident();
    let inputs: Vec<syn::FnArg> = strip_mut(sig.inputs.iter()).collect();
    let ret = match &sig.output {
        syn::ReturnType::Type(_, ty) => ty.to_token_stream(),
        syn::ReturnType::Default => quote!(()),
    };
    let dual = quote!(#krate::dual);
    let mut tangents = Vec::new();
    let mut args = Vec::new();
    let mut named = Vec::new();
    for p in &func.params {
        let x = &p.ident;
        let t = format_ident!("t_{}", x, span = x.span());
        let arg = match (&p.kind, p.differentiable) {
            (Kind::Constant, _) => quote!(#x),
            // A constant `self`: the copy reads its fields as duals.
            _ if p.ident == "self" && !p.differentiable => quote!(self),
            // A model `self`: the model over duals.
            _ if p.ident == "self" => quote!(&#dual::with_tangent(self, #t)),
            (kind, differentiable) if kind.plain().is_some() => {
                // A container: its duals in a container of its kind (a
                // slice's in a `Vec`), passed as the parameter takes it.
                let by_ref = matches!(crate::ast::strip_type(&p.ty), Type::Reference(_));
                let (xr, tr) = match (kind.plain(), by_ref) {
                    (Some(crate::ast::Plain::Slice), _) => {
                        (quote!(&#x.to_vec()), quote!(&#t.to_vec()))
                    }
                    (_, true) => (quote!(#x), quote!(#t)),
                    (_, false) => (quote!(&#x), quote!(&#t)),
                };
                let made = if differentiable {
                    quote!(#dual::with_tangent(#xr, #tr))
                } else {
                    quote!(#dual::constant(#xr))
                };
                if by_ref {
                    quote!(&#made)
                } else {
                    made
                }
            }
            (kind, differentiable) => {
                let owned = matches!(kind, Kind::Array { .. }) && is_view(&p.ty);
                let (xr, tr) = match (p.by_ref, owned) {
                    (_, true) => (quote!(&#x.to_owned()), quote!(&#t.to_owned())),
                    (true, false) => (quote!(#x), quote!(#t)),
                    (false, false) => (quote!(&#x), quote!(&#t)),
                };
                let made = if differentiable {
                    quote!(#dual::with_tangent(#xr, #tr))
                } else {
                    quote!(#dual::constant(#xr))
                };
                match (p.by_ref, owned) {
                    (_, true) => quote!(#made.view()),
                    (true, false) => quote!(&#made),
                    (false, false) => made,
                }
            }
        };
        if p.differentiable {
            let ty = if p.ident == "self" {
                quote!(&Self)
            } else {
                p.ty.to_token_stream()
            };
            tangents.push(quote!(#t: #ty));
            named.push(format!("`{t}`"));
        }
        args.push(arg);
    }
    let dual_float = quote!(#dual::Dual<#elem>);
    // A function generic over its float type `T` has wrappers generic over
    // it, which run on any float, duals included: its `NAME_jvp` on duals
    // is forward over forward.
    let bounds = func.float_param.as_ref().map(|_| {
        quote!(#[allow(clippy::multiple_bound_locations, reason = "the user's bounds, and the runtime's float traits")])
    });
    let (generics, where_clause, mut original, grad_args) = match &func.float_param {
        Some(t) => (
            sig.generics.to_token_stream(),
            crate::emit::where_clause(func, krate),
            quote!(#name::<#t>),
            quote!(<#t>),
        ),
        None => (
            TokenStream::new(),
            TokenStream::new(),
            name.to_token_stream(),
            TokenStream::new(),
        ),
    };
    // A method's copy is an associated function of its type: of the type
    // over duals in an `impl<T: Float>` block (`<Model<Dual<T>>>::`).
    let of_self = func.self_ty.as_ref().map(|ty| match &func.float_param {
        Some(t) => {
            let over = crate::derive::replace_ident(ty.to_token_stream(), t, &dual_float);
            quote!(<#over>::)
        }
        None => quote!(Self::),
    });
    if of_self.is_some() {
        original = quote!(Self::#name);
    }
    // A generic method takes no float type argument: its block's is `T`.
    let turbofish = match (&func.self_ty, &func.float_param) {
        (Some(_), Some(_)) => TokenStream::new(),
        _ => quote!(::<#dual_float>),
    };
    let jvp_name = format_ident!("{}_jvp", name, span = name.span());
    let jvp_doc = format!(
        " Runs [`{name}`] forward with a tangent for each differentiable parameter ({}): returns the value and its derivative along those tangents. Written by `#[differentiable(jvp)]`.",
        named.join(", ")
    );
    let many = (func.params.len() + tangents.len() > 7).then(|| {
        quote!(#[allow(clippy::too_many_arguments, reason = "the function's parameters and a tangent for each differentiable one")])
    });
    let inline = crate::emit::inline_of(func);
    let jvp = quote! {
        #[doc = #jvp_doc]
        #many
        #inline
        #bounds
        #vis fn #jvp_name #generics(#(#inputs,)* #(#tangents,)*) -> (#ret, #ret) #where_clause {
            // The original counts as used where only this is.
            let _ = #original;
            let out = #of_self #copy #turbofish(#(#args),*);
            #dual::split::<#ret>(&out)
        }
    };
    // `hvp` of a function whose value is an array or a tuple (a layer that
    // a scalar loss with `hvp` calls) writes its `NAME_jvp`, which is all a
    // caller's second order needs of it: a Hessian is of a float value.
    if !order.hvp || func.tuple.is_some() || func.array_output {
        return jvp;
    }
    let hvp_name = format_ident!("{}_hvp", name, span = name.span());
    let backward = format_ident!("{}_backward", copy);
    let grad = crate::emit::grad_struct_of(func);
    let fields: Vec<_> = func
        .params
        .iter()
        .filter(|p| p.differentiable)
        .map(grad_field)
        .collect();
    let hvp_doc = format!(
        " Runs [`{name}`] and its reverse sweep forward with a direction for each differentiable parameter ({}): returns the value, the gradient (of `d_out = 1`), and the Hessian-vector product, the derivative of the gradient along the direction, one field per parameter. Written by `#[differentiable(hvp)]`.",
        named.join(", ")
    );
    let one = match &func.float_param {
        Some(_) => {
            quote_spanned!(name.span()=> <#dual_float as #krate::__private::Float>::from_f64(1.0))
        }
        None => quote_spanned!(name.span()=> #dual::Dual::<#elem>::constant(1.0)),
    };
    // A method that differentiates its model alone has the model as its
    // gradient (`Self`).
    let (grad_ty, value, tangent) = if func.is_method() && !func.method_struct() {
        (
            quote!(Self),
            quote!(#dual::Dualize::value_of(&grad)),
            quote!(#dual::Dualize::tangent_of(&grad)),
        )
    } else {
        (
            quote!(#grad #grad_args),
            quote!(#grad { #(#fields: #dual::Dualize::value_of(&grad.#fields),)* }),
            quote!(#grad { #(#fields: #dual::Dualize::tangent_of(&grad.#fields),)* }),
        )
    };
    quote! {
        #jvp
        #[doc = #hvp_doc]
        #many
        #inline
        #bounds
        #vis fn #hvp_name #generics(#(#inputs,)* #(#tangents,)*) -> (#ret, #grad_ty, #grad_ty) #where_clause {
            let _ = #original;
            let (out, grad) = #of_self #backward #turbofish(#(#args,)* #one);
            (out.value, #value, #tangent)
        }
    }
}

/// Whether a parameter's type is an ndarray view (`ArrayView1<f64>`).
fn is_view(ty: &Type) -> bool {
    match ty {
        Type::Path(p) => p
            .path
            .segments
            .last()
            .is_some_and(|s| s.ident.to_string().starts_with("ArrayView")),
        Type::Reference(r) => is_view(&r.elem),
        _ => false,
    }
}

/// The items of the copy, hidden from the documentation.
pub fn hidden(items: TokenStream) -> TokenStream {
    match syn::parse2::<syn::File>(items.clone()) {
        Ok(file) => file
            .items
            .into_iter()
            .map(|mut item| {
                let attr: syn::Attribute = syn::parse_quote!(#[doc(hidden)]);
                match &mut item {
                    syn::Item::Fn(f) => f.attrs.push(attr),
                    syn::Item::Struct(s) => s.attrs.push(attr),
                    syn::Item::Impl(i) => i.attrs.push(attr),
                    _ => {}
                }
                item.into_token_stream()
            })
            .collect(),
        Err(_) => items,
    }
}
