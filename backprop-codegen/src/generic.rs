//! The copy over duals as the lowering sees it (see `crate::dual`, which
//! writes the copy): its float type `__F`, its constants rewritten into
//! that type, and the calls of its callees' copies.

use crate::ast::Function;
use crate::names::grad_struct_name;
use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote, quote_spanned, ToTokens};
use std::collections::HashSet;
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
/// literals and functions (`f64::max`) of the float type `__F`, and the
/// named constants in its float arithmetic (`2.0 * PI`, `x > C`) read as
/// `__F` ([`lift_named`]). `bound` are the names the constant reads of the
/// body, `floats` those of them that are floats.
pub fn generic_constant(e: &mut Expr, krate: &TokenStream, names: Names<'_>) {
    Literals { krate }.visit_expr_mut(e);
    Named {
        krate,
        bound: names.bound,
        floats: names.floats,
    }
    .visit_expr_mut(e);
    SelfPlaces { krate }.visit_expr_mut(e);
    Originals {
        krate,
        names: names.originals,
    }
    .visit_expr_mut(e);
}

/// The bindings of the original's float type a constant reads (`let c2 =
/// LN_2;`), read as the copy's (`Lift`; a value of another type, cloned).
struct Originals<'a> {
    krate: &'a TokenStream,
    names: &'a HashSet<String>,
}

impl VisitMut for Originals<'_> {
    fn visit_expr_mut(&mut self, e: &mut Expr) {
        if let Expr::Path(p) = &*e {
            if p.path
                .get_ident()
                .is_some_and(|i| self.names.contains(&i.to_string()))
            {
                *e = lift_expr(e, self.krate);
            }
            return;
        }
        syn::visit_mut::visit_expr_mut(self, e);
    }

    fn visit_macro_mut(&mut self, mac: &mut syn::Macro) {
        visit_macro_exprs(mac, &mut |e| self.visit_expr_mut(e));
    }
}

/// Each place of `self` in `e` (`self.xs`, `self.data.k`) replaced by a
/// fresh name, with the place it stands for.
pub fn bind_self_places(
    e: &mut Expr,
    mut fresh: impl FnMut() -> syn::Ident,
) -> Vec<(syn::Ident, Expr)> {
    struct Bind<'f> {
        fresh: &'f mut dyn FnMut() -> syn::Ident,
        out: Vec<(syn::Ident, Expr)>,
    }
    impl VisitMut for Bind<'_> {
        fn visit_expr_mut(&mut self, e: &mut Expr) {
            if SelfPlaces::of_self(e) {
                let name = (self.fresh)();
                self.out.push((name.clone(), e.clone()));
                *e = syn::parse_quote!(#name);
                return;
            }
            syn::visit_mut::visit_expr_mut(self, e);
        }
    }
    let mut bind = Bind {
        fresh: &mut fresh,
        out: Vec::new(),
    };
    bind.visit_expr_mut(e);
    bind.out
}

/// Whether a constant of the copy reads a place of `self` (read as the
/// copy's float, see [`SelfPlaces`]).
pub fn reads_self(e: &Expr) -> bool {
    struct Find(bool);
    impl<'a> syn::visit::Visit<'a> for Find {
        fn visit_expr(&mut self, e: &'a Expr) {
            if let Expr::Path(p) = e {
                self.0 |= p.path.is_ident("self");
            }
            syn::visit::visit_expr(self, e);
        }
    }
    let mut find = Find(false);
    syn::visit::Visit::visit_expr(&mut find, e);
    find.0
}

/// The places of a constant `self` a constant reads (`self.xs[i]`,
/// `self.xs`, `self.k`), each read as the copy's float type: the method's
/// data is of the original's (`Lift`: a float, a `Vec`, an array of them
/// converted, any other value cloned).
struct SelfPlaces<'a> {
    krate: &'a TokenStream,
}

impl SelfPlaces<'_> {
    /// Whether `e` is a place rooted at `self` (fields and indexing).
    fn of_self(e: &Expr) -> bool {
        match e {
            Expr::Field(f) => {
                matches!(&*f.base, Expr::Path(p) if p.path.is_ident("self"))
                    || SelfPlaces::of_self(&f.base)
            }
            // Not a sub-slice (`self.xs[1..]`): the data, then the range.
            Expr::Index(i) if !matches!(&*i.index, Expr::Range(_)) => SelfPlaces::of_self(&i.expr),
            Expr::Paren(p) => SelfPlaces::of_self(&p.expr),
            _ => false,
        }
    }
}

