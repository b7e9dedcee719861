//! `#[differentiable(wrt(a, b), crate = path)]`: the attribute's arguments.

use proc_macro2::TokenStream;
use syn::parse::Parser;
use syn::{Ident, Path};

/// What the attribute says.
#[derive(Default)]
pub struct Args {
    /// `wrt(a, b)`: exactly these parameters are differentiable.
    pub wrt: Option<Vec<Ident>>,
    /// `crate = path`: where the generated code finds the facade (default `::backprop`).
    pub krate: Option<Path>,
}

/// Parses the attribute's arguments; an empty list is the default.
pub fn parse(tokens: TokenStream) -> syn::Result<Args> {
    let mut args = Args::default();
    let parser = syn::meta::parser(|meta| {
        if meta.path.is_ident("wrt") {
            let mut names = Vec::new();
            meta.parse_nested_meta(|inner| match inner.path.get_ident() {
                Some(ident) => {
                    names.push(ident.clone());
                    Ok(())
                }
                None => Err(inner.error("expected a parameter name, as in `wrt(w, b)`")),
            })?;
            if args.wrt.is_some() {
                return Err(
                    meta.error("`wrt(...)` is given twice; list every parameter in one `wrt(...)`")
                );
            }
            args.wrt = Some(names);
            Ok(())
        } else if meta.path.is_ident("crate") {
            let path: Path = meta.value()?.parse()?;
            args.krate = Some(path);
            Ok(())
        } else {
            Err(meta.error(
                "unknown argument of #[differentiable]; expected `wrt(a, b)` or `crate = path`",
            ))
        }
    });
    parser.parse2(tokens)?;
    Ok(args)
}
