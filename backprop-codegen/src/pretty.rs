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
            // A differentiable method expands into methods of its `impl`.
            // `#[differentiable]` on the block: the block as the macro expands it.
            syn::Item::Impl(mut i)
                if i.attrs.iter().any(|a| a.path().is_ident("differentiable")) =>
            {
                let pos = i
                    .attrs
                    .iter()
                    .position(|a| a.path().is_ident("differentiable"))
                    .expect("checked");
                let attr = i.attrs.remove(pos);
                let args = match attr.meta {
                    syn::Meta::List(l) => l.tokens,
                    _ => TokenStream::new(),
                };
                out.extend(crate::expand::differentiable(args, quote!(#i)));
            }
            syn::Item::Impl(mut i) if i.trait_.is_none() => {
                let items = std::mem::take(&mut i.items);
                let mut methods = TokenStream::new();
                for it in items {
                    match it {
                        syn::ImplItem::Fn(f) => {
                            let syn::ImplItemFn {
                                attrs,
                                vis,
                                modifiers,
                                sig,
                                block,
                            } = f;
                            methods.extend(expand_fn(syn::ItemFn {
                                attrs,
                                vis,
                                modifiers,
                                sig,
                                block: Box::new(block),
                            }));
                        }
                        other => methods.extend(quote!(#other)),
                    }
                }
                let attrs = &i.attrs;
                let (generics, self_ty) = (&i.generics, &i.self_ty);
                out.extend(quote!(#(#attrs)* impl #generics #self_ty { #methods }));
            }
            other => out.extend(quote!(#other)),
        }
    }
    let file: syn::File = syn::parse2(out)?;
    Ok(prettyplease::unparse(&file))
}

/// A function, expanded if it is `#[differentiable]`.
fn expand_fn(mut f: syn::ItemFn) -> TokenStream {
    let Some(pos) = f
        .attrs
        .iter()
        .position(|a| a.path().is_ident("differentiable"))
    else {
        return quote!(#f);
    };
    let attr = f.attrs.remove(pos);
    let args = match attr.meta {
        syn::Meta::List(l) => l.tokens,
        _ => TokenStream::new(),
    };
    crate::expand::differentiable(args, quote!(#f))
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