impl VisitMut for SelfPlaces<'_> {
    fn visit_expr_mut(&mut self, e: &mut Expr) {
        if SelfPlaces::of_self(e) {
            *e = lift_expr(e, self.krate);
            return;
        }
        // `self`'s data passed to a call of the user's, which takes the
        // original's types (see [`Named::unlift`]).
        if let Some(args) = user_args(e) {
            for a in args.iter_mut().filter(|a| !of_self_only(a)) {
                self.visit_expr_mut(a);
            }
            return;
        }
        syn::visit_mut::visit_expr_mut(self, e);
    }

    fn visit_macro_mut(&mut self, mac: &mut syn::Macro) {
        visit_macro_exprs(mac, &mut |e| self.visit_expr_mut(e));
    }
}

/// The bindings a constant of the copy reads: all of them, and those of
/// the float type (floats and arrays of them).
#[derive(Clone, Copy)]
pub struct Names<'a> {
    pub bound: &'a HashSet<String>,
    pub floats: &'a HashSet<String>,
    /// Those that hold a value of the original's float type (`let c = PI;`).
    pub originals: &'a HashSet<String>,
}

/// Float literals and functions of the float type as `__F`'s.
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
                *e = float_literal(f, self.krate);
                return;
            }
        }
        // A call of the user's (`scale(2.0)`, `self.scale(2.0)`) takes the
        // original's types: its value is read as `__F` where a float is
        // ([`lift_named`]).
        if user_args(e).is_some() {
            return;
        }
        syn::visit_mut::visit_expr_mut(self, e);
    }

    fn visit_macro_mut(&mut self, mac: &mut syn::Macro) {
        visit_macro_exprs(mac, &mut |e| self.visit_expr_mut(e));
    }
}

/// A float literal as the copy's float type:
/// `<__F as Float>::from_f64(0.5_f64)`.
fn float_literal(f: &syn::LitFloat, krate: &TokenStream) -> Expr {
    let t = syn::Ident::new(FLOAT, f.span());
    let lit = syn::LitFloat::new(&format!("{}_f64", f.base10_digits()), f.span());
    syn::parse_quote_spanned!(f.span()=> <#t as #krate::Float>::from_f64(#lit))
}

/// Named constants beside a float in arithmetic or a comparison, as `__F`.
struct Named<'a> {
    krate: &'a TokenStream,
    bound: &'a HashSet<String>,
    floats: &'a HashSet<String>,
}

impl Named<'_> {
    /// Whether `e` is known to be of the copy's float type: a literal made
    /// one, a path or a call into `__F`, a float the body computes, a
    /// function of the vocabulary of one, or arithmetic with one of these.
    fn is_float(&self, e: &Expr) -> bool {
        match e {
            // A constant `self`'s data, read as the copy's float
            // ([`SelfPlaces`]) where arithmetic reads it.
            _ if SelfPlaces::of_self(e) => true,
            Expr::Paren(p) => self.is_float(&p.expr),
            Expr::Unary(u) => self.is_float(&u.expr),
            Expr::Binary(b) if arithmetic(&b.op) => {
                self.is_float(&b.left) || self.is_float(&b.right)
            }
            Expr::Path(p) => {
                p.path
                    .get_ident()
                    .is_some_and(|i| self.floats.contains(&i.to_string()))
                    || p.path.segments.first().is_some_and(|s| s.ident == FLOAT)
            }
            // A function of the vocabulary of a float of the copy
            // (`relu(t)`): one too, or an array of them.
            Expr::Call(c) if vocabulary_call(c) => c.args.iter().any(|a| self.is_float(a)),
            Expr::Call(c) => matches!(&*c.func, Expr::Path(p) if p.qself.is_some()
                || p.path.segments.first().is_some_and(|s| s.ident == FLOAT)),
            Expr::MethodCall(m) => FLOAT_METHODS.contains(&m.method.to_string().as_str()),
            _ => false,
        }
    }

    /// `e` read as `__F` where it is a named constant or a float literal.
    fn lift(&self, e: &mut Expr) {
        match e {
            Expr::Paren(p) => self.lift(&mut p.expr),
            Expr::Unary(u) if matches!(u.op, syn::UnOp::Neg(_)) => self.lift(&mut u.expr),
            Expr::Path(p)
                if !p
                    .path
                    .get_ident()
                    .is_some_and(|i| self.bound.contains(&i.to_string())) =>
            {
                lift_named(e, self.krate)
            }
            Expr::Call(_) => lift_named(e, self.krate),
            Expr::MethodCall(m) if self_method(m) => *e = lift_expr(e, self.krate),
            // A literal that stayed the original's (an argument of a call
            // of the user's, `scale(t * 0.5)`).
            Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Float(f),
                ..
            }) => *e = float_literal(f, self.krate),
            _ => {}
        }
    }
}

