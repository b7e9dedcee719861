//! Fuzzes `backprop_codegen::expand`: it must never panic, and must return
//! either an expansion that parses as Rust items or tokens holding a
//! `compile_error!`.
//!
//! How to run it (needs a nightly toolchain and cargo-fuzz):
//!
//! ```sh
//! cargo install cargo-fuzz
//! cd fuzz
//! cargo +nightly fuzz run expand                 # until it finds something
//! cargo +nightly fuzz run expand -- -max_total_time=600 -max_len=4096
//! cargo +nightly fuzz run expand artifacts/expand/crash-...   # replay a crash
//! ```
//!
//! Seed the corpus with real functions to start from the vocabulary, e.g.
//! `mkdir -p corpus/expand && cp ../tests/*.rs corpus/expand/` (whole files
//! fail to parse as one function, but libFuzzer mutates them into ones that
//! do), or one function per file.
//!
//! The input is split at its first NUL byte: the bytes before it are the
//! attribute's arguments (`wrt(x)`), the bytes after it the item; without a
//! NUL the whole input is the item. Inputs that are not UTF-8 or do not lex as
//! Rust tokens are skipped (the compiler never hands such tokens to a proc
//! macro). A very deep nesting (thousands of parentheses) can overflow the
//! stack of syn's parser itself; `-max_len` keeps inputs small enough.
#![no_main]

use libfuzzer_sys::fuzz_target;
use proc_macro2::{TokenStream, TokenTree};
use std::str::FromStr;

fn contains_compile_error(ts: TokenStream) -> bool {
    ts.into_iter().any(|tt| match tt {
        TokenTree::Ident(i) => i == "compile_error",
        TokenTree::Group(g) => contains_compile_error(g.stream()),
        _ => false,
    })
}

fuzz_target!(|data: &[u8]| {
    let (args, item) = match data.iter().position(|&b| b == 0) {
        Some(k) => (&data[..k], &data[k + 1..]),
        None => (&data[..0], data),
    };
    let (Ok(args), Ok(item)) = (std::str::from_utf8(args), std::str::from_utf8(item)) else {
        return;
    };
    let (Ok(args), Ok(item)) = (TokenStream::from_str(args), TokenStream::from_str(item)) else {
        return;
    };
    let out = backprop_codegen::expand(args, item);
    if !contains_compile_error(out.clone()) {
        if let Err(e) = syn::parse2::<syn::File>(out.clone()) {
            panic!("expand returned neither a compile_error! nor valid items ({e}):\n{out}");
        }
    }
});
