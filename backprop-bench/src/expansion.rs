//! Generated inputs for the expansion-time bench: a function whose body is a
//! chain of `n` operations over scalar parameters.

use proc_macro2::TokenStream;

/// The source of `fn chain(x: f64, y: f64, z: f64) -> f64` with `n`
/// operations (`n >= 1`), one `let` each, cycling through `* x`, `+ y`,
/// `.sin()` and `* z`. Every parameter is used about `n / 4` times, so each
/// gets a fork sum of that many terms.
pub fn chain_source(n: usize) -> String {
    assert!(n >= 1, "at least one operation");
    let mut s = String::from("fn chain(x: f64, y: f64, z: f64) -> f64 {\n    let v0 = x * y;\n");
    for k in 1..n {
        let p = k - 1;
        let line = match k % 4 {
            0 => format!("    let v{k} = v{p} * x;\n"),
            1 => format!("    let v{k} = v{p} + y;\n"),
            2 => format!("    let v{k} = v{p}.sin();\n"),
            _ => format!("    let v{k} = v{p} * z;\n"),
        };
        s.push_str(&line);
    }
    s.push_str(&format!("    v{}\n}}\n", n - 1));
    s
}

/// `chain_source(n)` as tokens.
pub fn chain_tokens(n: usize) -> TokenStream {
    chain_source(n)
        .parse()
        .expect("the generated function tokenizes")
}

/// Expands `#[differentiable] chain` with `n` operations, through
/// `backprop_codegen::expand`.
pub fn expand_chain(item: TokenStream) -> TokenStream {
    backprop_codegen::expand(TokenStream::new(), item)
}
