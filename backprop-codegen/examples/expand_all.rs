//! Expands every `#[differentiable]` function of the given Rust files (also
//! inside modules) and writes each expansion, pretty-printed, to a file of
//! its own in an output folder: `FILE_STEM.FUNCTION.rs`.
//!
//! A change meant to leave the generated code as it is (a restructuring of
//! the compiler) is checked by running this before and after it and
//! comparing the two folders (`diff -r`):
//!
//! ```text
//! cargo run -p backprop-codegen --example expand_all -- /tmp/before \
//!     backprop-codegen/tests/expand/*.rs tests/*.rs tools/regressions/*.rs
//! ```

use proc_macro2::TokenStream;
use quote::quote;
use std::path::{Path, PathBuf};

fn main() {
    let mut args = std::env::args().skip(1);
    let out = PathBuf::from(args.next().expect("usage: expand_all OUT_DIR FILE..."));
    std::fs::create_dir_all(&out).expect("a writable output folder");
    let mut count = 0;
    for file in args {
        let path = Path::new(&file);
        let source = std::fs::read_to_string(path).expect("a readable file");
        let Ok(parsed) = syn::parse_file(&source) else {
            eprintln!("skipped (does not parse): {file}");
            continue;
        };
        let stem = path.file_stem().expect("a file name").to_string_lossy();
        let mut fns = Vec::new();
        collect(&parsed.items, &mut fns);
        for (args, f) in fns {
            let name = f.sig.ident.to_string();
            let tokens = backprop_codegen::expand(args, quote!(#f));
            let text = match syn::parse2::<syn::File>(tokens.clone()) {
                Ok(file) => prettyplease::unparse(&file),
                Err(_) => tokens.to_string(),
            };
            let mut target = out.join(format!("{stem}.{name}.rs"));
            let mut k = 1;
            while target.exists() {
                k += 1;
                target = out.join(format!("{stem}.{name}.{k}.rs"));
            }
            std::fs::write(target, text).expect("writable");
            count += 1;
        }
    }
    println!("{count} functions expanded into {}", out.display());
}

/// Every function with `#[differentiable]` (its arguments and the function
/// without the attribute), in modules too.
fn collect(items: &[syn::Item], out: &mut Vec<(TokenStream, syn::ItemFn)>) {
    for item in items {
        match item {
            syn::Item::Fn(f) => {
                let mut f = f.clone();
                let Some(pos) = f
                    .attrs
                    .iter()
                    .position(|a| a.path().is_ident("differentiable"))
                else {
                    continue;
                };
                let attr = f.attrs.remove(pos);
                let args = match attr.meta {
                    syn::Meta::List(l) => l.tokens,
                    _ => TokenStream::new(),
                };
                out.push((args, f));
            }
            syn::Item::Mod(m) => {
                if let Some((_, items)) = &m.content {
                    collect(items, out);
                }
            }
            _ => {}
        }
    }
}
