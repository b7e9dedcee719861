//! Pretty-printed expansions, for snapshots and for reading the generated code
//! without `cargo expand`.

use proc_macro2::TokenStream;
use quote::quote;

/// Expands every `#[differentiable]` function of a Rust source file and
/// returns the file pretty-printed (prettyplease), each such function
/// replaced by its expansion and the other items as they are, so that the
/// result compiles where the source does. Errors come back as
/// `compile_error!` invocations.
pub fn expand_source(source: &str) -> Result<String, syn::Error> {
    let file: syn::File = syn::parse_str(source)?;
    let mut out = TokenStream::new();
    for item in file.items {
        match item {
            syn::Item::Fn(f) => out.extend(expand_fn(f)),
            // `#[differentiable]` on the block: the block as the macro expands it.
            syn::Item::Impl(mut i) => match crate::expand::take_attribute(&mut i.attrs) {
                Some(args) => out.extend(crate::expand::differentiable(args, quote!(#i))),
                // Else each differentiable method expands on its own, in the
                // block, as the compiler expands it.
                None if i.trait_.is_none() => {
                    let methods = std::mem::take(&mut i.items).into_iter().map(|it| match it {
                        syn::ImplItem::Fn(f) => expand_fn(crate::expand::method_as_fn(f)),
                        other => quote!(#other),
                    });
                    let attrs = &i.attrs;
                    let (generics, self_ty) = (&i.generics, &i.self_ty);
                    out.extend(quote!(#(#attrs)* impl #generics #self_ty { #(#methods)* }));
                }
                None => out.extend(quote!(#i)),
            },
            other => out.extend(quote!(#other)),
        }
    }
    let file: syn::File = syn::parse2(out)?;
    Ok(prettyplease::unparse(&file))
}

/// A function, expanded if it is `#[differentiable]`.
fn expand_fn(mut f: syn::ItemFn) -> TokenStream {
    match crate::expand::take_attribute(&mut f.attrs) {
        Some(args) => crate::expand::differentiable(args, quote!(#f)),
        None => quote!(#f),
    }
}

/// Only the generated `NAME_backward` functions of [`expand_source`], for a reader.
pub fn pretty_backward(source: &str) -> Result<String, syn::Error> {
    let expanded = expand_source(source)?;
    let mut file: syn::File = syn::parse_str(&expanded)?;
    let backward = |name: &syn::Ident| name.to_string().ends_with("_backward");
    file.items.retain_mut(|i| match i {
        syn::Item::Fn(f) => backward(&f.sig.ident),
        syn::Item::Impl(imp) => {
            imp.items
                .retain(|it| matches!(it, syn::ImplItem::Fn(f) if backward(&f.sig.ident)));
            !imp.items.is_empty()
        }
        _ => false,
    });
    Ok(prettyplease::unparse(&file))
}
