//! Large inputs to the compiler: a function of 5,000 statements, and
//! expressions nested 2,000 deep, given to `backprop_codegen::expand`
//! directly (no build-time cost for the test crate).
//!
//! The deep expressions are expanded on a thread with the 8 MiB stack that
//! rustc gives a proc macro, so a stack overflow here is one a user would hit.
//! The `_backward` written for a long straight-line function is also compiled
//! and run on a smaller scale through the real macro (`straight_line`, 25 statements).
//!
//! How the cost of an expansion grows with its input is measured by the
//! bytes it allocates on its thread, a count that does not depend on the
//! machine's load (a pass that prints each subexpression to tokens, say,
//! allocates with the square of the depth), not by a clock.

use backprop::prelude::*;
use proc_macro2::TokenStream;
use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::str::FromStr;

/// The global allocator, counting the bytes each thread asks for.
struct Counting;

thread_local! {
    // Const-initialized and without a destructor, so the allocator can read
    // it without allocating.
    static BYTES: Cell<usize> = const { Cell::new(0) };
}

// SAFETY: every call is forwarded unchanged to `System`; a counter is added.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let _ = BYTES.try_with(|n| n.set(n.get() + layout.size()));
        // SAFETY: the caller's contract is `System`'s.
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: the caller's contract is `System`'s.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let _ = BYTES.try_with(|n| n.set(n.get() + new_size));
        // SAFETY: the caller's contract is `System`'s.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

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
    /// The bytes the expansion allocated.
    bytes: usize,
}

/// Expands `item` on a proc macro's stack (token streams are not `Send`, so
/// the expansion is looked at on that thread too).
fn expand_measured(item: String) -> Summary {
    on_proc_macro_stack(move || {
        let before = BYTES.with(Cell::get);
        let out = expand("", &item);
        let bytes = BYTES.with(Cell::get) - before;
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
            bytes,
        }
    })
}

#[test]
fn five_thousand_statements_expand_quickly() {
    let small = expand_measured(long_function(1_000));
    assert!(!small.errors);
    let big = expand_measured(long_function(5_000));
    assert!(!big.errors, "errors in the expansion");
    let stmts = big.backward_stmts.expect("big_backward parses");
    // At least one forward and one reverse statement per statement.
    assert!(stmts >= 10_000, "{stmts} statements in big_backward");
    let (small, big) = (small.bytes, big.bytes);
    eprintln!("expand: 1,000 statements allocate {small} bytes, 5,000 statements {big}");
    // The point is to catch a quadratic (or worse) pass: 5x the statements
    // should cost far less than 25x.
    let ratio = big as f64 / small as f64;
    assert!(
        ratio < 8.0,
        "5x the statements allocated {ratio:.1}x the bytes ({small} -> {big})"
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
    let out = expand_measured(item);
    assert!(!out.errors, "errors in the expansion");
    assert!(out.backward_stmts.is_some(), "the expansion parses");
    eprintln!("expanded, allocating {} bytes", out.bytes);
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

/// A sum of 2,000 terms (a left-nested tree 2,000 deep) expands (see
/// `deep_expressions_expand_in_linear_time`).
#[test]
fn a_sum_of_two_thousand_terms() {
    expands_on_a_proc_macro_stack(long_sum(2_000));
}

/// A deep expression costs in proportion to its depth: 4x the terms of a
/// sum allocate well under 16x the bytes (a pass that costs the size of
/// each subexpression per node, as `syn::spanned::Spanned::span()` called
/// on every node of lowering did, is quadratic).
#[test]
fn deep_expressions_expand_in_linear_time() {
    let small = expand_measured(long_sum(500)).bytes;
    let big = expand_measured(long_sum(2_000)).bytes;
    let ratio = big as f64 / small as f64;
    eprintln!("expand: a sum of 500 terms allocates {small} bytes, of 2,000 terms {big}");
    assert!(
        ratio < 8.0,
        "4x the terms allocated {ratio:.1}x the bytes ({small} -> {big})"
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