impl VisitMut for Named<'_> {
    fn visit_expr_mut(&mut self, e: &mut Expr) {
        syn::visit_mut::visit_expr_mut(self, e);
        match e {
            Expr::Binary(b) if arithmetic(&b.op) || comparison(&b.op) => {
                if self.is_float(&b.left) {
                    self.lift(&mut b.right);
                }
                if self.is_float(&b.right) {
                    self.lift(&mut b.left);
                }
            }
            Expr::MethodCall(m) if FLOAT_METHODS.contains(&m.method.to_string().as_str()) => {
                self.lift(&mut m.receiver);
                m.args.iter_mut().for_each(|a| self.lift(a));
            }
            // A function of the original's float type, left so in an
            // argument of a call of the user's (`f(f64::cos(t))`): its
            // arguments of the copy's type are converted back (`unlift`).
            Expr::Call(c) if matches!(&*c.func, Expr::Path(p) if p.qself.is_none() && is_function_path(&p.path)) =>
            {
                self.unlift(&mut c.args);
            }
            // A call of the user's (not of the vocabulary) takes the
            // original's floats: a float of the copy passed to it is
            // converted back (`unlift`).
            _ => {
                if let Some(args) = user_args(e) {
                    self.unlift(args);
                }
            }
        }
    }
}

impl Named<'_> {
    /// The arguments of a call of the user's, which takes the original's
    /// floats: a float of the copy converted back (`unlift`); a literal or
    /// `self`'s data (`&self.xs`) is the original's already.
    fn unlift(&self, args: &mut syn::punctuated::Punctuated<Expr, syn::Token![,]>) {
        let krate = self.krate;
        for a in args.iter_mut() {
            if !matches!(a, Expr::Lit(_)) && !of_self_only(a) {
                let span = a.span();
                *a = syn::parse_quote_spanned!(span=> {
                    #[allow(unused_imports, reason = "one of the two reads the argument")]
                    use #krate::__private::{UnliftAsIs as _, UnliftFloat as _};
                    (&#krate::__private::Unlift(&#a)).unlift()
                });
            }
        }
    }
}

/// The arguments of a call of the user's that takes the original's types:
/// of a function not of the vocabulary (`scale(c)`), or of a method on
/// `self` (`self.at(i)`).
fn user_args(e: &mut Expr) -> Option<&mut syn::punctuated::Punctuated<Expr, syn::Token![,]>> {
    match e {
        Expr::Call(c) if user_call(c) && !vocabulary_call(c) => Some(&mut c.args),
        Expr::MethodCall(m) if self_method(m) => Some(&mut m.args),
        _ => None,
    }
}

/// A call of a method of the user's on `self` (`self.scale()`): a method
/// of the `impl` block, over the original's types.
fn self_method(m: &syn::ExprMethodCall) -> bool {
    matches!(&*m.receiver, Expr::Path(p) if p.path.is_ident("self"))
}

/// Whether `e` reads nothing but `self`'s data and literals (`&self.xs`,
/// `self.xs[1..]`, `self.k`): passed to a call of the user's as it is.
fn of_self_only(e: &Expr) -> bool {
    struct Find {
        self_: bool,
        other: bool,
    }
    impl<'a> syn::visit::Visit<'a> for Find {
        fn visit_expr_path(&mut self, p: &'a syn::ExprPath) {
            if p.path.is_ident("self") {
                self.self_ = true;
            } else {
                self.other = true;
            }
        }
        fn visit_macro(&mut self, _: &'a syn::Macro) {
            self.other = true;
        }
    }
    let mut find = Find {
        self_: false,
        other: false,
    };
    syn::visit::Visit::visit_expr(&mut find, e);
    find.self_ && !find.other
}

fn arithmetic(op: &syn::BinOp) -> bool {
    use syn::BinOp::*;
    matches!(op, Add(_) | Sub(_) | Mul(_) | Div(_) | Rem(_))
}

fn comparison(op: &syn::BinOp) -> bool {
    use syn::BinOp::*;
    matches!(op, Lt(_) | Le(_) | Gt(_) | Ge(_) | Eq(_) | Ne(_))
}

/// The float methods whose receiver and arguments are floats of one type.
const FLOAT_METHODS: &[&str] = &[
    "sqrt", "exp", "ln", "sin", "cos", "tan", "tanh", "abs", "powf", "powi", "max", "min", "recip",
    "sinh", "cosh", "atan", "atan2", "hypot", "log", "log2", "log10", "exp2",
];

