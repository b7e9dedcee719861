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
    pub opts: Options,
    /// Set by `#[differentiable]` on an `impl` block for its methods: the
    /// type the block implements, which a method's gradient struct (written
    /// beside the block) names for `self`'s field.
    pub self_ty: Option<syn::Type>,
    /// Set with `self_ty`: the block's type parameter bounded by `Float`,
    /// the float type of its methods.
    pub impl_float: Option<syn::Ident>,
    /// `jvp`, `hvp`: the second-order functions to write (see `dual`).
    pub second: SecondOrder,
    /// Set on the copy of a function over duals that `jvp`/`hvp` expand:
    /// its calls of differentiable functions call their copies.
    pub dual_copy: bool,
    /// `backward_each`: also write `NAME_backward_each`, one forward pass
    /// and one reverse sweep per upstream gradient (see `emit::each`); the
    /// argument's span, for its errors.
    pub each: Option<proc_macro2::Span>,
}

/// Declares [`Options`]: one switch per optimisation of the planner, with
/// its doc, and the names `without(..)` takes, from one list.
macro_rules! options {
    ($($(#[doc = $doc:literal])* $name:ident,)*) => {
        /// Which optimisations run. All do by default; a test switches them
        /// off to compare the plain expansion with the optimised one.
        #[derive(Clone, Copy, Debug)]
        pub struct Options {
            $($(#[doc = $doc])* pub $name: bool,)*
        }

        impl Options {
            /// Every optimisation off: each value a new local, each
            /// contribution a new array, summed at the end; scalars through
            /// the runtime.
            pub fn none() -> Options {
                Options { $($name: false,)* }
            }

            /// The names `without(..)` takes.
            pub const NAMES: &'static [&'static str] = &[$(stringify!($name),)*];

            /// Switches the optimisation `name` off; false if there is none.
            pub fn switch_off(&mut self, name: &str) -> bool {
                let flag = match name {
                    $(stringify!($name) => &mut self.$name,)*
                    _ => return false,
                };
                *flag = false;
                true
            }
        }

        impl Default for Options {
            fn default() -> Self {
                Options { $($name: true,)* }
            }
        }
    };
}

options! {
    /// A temporary read by one op gives that op its buffer (`in_place`).
    in_place,
    /// An elementwise function over an in-place arithmetic op runs in the
    /// same pass (`fuse`).
    fuse,
    /// `x + m·v` adds the product into `x`'s buffer (`dot_add`).
    dot_add,
    /// `sum(square(x))` is one reduction (`in_place`).
    sum_square,
    /// Contributions are added into the buffer of an earlier one, or into
    /// a loop's accumulator (`routing`).
    accumulate,
    /// The two operands of a sum share one gradient (`routing`).
    lend,
    /// A loop keeps a carried array as rows of one buffer, computes the next
    /// value into a spare buffer and defers its weights' outer products
    /// (`loops`).
    loop_buffers,
    /// A loop's reverse sweep reads the rows it wrote into a carried
    /// buffer, and read from it, back from the buffer it leaves behind
    /// (`settled`).
    settled_rows,
    /// A loop in a loop body adds into the enclosing loop's accumulators
    /// and takes over the buffer of a carried variable it starts from
    /// (`nested`).
    nested_loops,
    /// Scalars are written as plain Rust arithmetic (`plain`).
    plain_scalars,
    /// The rule of `sin x` reads the forward's `cos x`, and the other way
    /// round (`sin_cos`).
    sin_cos,
    /// A loop's reverse sweep computes again what is cheaper to compute
    /// than to keep (an element of a borrowed parameter, a few flops of
    /// them, a float of the loop's variable) and reads shapes from the
    /// carried adjoints (`remat`).
    remat,
    /// A loop that only adds to a float runs its reverse in the forward,
    /// seeded with one, and the reverse sweep scales what it added up
    /// (`fused`).
    fused_sums,
}

/// What second order the attribute asks for.
#[derive(Clone, Copy, Default, PartialEq, Eq, Debug)]
pub struct SecondOrder {
    /// `jvp`: `NAME_jvp`.
    pub jvp: bool,
    /// `hvp`: `NAME_jvp` and `NAME_hvp`.
    pub hvp: bool,
}

impl SecondOrder {
    pub fn any(self) -> bool {
        self.jvp || self.hvp
    }
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
            args.opts = Options::none();
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
                            Options::NAMES.join(", ")
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
