//! The copy over duals as the lowering sees it (see `crate::dual`, which
//! writes the copy): its float type `__F`, its constants rewritten into
//! that type, and the calls of its callees' copies.

use crate::ast::Function;
use crate::names::grad_struct_name;
use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote, quote_spanned, ToTokens};
use syn::spanned::Spanned;
use syn::visit_mut::VisitMut;
use syn::Expr;

/// The float type parameter of the copies.
pub const FLOAT: &str = "__F";

/// The name of `name`'s copy over duals.
pub fn dual_name(name: &syn::Ident) -> syn::Ident {
    format_ident!("{}_dual", name, span = name.span())
}

/// The forward and the `_vjp` of a call of `path` in `copy`, a copy over
/// duals: `{ .. FGrad::__copies::<f>() }.call` and `.vjp` (see the module's
/// documentation), spanned on the call. A path into a type (`Mlp::f`)
/// calls `Mlp::f_dual` and `Mlp::f_dual_vjp` by name.
pub fn callee(
    path: &syn::Path,
    names: Option<&syn::Ident>,
    krate: &TokenStream,
    span: Span,
) -> (TokenStream, TokenStream) {
    match gate(path, names, krate, span) {
        Some(gate) => (
            quote_spanned!(span=> (#gate).call),
            quote_spanned!(span=> (#gate).vjp),
        ),
        None => {
            let mut path = path.clone();
            let last = path.segments.last_mut().expect("a segment");
            last.ident = dual_name(&last.ident);
            last.arguments = syn::PathArguments::None;
            let mut vjp = path.clone();
            let last = vjp.segments.last_mut().expect("a segment");
            last.ident = format_ident!("{}_vjp", last.ident, span = last.ident.span());
            (path.to_token_stream(), vjp.to_token_stream())
        }
    }
}

/// The module beside a copy over duals (`NAME_dual`, also its name) that
/// holds a type named after each function it calls, which the message of
/// [`gate`] names: one type of that name for every call of the function
/// from the copy (so rustc reports one error, not one per generated
/// function), in a module of its own so that it names no other item. `None`
/// for a copy in an `impl` block, whose calls name a type of their own.
pub fn names_module(copy: &Function) -> Option<&syn::Ident> {
    copy.self_ty.is_none().then_some(&copy.item.sig.ident)
}

/// `{ use SecondOrderCalls as _; FGrad::__copies::<NAME_dual::f>() }`:
/// the copies of the function `path` names (`None` for a path into a type);
/// `names` is the copy's module of names ([`names_module`]).
fn gate(
    path: &syn::Path,
    names: Option<&syn::Ident>,
    krate: &TokenStream,
    span: Span,
) -> Option<TokenStream> {
    let n = path.segments.len();
    let in_type = n > 1
        && path.segments[n - 2]
            .ident
            .to_string()
            .starts_with(|c: char| c.is_uppercase());
    if in_type {
        return None;
    }
    let mut grad = path.clone();
    let last = grad.segments.last_mut()?;
    let name = syn::Ident::new(&last.ident.to_string(), span);
    last.ident = grad_struct_name(&last.ident);
    last.ident.set_span(span);
    last.arguments = syn::PathArguments::None;
    let (local, name) = match names {
        Some(module) => (TokenStream::new(), quote_spanned!(span=> #module::#name)),
        None => (
            quote_spanned!(span=> #[allow(non_camel_case_types, dead_code, reason = "the function's name, for the message")] struct #name {}),
            name.to_token_stream(),
        ),
    };
    Some(quote_spanned! {span=> {
        #local
        #[allow(unused_imports, reason = "a second-order callee's own `__copies` comes first")]
        use #krate::__private::SecondOrderCalls as _;
        #grad::__copies::<#name>()
    }})
}

pub fn is_float_ident(i: &syn::Ident) -> bool {
    i == "f64" || i == "f32"
}

/// The expressions inside a macro call that holds a list of them
/// (`vec![0.0, 0.5]`, `array![[1.0, 2.0]]`, `vec![0.0; n]`), each visited
/// by `visit` and written back; other macros are left as they are.
pub fn visit_macro_exprs(mac: &mut syn::Macro, visit: &mut impl FnMut(&mut Expr)) {
    use syn::parse::Parser;
    use syn::punctuated::Punctuated;
    let list = Punctuated::<Expr, syn::Token![,]>::parse_terminated.parse2(mac.tokens.clone());
    if let Ok(mut list) = list {
        list.iter_mut().for_each(&mut *visit);
        mac.tokens = list.to_token_stream();
        return;
    }
    let repeat = |input: syn::parse::ParseStream| {
        let value: Expr = input.parse()?;
        let semi: syn::Token![;] = input.parse()?;
        let count: Expr = input.parse()?;
        Ok((value, semi, count))
    };
    if let Ok((mut value, semi, count)) = repeat.parse2(mac.tokens.clone()) {
        visit(&mut value);
        mac.tokens = quote!(#value #semi #count);
    }
}

/// Whether a path is a function of the float type (`f64::max`), not one of
/// its constants (`f64::INFINITY`, `f64::consts::PI`).
pub fn is_function_path(path: &syn::Path) -> bool {
    let segs: Vec<String> = path.segments.iter().map(|s| s.ident.to_string()).collect();
    match segs.iter().position(|s| s == "f64" || s == "f32") {
        Some(k) if k + 2 == segs.len() => {
            let name = &segs[k + 1];
            name.chars().next().is_some_and(|c| c.is_lowercase())
        }
        _ => false,
    }
}

/// `f64::NAME` and `std::f64::consts::NAME` as expressions over `t`:
/// constants become the float traits' functions, functions (`f64::exp`)
/// `t`'s.
pub fn float_path(path: &syn::Path, t: &syn::Ident) -> Option<Expr> {
    let segs: Vec<&syn::Ident> = path.segments.iter().map(|s| &s.ident).collect();
    let start = segs.iter().position(|s| is_float_ident(s))?;
    if start > 1 || (start == 1 && segs[0] != "std" && segs[0] != "core") {
        return None;
    }
    let rest = &segs[start + 1..];
    let span = path.span();
    match rest {
        [consts, name] if *consts == "consts" => {
            let name = syn::Ident::new(&name.to_string(), span);
            Some(syn::parse_quote_spanned!(span=> #t::#name()))
        }
        [name] => {
            let f = match name.to_string().as_str() {
                "INFINITY" => "infinity",
                "NEG_INFINITY" => "neg_infinity",
                "NAN" => "nan",
                "EPSILON" => "epsilon",
                "MAX" => "max_value",
                "MIN" => "min_value",
                "MIN_POSITIVE" => "min_positive_value",
                _ => {
                    // A function of the float type: `f64::exp`, `f64::max`.
                    let name = (*name).clone();
                    return Some(syn::parse_quote_spanned!(span=> #t::#name));
                }
            };
            let f = syn::Ident::new(f, span);
            Some(syn::parse_quote_spanned!(span=> #t::#f()))
        }
        _ => None,
    }
}

/// A constant of the copy's body as the copy's code writes it: its float
/// literals and functions (`f64::max`) of the float type `__F`.
pub fn generic_constant(e: &mut Expr, krate: &TokenStream) {
    struct Literals<'a> {
        krate: &'a TokenStream,
    }
    impl VisitMut for Literals<'_> {
        fn visit_expr_mut(&mut self, e: &mut Expr) {
            if let Expr::Path(p) = &*e {
                if p.qself.is_none() && is_function_path(&p.path) {
                    let t = syn::Ident::new(FLOAT, p.span());
                    if let Some(new) = float_path(&p.path, &t) {
                        *e = new;
                        return;
                    }
                }
            }
            if let Expr::Lit(l) = &*e {
                if let syn::Lit::Float(f) = &l.lit {
                    let t = syn::Ident::new(FLOAT, f.span());
                    let krate = self.krate;
                    let lit = syn::LitFloat::new(&format!("{}_f64", f.base10_digits()), f.span());
                    *e =
                        syn::parse_quote_spanned!(f.span()=> <#t as #krate::Float>::from_f64(#lit));
                    return;
                }
            }
            syn::visit_mut::visit_expr_mut(self, e);
        }

        fn visit_macro_mut(&mut self, mac: &mut syn::Macro) {
            visit_macro_exprs(mac, &mut |e| self.visit_expr_mut(e));
        }
    }
    Literals { krate }.visit_expr_mut(e);
}
