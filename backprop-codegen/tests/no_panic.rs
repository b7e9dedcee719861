//! `backprop_codegen::expand` never panics: on any input it returns either an
//! expansion (tokens that parse as Rust items) or tokens holding a
//! `compile_error!`.
//!
//! The inputs are random token streams, random attribute arguments, valid Rust
//! functions outside the vocabulary, functions in the vocabulary, and
//! truncations and token-level mutations of all of those. Everything is seeded
//! and the number of cases bounded, so the test runs in a few seconds; the
//! cargo-fuzz target in `fuzz/` runs the same check for as long as you like.

use proc_macro2::{Delimiter, Group, Ident, Literal, Punct, Spacing, Span, TokenStream, TokenTree};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::str::FromStr;

/// A small deterministic generator (the same LCG as the project's tests).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        self.0 >> 33
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    fn pick<'a, T>(&mut self, xs: &'a [T]) -> &'a T {
        &xs[self.below(xs.len())]
    }
    fn word(&mut self, xs: &[&'static str]) -> &'static str {
        xs[self.below(xs.len())]
    }
    fn chance(&mut self, percent: u64) -> bool {
        self.next() % 100 < percent
    }
}

/// What `expand` did with one input.
enum Outcome {
    Expanded,
    CompileError,
}

/// Runs `expand`, returning the outcome or a description of what went wrong.
fn run(args: &TokenStream, item: &TokenStream) -> Result<Outcome, String> {
    let result = catch_unwind(AssertUnwindSafe(|| {
        backprop_codegen::expand(args.clone(), item.clone())
    }));
    let out = match result {
        Ok(out) => out,
        Err(e) => {
            let msg = e
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| e.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_else(|| "<non-string panic>".to_owned());
            return Err(format!("panicked: {msg}"));
        }
    };
    if contains_compile_error(out.clone()) {
        return Ok(Outcome::CompileError);
    }
    match syn::parse2::<syn::File>(out) {
        Ok(_) => Ok(Outcome::Expanded),
        Err(e) => Err(format!(
            "returned neither a compile_error! nor valid items: {e}"
        )),
    }
}

fn contains_compile_error(ts: TokenStream) -> bool {
    ts.into_iter().any(|tt| match tt {
        TokenTree::Ident(i) => i == "compile_error",
        TokenTree::Group(g) => contains_compile_error(g.stream()),
        _ => false,
    })
}

/// Runs every case, collecting failures; panics listing the first few.
#[derive(Default)]
struct Harness {
    cases: usize,
    expanded: usize,
    errors: usize,
    failures: Vec<String>,
}

impl Harness {
    fn check(&mut self, args: &TokenStream, item: &TokenStream) {
        self.cases += 1;
        match run(args, item) {
            Ok(Outcome::Expanded) => self.expanded += 1,
            Ok(Outcome::CompileError) => self.errors += 1,
            Err(why) => {
                if self.failures.len() < 20 {
                    self.failures.push(format!(
                        "{why}\n  args: #[differentiable({args})]\n  item: {item}"
                    ));
                } else {
                    self.failures.push(String::new());
                }
            }
        }
    }

    fn check_str(&mut self, args: &str, item: &str) {
        let args = TokenStream::from_str(args).expect("args lex");
        let item = TokenStream::from_str(item).expect("item lexes");
        self.check(&args, &item);
    }

    fn finish(self, what: &str) {
        eprintln!(
            "{what}: {} cases, {} expanded, {} compile errors, {} failures",
            self.cases,
            self.expanded,
            self.errors,
            self.failures.len()
        );
        if !self.failures.is_empty() {
            let shown: Vec<&String> = self.failures.iter().filter(|f| !f.is_empty()).collect();
            panic!(
                "{} of {} inputs made `expand` misbehave; the first ones:\n\n{}",
                self.failures.len(),
                self.cases,
                shown
                    .iter()
                    .map(|s| s.as_str())
                    .collect::<Vec<_>>()
                    .join("\n\n")
            );
        }
    }
}

/// Silences the default panic message while `f` runs (the failures are
/// reported by the harness instead).
fn quietly<T>(f: impl FnOnce() -> T) -> T {
    let hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    let out = catch_unwind(AssertUnwindSafe(f));
    std::panic::set_hook(hook);
    match out {
        Ok(v) => v,
        Err(e) => std::panic::resume_unwind(e),
    }
}

const IDENTS: &[&str] = &[
    "Vector3",
    "Matrix2",
    "Point3",
    "Rotation3",
    "SMatrix",
    "fn",
    "let",
    "x",
    "y",
    "w",
    "f64",
    "f32",
    "Array2",
    "Array1",
    "ArrayD",
    "usize",
    "i32",
    "exp",
    "ln",
    "sqrt",
    "relu",
    "sum",
    "dot",
    "t",
    "powi",
    "sum_axis",
    "Axis",
    "softmax",
    "mse",
    "concat",
    "wrt",
    "crate",
    "pub",
    "mut",
    "if",
    "else",
    "for",
    "in",
    "while",
    "loop",
    "match",
    "return",
    "self",
    "Self",
    "impl",
    "struct",
    "mod",
    "use",
    "as",
    "move",
    "async",
    "await",
    "unsafe",
    "where",
    "dyn",
    "d_out",
    "grad",
    "out",
    "backprop",
    "ops",
    "labels",
    "_",
    "true",
    "const",
    "fold_axis",
    "map_axis",
    "fold",
    "max",
    "min",
];
const PUNCTS: &[char] = &[
    '+', '-', '*', '/', '&', '=', ':', ';', ',', '.', '<', '>', '!', '?', '#', '|', '%', '^', '@',
    '~', '\'', '$',
];

fn random_tree(rng: &mut Rng, depth: usize) -> TokenTree {
    match rng.below(if depth == 0 { 8 } else { 10 }) {
        0..=3 => TokenTree::Ident(Ident::new(rng.word(IDENTS), Span::call_site())),
        4 | 5 => {
            let c = *rng.pick(PUNCTS);
            let spacing = if rng.chance(30) {
                Spacing::Joint
            } else {
                Spacing::Alone
            };
            TokenTree::Punct(Punct::new(c, spacing))
        }
        6 => TokenTree::Literal(match rng.below(6) {
            0 => Literal::f64_unsuffixed(rng.below(100) as f64 / 8.0),
            1 => Literal::i32_unsuffixed(rng.below(10) as i32),
            2 => Literal::string("s"),
            3 => Literal::f32_suffixed(1.5),
            4 => Literal::character('c'),
            _ => Literal::u8_suffixed(3),
        }),
        7 => TokenTree::Ident(Ident::new(&format!("v{}", rng.below(5)), Span::call_site())),
        _ => {
            let delim = *rng.pick(&[
                Delimiter::Parenthesis,
                Delimiter::Brace,
                Delimiter::Bracket,
                Delimiter::None,
            ]);
            TokenTree::Group(Group::new(delim, random_stream(rng, depth - 1, 6)))
        }
    }
}

fn random_stream(rng: &mut Rng, depth: usize, max_len: usize) -> TokenStream {
    let n = rng.below(max_len + 1);
    (0..n).map(|_| random_tree(rng, depth)).collect()
}

/// Functions inside the vocabulary: they must expand.
const VALID: &[&str] = &[
    "fn f(x: f64, y: f64) -> f64 { let a = x * y + x; a.exp() / (1.0 + y * y) }",
    "fn f(w: &Array2<f64>, x: &Array2<f64>, labels: &[usize]) -> f64 { softmax_cross_entropy(&x.dot(w), labels) }",
    "fn f(a: &Array2<f64>, b: &Array1<f64>) -> Array2<f64> { tanh(&(a + b)) }",
    "fn f(a: ArrayView2<f64>, v: Array1<f64>) -> f64 { a.dot(&v).sum() + mean(&v) }",
    "fn f(x: f64) -> f64 { let (a, b) = (x, x * 2.0); { let c = a + b; c.powi(2) } }",
    "fn f(m: &Array2<f64>) -> f64 { let r = m.row(0); let c = m.column(1); r.dot(&c) + m[[0, 1]] + sum(&m.t()) }",
    "fn f(m: &Array2<f64>, k: usize) -> f64 { sum(&sum_axis(m, Axis(k))) + sum(&logsumexp(m)) }",
    "fn f(x: f32) -> f32 { sigmoid(x) * relu(x) + x.abs() }",
    "pub(crate) fn f(x: f64, n: i32) -> f64 { powi(x, n) + x.powi(n) }",
    "fn f(a: &Array2<f64>, b: &Array2<f64>) -> f64 { mse(&concat(Axis(0), &[a, b]), &concat(Axis(0), &[b, a])) }",
    "fn f(x: f64, unused: f64) -> f64 { let _dead = unused * 2.0; x }",
    "fn f(d_out: f64, grad: f64) -> f64 { let out = d_out * grad; out + d_out }",
    "fn f(x: f64, y: f64) -> f64 { let mut s = x; s += y; s *= x; s -= 1.0; s /= y * y + 1.0; s }",
    "fn f(x: f64, n: usize) -> f64 { let mut s = x; for _i in 0..n { s = s * x + 1.0; } s }",
    "fn f(w: &Array2<f64>, xs: &Array2<f64>) -> f64 { let mut h = xs.row(0).to_owned(); for t in 1..=2 { h = tanh(&(w.dot(&h) + xs.row(t))); } sum(&h) }",
    "fn f(x: f64) -> f64 { let mut s = 0.0; for i in 0..2 { for j in 0..3 { s += x * 2.0; } } s }",
    "fn f(x: f64) -> f64 { if x > 0.0 { x } else { -x } }",
    "fn f(x: f64, y: f64) -> f64 { let mut s = x; if x > y && y > 0.0 { s *= y; } else if x < -1.0 { s = y; } else { s += 1.0; } s }",
    "fn f(m: &Array2<f64>) -> f64 { let t = if m[[0, 0]] > 0.0 { exp(m) } else { m * 2.0 }; sum(&t) }",
    "fn f(x: f64, y: f64) -> f64 { let (mut a, b) = (x, y); a += b; a * b }",
    "fn f(a: &Array2<f64>) -> f64 { a.fold_axis(Axis(1), f64::NEG_INFINITY, |m, &v| m.max(v)).sum() + a.map_axis(Axis(0), |r| r.iter().cloned().fold(f64::INFINITY, f64::min)).sum() }",
    "fn f(w: &Vector3<f64>, p: &Point3<f64>, m: &Matrix2x3<f64>) -> f64 { let q = Rotation3::from_scaled_axis(*w) * p; let r = m * q.coords; r.norm() + q.x }",
    "fn f(a: &Matrix3<f64>, v: SVector<f64, 3>) -> Vector2<f64> { let mut u = a * v; u[1] += 1.0; Vector2::new(u.x, u.dot(&v)) }",
    "fn f(x: f64) -> f64 { let q = UnitQuaternion::from_scaled_axis(Vector3::new(x, 0.5, 0.25)) * Vector3::x(); helper(&q, x) + q.norm_squared() }",
];

/// Valid Rust that is outside the vocabulary (or not a function): each must
/// give a compile error, not a panic.
const OUTSIDE: &[&str] = &[
    "fn f(a: &Array2<f64>) -> f64 { a.fold_axis(Axis(1), 0.0, |m, &v| m + v).sum() }",
    "fn f(a: &Array2<f64>) -> f64 { a.fold_axis(Axis(1)).sum() }",
    "fn f(a: &Array2<f64>, s: f64) -> f64 { a.fold_axis(Axis(1), s, f64::max).sum() }",
    "fn f(a: &Array2<f64>) -> f64 { a.map_axis(Axis(1), |r| r.fold(r[0], |m, &v| m.max(v))).sum() }",
    "fn f(a: &Array2<f64>) -> f64 { a.map_axis(Axis(1), |r| r.sum()).sum() }",
    "fn f(x: f64) -> f64 { if x > 0.0 { x } else { -x } }",
    "fn f(x: f64) -> f64 { let mut y = x; y += 1.0; y }",
    "fn f(x: f64) -> f64 { let mut s = 0.0; for i in 0..3 { s = s + x; } s }",
    "fn f(x: f64) -> f64 { while x > 0.0 {} x }",
    "fn f(x: f64) -> f64 { loop { break x; } }",
    "fn f(x: f64) -> f64 { match x { _ => x } }",
    "fn f(x: f64) -> f64 { return x; }",
    "fn f(x: f64) -> f64 { g(x) }",
    "fn f(x: f64) -> f64 { (|y: f64| y * 2.0)(x) }",
    "fn f(x: f64) -> f64 { println!(\"{}\", x); x }",
    "fn f(x: f64) -> f64 { vec![x][0] }",
    "fn f(x: f64) -> f64 { x as f32 as f64 }",
    "fn f(x: f64) -> f64 { x % 2.0 }",
    "fn f(x: f64) -> bool { x > 1.0 }",
    "fn f(x: f64) -> f64 { x.powi(2.5) }",
    "fn f(x: f64, n: f64) -> f64 { x.powi(n) }",
    "fn f(x: f64) -> f64 { powi(x) }",
    "fn f(x: f64) -> f64 { exp(x, x) }",
    "fn f(m: &Array2<f64>) -> f64 { sum(&sum_axis(m, 0)) }",
    "fn f(m: &Array2<f64>, k: f64) -> f64 { m[[k, 0]] }",
    "fn f(a: &Array2<f64>, v: Vec<&Array2<f64>>) -> f64 { sum(&concat(Axis(0), &v)) }",
    "fn f(a: &Array2<f64>) -> f64 { sum(&concat(Axis(0), &[])) }",
    "fn f(x: f64) -> f64 { let y; y = x; y }",
    "fn f(x: f64) -> f64 { let Some(y) = Some(x) else { return 0.0 }; y }",
    "fn f(x: f64) -> f64 { let (a, b) = x; a }",
    "fn f(x: f64) -> f64 { let [a] = [x]; a }",
    "fn f(x: f64) -> f64 { x; }",
    "fn f(x: f64) -> f64 {}",
    "fn f(x: f64) {}",
    "fn f() -> f64 { 1.0 }",
    "fn f() {}",
    "fn f(x: f64) -> f64 { 1 }",
    "fn f(x: f64) -> f64 { x + 1 }",
    "fn f(x: f64) -> f64 { \"s\" }",
    "fn f(x: f64) -> f64 { (x, x) }",
    "fn f(x: f64) -> f64 { [x][0] }",
    "fn f(x: f64) -> f64 { x? }",
    "fn f(x: f64) -> f64 { unsafe { x } }",
    "fn f(x: f64) -> f64 { 'a: { x } }",
    "fn f(x: f64) -> f64 { async { x }.await }",
    "fn f(x: &mut f64) -> f64 { *x }",
    "fn f(x: f64) -> f64 { let y = &mut 1.0; x }",
    "fn f(x: f64) -> f64 { fn g() {} x }",
    "fn f(x: f64) -> f64 { struct S; x }",
    "fn f(x: f64) -> f64 { use std::f64::consts::PI; x * PI }",
    "fn f(x: f64) -> f64 { x * std::f64::consts::PI }",
    "fn f(x: f64) -> f64 { x.foo() }",
    "fn f(x: f64) -> f64 { x.max() }",
    "fn f(x: f64) -> f64 { x.exp(1.0) }",
    "fn f(m: &Array2<f64>) -> f64 { m.mapv(|v| v * 2.0).sum() }",
    "fn f(m: &Array2<f64>) -> f64 { m.mean().unwrap() }",
    "fn f(m: &Array2<f64>) -> f64 { m.slice(s![0..1, ..]).sum() }",
    "fn f(s: S) -> f64 { s.x }",
    "fn f(x: f64) -> f64 { S { x }.x }",
    "fn f<T>(x: T) -> T { x }",
    "fn f<T: Float>(x: T) -> T { x.exp() }",
    "fn f(x: impl Float) -> f64 { 1.0 }",
    "fn f(&self, x: f64) -> f64 { x }",
    "fn f(self) -> f64 { 1.0 }",
    "fn f((a, b): (f64, f64)) -> f64 { a * b }",
    "fn f(mut x: f64) -> f64 { x }",
    "fn f(x: f64, x: f64) -> f64 { x }",
    "fn f(x: f64) -> impl Fn() { move || {} }",
    "fn f(x: f64) -> (f64, f64) { (x, x) }",
    "fn f(x: f64) -> Array2<f64> { x }",
    "fn f(x: &Array2<i32>) -> f64 { 1.0 }",
    "fn f(x: Box<f64>) -> f64 { *x }",
    "fn f(x: &&f64) -> f64 { **x }",
    "fn f(x: &f64) -> f64 { *x * 2.0 }",
    "fn f(x: Option<f64>) -> f64 { x.unwrap() }",
    "fn f(x: f64) -> f64 where f64: Copy { x }",
    "async fn f(x: f64) -> f64 { x }",
    "const fn f(x: f64) -> f64 { x }",
    "unsafe fn f(x: f64) -> f64 { x }",
    "extern \"C\" fn f(x: f64) -> f64 { x }",
    "fn f<'a>(x: &'a Array2<f64>) -> f64 { sum(x) }",
    "fn f<const N: usize>(x: f64) -> f64 { x }",
    "#[inline] fn f(x: f64) -> f64 { #[allow(unused)] let y = x; y }",
    "/// doc\nfn f(x: f64) -> f64 { x }",
    "fn f(x: f64) -> f64 { -(-(-x)) }",
    "fn f(x: f64) -> f64 { !x }",
    "fn f(x: f64) -> f64 { x..x }",
    "fn f(x: f64) -> f64 { &x }",
    "fn f(x: f64) -> f64 { *&*&x }",
    "fn f(x: f64) -> f64 { (((((x))))) }",
    "fn f(x: f64) -> f64 { { { { x } } } }",
    "fn f(x: f64) -> f64 { let x = x; let x = x; let x = x; x }",
    "fn f(x: f64) -> f64 { let _ = x; x }",
    "fn f(x: f64) -> f64 { let y: f64 = x; y }",
    "fn f(x: f64) -> f64 { let y: f32 = x; y }",
    "fn f(x: f64) -> f64 { 1e400 * x }",
    "fn f(x: f64) -> f64 { 0x10 as f64 * x }",
    "fn f(x: f64) -> f64 { 1_000.5_f64 * x + 2f64 + 3.0f32 }",
    "fn f(x: f64) -> f64 { 'c' }",
    "fn f(x: f64) -> f64 { b's' }",
    "fn f(x: f64) -> f64 { true }",
    "fn f(x: f64) -> f64 { x.t().t().t() }",
    "fn f(x: f64) -> f64 { x.dot(&x) }",
    "fn f(x: f64) -> f64 { x[0] }",
    "fn f(x: f64) -> f64 { sum(x) }",
    "fn f(x: f64) -> f64 { softmax_cross_entropy(x, x) }",
    "fn f(x: f64) -> f64 { backprop::ops::exp(x) + ops::ln(x) + f64::sqrt(x) + f32::exp(x) + std::f64::exp(x) }",
    "fn f(x: f64) -> f64 { <f64 as Float>::exp(x) }",
    "fn f(x: f64) -> f64 { Self::exp(x) }",
    "fn f(x: f64) -> f64 { exp::<f64>(x) }",
    "fn f(x: f64) -> f64 { x.exp::<f64>() }",
    "fn f(x: f64) -> f64 { x.powi(-2147483648) }",
    "fn f(x: f64) -> f64 { x.powi(99999999999999999999) }",
    "fn f(m: &Array2<f64>) -> f64 { m[[0, 0, 0, 0]] + m[usize::MAX] }",
    "fn f(m: &Array2<f64>) -> f64 { m.row(99999999999999999999).sum() }",
    "fn f(m: &Array2<f64>) -> f64 { sum(&sum_axis(m, Axis(99999999999999999999))) }",
    "fn f(é: f64) -> f64 { é * 2.0 }",
    "fn f(__backprop_node_0: f64, __backprop_node_1: f64) -> f64 { __backprop_node_0 * __backprop_node_1 }",
    "struct S;",
    "impl S { fn f(x: f64) -> f64 { x } }",
    "enum E { A }",
    "mod m {}",
    "trait T {}",
    "const C: f64 = 1.0;",
    "static S: f64 = 1.0;",
    "type T = f64;",
    "use std::f64;",
    "extern crate core;",
    "macro_rules! m { () => {} }",
    "union U { a: f64 }",
    "fn",
    "",
    "x",
    "1.0",
    "{ x }",
    "fn f(x: f64) -> f64;",
];

const ARGS: &[&str] = &[
    "",
    "wrt(x)",
    "wrt(x, y)",
    "wrt()",
    "wrt(x, x)",
    "wrt(nope)",
    "wrt(x,)",
    "wrt",
    "wrt = x",
    "wrt(1)",
    "wrt(x::y)",
    "wrt(wrt(x))",
    "crate = backprop",
    "crate = ::backprop",
    "crate = my::path",
    "crate = 1",
    "crate =",
    "crate",
    "crate = backprop, wrt(x)",
    "wrt(x), crate = backprop",
    "wrt(x), wrt(y)",
    "crate = a, crate = b",
    "foo",
    "foo = 1",
    ",",
    "x y z",
    "\"str\"",
    "wrt[x]",
    "wrt{x}",
    "#",
    "wrt(x) extra",
];

#[test]
fn valid_functions_expand_with_every_argument() {
    let h = quietly(|| {
        let mut h = Harness::default();
        for item in VALID {
            h.check_str("", item);
            assert!(
                matches!(
                    run(&TokenStream::new(), &TokenStream::from_str(item).unwrap()),
                    Ok(Outcome::Expanded)
                ),
                "expected an expansion without errors for {item}"
            );
            for args in ARGS {
                h.check_str(args, item);
            }
        }
        h
    });
    h.finish("valid functions");
}

#[test]
fn rust_outside_the_vocabulary_gives_errors_not_panics() {
    let h = quietly(|| {
        let mut h = Harness::default();
        for item in OUTSIDE {
            for args in ["", "wrt(x)", "wrt(nope)"] {
                h.check_str(args, item);
            }
        }
        h
    });
    h.finish("outside the vocabulary");
}

/// Every prefix (at token-tree granularity, recursively) of every function.
#[test]
fn truncated_functions() {
    fn flat(ts: TokenStream, out: &mut Vec<TokenTree>) {
        out.extend(ts);
    }
    /// `ts` cut after `k` top-level trees, and, inside the last group kept,
    /// cut again.
    fn truncations(ts: &TokenStream) -> Vec<TokenStream> {
        let mut trees = Vec::new();
        flat(ts.clone(), &mut trees);
        let mut out = Vec::new();
        for k in 0..trees.len() {
            out.push(trees[..k].iter().cloned().collect());
            if let TokenTree::Group(g) = &trees[k] {
                for inner in truncations(&g.stream()) {
                    let mut t: Vec<TokenTree> = trees[..k].to_vec();
                    let mut ng = Group::new(g.delimiter(), inner);
                    ng.set_span(g.span());
                    t.push(TokenTree::Group(ng));
                    out.push(t.into_iter().collect());
                }
            }
        }
        out
    }
    let h = quietly(|| {
        let mut h = Harness::default();
        for item in VALID.iter().chain(OUTSIDE.iter().take(40)) {
            let ts = TokenStream::from_str(item).unwrap();
            for t in truncations(&ts) {
                h.check(&TokenStream::new(), &t);
            }
        }
        h
    });
    h.finish("truncations");
}

/// Deletes, duplicates, replaces or swaps a token tree, at any depth.
fn mutate(rng: &mut Rng, ts: TokenStream) -> TokenStream {
    let mut trees: Vec<TokenTree> = ts.into_iter().collect();
    if trees.is_empty() {
        return random_stream(rng, 1, 3);
    }
    let k = rng.below(trees.len());
    match rng.below(5) {
        0 => {
            trees.remove(k);
        }
        1 => {
            let t = trees[k].clone();
            trees.insert(k, t);
        }
        2 => trees[k] = random_tree(rng, 1),
        3 => {
            let j = rng.below(trees.len());
            trees.swap(k, j);
        }
        _ => {
            if let TokenTree::Group(g) = &trees[k] {
                let mut ng = Group::new(g.delimiter(), mutate(rng, g.stream()));
                ng.set_span(g.span());
                trees[k] = TokenTree::Group(ng);
            } else {
                trees.insert(k, random_tree(rng, 0));
            }
        }
    }
    trees.into_iter().collect()
}

/// Token-level mutations of valid functions: delete, duplicate, replace or
/// swap trees, at any depth.
#[test]
fn mutated_functions() {
    let h = quietly(|| {
        let mut rng = Rng(0x5eed);
        let mut h = Harness::default();
        for _ in 0..3000 {
            let item = rng.word(VALID);
            let mut ts = TokenStream::from_str(item).unwrap();
            for _ in 0..1 + rng.below(3) {
                ts = mutate(&mut rng, ts);
            }
            let args = if rng.chance(80) {
                TokenStream::new()
            } else {
                TokenStream::from_str(rng.word(ARGS)).unwrap()
            };
            h.check(&args, &ts);
        }
        h
    });
    h.finish("mutations");
}

// The generated fuzz programs and their mutations (written here from the
// Python generator's committed output until the generator moved into the
// `backprop-fuzz` crate) are checked by backprop-fuzz/tests/expand.rs,
// which generates them.

/// Entirely random token streams, as the item and as the arguments, and
/// random bodies inside a well-formed signature.
#[test]
fn random_token_streams() {
    let h = quietly(|| {
        let mut rng = Rng(42);
        let mut h = Harness::default();
        for _ in 0..2000 {
            let args = if rng.chance(50) {
                TokenStream::new()
            } else {
                random_stream(&mut rng, 2, 5)
            };
            let item = random_stream(&mut rng, 3, 12);
            h.check(&args, &item);
            let body = random_stream(&mut rng, 3, 10);
            let sig =
                TokenStream::from_str("fn f(x: f64, m: &Array2<f64>, k: usize) -> f64").unwrap();
            let mut item = sig;
            item.extend([TokenTree::Group(Group::new(Delimiter::Brace, body))]);
            h.check(&TokenStream::new(), &item);
            let attr_args = random_stream(&mut rng, 2, 6);
            h.check(&attr_args, &TokenStream::from_str(rng.word(VALID)).unwrap());
        }
        h
    });
    h.finish("random tokens");
}

/// Regression: a raw identifier (`r#type`) as a parameter or a local name.
/// `expand` panics inside proc-macro2 (`"d_r#type"` is not a valid
/// identifier; `"r#loop"` is not a valid identifier) because the emitter
/// builds derived names (`d_{name}`, `{name}_1`) with `Ident::new` from the
/// raw spelling.
#[test]
fn raw_identifiers() {
    let h = quietly(|| {
        let mut h = Harness::default();
        h.check_str("", "fn f(r#type: f64) -> f64 { r#type * 2.0 }");
        h.check_str(
            "",
            "fn f(x: f64) -> f64 { let r#loop = x * x; r#loop + r#loop }",
        );
        h.check_str("", "fn r#match(x: f64) -> f64 { x.exp() }");
        h.check_str(
            "wrt(r#type)",
            "fn f(r#type: f64, y: f64) -> f64 { r#type * y }",
        );
        h
    });
    h.finish("raw identifiers");
}