/// Whether a constant of the copy names a value of the original's float
/// type: a constant of the user's (`PI`, `Self::K`) or the value of a call
/// of the user's (`scale(2.0)`, `self.scale()`); not literals, the float type's own
/// constants, nor a constructor of a type (`Array1::zeros(n)`), which are
/// `__F`'s already or take it from their use.
pub fn names_original(e: &Expr) -> bool {
    struct Find(bool);
    impl<'a> syn::visit::Visit<'a> for Find {
        fn visit_expr(&mut self, e: &'a Expr) {
            match e {
                Expr::Path(p) if p.qself.is_none() => {
                    let generic = p.path.segments.first().is_some_and(|s| s.ident == FLOAT);
                    self.0 |= !generic && !is_function_path(&p.path) && constant_name(&p.path);
                }
                Expr::Call(c) if user_call(c) => self.0 = true,
                Expr::MethodCall(m) if self_method(m) => self.0 = true,
                Expr::Call(c) => c.args.iter().for_each(|a| self.visit_expr(a)),
                _ => syn::visit::visit_expr(self, e),
            }
        }
    }
    let mut find = Find(false);
    syn::visit::Visit::visit_expr(&mut find, e);
    find.0
}

/// `name` read as the copy's float type `__F` (see the runtime's `Lift`):
/// an `f64`, an `f32` or an array of them converted, a value of `__F` as it
/// is.
pub fn lifted(name: &str, krate: &TokenStream) -> Expr {
    let name = syn::Ident::new(name, Span::call_site());
    lift_expr(&syn::parse_quote!(#name), krate)
}

/// Whether a path names a constant by Rust's conventions: a path into a
/// type or a module (`Self::K`, `consts::PI`), or a name in capitals
/// (`PI`, `C_2`); a name in lower case is a local (a closure's `v`).
fn constant_name(path: &syn::Path) -> bool {
    match path.get_ident() {
        Some(i) => {
            let name = i.to_string();
            name.chars().any(|c| c.is_ascii_uppercase()) && !name.chars().any(|c| c.is_lowercase())
        }
        None => true,
    }
}

/// A call of a function of the vocabulary (`sigmoid(x)`, `mean(a)`).
fn vocabulary_call(c: &syn::ExprCall) -> bool {
    matches!(&*c.func, Expr::Path(p) if crate::vocab::Op::by_path(&p.path).is_some())
}

/// A call of a function of the user's (`scale(..)`, `util::scale(..)`),
/// not of a type (`Array1::ones(..)`, `__F::from_f64(..)`, `f64::max(..)`)
/// nor of the runtime's for the generated code (`bp::plain_slice(..)`).
fn user_call(c: &syn::ExprCall) -> bool {
    match &*c.func {
        Expr::Path(p) => {
            p.qself.is_none()
                && p.path.segments.iter().all(|s| {
                    let name = s.ident.to_string();
                    !name.starts_with(|c: char| c.is_uppercase())
                        && name != FLOAT
                        && name != "f64"
                        && name != "f32"
                        && name != "__private"
                })
        }
        _ => false,
    }
}

/// A named constant of the user's (`PI`, `C`, `Self::K`; not a path into
/// the float type, already the copy's), or the value of a call of the
/// user's (`scale(C)`), as the copy's float type: the original reads it as
/// an `f64` or `f32`, which the copy converts.
pub fn lift_named(e: &mut Expr, krate: &TokenStream) {
    let named = match &*e {
        Expr::Path(p) => {
            let generic = p.path.segments.first().is_some_and(|s| s.ident == FLOAT);
            p.qself.is_none() && !generic && !is_function_path(&p.path) && constant_name(&p.path)
        }
        Expr::Call(c) => user_call(c),
        _ => false,
    };
    if !named {
        return;
    }
    *e = lift_expr(e, krate);
}

/// `e` read as the copy's float type `__F` (see the runtime's `Lift`): an
/// `f64`, an `f32`, a `Vec` or an array of them converted, any other value
/// cloned.
fn lift_expr(e: &Expr, krate: &TokenStream) -> Expr {
    let span = e.span();
    let t = syn::Ident::new(FLOAT, span);
    syn::parse_quote_spanned!(span=> {
        #[allow(unused_imports, reason = "one of the two reads the constant")]
        use #krate::__private::{LiftAsIs as _, LiftConstant as _};
        (&#krate::__private::Lift(&#e)).lift::<#t>()
    })
}
