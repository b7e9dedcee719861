//! The function as the macro understands it: its parameters, which of them are
//! differentiable and of what kind, and the type of its value.

pub(crate) mod matrices;
pub(crate) mod reads;
pub(crate) mod scalarize;

use crate::args::Args;
use crate::ctxt::Ctxt;
use proc_macro2::{Span, TokenStream};
use quote::{quote, ToTokens};
use syn::spanned::Spanned;
use syn::{
    FnArg, GenericArgument, GenericParam, Ident, ItemFn, Pat, PathArguments, ReturnType, Type,
};

/// The float element type of a value.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum Elem {
    F32,
    F64,
    /// A type parameter of the function bounded by a float trait
    /// (`T: num_traits::Float`): `f32` or `f64` where it is called.
    Generic(Ident),
}

thread_local! {
    /// The type parameter of the function being read that is a float (see
    /// [`Elem::Generic`]), while its signature is read.
    static FLOAT_PARAM: std::cell::RefCell<Option<Ident>> = const { std::cell::RefCell::new(None) };
}

impl Elem {
    /// The float type `ty` names, the signature's float type parameter
    /// being the one being read.
    fn from_type(ty: &Type) -> Option<Elem> {
        let float = FLOAT_PARAM.with(|f| f.borrow().clone());
        Elem::of(ty, float.as_ref())
    }

    /// The float type `ty` names: `f64`, `f32`, or `float`, the function's
    /// float type parameter.
    pub fn of(ty: &Type, float: Option<&Ident>) -> Option<Elem> {
        match ty {
            Type::Path(p) if p.qself.is_none() => {
                if p.path.is_ident("f64") {
                    Some(Elem::F64)
                } else if p.path.is_ident("f32") {
                    Some(Elem::F32)
                } else {
                    let ident = p.path.get_ident()?;
                    float.filter(|t| *t == ident).cloned().map(Elem::Generic)
                }
            }
            Type::Group(g) => Elem::of(&g.elem, float),
            Type::Paren(p) => Elem::of(&p.elem, float),
            _ => None,
        }
    }

    /// The type's name, for literal suffixes and signatures.
    pub fn ident(&self) -> Ident {
        match self {
            Elem::F32 => Ident::new("f32", Span::call_site()),
            Elem::F64 => Ident::new("f64", Span::call_site()),
            Elem::Generic(t) => t.clone(),
        }
    }

    /// A float literal of this type: `1.0_f64`, or `T::from_f64(1.0)` for a
    /// type parameter (`float` the path of the runtime's `Float`). `digits`
    /// has a decimal point.
    pub fn literal(&self, digits: &str, span: Span, float: &TokenStream) -> TokenStream {
        match self {
            Elem::Generic(t) => {
                let lit = syn::LitFloat::new(&format!("{digits}_f64"), span);
                quote!(<#t as #float>::from_f64(#lit))
            }
            e => syn::LitFloat::new(&format!("{digits}_{}", e.ident()), span).into_token_stream(),
        }
    }
}

/// What kind of value a type is.
#[derive(Clone)]
pub enum Kind {
    /// `f32` or `f64`.
    Scalar(Elem),
    /// An ndarray float array, or a plain container of floats (`plain`);
    /// `owned` is the type of its gradient, `axes` its number of axes where
    /// the type says it (`Array2`, `Array<_, Ix2>`, `[[f64; 3]; 3]`).
    Array {
        elem: Elem,
        owned: TokenStream,
        axes: Option<u8>,
        plain: Option<Plain>,
    },
    /// A value of the user's type (a struct of parameters) that `wrt`
    /// names, or `&self` of a method: differentiable through its fields,
    /// its gradient a value of its own type (`owned`).
    Model { owned: TokenStream },
    /// Anything else: not differentiable.
    Constant,
}

impl Kind {
    fn is_float(&self) -> bool {
        matches!(self, Kind::Scalar(_) | Kind::Array { .. })
    }

