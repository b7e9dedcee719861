//! Expansion snapshots: every `tests/expand/NAME.rs` is expanded, pretty
//! printed with prettyplease and compared with `tests/expand/NAME.expanded.rs`.
//! Run with `BLESS=1` to rewrite the snapshots after a reviewed change.

use crate::expand;
use quote::quote;
use std::path::Path;

/// Expands every `#[differentiable]` function of a source file.
pub fn expand_file(source: &str) -> String {
    let file: syn::File = syn::parse_str(source).expect("a snapshot input parses");
    let mut out = proc_macro2::TokenStream::new();
    for item in file.items {
        let syn::Item::Fn(mut f) = item else { continue };
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
            _ => proc_macro2::TokenStream::new(),
        };
        out.extend(expand::differentiable(args, quote!(#f)));
    }
    let file: syn::File = syn::parse2(out).expect("the expansion parses as a file");
    prettyplease::unparse(&file)
}

#[test]
fn expansion_snapshots() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/expand");
    let bless = std::env::var_os("BLESS").is_some();
    let mut inputs: Vec<_> = std::fs::read_dir(&dir)
        .expect("tests/expand exists")
        .map(|e| e.expect("a directory entry").path())
        .filter(|p| {
            p.extension().is_some_and(|e| e == "rs")
                && !p.to_string_lossy().ends_with(".expanded.rs")
        })
        .collect();
    inputs.sort();
    assert!(inputs.len() >= 4, "at least four snapshot inputs");
    let mut failed = Vec::new();
    for input in inputs {
        let source = std::fs::read_to_string(&input).expect("readable input");
        let expanded = expand_file(&source);
        let snapshot = input.with_extension("expanded.rs");
        if bless {
            std::fs::write(&snapshot, &expanded).expect("writable snapshot");
            continue;
        }
        match std::fs::read_to_string(&snapshot) {
            Ok(expected) if expected == expanded => {}
            Ok(_) => failed.push(format!("{} differs from its expansion", snapshot.display())),
            Err(_) => failed.push(format!("{} is missing", snapshot.display())),
        }
    }
    assert!(
        failed.is_empty(),
        "{}\n(review the change, then run with BLESS=1)",
        failed.join("\n")
    );
}
