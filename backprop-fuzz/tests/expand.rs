//! The generated programs as token streams for the compiler
//! (`backprop_codegen::expand`, no compilation): each expands without a
//! `compile_error!`, and mutations of them (a token tree deleted,
//! duplicated, swapped or replaced, at any depth) make it return a
//! `compile_error!` or valid items, never panic. (Moved here from
//! backprop-codegen/tests/no_panic.rs, which read the Python generator's
//! committed output.)

use backprop_fuzz::gen::{generate, Config, Rng};
use proc_macro2::{Group, Ident, Punct, Spacing, Span, TokenStream, TokenTree};
use std::panic::{catch_unwind, AssertUnwindSafe};

/// The differentiable items of the generated text (functions, and the
/// `impl` blocks of methods): the attribute's arguments and the item
/// without it.
fn functions(text: &str) -> Vec<(TokenStream, TokenStream)> {
    let file: syn::File = syn::parse_str(text).expect("the generated programs parse");
    let mut out = Vec::new();
    for item in file.items {
        // A function, or a method's `#[differentiable] impl` block.
        let mut item = item;
        let attrs = match &mut item {
            syn::Item::Fn(f) => &mut f.attrs,
            syn::Item::Impl(i) => &mut i.attrs,
            _ => continue,
        };
        let Some(k) = attrs
            .iter()
            .position(|a| a.path().is_ident("differentiable"))
        else {
            continue;
        };
        let attr = attrs.remove(k);
        let args = match attr.meta {
            syn::Meta::List(l) => l.tokens,
            _ => TokenStream::new(),
        };
        out.push((args, quote::ToTokens::into_token_stream(item)));
    }
    out
}

/// Whether `expand` returned a `compile_error!`.
fn has_compile_error(ts: TokenStream) -> bool {
    ts.into_iter().any(|t| match t {
        TokenTree::Ident(i) => i == "compile_error",
        TokenTree::Group(g) => has_compile_error(g.stream()),
        _ => false,
    })
}

/// `ts` with one token tree changed.
fn mutate(rng: &mut Rng, ts: TokenStream) -> TokenStream {
    let mut trees: Vec<TokenTree> = ts.into_iter().collect();
    if trees.is_empty() {
        return TokenStream::from(TokenTree::Ident(Ident::new("x", Span::call_site())));
    }
    let k = rng.below(trees.len());
    match rng.below(5) {
        0 => {
            trees.remove(k);
        }
        1 => trees.insert(k, trees[k].clone()),
        2 => {
            let j = rng.below(trees.len());
            trees.swap(k, j);
        }
        3 => {
            let replacement = match rng.below(3) {
                0 => TokenTree::Punct(Punct::new(
                    *rng.pick(&['+', '*', '&', ';', ',', '.']),
                    Spacing::Alone,
                )),
                1 => TokenTree::Ident(Ident::new(
                    rng.word(&["x", "loop", "sum", "f64", "mut", "t1"]),
                    Span::call_site(),
                )),
                _ => TokenTree::Literal(proc_macro2::Literal::f64_suffixed(0.5)),
            };
            trees[k] = replacement;
        }
        _ => match &trees[k] {
            TokenTree::Group(g) => {
                let mut inner = Group::new(g.delimiter(), mutate(rng, g.stream()));
                inner.set_span(g.span());
                trees[k] = TokenTree::Group(inner);
            }
            _ => {
                trees.remove(k);
            }
        },
    }
    trees.into_iter().collect()
}

#[test]
fn generated_programs_expand_and_their_mutations_do_not_panic() {
    let batch = generate(&Config {
        count: 500,
        parts: 1,
        ..Config::default()
    });
    let functions = functions(&batch.parts[0]);
    // A program over nalgebra values may come with a helper it calls.
    assert!((500..550).contains(&functions.len()), "{}", functions.len());
    let mut rng = Rng::new(7);
    let mut failures = Vec::new();
    let hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    for (args, item) in &functions {
        let out = backprop_codegen::expand(args.clone(), item.clone());
        if has_compile_error(out.clone()) || syn::parse2::<syn::File>(out).is_err() {
            failures.push(format!("did not expand cleanly: {item}"));
        }
        for _ in 0..2 {
            let mut ts = item.clone();
            for _ in 0..1 + rng.below(2) {
                ts = mutate(&mut rng, ts);
            }
            match catch_unwind(AssertUnwindSafe(|| {
                backprop_codegen::expand(args.clone(), ts.clone())
            })) {
                Err(_) => failures.push(format!("panicked on: {ts}")),
                Ok(out)
                    if !has_compile_error(out.clone())
                        && syn::parse2::<syn::File>(out.clone()).is_err() =>
                {
                    failures.push(format!("returned neither a compile_error! nor items: {ts}"));
                }
                Ok(_) => {}
            }
        }
    }
    std::panic::set_hook(hook);
    assert!(
        failures.is_empty(),
        "{} failures, the first: {}",
        failures.len(),
        failures[0]
    );
}
