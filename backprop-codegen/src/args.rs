//! `#[differentiable(wrt(a, b), crate = path)]`: the attribute's arguments.

use proc_macro2::TokenStream;
use syn::parse::Parser;
use syn::punctuated::Punctuated;
use syn::Token;
use syn::{Ident, Path};

/// What the attribute says.
#[derive(Default)]
pub struct Args {
    /// `wrt(a, b)`: exactly these parameters are differentiable.
    pub wrt: Option<Vec<Ident>>,
    /// `crate = path`: where the generated code finds the facade (default `::backprop`).
    pub krate: Option<Path>,
    /// The planner's optimisations: all on, unless `unoptimized` switches
    /// them all off or `without(fuse, ..)` some (for tests that compare the
    /// plain expansion with the optimised one; not documented for users).
    pub opts: crate::plan::Options,
    /// Set by `#[differentiable]` on an `impl` block for its methods: the
    /// type the block implements, which a method's gradient struct (written
    /// beside the block) names for `self`'s field.
    pub self_ty: Option<syn::Type>,
    /// Set with `self_ty`: the block's type parameter bounded by `Float`,
    /// the float type of its methods.
    pub impl_float: Option<syn::Ident>,
    /// `jvp`, `hvp`: the second-order functions to write (see `dual`).
    pub second: crate::dual::SecondOrder,
    /// Set on the copy of a function over duals that `jvp`/`hvp` expand:
    /// its calls of differentiable functions call their copies.
    pub dual_copy: bool,
    /// `backward_each`: also write `NAME_backward_each`, one forward pass
    /// and one reverse sweep per upstream gradient (see `emit::each`); the
    /// argument's span, for its errors.
    pub each: Option<proc_macro2::Span>,
}

/// Parses the attribute's arguments; an empty list is the default.
pub fn parse(tokens: TokenStream) -> syn::Result<Args> {
    let mut args = Args::default();
    let parser = syn::meta::parser(|meta| {
        if meta.path.is_ident("wrt") {
            let content;
            syn::parenthesized!(content in meta.input);
            let names = Punctuated::<syn::Expr, Token![,]>::parse_terminated(&content)?;
            if names.is_empty() {
                return Err(meta.error(
                    "`wrt()` names no parameter; list at least one, as in `wrt(w, b)`, or drop it",
                ));
            }
            let mut idents = Vec::new();
            for name in &names {
                match name {
                    syn::Expr::Path(p) if p.path.get_ident().is_some() => {
                        idents.push(p.path.get_ident().expect("checked").clone())
                    }
                    other => {
                        return Err(syn::Error::new_spanned(
                            other,
                            "expected a parameter name, as in `wrt(w, b)`",
                        ))
                    }
                }
            }
            if args.wrt.is_some() {
                return Err(
                    meta.error("`wrt(...)` is given twice; list every parameter in one `wrt(...)`")
                );
            }
            args.wrt = Some(idents);
            Ok(())
        } else if meta.path.is_ident("jvp") {
            args.second.jvp = true;
            Ok(())
        } else if meta.path.is_ident("hvp") {
            args.second.hvp = true;
            Ok(())
        } else if meta.path.is_ident("backward_each") {
            args.each = Some(syn::spanned::Spanned::span(&meta.path));
            Ok(())
        } else if meta.path.is_ident("unoptimized") {
            args.opts = crate::plan::Options::none();
            Ok(())
        } else if meta.path.is_ident("without") {
            let content;
            syn::parenthesized!(content in meta.input);
            let names = Punctuated::<Ident, Token![,]>::parse_terminated(&content)?;
            for name in &names {
                if !args.opts.switch_off(&name.to_string()) {
                    return Err(syn::Error::new_spanned(
                        name,
                        format!(
                            "no optimisation is named `{name}`; the names are {}",
                            crate::plan::Options::NAMES.join(", ")
                        ),
                    ));
                }
            }
            Ok(())
        } else if meta.path.is_ident("crate") {
            let path: Path = meta.value()?.parse()?;
            args.krate = Some(path);
            Ok(())
        } else {
            Err(meta.error(
                "unknown argument of #[differentiable]; expected `wrt(a, b)`, `jvp`, `hvp`, `backward_each` or `crate = path`",
            ))
        }
    });
    parser.parse2(tokens)?;
    Ok(args)
}
