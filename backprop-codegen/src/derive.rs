//! `#[derive(Differentiable)]`: the visits of a struct's float leaves, field
//! by field, and (through the runtime's `impl_serde!`) its serde impls.
//!
//! Each field is classified by its type, as written:
//!
//! - a leaf or a container of leaves the runtime knows (`f64`, `Array2<f32>`,
//!   `Vec<Array1<f64>>`, a type parameter `T`) is visited directly;
//! - a constant the runtime knows (`usize`, `String`, `Vec<usize>`,
//!   `Array1<usize>`) is skipped;
//! - any other type (a user's struct or enum, or a container of one) is
//!   probed: the generated code asks the compiler whether it implements
//!   `Differentiable` (see the runtime's `model::probe`), so a nested model
//!   is visited and an enum is a constant, without an annotation;
//! - a type no model can hold (a reference, a trait object, a map of
//!   parameters) is an error naming the field.
//!
//! A field whose type names a type parameter is visited directly, with a
//! `where FieldType: Differentiable` bound.

use proc_macro2::{Span, TokenStream};
use quote::{quote, ToTokens};
use std::collections::HashSet;
use syn::spanned::Spanned;
use syn::{Fields, GenericArgument, GenericParam, Item, ItemStruct, PathArguments, Type};

/// Expands `#[derive(Differentiable)]` on `input`: the impl, or the errors
/// and an impl with empty visits (so that uses of the type do not add
/// errors of their own).
pub fn derive(input: TokenStream) -> TokenStream {
    let item = match syn::parse2::<Item>(input) {
        Ok(Item::Struct(item)) => item,
        Ok(Item::Enum(e)) => return syn::Error::new(
            e.enum_token.span(),
            "`#[derive(Differentiable)]` applies to a struct of parameters; an enum is a constant \
                 field of a model as it is (no derive needed)",
        )
        .to_compile_error(),
        Ok(Item::Union(u)) => {
            return syn::Error::new(
                u.union_token.span(),
                "`#[derive(Differentiable)]` applies to a struct of parameters, not to a union",
            )
            .to_compile_error()
        }
        Ok(other) => {
            return syn::Error::new_spanned(
                other,
                "`#[derive(Differentiable)]` applies to a struct",
            )
            .to_compile_error()
        }
        Err(e) => return e.to_compile_error(),
    };
    match expand(&item, None, true) {
        Ok(tokens) => tokens,
        Err(e) => {
            let krate = read_crate(&item.attrs)
                .ok()
                .flatten()
                .unwrap_or_else(|| quote!(::backprop));
            let mut out = e.to_compile_error();
            out.extend(fallback(&item, &krate));
            out
        }
    }
}

/// How a field takes part in the visits.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Class {
    /// Skipped: cloned into a gradient, left alone by an update.
    Constant,
    /// Known to the runtime as `Differentiable`: visited directly.
    Direct,
    /// Unknown: the generated code asks whether it is `Differentiable`.
    Probe,
}

/// A field as the derive reads it.
struct Field<'a> {
    /// The member: `w`, or `0` of a tuple struct.
    member: syn::Member,
    /// Its name in paths: `w`, `0`.
    name: String,
    ty: &'a Type,
    class: Class,
    /// Whether its type names a type parameter of the struct.
    generic: bool,
}

/// The impl of `Differentiable` for a gradient struct `NameGrad` that
/// `#[differentiable]` writes (without serde: a gradient is not saved).
pub(crate) fn gradient_impl(item: TokenStream, krate: &TokenStream) -> TokenStream {
    syn::parse2::<ItemStruct>(item)
        .and_then(|input| expand(&input, Some(krate), false))
        .unwrap_or_else(|e| e.to_compile_error())
}