    fn elem(&self) -> Option<Elem> {
        match self {
            Kind::Scalar(e) | Kind::Array { elem: e, .. } => Some(e.clone()),
            Kind::Model { .. } | Kind::Constant => None,
        }
    }
}

/// A plain Rust container of floats, which the generated code reads as an
/// ndarray view of its elements (`bp::plain_view`) and whose gradient is a
/// container of its own type (`bp::plain_from`).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Plain {
    /// `&[f64]`: its gradient a `Vec<f64>`.
    Slice,
    /// `Vec<f64>` or `&Vec<f64>`.
    Vec,
    /// `[f64; N]`, `[[f64; M]; N]` or a reference to one.
    Fixed,
}

impl Kind {
    /// The plain container a parameter is, if it is one.
    pub fn plain(&self) -> Option<Plain> {
        match self {
            Kind::Array { plain, .. } => *plain,
            _ => None,
        }
    }
}

/// One parameter of the function.
#[derive(Clone)]
pub struct Param {
    pub ident: Ident,
    pub ty: Type,
    pub kind: Kind,
    /// The parameter is a reference (`&Array2<f64>`), so the generated code
    /// passes it bare rather than borrowing it.
    pub by_ref: bool,
    pub differentiable: bool,
    /// A fixed-size array (`[f64; N]`) that the body reads only element by
    /// element (`p[0] * x + p[1]`, `p[i]` in a loop): the generated code
    /// holds it as `bp::Fixed` and its gradient as a `bp::FixedGrad` on the
    /// stack (see [`reads::scalar_reads`]).
    pub scalar_reads: bool,
    /// A statically sized nalgebra value (`Vector3<f64>`): its shape. The
    /// body reads it by element (see [`scalarize`]).
    pub matrix: Option<matrices::Shape>,
}

/// The function: its signature split into what the macro needs.
#[derive(Clone)]
pub struct Function {
    pub item: ItemFn,
    pub params: Vec<Param>,
    /// The element type of the value (for literal suffixes and `d_out`).
    pub elem: Elem,
    /// The value is an array (so `d_out` is passed by reference).
    pub array_output: bool,
    /// A tuple value (`-> (f64, Array1<f64>)`): whether each component is
    /// an array. `None` for a single value.
    pub tuple: Option<Vec<bool>>,
    /// A value that is a plain container (`-> Vec<f64>`, `-> [f64; 3]`).
    pub plain_output: Option<Plain>,
    /// The type parameter that is the float type (`fn f<T: Float>`).
    pub float_param: Option<Ident>,
    /// For a method expanded from its `impl` block: the block's type.
    pub self_ty: Option<Type>,
    /// The body as the user wrote it, where the macro reads another (a
    /// body over nalgebra values, written on their elements).
    pub written: Option<Box<syn::Block>>,
    /// A value of a statically sized nalgebra type: its shape.
    pub matrix_output: Option<matrices::Shape>,
}

