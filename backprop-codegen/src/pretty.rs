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
        let syn::Item::Fn(mut f) = item else {
            out.extend(quote!(#item));
            continue;
        };
        let Some(pos) = f
            .attrs
            .iter()
            .position(|a| a.path().is_ident("differentiable"))
        else {
            out.extend(quote!(#f));
            continue;
        };
        let attr = f.attrs.remove(pos);
        let args = match attr.meta {
            syn::Meta::List(l) => l.tokens,
            _ => TokenStream::new(),
        };
        out.extend(crate::expand::differentiable(args, quote!(#f)));
    }
    let file: syn::File = syn::parse2(out)?;
    Ok(prettyplease::unparse(&file))
}

/// Only the generated `NAME_backward` functions of [`expand_source`], for a reader.
pub fn pretty_backward(source: &str) -> Result<String, syn::Error> {
    let expanded = expand_source(source)?;
    let mut file: syn::File = syn::parse_str(&expanded)?;
    file.items.retain(
        |i| matches!(i, syn::Item::Fn(f) if f.sig.ident.to_string().ends_with("_backward")),
    );
    Ok(prettyplease::unparse(&file))
}
