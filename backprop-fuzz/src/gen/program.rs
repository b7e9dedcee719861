//! One program being generated: its parameters, statements and operands,
//! the helpers every construct uses, and the statement loop.

use super::plain::{Container, Kind};
use super::rng::Rng;
use super::stats::Stats;
use super::value::{numbered, words, Form, Shape, LIMIT, V};
use super::vocab::Vocab;
use super::Options;
use std::collections::{BTreeMap, BTreeSet};
use std::rc::Rc;

/// How an array parameter is passed.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Style {
    /// A scalar, by value.
    Val,
    /// `&Array2<f64>`.
    Ref,
    /// `Array2<f64>`, by value.
    Owned,
    /// `ArrayView2<f64>`.
    View,
    /// A plain Rust container (`&[f64]`, `[f64; N]`, ...).
    Plain(Kind),
}

/// A parameter of a program.
#[derive(Clone, Debug)]
pub struct Param {
    pub name: String,
    pub shape: Shape,
    pub style: Style,
    /// Named by `wrt(..)` (or differentiable by default).
    pub diff: bool,
}

/// A program's output.
#[derive(Clone, Debug)]
pub enum Out {
    /// A scalar or an array.
    Value(Shape),
    /// A tuple: each component's shape and bound.
    Tuple(Vec<(Shape, f64)>),
    /// A `Vec` ([`Kind::LocalVec`]) or a fixed-size array of a length.
    Plain(Kind, usize),
}

/// What a later program needs to know of an earlier one to call it.
#[derive(Clone, Debug)]
pub struct Summary {
    pub name: String,
    pub ty: &'static str,
    pub params: Vec<Param>,
    pub out: Out,
    pub out_bound: f64,
    /// It takes only its differentiable parameters (no labels, constants,
    /// `ws` or `k0`).
    pub plain: bool,
}

/// The array shapes parameters may have: `(n, 1)`, `(1, m)`, `(m,)`
/// broadcast against `(n, m)`; transposes and dots need `(m, n)`, ...
pub const SHAPES: &[&[usize]] = &[
    &[3, 2],
    &[3, 2],
    &[2, 3],
    &[3, 1],
    &[1, 2],
    &[2],
    &[3],
    &[2, 2],
    &[1, 3],
    &[2, 1],
    &[3, 3],
];

/// A program being generated.
pub struct Program<'a> {
    pub rng: Rng,
    pub opts: &'a Options,
    pub vocab: &'a Vocab,
    pub name: String,
    pub ty: &'static str,
    /// Earlier programs of the same file this one may call in an
    /// expression, and those that return a tuple.
    pub callees: Vec<Rc<Summary>>,
    pub tuple_callees: Vec<Rc<Summary>>,
    pub params: Vec<Param>,
    pub stmts: Vec<String>,
    /// The values usable as operands.
    pub env: Vec<V>,
    pub counter: usize,
    /// `(rows, classes)` once `labels: &[usize]` is a parameter.
    pub uses_labels: Option<(usize, usize)>,
    /// Some parameter is not differentiated: the attribute names `wrt(..)`.
    pub uses_constant: bool,
    /// The statement that binds each local (to add `mut`), and the locals
    /// some view or reference borrows (they cannot be assigned to).
    pub let_index: BTreeMap<String, usize>,
    pub pinned: BTreeSet<String>,
    /// Inside a loop body or an `if` arm (see `Options::region_bugs`).
    pub region: usize,
    /// Arrays assigned in an `if` without `else`.
    pub if_no_else: BTreeSet<String>,
    /// Inside the body of a closure (only scalars in `env`).
    pub in_closure: usize,
    /// The shape queries of parameters (`let (n1, m1) = p0.dim();`).
    pub dim_names: BTreeMap<String, Vec<String>>,
    pub int_counter: usize,
    /// Locals the macro does not know the type of (results of calls,
    /// constant arrays, views whose number of axes it does not work out):
    /// a closure may not capture them (a documented limitation).
    pub unknown_ty: BTreeSet<String>,
    /// An early `return` somewhere (the output is then a scalar), and the
    /// bound of what it returns.
    pub has_return: bool,
    pub ret_bound: f64,
    /// The values of a constant `ws: &[f64]` parameter, and of a constant
    /// `k0: usize`.
    pub uses_ws: Option<Vec<f64>>,
    pub uses_int: Option<usize>,
    pub out: Out,
    pub out_bound: f64,
    pub final_expr: String,
    pub counts: Stats,
    /// The containers the program may read (see `plain.rs`), and the items
    /// written before the function (its own `const`s and `static`s).
    pub plain: Vec<Container>,
    pub items: Vec<String>,
    /// Constant parameters made fields of `self`: the program is then a
    /// method of a struct holding them (`&self`, `self.q0`).
    pub fields: Vec<String>,
}