/// The impl of `Differentiable` for `input` (and, with `serde`, the
/// `impl_serde!` invocation); `krate` overrides `#[backprop(crate = ..)]`.
pub(crate) fn expand(
    input: &ItemStruct,
    krate: Option<&TokenStream>,
    serde: bool,
) -> syn::Result<TokenStream> {
    let fields = &input.fields;
    let mut errors: Option<syn::Error> = None;
    let mut push = |e: syn::Error| match &mut errors {
        Some(all) => all.combine(e),
        None => errors = Some(e),
    };
    let krate = match (krate, read_crate(&input.attrs)) {
        (Some(k), _) => k.clone(),
        (None, Ok(k)) => k.unwrap_or_else(|| quote!(::backprop)),
        (None, Err(e)) => {
            push(e);
            quote!(::backprop)
        }
    };
    let params: HashSet<String> = input
        .generics
        .type_params()
        .map(|p| p.ident.to_string())
        .collect();
    let mut read = Vec::new();
    for (i, field) in fields.iter().enumerate() {
        let (member, name) = match &field.ident {
            Some(ident) => (syn::Member::Named(ident.clone()), unraw(ident)),
            None => (syn::Member::Unnamed(syn::Index::from(i)), i.to_string()),
        };
        let constant = match field_is_constant(&field.attrs) {
            Ok(c) => c,
            Err(e) => {
                push(e);
                false
            }
        };
        let class = if constant {
            Ok(Class::Constant)
        } else {
            classify(&field.ty, &params)
        };
        match class {
            Ok(class) => read.push(Field {
                member,
                name,
                ty: &field.ty,
                class,
                generic: mentions(&field.ty, &params),
            }),
            Err(reason) => push(syn::Error::new_spanned(
                field,
                unsupported(&name, &field.ty, &reason),
            )),
        }
    }
    if let Some(e) = errors {
        return Err(e);
    }
    let visits = visits(input, &read, &krate);
    // A model generic over its float type is also a value of duals, for
    // `#[differentiable(jvp)]` and `(hvp)` (not the gradient structs the
    // macro writes, which `serde` being false tells apart).
    let dualize = if serde {
        dualize_impl(input, &read, &krate)
    } else {
        TokenStream::new()
    };
    let serde = if serde {
        serde_impls(input, fields, &read, &krate)
    } else {
        TokenStream::new()
    };
    Ok(quote!(#visits #dualize #serde))
}

/// `Dualize` for a struct generic over its float type `T` alone (besides
/// lifetimes and constants): the same struct over `Dual<T>`, each field
/// that names `T` through its own `Dualize`, the others cloned.
fn dualize_impl(input: &ItemStruct, fields: &[Field<'_>], krate: &TokenStream) -> TokenStream {
    let Some(t) = crate::ast::float_param_of(&input.generics) else {
        return TokenStream::new();
    };
    if input.generics.type_params().count() != 1 {
        return TokenStream::new();
    }
    let bp = quote!(#krate::__private);
    let name = &input.ident;
    let (impl_generics, ty_generics, where_clause) = input.generics.split_for_impl();
    let dual_t = quote!(#bp::Dual<#t>);
    // The struct's type over duals: its generic arguments with `T` replaced.
    let dual_args: Vec<TokenStream> = input
        .generics
        .params
        .iter()
        .map(|g| match g {
            syn::GenericParam::Type(p) if p.ident == t => dual_t.clone(),
            syn::GenericParam::Type(p) => p.ident.to_token_stream(),
            syn::GenericParam::Const(c) => c.ident.to_token_stream(),
            syn::GenericParam::Lifetime(l) => l.lifetime.to_token_stream(),
        })
        .collect();
    let dual_ty = quote!(#name<#(#dual_args),*>);
    let mut predicates: Vec<TokenStream> = where_clause
        .map(|w| w.predicates.iter().map(ToTokens::to_token_stream).collect())
        .unwrap_or_default();
    predicates.push(quote!(#t: #bp::Dualize<Dual = #dual_t>));
    predicates.push(quote!(#dual_t: #bp::Float));
    let mut bounded = HashSet::new();
    let (mut with, mut constant, mut value, mut tangent) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for field in fields {
        let (member, ty) = (&field.member, field.ty);
        if field.generic {
            if bounded.insert(ty.to_token_stream().to_string()) {
                let over_duals = replace_ident(ty.to_token_stream(), &t, &dual_t);
                predicates.push(quote!(#ty: #bp::Dualize<Dual = #over_duals>));
            }
            let (v, d) = if field.class == Class::Constant {
                (
                    quote!(#bp::Dualize::constant(&self.#member)),
                    quote!(#bp::Dualize::value_of(&d.#member)),
                )
            } else {
                (
                    quote!(#bp::Dualize::with_tangent(&self.#member, &direction.#member)),
                    quote!(#bp::Dualize::tangent_of(&d.#member)),
                )
            };
            with.push(quote!(#member: #v));
            constant.push(quote!(#member: #bp::Dualize::constant(&self.#member)));
            value.push(quote!(#member: #bp::Dualize::value_of(&d.#member)));
            tangent.push(quote!(#member: #d));
        } else {
            let clone = quote!(#member: ::core::clone::Clone::clone(&self.#member));
            let from_d = quote!(#member: ::core::clone::Clone::clone(&d.#member));
            with.push(clone.clone());
            constant.push(clone);
            value.push(from_d.clone());
            tangent.push(from_d);
        }
    }
    quote! {
        #[automatically_derived]
        impl #impl_generics #bp::Dualize for #name #ty_generics where #(#predicates,)* {
            type Dual = #dual_ty;
            fn with_tangent(&self, direction: &Self) -> #dual_ty {
                let _ = direction;
                #name { #(#with,)* }
            }
            fn constant(&self) -> #dual_ty {
                #name { #(#constant,)* }
            }
            fn value_of(d: &#dual_ty) -> Self {
                #name { #(#value,)* }
            }
            fn tangent_of(d: &#dual_ty) -> Self {
                #name { #(#tangent,)* }
            }
        }
    }
}

/// `tokens` with every `ident` replaced by `with`.
pub(crate) fn replace_ident(
    tokens: TokenStream,
    ident: &syn::Ident,
    with: &TokenStream,
) -> TokenStream {
    tokens
        .into_iter()
        .map(|t| match t {
            proc_macro2::TokenTree::Ident(i) if i == *ident => proc_macro2::TokenTree::Group(
                proc_macro2::Group::new(proc_macro2::Delimiter::None, with.clone()),
            ),
            proc_macro2::TokenTree::Group(g) => {
                let mut inner =
                    proc_macro2::Group::new(g.delimiter(), replace_ident(g.stream(), ident, with));
                inner.set_span(g.span());
                proc_macro2::TokenTree::Group(inner)
            }
            other => other,
        })
        .collect()
}

/// The error for a field the derive cannot handle.
fn unsupported(name: &str, ty: &Type, reason: &str) -> String {
    let ty = written(ty);
    format!(
        "`#[derive(Differentiable)]` cannot handle the field `{name}` of type `{ty}`: {reason}. \
         A model's fields are `f32`, `f64`, owned ndarray float arrays (`Array1<f64>`, `ArrayD<f32>`, \
         `Array<F, D>`), other models, and `Vec<T>`, `[T; N]`, `Box<T>`, `Option<T>` of these; \
         other fields are constants (integers, `bool`, `char`, `String`, `&'static str`, integer \
         arrays, types that do not implement `Differentiable` such as your enums); \
         `#[backprop(constant)]` makes any field a constant"
    )
}

/// A type as a person writes it (`&'a Array2<f64>`, not `& 'a Array2 < f64 >`).
fn written(ty: &Type) -> String {
    let item: syn::File = syn::parse_quote!(type T = #ty;);
    let text = prettyplease::unparse(&item);
    text.trim()
        .strip_prefix("type T = ")
        .and_then(|t| t.strip_suffix(';'))
        .map(str::to_owned)
        .unwrap_or_else(|| ty.to_token_stream().to_string())
}

/// `#[backprop(crate = path)]` on the struct.
fn read_crate(attrs: &[syn::Attribute]) -> syn::Result<Option<TokenStream>> {
    let mut krate = None;
    for attr in attrs.iter().filter(|a| a.path().is_ident("backprop")) {
        attr.parse_nested_meta(|meta| {
            if meta.path.is_ident("crate") {
                let path: syn::Path = meta.value()?.parse()?;
                krate = Some(path.to_token_stream());
                Ok(())
            } else {
                Err(meta
                    .error("unknown argument of #[backprop] on a struct; expected `crate = path`"))
            }
        })?;
    }
    Ok(krate)
}

/// `#[backprop(constant)]` on a field.
fn field_is_constant(attrs: &[syn::Attribute]) -> syn::Result<bool> {
    let mut constant = false;
    for attr in attrs.iter().filter(|a| a.path().is_ident("backprop")) {
        attr.parse_nested_meta(|meta| {
            if meta.path.is_ident("constant") {
                constant = true;
                Ok(())
            } else {
                Err(meta.error("unknown argument of #[backprop] on a field; expected `constant`"))
            }
        })?;
    }
    Ok(constant)
}

fn unraw(ident: &syn::Ident) -> String {
    let s = ident.to_string();
    s.strip_prefix("r#").map(str::to_owned).unwrap_or(s)
}

/// Whether `ty` names one of the struct's type parameters.
fn mentions(ty: &Type, params: &HashSet<String>) -> bool {
    ty.to_token_stream()
        .into_iter()
        .any(|t| mentions_tree(&t, params))
}

fn mentions_tree(t: &proc_macro2::TokenTree, params: &HashSet<String>) -> bool {
    match t {
        proc_macro2::TokenTree::Ident(i) => params.contains(&i.to_string()),
        proc_macro2::TokenTree::Group(g) => {
            g.stream().into_iter().any(|t| mentions_tree(&t, params))
        }
        _ => false,
    }
}

const CONSTANTS: &[&str] = &[
    "bool",
    "char",
    "String",
    "str",
    "PhantomData",
    "PhantomPinned",
];
const ARRAYS: &[&str] = &[
    "Array", "Array0", "Array1", "Array2", "Array3", "Array4", "Array5", "Array6", "ArrayD",
];
const VIEWS: &[&str] = &[
    "ArrayBase",
    "ArrayView",
    "ArrayView0",
    "ArrayView1",
    "ArrayView2",
    "ArrayView3",
    "ArrayView4",
    "ArrayView5",
    "ArrayView6",
    "ArrayViewD",
    "ArrayViewMut",
    "ArrayViewMut0",
    "ArrayViewMut1",
    "ArrayViewMut2",
    "ArrayViewMut3",
    "ArrayViewMut4",
    "ArrayViewMut5",
    "ArrayViewMut6",
    "ArrayViewMutD",
    "ArcArray",
    "ArcArray1",
    "ArcArray2",
    "ArcArrayD",
    "CowArray",
];
/// Standard collections and cells that no model can hold parameters in: a
/// constant when they hold only constants.
const FOREIGN: &[&str] = &[
    "HashMap",
    "BTreeMap",
    "HashSet",
    "BTreeSet",
    "BinaryHeap",
    "VecDeque",
    "LinkedList",
    "Rc",
    "Arc",
    "Cell",
    "RefCell",
    "Mutex",
    "RwLock",
    "Weak",
];

/// How a field of type `ty` is visited, or why it cannot be.
fn classify(ty: &Type, params: &HashSet<String>) -> Result<Class, String> {
    match ty {
        Type::Paren(p) => classify(&p.elem, params),
        Type::Group(g) => classify(&g.elem, params),
        Type::Path(p) if p.qself.is_none() => classify_path(&p.path, params),
        Type::Path(_) => Ok(Class::Probe),
        Type::Array(a) => classify(&a.elem, params),
        Type::Tuple(t) => {
            if t
                .elems
                .iter()
                .all(|e| classify(e, params) == Ok(Class::Constant))
            {
                Ok(Class::Constant)
            } else {
                Err("a tuple of parameters is not supported; use a struct or `[T; N]`".into())
            }
        }
        Type::Reference(r) if matches!(&*r.elem, Type::TraitObject(_)) => {
            classify(&r.elem, params)
        }
        Type::Reference(r) => match (&r.lifetime, &*r.elem) {
            (Some(l), Type::Path(p)) if l.ident == "static" && p.path.is_ident("str") => {
                Ok(Class::Constant)
            }
            _ => Err("a model owns its parameters, and cannot hold a reference".into()),
        },
        Type::Ptr(_) => Err("a model cannot hold a raw pointer".into()),
        Type::TraitObject(_) => Err(
            "a trait object (`dyn Trait`) has no fields the derive can see; use a concrete type or an enum"
                .into(),
        ),
        Type::ImplTrait(_) => Err("`impl Trait` is not a field type".into()),
        Type::FnPtr(_) => Err("a function pointer is not a parameter".into()),
        Type::Slice(_) => Err("an unsized slice is not a field type; use a `Vec`".into()),
        _ => Err("this kind of type is not supported".into()),
    }
}

/// The type arguments of a path's last segment.
fn type_args(segment: &syn::PathSegment) -> Vec<&Type> {
    match &segment.arguments {
        PathArguments::AngleBracketed(a) => a
            .args
            .iter()
            .filter_map(|arg| match arg {
                GenericArgument::Type(t) => Some(t),
                _ => None,
            })
            .collect(),
        _ => Vec::new(),
    }
}

fn classify_path(path: &syn::Path, params: &HashSet<String>) -> Result<Class, String> {
    let Some(last) = path.segments.last() else {
        return Err("an empty path".into());
    };
    let name = last.ident.to_string();
    let name = name.as_str();
    let args = type_args(last);
    if path.segments.len() == 1 && params.contains(name) {
        // A type parameter: a float, or a model, as the bound says.
        return Ok(Class::Direct);
    }
    if name == "f32" || name == "f64" {
        return Ok(Class::Direct);
    }
    if crate::ast::INTEGERS.contains(&name) || CONSTANTS.contains(&name) {
        return Ok(Class::Constant);
    }
    if ARRAYS.contains(&name) {
        return match args.first() {
            Some(elem) => classify_element(elem, params),
            None => Err("an ndarray array without its element type".into()),
        };
    }
    if VIEWS.contains(&name) {
        return Err(format!(
            "a model owns its parameters: use an owned `Array` rather than `{name}`"
        ));
    }
    if matches!(name, "Vec" | "Box" | "Option") {
        return match args.as_slice() {
            [inner] => classify(inner, params),
            _ => Err(format!(
                "`{name}` with an unexpected number of type arguments"
            )),
        };
    }
    if FOREIGN.contains(&name) {
        return if args
            .iter()
            .all(|a| classify(a, params) == Ok(Class::Constant))
        {
            Ok(Class::Constant)
        } else {
            Err(format!(
                "a `{name}` cannot hold parameters (an optimiser needs a fixed order and owned values); \
                 use a `Vec` or a struct"
            ))
        };
    }
    // A user's type (or a container of one): a model if it implements
    // `Differentiable`, a constant otherwise.
    Ok(Class::Probe)
}

/// The element type of an ndarray array.
fn classify_element(elem: &Type, params: &HashSet<String>) -> Result<Class, String> {
    match elem {
        Type::Path(p) if p.qself.is_none() && p.path.segments.len() == 1 => {
            let name = p.path.segments[0].ident.to_string();
            if name == "f32" || name == "f64" || params.contains(&name) {
                Ok(Class::Direct)
            } else if crate::ast::INTEGERS.contains(&name.as_str()) || name == "bool" {
                Ok(Class::Constant)
            } else {
                Err(format!(
                    "an array of `{name}`: arrays of `f32`/`f64` are parameters, arrays of integers or `bool` constants"
                ))
            }
        }
        _ => Err("an array of an element type that is neither a float nor an integer".into()),
    }
}

/// The impl of `Differentiable`: one visit per field that is not a constant.
fn visits(input: &ItemStruct, fields: &[Field<'_>], krate: &TokenStream) -> TokenStream {
    let name = &input.ident;
    let bp = quote!(#krate::__private);
    let (impl_generics, ty_generics, where_clause) = input.generics.split_for_impl();
    let mut predicates: Vec<TokenStream> = where_clause
        .map(|w| w.predicates.iter().map(ToTokens::to_token_stream).collect())
        .unwrap_or_default();
    let mut bounded = HashSet::new();
    let mut visit = Vec::new();
    let mut visit_mut = Vec::new();
    let mut probes = false;
    for field in fields {
        let (member, key, ty) = (&field.member, &field.name, field.ty);
        match (field.class, field.generic) {
            (Class::Constant, _) => continue,
            (_, true) | (Class::Direct, false) => {
                if field.generic && bounded.insert(ty.to_token_stream().to_string()) {
                    predicates.push(quote!(#ty: #bp::Differentiable));
                }
                visit.push(quote!(#bp::visit_field(path, #key, &self.#member, visitor);));
                visit_mut
                    .push(quote!(#bp::visit_field_mut(path, #key, &mut self.#member, visitor);));
            }
            (Class::Probe, false) => {
                probes = true;
                let probe = quote!((&#bp::Probe::<#ty>::new()).backprop_field());
                visit.push(quote!(#probe.visit(path, #key, &self.#member, visitor);));
                visit_mut.push(quote!(#probe.visit_mut(path, #key, &mut self.#member, visitor);));
            }
        }
    }
    if visit.is_empty() {
        let unused = quote!(let _ = (path, visitor););
        visit.push(unused.clone());
        visit_mut.push(unused);
    }
    let import = probes.then(|| quote!(use #bp::{ViaConstant as _, ViaModel as _};));
    let where_clause = (!predicates.is_empty()).then(|| quote!(where #(#predicates,)*));
    let allow = probes.then(|| {
        quote!(#[allow(clippy::needless_borrow, reason = "the borrow of a probe picks the impl: a model's visit, or a constant's")])
    });
    quote! {
        #[automatically_derived]
        #allow
        impl #impl_generics #bp::Differentiable for #name #ty_generics #where_clause {
            fn visit<'__bp>(&'__bp self, path: &mut #bp::Path, visitor: &mut dyn #bp::Visitor<'__bp>) {
                #import
                #(#visit)*
            }
            fn visit_mut<'__bp>(&'__bp mut self, path: &mut #bp::Path, visitor: &mut dyn #bp::VisitorMut<'__bp>) {
                #import
                #(#visit_mut)*
            }
        }
    }
}

/// An impl whose visits do nothing: beside the errors, so that the type's
/// uses do not fail too.
fn fallback(input: &ItemStruct, krate: &TokenStream) -> TokenStream {
    let name = &input.ident;
    let bp = quote!(#krate::__private);
    let (impl_generics, ty_generics, where_clause) = input.generics.split_for_impl();
    quote! {
        impl #impl_generics #bp::Differentiable for #name #ty_generics #where_clause {
            fn visit<'__bp>(&'__bp self, _: &mut #bp::Path, _: &mut dyn #bp::Visitor<'__bp>) {}
            fn visit_mut<'__bp>(&'__bp mut self, _: &mut #bp::Path, _: &mut dyn #bp::VisitorMut<'__bp>) {}
        }
    }
}

/// The invocation of the runtime's `impl_serde!`, which writes `Serialize`
/// and `Deserialize` when the runtime's `serde` feature is on.
fn serde_impls(
    input: &ItemStruct,
    fields: &Fields,
    read: &[Field<'_>],
    krate: &TokenStream,
) -> TokenStream {
    let name = &input.ident;
    let params: Vec<TokenStream> = input
        .generics
        .params
        .iter()
        .map(|p| match p {
            GenericParam::Type(t) => {
                let (ident, bounds) = (&t.ident, &t.bounds);
                if bounds.is_empty() {
                    quote!(#ident)
                } else {
                    quote!(#ident: #bounds)
                }
            }
            GenericParam::Lifetime(l) => l.to_token_stream(),
            GenericParam::Const(c) => {
                let (ident, ty) = (&c.ident, &c.ty);
                quote!(const #ident: #ty)
            }
        })
        .collect();
    let args: Vec<TokenStream> = input
        .generics
        .params
        .iter()
        .map(|p| match p {
            GenericParam::Type(t) => t.ident.to_token_stream(),
            GenericParam::Lifetime(l) => l.lifetime.to_token_stream(),
            GenericParam::Const(c) => c.ident.to_token_stream(),
        })
        .collect();
    let predicates: Vec<TokenStream> = input
        .generics
        .where_clause
        .as_ref()
        .map(|w| w.predicates.iter().map(ToTokens::to_token_stream).collect())
        .unwrap_or_default();
    // Every field type, bounded in the impls (see the runtime's `impl_serde!`).
    let mut seen = HashSet::new();
    let bounds: Vec<&Type> = read
        .iter()
        .filter(|f| seen.insert(f.ty.to_token_stream().to_string()))
        .map(|f| f.ty)
        .collect();
    let head = quote!(#name [#(#params,)*] [#(#args,)*] [#(#predicates,)*] [#(#bounds),*]);
    let body = match fields {
        Fields::Named(_) | Fields::Unit => {
            let items = read.iter().map(|f| {
                let (member, ty, key) = (&f.member, f.ty, &f.name);
                quote!(#member: #ty = #key)
            });
            quote!(named #head { #(#items),* })
        }
        Fields::Unnamed(_) => {
            let items = read.iter().map(|f| {
                let (member, ty) = (&f.member, f.ty);
                let var = syn::Ident::new(&format!("field{}", f.name), Span::call_site());
                quote!(#member #var: #ty)
            });
            quote!(tuple #head ( #(#items),* ))
        }
    };
    quote!(#krate::__private::impl_serde! { #body })
}
