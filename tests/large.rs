//! Large inputs to the compiler: a function of 5,000 statements, and
//! expressions nested 2,000 deep, given to `backprop_codegen::expand`
//! directly (no build-time cost for the test crate).
//!
//! The deep expressions are expanded on a thread with the 8 MiB stack that
//! rustc gives a proc macro, so a stack overflow here is one a user would hit.
//! The `_backward` written for a long straight-line function is also compiled
//! and run on a smaller scale through the real macro (`straight_line`, 25 statements).

use backprop::prelude::*;
use proc_macro2::TokenStream;
use std::str::FromStr;
use std::time::{Duration, Instant};

/// The stack rustc gives the thread that runs a proc macro.
const PROC_MACRO_STACK: usize = 8 << 20;

fn expand(args: &str, item: &str) -> TokenStream {
    backprop_codegen::expand(
        TokenStream::from_str(args).unwrap(),
        TokenStream::from_str(item).unwrap(),
    )
}

fn has_compile_error(ts: &TokenStream) -> bool {
    fn walk(ts: TokenStream) -> bool {
        ts.into_iter().any(|tt| match tt {
            proc_macro2::TokenTree::Ident(i) => i == "compile_error",
            proc_macro2::TokenTree::Group(g) => walk(g.stream()),
            _ => false,
        })
    }
    walk(ts.clone())
}

/// Runs `f` on a thread with a proc macro's stack.
fn on_proc_macro_stack<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
    std::thread::Builder::new()
        .stack_size(PROC_MACRO_STACK)
        .spawn(f)
        .unwrap()
        .join()
        .unwrap()
}

/// `n` statements over two scalars and an array, every value used again
/// later (forks everywhere), ending in the sum of the last few.
fn long_function(n: usize) -> String {
    let mut s = String::from("fn big(x: f64, y: f64, m: &Array2<f64>) -> f64 {\n");
    s.push_str("    let a0 = x * y + sum(m);\n");
    for k in 1..n {
        let p = k - 1;
        let q = k / 2;
        let stmt = match k % 6 {
            0 => format!("    let a{k} = a{p} * 0.5 + a{q}.sin();\n"),
            1 => format!("    let a{k} = (a{p} - a{q}) / (a{q} * a{q} + 1.0);\n"),
            2 => format!("    let a{k} = tanh(a{p}) + x * a{q};\n"),
            3 => format!("    let a{k} = sum(&(m * a{p})) * 0.001 + a{q}.cos();\n"),
            4 => format!("    let a{k} = sigmoid(a{p} + y) - a{q} * 0.25;\n"),
            _ => format!("    let a{k} = (a{p} * a{p} + 1.0).ln() + relu(a{q});\n"),
        };
        s.push_str(&stmt);
    }
    s.push_str(&format!("    a{} + a{} + a{}\n}}\n", n - 1, n - 2, n / 3));
    s
}

/// What one expansion gave.
struct Summary {
    /// Whether it holds a `compile_error!`.
    errors: bool,
    /// The number of statements of `NAME_backward`, if it parses.
    backward_stmts: Option<usize>,
    time: Duration,
}

/// Expands `item` on a proc macro's stack (token streams are not `Send`, so
/// the expansion is looked at on that thread too).
fn expand_timed(item: String) -> Summary {
    on_proc_macro_stack(move || {
        let start = Instant::now();
        let out = expand("", &item);
        let time = start.elapsed();
        let errors = has_compile_error(&out);
        let backward_stmts = syn::parse2::<syn::File>(out).ok().and_then(|file| {
            file.items.iter().find_map(|i| match i {
                syn::Item::Fn(f) if f.sig.ident.to_string().ends_with("_backward") => {
                    Some(f.block.stmts.len())
                }
                _ => None,
            })
        });
        Summary {
            errors,
            backward_stmts,
            time,
        }
    })
}

#[test]
fn five_thousand_statements_expand_quickly() {
    let small = expand_timed(long_function(1_000));
    assert!(!small.errors);
    let big = expand_timed(long_function(5_000));
    assert!(!big.errors, "errors in the expansion");
    let stmts = big.backward_stmts.expect("big_backward parses");
    // At least one forward and one reverse statement per statement.
    assert!(stmts >= 10_000, "{stmts} statements in big_backward");
    let (t_small, t) = (small.time, big.time);
    eprintln!("expand: 1,000 statements in {t_small:?}, 5,000 statements in {t:?}");
    // Generous bounds for a debug build on a loaded machine; the point is to
    // catch a quadratic (or worse) pass: 5x the statements should cost far
    // less than 25x the time.
    assert!(t < Duration::from_secs(60), "5,000 statements took {t:?}");
    assert!(
        t < t_small * 15 + Duration::from_millis(500),
        "5x the statements took {:.1}x the time ({t_small:?} -> {t:?})",
        t.as_secs_f64() / t_small.as_secs_f64()
    );
}

/// `((((x + 1.0) * 0.5) + 1.0) * 0.5 ...)`, `depth` parentheses deep.
fn nested_parens(depth: usize) -> String {
    let mut e = String::from("x");
    for k in 0..depth {
        e = if k % 2 == 0 {
            format!("({e} + y)")
        } else {
            format!("({e} * 0.5)")
        };
    }
    format!("fn deep(x: f64, y: f64) -> f64 {{ {e} }}")
}

/// `x + y * 0.5 - x + ...`: no parentheses, a left-nested tree `depth` deep.
fn long_sum(depth: usize) -> String {
    let mut e = String::from("x");
    for k in 0..depth {
        e.push_str(if k % 2 == 0 { " + y * 0.5" } else { " - x" });
    }
    format!("fn deep(x: f64, y: f64) -> f64 {{ {e} }}")
}