/// Classifies a parameter or return type; `by_ref` tells whether it was behind `&`.
pub fn classify(ty: &Type, krate: &TokenStream) -> (Kind, bool) {
    if let Some(kind) = plain_container(ty) {
        // Read through a view of its elements: what the generated code
        // holds is a value, whatever the parameter's reference.
        return (kind, false);
    }
    match ty {
        Type::Reference(r) if r.mutability.is_none() => (classify(&r.elem, krate).0, true),
        Type::Group(g) => classify(&g.elem, krate),
        Type::Paren(p) => classify(&p.elem, krate),
        Type::Path(p) if p.qself.is_none() => {
            if let Some(e) = Elem::from_type(ty) {
                return (Kind::Scalar(e), false);
            }
            let Some(last) = p.path.segments.last() else {
                return (Kind::Constant, false);
            };
            let name = last.ident.to_string();
            let types: Vec<&Type> = match &last.arguments {
                PathArguments::AngleBracketed(a) => a
                    .args
                    .iter()
                    .filter_map(|g| match g {
                        GenericArgument::Type(t) => Some(t),
                        _ => None,
                    })
                    .collect(),
                _ => Vec::new(),
            };
            let owned_name = match name.as_str() {
                "Array0" | "Array1" | "Array2" | "Array3" | "Array4" | "Array5" | "Array6"
                | "ArrayD" | "Array" => name.clone(),
                "ArrayView0" | "ArrayView1" | "ArrayView2" | "ArrayView3" | "ArrayView4"
                | "ArrayView5" | "ArrayView6" | "ArrayViewD" | "ArrayView" => {
                    name.replacen("View", "", 1)
                }
                _ => return (Kind::Constant, false),
            };
            let Some(elem) = types.first().and_then(|t| Elem::from_type(t)) else {
                return (Kind::Constant, false);
            };
            let owned_ident = Ident::new(&owned_name, last.ident.span());
            let elem_ident = elem.ident();
            let (owned, axes) = if owned_name == "Array" {
                match types.get(1) {
                    Some(dim) => (
                        quote!(#krate::ndarray::Array<#elem_ident, #dim>),
                        axes_of(&quote!(#dim).to_string(), "Ix"),
                    ),
                    None => return (Kind::Constant, false),
                }
            } else {
                (
                    quote!(#krate::ndarray::#owned_ident<#elem_ident>),
                    axes_of(&owned_name, "Array"),
                )
            };
            (
                Kind::Array {
                    elem,
                    owned,
                    axes,
                    plain: None,
                },
                false,
            )
        }
        _ => (Kind::Constant, false),
    }
}

/// A plain container of floats (`&[f64]`, `Vec<f64>`, `&Vec<f64>`,
/// `[f64; N]`, `[[f64; M]; N]`, or a reference to one of these; of any
/// float type): its kind, with the gradient's type (a `Vec` for a slice,
/// the type itself for the others).
fn plain_container(ty: &Type) -> Option<Kind> {
    let ty = match strip_type(ty) {
        Type::Reference(r) if r.mutability.is_none() => strip_type(&r.elem),
        other => other,
    };
    let array = |elem: Elem, owned: TokenStream, axes: u8, plain: Plain| Kind::Array {
        elem,
        owned,
        axes: Some(axes),
        plain: Some(plain),
    };
    if let Some(matrices::Nalgebra::Static(_, elem)) = matrices::nalgebra_type(ty) {
        // Read element by element, its elements in column-major order.
        return Some(array(elem, ty.to_token_stream(), 1, Plain::Fixed));
    }
    match ty {
        Type::Slice(s) => {
            let elem = Elem::from_type(&s.elem)?;
            let e = elem.ident();
            Some(array(elem, quote!(::std::vec::Vec<#e>), 1, Plain::Slice))
        }
        Type::Array(a) => match strip_type(&a.elem) {
            Type::Array(inner) => {
                let elem = Elem::from_type(&inner.elem)?;
                Some(array(elem, ty.to_token_stream(), 2, Plain::Fixed))
            }
            inner => {
                let elem = Elem::from_type(inner)?;
                Some(array(elem, ty.to_token_stream(), 1, Plain::Fixed))
            }
        },
        Type::Path(p) if p.qself.is_none() => {
            let last = p.path.segments.last()?;
            let PathArguments::AngleBracketed(args) = &last.arguments else {
                return None;
            };
            let [GenericArgument::Type(t)] = args.args.iter().collect::<Vec<_>>()[..] else {
                return None;
            };
            let elem = (last.ident == "Vec")
                .then(|| Elem::from_type(t))
                .flatten()?;
            let e = elem.ident();
            Some(array(elem, quote!(::std::vec::Vec<#e>), 1, Plain::Vec))
        }
        _ => None,
    }
}

/// The number of axes of `Array2` (`prefix` "Array") or `Ix2` ("Ix"), or
/// `None` for a dynamic or unknown dimension.
fn axes_of(name: &str, prefix: &str) -> Option<u8> {
    let digits = name.trim().strip_prefix(prefix)?;
    match digits.parse::<u8>() {
        Ok(n) if n <= 6 => Some(n),
        _ => None,
    }
}

impl Function {
    /// Whether it is a method (`&self`): its backward returns `Self` as
    /// the gradient, or a gradient struct (see [`Self::method_struct`]).
    pub fn is_method(&self) -> bool {
        self.params.first().is_some_and(|p| p.ident == "self")
    }

    /// Whether it is a method that differentiates parameters beside
    /// `self`: its gradient is a struct with the field `self_`, written
    /// beside its `impl` block.
    pub fn method_struct(&self) -> bool {
        self.is_method() && self.params[1..].iter().any(|p| p.differentiable)
    }

    /// Reads the signature; every problem goes into `cx`. Returns `None` when
    /// the signature is too broken to describe the generated functions.
    pub fn from_item(
        item: ItemFn,
        args: &Args,
        krate: &TokenStream,
        cx: &mut Ctxt,
    ) -> Option<Function> {
        let sig = &item.sig;
        // The method's own float parameter, or its `impl` block's.
        let float_param = check_qualifiers(sig, cx).or_else(|| args.impl_float.clone());
        // Types naming it are floats while the signature is read.
        FLOAT_PARAM.with(|f| *f.borrow_mut() = float_param.clone());
        let function = Self::read(item, args, krate, cx, float_param);
        FLOAT_PARAM.with(|f| *f.borrow_mut() = None);
        function
    }

    fn read(
        mut item: ItemFn,
        args: &Args,
        krate: &TokenStream,
        cx: &mut Ctxt,
        float_param: Option<Ident>,
    ) -> Option<Function> {
        let (mut params, broken) = read_params(&item.sig, krate, cx);
        let output = match &item.sig.output {
            ReturnType::Type(_, ty) => matrices::matrix_shape(ty),
            ReturnType::Default => None,
        };
        let written = matrices::scalarized(&mut item, &params, args, output, krate, cx);
        let sig = &item.sig;

        mark_differentiable(&mut params, args, sig, cx);
        for p in &mut params {
            p.scalar_reads = (p.differentiable || p.matrix.is_some())
                && matches!(
                    p.kind,
                    Kind::Array {
                        axes: Some(1),
                        plain: Some(Plain::Fixed),
                        ..
                    }
                )
                && reads::scalar_reads(&item.block, &p.ident.to_string());
        }
        if let Some(receiver) = params.first().filter(|p| p.ident == "self") {
            // Inside an `impl`, the macro can write methods but no struct:
            // the gradient is `Self`.
            let others: Vec<&Param> = params[1..].iter().filter(|p| p.differentiable).collect();
            if !receiver.differentiable && others.is_empty() {
                cx.error(
                    sig.ident.span(),
                    "a differentiable method differentiates `self` (its gradient is a value of `Self`) or its other parameters: name them in `wrt(..)`",
                );
            } else if let (false, Some(p), None) =
                (receiver.differentiable, others.first(), &args.self_ty)
            {
                cx.error(
                    p.ident.span(),
                    format!("a method that differentiates `{}` with `self` constant has a gradient struct (field `{}`), which only `#[differentiable]` on the `impl` block can write beside the block: add it there", p.ident, p.ident),
                );
            } else if let (Some(p), None) = (others.first(), &args.self_ty) {
                cx.error(
                    p.ident.span(),
                    format!("a method that differentiates `{}` beside `self` has a gradient struct (fields `self_` and `{}`), which only `#[differentiable]` on the `impl` block can write beside the block: add it there, or name only `self` in `wrt(self)`", p.ident, p.ident),
                );
            }
        }
        if !broken
            && args.wrt.as_ref().is_none_or(|w| w.is_empty())
            && !params.iter().any(|p| p.differentiable)
        {
            cx.error(
                sig.ident.span(),
                format!(
                    "`{}` has no differentiable parameter; #[differentiable] differentiates with respect to parameters of type `f32`, `f64` or ndarray float arrays (`&Array2<f64>`, `ArrayView1<f64>`, ...)",
                    sig.ident
                ),
            );
        }

        let ReturnType::Type(_, ty) = &sig.output else {
            cx.error(
                sig.ident.span(),
                "a differentiable function must return its value: add `-> f64` (or `f32`, or an ndarray float array)",
            );
            return None;
        };
        let mut plain_output = None;
        let (elem, array_output, tuple) = match strip_type(ty) {
            Type::Tuple(t) if !t.elems.is_empty() => {
                let (elem, arrays) = tuple_output(t, krate, cx)?;
                (elem, false, Some(arrays))
            }
            _ => match classify(ty, krate) {
                (kind, _)
                    if kind.plain().is_some() && matches!(strip_type(ty), Type::Reference(_)) =>
                {
                    cx.error_at(
                        ty,
                        "a differentiable function returns an owned value: `Vec<f64>` or `[f64; N]`, not a reference",
                    );
                    return None;
                }
                (kind, false) if kind.is_float() => {
                    plain_output = kind.plain();
                    (kind.elem()?, matches!(kind, Kind::Array { .. }), None)
                }
                _ => {
                    cx.error(
                        ty.span(),
                        "a differentiable function must return `f64`, `f32`, an owned ndarray float array (`Array1<f64>`, ...) or a tuple of them",
                    );
                    return None;
                }
            },
        };
        if broken {
            return None;
        }
        Some(Function {
            item,
            params,
            elem,
            array_output,
            tuple,
            plain_output,
            float_param,
            self_ty: args.self_ty.clone(),
            written,
            matrix_output: output,
        })
    }
}

/// The type without groups and parentheses.
pub(crate) fn strip_type(ty: &Type) -> &Type {
    match ty {
        Type::Group(g) => strip_type(&g.elem),
        Type::Paren(p) => strip_type(&p.elem),
        other => other,
    }
}

/// A tuple output (`(f64, Array1<f64>)`): its one element type, and whether
/// each component is an array. Every component is a float or an owned float
/// array of that type; `None` (with the errors in `cx`) otherwise.
fn tuple_output(
    t: &syn::TypeTuple,
    krate: &TokenStream,
    cx: &mut Ctxt,
) -> Option<(Elem, Vec<bool>)> {
    let mut elem: Option<Elem> = None;
    let mut arrays = Vec::new();
    let mut ok = true;
    for ty in &t.elems {
        match (strip_type(ty), classify(ty, krate)) {
            (Type::Tuple(_), _) => {
                cx.error_at(
                    ty,
                    "a differentiable function may return a tuple of values, not nested tuples; flatten it: `(f64, f64, f64)`",
                );
                ok = false;
            }
            (_, (kind, _)) if kind.plain().is_some() => {
                cx.error_at(
                    ty,
                    "a component of a tuple value is a float or an ndarray array; return this container as an `Array1<f64>` (`Array1::from(v)`), or alone",
                );
                ok = false;
            }
            (_, (kind, false)) if kind.is_float() => {
                let e = kind.elem()?;
                match &elem {
                    Some(first) if *first != e => {
                        cx.error_at(
                            ty,
                            format!(
                                "the components of a tuple output share one float type; this one is `{}` where the first is `{}`",
                                e.ident(),
                                first.ident()
                            ),
                        );
                        ok = false;
                    }
                    _ => elem = Some(e),
                }
                arrays.push(matches!(kind, Kind::Array { .. }));
            }
            _ => {
                cx.error_at(
                    ty,
                    "each component of a tuple output must be `f64`, `f32` or an owned ndarray float array (`Array1<f64>`, ...); compute other values outside the function",
                );
                ok = false;
            }
        }
    }
    match (ok, elem) {
        (true, Some(e)) => Some((e, arrays)),
        _ => None,
    }
}

/// Reports the qualifiers and generics `#[differentiable]` does not
/// support; returns the type parameter bounded by a float trait
/// (`T: num_traits::Float`, `T: backprop::Float`), if there is one.
fn check_qualifiers(sig: &syn::Signature, cx: &mut Ctxt) -> Option<Ident> {
    if let Some(t) = &sig.constness {
        cx.error(
            t.span(),
            "#[differentiable] does not support `const fn`; remove `const`",
        );
    }
    if let Some(t) = &sig.asyncness {
        cx.error(
            t.span(),
            "#[differentiable] does not support `async fn`; differentiate a plain `fn`",
        );
    }
    if let Some(abi) = &sig.abi {
        cx.error_at(
            abi,
            "#[differentiable] does not support `extern` functions; remove the ABI",
        );
    }
    if let Some(v) = &sig.variadic {
        cx.error(
            v.span(),
            "#[differentiable] does not support variadic functions",
        );
    }
    let mut float = None;
    for g in &sig.generics.params {
        match g {
            GenericParam::Lifetime(_) => {}
            GenericParam::Type(t) if float.is_none() && is_float_bound(t, sig) => {
                float = Some(t.ident.clone());
            }
            GenericParam::Type(t) => cx.error_at(
                t,
                "#[differentiable] supports one type parameter, the float type (`fn f<T: backprop::Float>(x: T, w: &Array1<T>) -> T`, also bounded by `num_traits::Float`); write the function for concrete types otherwise",
            ),
            GenericParam::Const(c) => cx.error_at(
                c,
                "#[differentiable] does not support const generic parameters; pass the value as a `usize` parameter",
            ),
        }
    }
    if let Some(w) = &sig.generics.where_clause {
        if float.is_none() {
            cx.error_at(
                w,
                "#[differentiable] does not support `where` clauses; write the function for concrete types and remove it",
            );
        }
    }
    float
}

/// The type parameter of `generics` bounded by a float trait, if there is
/// one (an `impl` block's, for its methods).
/// Runs `f` with `float` as the float type parameter that types name
/// (see [`Elem::Generic`]).
pub fn with_float_param<R>(float: Option<Ident>, f: impl FnOnce() -> R) -> R {
    FLOAT_PARAM.with(|p| *p.borrow_mut() = float);
    let r = f();
    FLOAT_PARAM.with(|p| *p.borrow_mut() = None);
    r
}

pub fn float_param_of(generics: &syn::Generics) -> Option<Ident> {
    generics.params.iter().find_map(|g| match g {
        GenericParam::Type(t) if is_float_bound_in(t, generics) => Some(t.ident.clone()),
        _ => None,
    })
}

/// Whether a type parameter is bounded by a float trait: a bound (or a
/// `where` predicate on it) whose path ends in `Float`.
fn is_float_bound(t: &syn::TypeParam, sig: &syn::Signature) -> bool {
    is_float_bound_in(t, &sig.generics)
}

fn is_float_bound_in(t: &syn::TypeParam, generics: &syn::Generics) -> bool {
    let float = |b: &syn::TypeParamBound| {
        matches!(b, syn::TypeParamBound::Trait(tb)
            if tb.path.segments.last().is_some_and(|s| s.ident == "Float"))
    };
    let in_where = generics
        .where_clause
        .iter()
        .flat_map(|w| &w.predicates)
        .any(|p| {
            matches!(p, syn::WherePredicate::Type(pt)
            if matches!(&pt.bounded_ty, Type::Path(tp) if tp.path.is_ident(&t.ident))
                && pt.bounds.iter().any(float))
        });
    t.bounds.iter().any(float) || in_where
}

/// The parameters, and whether one was too broken to describe.
fn read_params(sig: &syn::Signature, krate: &TokenStream, cx: &mut Ctxt) -> (Vec<Param>, bool) {
    let mut params = Vec::new();
    let mut broken = false;
    for arg in &sig.inputs {
        match arg {
            FnArg::Receiver(r) => match &r.kind {
                syn::ReceiverKind::Reference(_, _, None) => params.push(Param {
                    ident: Ident::new("self", r.self_token.span()),
                    ty: syn::parse_quote_spanned!(r.self_token.span()=> &Self),
                    kind: Kind::Model {
                        owned: quote!(Self),
                    },
                    by_ref: true,
                    differentiable: false,
                    scalar_reads: false,
                    matrix: None,
                }),
                syn::ReceiverKind::Reference(_, _, Some(_)) => {
                    cx.error_at(
                        r,
                        "a differentiable method takes `&self`: it reads the model and returns its gradient, it does not change it; update the model with the gradient afterwards (an optimiser's `step`)",
                    );
                    broken = true;
                }
                _ => {
                    cx.error_at(
                        r,
                        "a differentiable method takes `&self` (not `self` by value or a typed `self`)",
                    );
                    broken = true;
                }
            },
            FnArg::Typed(pt) => {
                let ident = match &*pt.pat {
                    Pat::Ident(pi) if pi.by_ref.is_none() && pi.subpat.is_none() => {
                        pi.ident.clone()
                    }
                    other => {
                        cx.error(
                            other.span(),
                            "#[differentiable] needs a plain name for every parameter, as in `w: &Array2<f64>`",
                        );
                        broken = true;
                        continue;
                    }
                };
                if let Type::Reference(r) = &*pt.ty {
                    if r.mutability.is_some() && classify(&r.elem, krate).0.is_float() {
                        cx.error_at(
                            &pt.ty,
                            "`&mut` parameters are not supported by #[differentiable]; take the value by shared reference (`&Array1<f64>`)",
                        );
                        broken = true;
                        continue;
                    }
                }
                let (kind, by_ref) = classify(&pt.ty, krate);
                params.push(Param {
                    ident,
                    ty: (*pt.ty).clone(),
                    kind,
                    by_ref,
                    differentiable: false,
                    scalar_reads: false,
                    matrix: matrices::matrix_shape(&pt.ty),
                });
            }
        }
    }
    (params, broken)
}

/// The type of a model parameter's gradient: the parameter's type without
/// its `&`, when it is a path that names no number, `bool`, `char`, string,
/// slice or ndarray array.
fn model_type(ty: &Type) -> Option<TokenStream> {
    let inner = match strip_type(ty) {
        Type::Reference(r) if r.mutability.is_none() => strip_type(&r.elem),
        other => other,
    };
    let Type::Path(p) = inner else {
        return None;
    };
    let last = p.path.segments.last()?.ident.to_string();
    const NOT_MODELS: &[&str] = &["bool", "char", "str", "String"];
    let integer = INTEGERS.contains(&last.as_str());
    if p.qself.is_some()
        || integer
        || NOT_MODELS.contains(&last.as_str())
        || last.starts_with("Array")
    {
        return None;
    }
    Some(inner.to_token_stream())
}

/// Marks the differentiable parameters: every float one, or those `wrt` names.
fn mark_differentiable(params: &mut [Param], args: &Args, sig: &syn::Signature, cx: &mut Ctxt) {
    // Which parameters are differentiable.
    match &args.wrt {
        None => {
            // A method differentiates `&self`; a function every float
            // parameter.
            let method = params.first().is_some_and(|p| p.ident == "self");
            for p in params.iter_mut() {
                p.differentiable = if method {
                    p.ident == "self"
                } else {
                    p.kind.is_float()
                };
            }
        }
        Some(names) => {
            for name in names {
                match params.iter_mut().find(|p| p.ident == *name) {
                    None => cx.error(
                        name.span(),
                        format!("`{name}` in `wrt(...)` is not a parameter of `{}`", sig.ident),
                    ),
                    Some(p) if matches!(p.kind, Kind::Constant) => match model_type(&p.ty) {
                        // A parameter of the user's type: a model.
                        Some(owned) if !p.differentiable => {
                            p.kind = Kind::Model { owned };
                            p.differentiable = true;
                        }
                        _ if p.differentiable => {
                            cx.error(name.span(), format!("`{name}` is named twice in `wrt(...)`"))
                        }
                        _ => cx.error(
                            name.span(),
                            format!(
                                "`{name}` cannot be differentiated: its type `{}` is not `f32`, `f64`, an ndarray float array or a model (a struct that derives `backprop::Differentiable`, passed by value or by `&`)",
                                p.ty.to_token_stream()
                            ),
                        ),
                    },
                    Some(p) if p.differentiable => {
                        cx.error(name.span(), format!("`{name}` is named twice in `wrt(...)`"))
                    }
                    Some(p) => p.differentiable = true,
                }
            }
        }
    }
}

/// Rust's integer types, by name.
pub const INTEGERS: &[&str] = &[
    "u8", "u16", "u32", "u64", "u128", "usize", "i8", "i16", "i32", "i64", "i128", "isize",
];

/// Whether a type is one of Rust's integers (`usize`, `i32`, ...).
pub fn is_integer_type(ty: &syn::Type) -> bool {
    match strip_type(ty) {
        syn::Type::Path(p) if p.qself.is_none() => p
            .path
            .get_ident()
            .is_some_and(|i| INTEGERS.contains(&i.to_string().as_str())),
        _ => false,
    }
}