impl<'a> Program<'a> {
    /// Program number `index`, which may call the earlier `done` ones.
    pub fn new(
        rng: Rng,
        index: usize,
        done: &[Rc<Summary>],
        opts: &'a Options,
        vocab: &'a Vocab,
    ) -> Self {
        let callable: Vec<_> = done
            .iter()
            .filter(|c| {
                c.plain && (opts.view_calls || c.params.iter().all(|p| p.style != Style::View))
            })
            .cloned()
            .collect();
        let callees = callable
            .iter()
            .filter(|c| matches!(c.out, Out::Value(_)))
            .cloned()
            .collect();
        let tuple_callees = callable
            .iter()
            .filter(|c| matches!(c.out, Out::Tuple(_)) && c.out_bound <= LIMIT * 2.0)
            .cloned()
            .collect();
        Program {
            rng,
            opts,
            vocab,
            name: format!("f{index:04}"),
            ty: "f64",
            callees,
            tuple_callees,
            params: Vec::new(),
            stmts: Vec::new(),
            env: Vec::new(),
            counter: 0,
            uses_labels: None,
            uses_constant: false,
            let_index: BTreeMap::new(),
            pinned: BTreeSet::new(),
            region: 0,
            if_no_else: BTreeSet::new(),
            in_closure: 0,
            dim_names: BTreeMap::new(),
            int_counter: 0,
            unknown_ty: BTreeSet::new(),
            has_return: false,
            ret_bound: 0.0,
            uses_ws: None,
            uses_int: None,
            out: Out::Value(Vec::new()),
            out_bound: 1.0,
            final_expr: String::new(),
            counts: Stats::default(),
            plain: Vec::new(),
            items: Vec::new(),
            fields: Vec::new(),
        }
    }

    /// What later programs need to know of this one.
    pub fn summary(&self) -> Summary {
        Summary {
            name: self.name.clone(),
            ty: self.ty,
            params: self.params.clone(),
            out: self.out.clone(),
            out_bound: self.out_bound,
            plain: self.uses_labels.is_none()
                && !self.uses_constant
                && self.uses_ws.is_none()
                && self.uses_int.is_none()
                && self
                    .params
                    .iter()
                    .all(|p| !matches!(p.style, Style::Plain(_))),
        }
    }

    /// Counts a construct for `--stats`.
    pub fn count(&mut self, what: &str) {
        self.counts.add(what, 1);
    }

    // ---------- choices

    /// An operand for which `pred` holds: recent names are favoured, old
    /// ones reused too (forks).
    pub fn leaf(&mut self, pred: impl Fn(&V) -> bool) -> Option<V> {
        let cands: Vec<usize> = (0..self.env.len())
            .filter(|&i| pred(&self.env[i]))
            .collect();
        if cands.is_empty() {
            return None;
        }
        let weights: Vec<f64> = (0..cands.len()).map(|k| 1.0 + k as f64).collect();
        let k = self.rng.weighted(&weights);
        Some(self.env[cands[k]].clone())
    }

    /// Any operand (there always is one: the parameters, or a closure's
    /// elements).
    pub fn any_leaf(&mut self) -> V {
        self.leaf(|_| true).expect("an operand")
    }

    /// A new local name `tN`.
    pub fn fresh(&mut self) -> String {
        self.counter += 1;
        format!("t{}", self.counter)
    }

    /// A new integer name `nN`.
    pub fn int_name(&mut self) -> String {
        self.int_counter += 1;
        format!("n{}", self.int_counter)
    }

    /// The names of the parameters.
    pub fn is_param(&self, code: &str) -> bool {
        self.params.iter().any(|p| p.name == code)
    }