/// `x.sin().cos().sin()...`, `depth` calls.
fn method_chain(depth: usize) -> String {
    let mut e = String::from("x");
    for k in 0..depth {
        e.push_str(if k % 2 == 0 { ".sin()" } else { ".cos()" });
    }
    format!("fn deep(x: f64) -> f64 {{ {e} }}")
}

/// `tanh(sin(tanh(...(x))))`, `depth` calls.
fn nested_calls(depth: usize) -> String {
    let mut e = String::from("x");
    for k in 0..depth {
        e = if k % 2 == 0 {
            format!("tanh({e})")
        } else {
            format!("sin({e})")
        };
    }
    format!("fn deep(x: f64) -> f64 {{ {e} }}")
}

fn expands_on_a_proc_macro_stack(item: String) {
    let out = expand_timed(item);
    assert!(!out.errors, "errors in the expansion");
    assert!(out.backward_stmts.is_some(), "the expansion parses");
    eprintln!("expanded in {:?}", out.time);
}

/// Deep nesting within what `expand` handles: 250 nested brackets (the limit
/// is 256), and 500-deep operator trees and method chains.
#[test]
fn deep_nesting_within_the_limits_expands() {
    for item in [
        nested_parens(250),
        nested_calls(250),
        long_sum(500),
        method_chain(500),
    ] {
        expands_on_a_proc_macro_stack(item);
    }
}

/// Expanding `item` on a proc macro's stack reports a `compile_error!` (and
/// returns, rather than overflowing the stack).
fn reports_an_error_without_crashing(item: String) {
    let errors = on_proc_macro_stack(move || has_compile_error(&expand("", &item)));
    assert!(errors, "a compile_error! in the expansion");
}

/// 2,000 nested parentheses would overflow an 8 MiB stack inside
/// `syn::parse2` (recursive descent; from about 760 levels in a debug build),
/// so the macro measures the nesting of the token stream first, without
/// recursion, and reports an error beyond 256 levels.
#[test]
fn two_thousand_nested_parentheses_are_an_error_not_a_crash() {
    reports_an_error_without_crashing(nested_parens(2_000));
}

/// Same for nested calls (syn overflows from about 670 levels).
#[test]
fn two_thousand_nested_calls_are_an_error_not_a_crash() {
    reports_an_error_without_crashing(nested_calls(2_000));
}

/// A method chain parses fine (syn parses trailers in a loop), but lowering
/// recurses once per call (it overflowed from about 1,510 calls): beyond
/// 1,000 chained calls it reports an error.
#[test]
fn a_chain_of_two_thousand_methods_is_an_error_not_a_crash() {
    reports_an_error_without_crashing(method_chain(2_000));
}

/// A sum of 2,000 terms (a left-nested tree 2,000 deep) expands, but slowly:
/// see `deep_expressions_expand_in_linear_time`.
#[test]
fn a_sum_of_two_thousand_terms() {
    expands_on_a_proc_macro_stack(long_sum(2_000));
}

/// Expansion time grows with the square of an expression's depth (500 terms:
/// 0.28 s, 2,000: 4.5 s in a debug build: 4x the terms, 16x the time), while
/// 5,000 short statements take 1.5 s: some pass costs O(size of the
/// subexpression) per node, most likely `syn::spanned::Spanned::span()`
/// (which prints the whole subexpression to tokens) called on every node in
/// lowering.
#[test]
fn deep_expressions_expand_in_linear_time() {
    // The fastest of three each, so that a busy machine (the other tests of
    // this file run beside it) does not decide the ratio.
    let fastest = |n: usize| {
        (0..3)
            .map(|_| expand_timed(long_sum(n)).time)
            .min()
            .expect("three runs")
    };
    let small = fastest(500);
    let big = fastest(2_000);
    let ratio = big.as_secs_f64() / small.as_secs_f64();
    assert!(
        ratio < 8.0,
        "4x the terms took {ratio:.1}x the time ({small:?} -> {big:?})"
    );
}

// A long straight-line function through the real macro: the generated code
// compiles, and its gradient is right.
#[differentiable]
fn straight_line(x: f64, y: f64) -> f64 {
    let a = x * y;
    let a = a.sin() + x;
    let a = a.tanh() * y + a;
    let a = (a * a + 1.0).ln() - x;
    let a = sigmoid(a) + a * 0.5;
    let b = a * a + y;
    let b = b.cos() * a + b;
    let b = (b * b + 0.5).sqrt() / (a * a + 1.0);
    let b = b.exp() * 0.1 + a;
    let b = relu(b) + b.sin();
    let c = a * b + x;
    let c = c.tanh() + b * 0.25;
    let c = (c * c + 1.0).ln() * a;
    let c = sigmoid(c) + c.cos();
    let c = c * y - b;
    let d = c * a + b * x;
    let d = d.sin() + c;
    let d = d.tanh() + a * b;
    let d = (d * d + 1.0).sqrt() - c;
    let d = d * 0.5 + b.cos();
    let e = d * c + a;
    let e = e.sin() * b + d;
    let e = (e * e + 1.0).ln() + c * 0.1;
    let e = sigmoid(e) * d + e;
    let e = e.tanh() + a * 0.3;
    a + b + c + d + e
}

#[test]
fn a_long_function_through_the_macro() {
    let (v, _) = straight_line_backward(0.3, -0.7, 1.0);
    assert_eq!(v, straight_line(0.3, -0.7));
    gradcheck(&(0.3, -0.7), |&(x, y)| straight_line_backward(x, y, 1.0)).unwrap();
}