    /// Runs `f` with `extra` among the operands.
    pub fn with_extra<T>(&mut self, extra: &[V], f: impl FnOnce(&mut Self) -> T) -> T {
        let len = self.env.len();
        self.env.extend(extra.iter().cloned());
        let out = f(self);
        debug_assert!(
            self.env.len() == len + extra.len(),
            "operands added under extras"
        );
        self.env.drain(len..len + extra.len());
        out
    }

    /// Runs `f` inside a region (a loop body or a branch arm).
    pub fn in_region<T>(&mut self, f: impl FnOnce(&mut Self) -> T) -> T {
        self.region += 1;
        let out = f(self);
        self.region -= 1;
        out
    }

    /// Inside a region where the known bugs of regions are avoided.
    pub fn avoid_region_bugs(&self) -> bool {
        self.region > 0 && !self.opts.region_bugs
    }

    // ---------- bindings

    /// Whether the macro knows the type of a value computed by `code`
    /// (conservatively).
    pub fn known_ty(&self, code: &str) -> bool {
        const VIEWS: &[&str] = &[
            ".slice(",
            ".slice_axis(",
            ".index_axis(",
            ".select(",
            ".to_shape(",
            ".into_shape_with_order(",
            ".permuted_axes(",
            ".reversed_axes(",
            ".broadcast(",
            ".remove_axis(",
            "concatenate(",
            "stack(",
            "Array::",
            "Array1::",
            "Array2::",
            "array!",
        ];
        if VIEWS.iter().any(|v| code.contains(v)) || words(code).any(|w| numbered(w, 'f')) {
            return false;
        }
        // A named constant (`PI`, `F0012_K0`): the macro does not see its
        // item, so not its type, nor that of arithmetic with it.
        let named = |w: &str| {
            w.chars().any(|c| c.is_ascii_uppercase())
                && w.chars()
                    .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
        };
        if words(code).any(named) {
            return false;
        }
        !words(code).any(|w| (numbered(w, 't') || numbered(w, 'n')) && self.unknown_ty.contains(w))
    }

    pub fn mark_ty(&mut self, name: &str, code: &str) {
        if self.known_ty(code) {
            self.unknown_ty.remove(name);
        } else {
            self.unknown_ty.insert(name.to_owned());
        }
    }

    /// Appends `let name = code;`, recording where `name` is bound; a view
    /// or a reference pins the locals it borrows.
    pub fn let_(&mut self, name: &str, code: &str, v: Option<&V>) {
        self.mark_ty(name, code);
        self.stmts.push(format!("let {name} = {code};"));
        self.let_index.insert(name.to_owned(), self.stmts.len() - 1);
        self.pinned.remove(name);
        if v.is_some_and(|v| v.is_view || v.form == Form::Ref) {
            let borrowed: Vec<String> = words(code)
                .filter(|w| numbered(w, 't'))
                .map(str::to_owned)
                .collect();
            self.pinned.extend(borrowed);
        }
    }

    /// Turns the last statement `let x = ..` into `let mut x = ..`.
    pub fn last_mut(&mut self) {
        let last = self.stmts.last_mut().expect("a statement");
        *last = format!("let mut {}", &last[4..]);
    }

    /// The value `v` bound to `name` (a fresh one by default) as an operand.
    pub fn bind(&mut self, v: &V, name: Option<String>) -> (String, V) {
        let name = name.unwrap_or_else(|| self.fresh());
        let form = if v.scalar() {
            Form::Expr
        } else if v.form == Form::Ref {
            Form::Ref // an alias of a reference stays a reference
        } else {
            Form::Name
        };
        let mut nv = V::new(name.clone(), v.shape.clone(), v.bound).form(form);
        nv.is_view = v.is_view || matches!(v.form, Form::View | Form::TView);
        nv.borrowed = v.borrowed;
        (name, nv)
    }

    /// A bare owned name would be moved by `let x = t;`: borrow or clone it.
    pub fn unmoved(&mut self, e: V) -> V {
        if e.form != Form::Name || e.scalar() {
            return e;
        }
        if e.is_view || self.rng.chance(0.5) {
            let mut r = V::new(format!("&{}", e.code), e.shape, e.bound).form(Form::Ref);
            r.is_view = e.is_view;
            r.borrowed = true;
            return r;
        }
        V::new(format!("{}.clone()", e.code), e.shape, e.bound)
    }
}
