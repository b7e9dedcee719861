//! `let` patterns (names, tuples, `&x`, a tuple of a constant bound field by
//! field) and the fresh names the rewritings of the body add.

use super::{form_of, strip, Lowerer};
use crate::graph::{ConstArg, Form, Name, Node, NodeId};
use crate::vocab::Op;
use quote::quote;
use syn::spanned::Spanned;
use syn::{Expr, Pat};

/// Names for what a rewriting of the body adds (a loop's flags, an early
/// return's result), colliding with nothing in the function nor with each
/// other: `going`, else `going_1`, ...
pub(super) struct Fresh {
    pub(super) used: std::collections::HashSet<String>,
}

impl Fresh {
    pub(super) fn of(item: &syn::ItemFn) -> Fresh {
        let mut used = std::collections::HashSet::new();
        crate::names::idents(quote!(#item), &mut used);
        Fresh { used }
    }

    pub(super) fn name(&mut self, base: &str) -> syn::Ident {
        let mut name = base.to_owned();
        let mut k = 1;
        while !self.used.insert(name.clone()) {
            name = format!("{base}_{k}");
            k += 1;
        }
        quote::format_ident!("{}", name)
    }
}

impl Lowerer<'_> {
    /// Whether a call is of an op of the vocabulary (whose value is never a
    /// tuple), rather than of a user's function.
    fn is_op(&self, c: &syn::ExprCall) -> bool {
        matches!(&*c.func, Expr::Path(p) if p.qself.is_none() && self.op_by_path(&p.path).is_some())
    }

    /// `let pat = expr;`
    pub(super) fn bind(&mut self, pat: &Pat, expr: &Expr) {
        match pat {
            Pat::Ident(pi) if pi.by_ref.is_none() && pi.subpat.is_none() => {
                let name = pi.ident.to_string();
                let outer = std::mem::replace(&mut self.base, name.clone());
                let before = self.graph.len();
                let id = self.expr(expr);
                self.base = outer;
                let scope = self.scopes.last_mut().expect("a scope");
                if super::containers::rust_container(expr) {
                    scope.plain.insert(name.clone());
                } else {
                    scope.plain.remove(&name);
                }
                self.bind_name(name, id, before, form_of(expr));
            }
            Pat::Type(pt) => {
                // `let g: f64 = self.g;`: a field of a model that is a float,
                // read by value (a closure may capture it).
                if let (Pat::Ident(pi), true) = (&*pt.pat, self.is_float_type(&pt.ty)) {
                    let before = self.graph.len();
                    if let Some(id) = self.float_field(expr) {
                        self.bind_name(pi.ident.to_string(), id, before, Form::Value);
                        return;
                    }
                    // Any other value so typed is a float (Rust checks the
                    // original): a call's, a branch's, a constant's.
                    self.bind(&pt.pat, expr);
                    let name = pi.ident.to_string();
                    if let Some(id) = self.lookup(&name) {
                        self.graph.typed_floats.insert(id);
                    }
                    return;
                }
                // `let (a, b): (f64, f64) = ..;`: each name so typed is a float.
                if let (Pat::Tuple(pats), syn::Type::Tuple(tys)) = (&*pt.pat, &*pt.ty) {
                    self.bind(&pt.pat, expr);
                    for (p, ty) in pats.elems.iter().zip(&tys.elems) {
                        if let (Pat::Ident(pi), true) = (p, self.is_float_type(ty)) {
                            if let Some(id) = self.lookup(&pi.ident.to_string()) {
                                self.graph.typed_floats.insert(id);
                            }
                        }
                    }
                    return;
                }
                self.bind(&pt.pat, expr)
            }
            // `let &x = e;` is `let x = *e;`.
            Pat::Reference(r) if r.mutability.is_none() => {
                let deref: Expr = syn::parse_quote_spanned!(r.span()=> *(#expr));
                self.bind(&r.pat, &deref)
            }
            Pat::Paren(pp) => self.bind(&pp.pat, expr),
            Pat::Wild(_) => {
                let outer = std::mem::replace(&mut self.base, "unused".to_owned());
                self.expr(expr);
                self.base = outer;
            }
            Pat::Tuple(pt) => match strip(expr) {
                Expr::Tuple(t) if t.elems.len() == pt.elems.len() => {
                    for (p, e) in pt.elems.iter().zip(&t.elems) {
                        self.bind(p, e);
                    }
                }
                other if !self.mentions_varying(other) => {
                    let tuple = self.constant(expr, "");
                    // Named after its fields: `let n_m = x.dim();`.
                    let names: Vec<String> = pt
                        .elems
                        .iter()
                        .map(|p| match p {
                            Pat::Ident(pi) => pi.ident.to_string(),
                            _ => "t".to_owned(),
                        })
                        .collect();
                    self.graph.nodes[tuple.index()].name = Name::User(names.join("_"));
                    self.bind_fields(pt, tuple);
                }
                Expr::Call(c) if !self.is_op(c) => self.bind_call(pt, c),
                Expr::If(_) | Expr::Match(_) if self.bind_arms_tuple(pt, strip(expr)) => {}
                Expr::Call(_) | Expr::MethodCall(_) => self.cx.error_at(
                    expr,
                    "this call gives one value, not a tuple: a tuple pattern binds the value of a `#[differentiable]` function that returns a tuple (`let (r, theta) = polar(x, y);`)",
                ),
                _ => self.cx.error_at(
                    pt,
                    "a tuple pattern needs a tuple of the same length on the right (`let (a, b) = (x, y);`) or a call of a `#[differentiable]` function that returns a tuple (`let (r, theta) = polar(x, y);`)",
                ),
            },
            other => self.cx.error_at(
                other,
                "this pattern is not supported in a differentiable function; bind a plain name (`let x = ...;`) or a tuple of names",
            ),
        }
    }

    /// `name` bound to `id`; a node created for this `let` (from `before`
    /// on) takes the user's name, an alias (`let y = x;`) refers to the
    /// existing node.
    fn bind_name(&mut self, name: String, id: NodeId, before: usize, form: Form) {
        if id.index() >= before {
            self.graph.nodes[id.index()].name = Name::User(name.clone());
        }
        self.scopes
            .last_mut()
            .expect("a scope")
            .bind(name, id, form);
    }

    /// `let (r, theta) = polar(x, y);` of a `#[differentiable]` function
    /// that returns a tuple: one call, and one `Out` node per component,
    /// each bound to its name (a `_` still has one: a component that gets
    /// no gradient is passed to the callee's `_vjp` as a zero of its value).
    /// The call is named after the names it binds (`r_theta`), a `_`
    /// component after the callee and its position (`polar_1`).
    fn bind_call(&mut self, pt: &syn::PatTuple, c: &syn::ExprCall) {
        let mut names: Vec<Option<String>> = Vec::new();
        let mut failed = false;
        for p in &pt.elems {
            match p {
                Pat::Ident(pi) if pi.by_ref.is_none() && pi.subpat.is_none() => {
                    names.push(Some(pi.ident.to_string()));
                }
                Pat::Wild(_) => names.push(None),
                other => {
                    self.cx.error_at(
                        other,
                        "the value of a call is bound by a tuple of plain names or `_`, one per component: `let (r, _) = polar(x, y);`",
                    );
                    failed = true;
                }
            }
        }
        let callee = match &*c.func {
            Expr::Path(p) => p.path.segments.last().map(|s| s.ident.to_string()),
            _ => None,
        }
        .unwrap_or_else(|| "call".to_owned());
        let bound: Vec<&str> = names.iter().flatten().map(String::as_str).collect();
        let base = if bound.is_empty() {
            callee.clone()
        } else {
            bound.join("_")
        };
        let outer = std::mem::replace(&mut self.base, base.clone());
        let id = if failed {
            self.error_node(c.span())
        } else {
            self.user_call(c)
        };
        self.base = outer;
        let Some(k) = call_index(&self.graph.get(id).node) else {
            // Already reported: each name bound to the error, so that its
            // uses report nothing more.
            for name in names.into_iter().flatten() {
                self.scopes
                    .last_mut()
                    .expect("a scope")
                    .bind(name, id, Form::Value);
            }
            return;
        };
        self.graph.nodes[id.index()].name = Name::User(base);
        let varying = self.varying[id.index()];
        let mut components = Vec::with_capacity(names.len());
        for (k, (p, name)) in pt.elems.iter().zip(names).enumerate() {
            let label = name.clone().unwrap_or_else(|| format!("{callee}_{k}"));
            let o = self.add(
                Node::Out { of: id, k },
                Name::User(label),
                p.span(),
                varying,
            );
            components.push(o);
            if let Some(name) = name {
                self.scopes
                    .last_mut()
                    .expect("a scope")
                    .bind(name, o, Form::Value);
            }
        }
        self.graph.calls[k].components = components;
    }

    /// `let (n, m) = x.dim();`: each name of the pattern bound to its field
    /// of the constant tuple.
    fn bind_fields(&mut self, pt: &syn::PatTuple, tuple: NodeId) {
        let failed = matches!(self.graph.get(tuple).node, Node::Error);
        let whole = quote::format_ident!("tuple");
        for (k, p) in pt.elems.iter().enumerate() {
            let index = syn::Index::from(k);
            let field = ConstArg {
                expr: syn::parse_quote!(#whole.#index),
                refs: vec![(whole.to_string(), tuple, Form::Value)],
                deps: vec![tuple],
                place: false,
            };
            let span = p.span();
            match p {
                Pat::Wild(_) => {}
                // Already reported: bound to the error, so uses report nothing more.
                Pat::Ident(pi) if failed => {
                    let id = self.error_node(span);
                    self.scopes.last_mut().expect("a scope").bind(pi.ident.to_string(), id, Form::Value);
                }
                Pat::Tuple(inner) if failed => self.bind_fields(inner, tuple),
                Pat::Ident(pi) if pi.by_ref.is_none() && pi.subpat.is_none() => {
                    let name = pi.ident.to_string();
                    let id = self.add(Node::Const(field), Name::User(name.clone()), span, false);
                    self.scopes.last_mut().expect("a scope").bind(name, id, Form::Value);
                }
                Pat::Tuple(inner) => {
                    let id = self.add(Node::Const(field), self.temp(), span, false);
                    self.bind_fields(inner, id);
                }
                // `(i, &label)`: the field, dereferenced.
                Pat::Reference(r) if matches!(&*r.pat, Pat::Ident(pi) if pi.by_ref.is_none() && pi.subpat.is_none()) => {
                    let Pat::Ident(pi) = &*r.pat else {
                        unreachable!("checked")
                    };
                    let index = syn::Index::from(k);
                    let field = ConstArg {
                        expr: syn::parse_quote!(*#whole.#index),
                        ..field
                    };
                    let name = pi.ident.to_string();
                    let id = self.add(Node::Const(field), Name::User(name.clone()), span, false);
                    self.scopes.last_mut().expect("a scope").bind(name, id, Form::Value);
                }
                other => self.cx.error_at(
                    other,
                    "this pattern is not supported in a differentiable function; bind a plain name or a tuple of names",
                ),
            }
        }
    }
}

impl Lowerer<'_> {
    /// `let (a, b) = if c { ..; (x, y) } else { ..; (u, v) };`, or a
    /// `match` whose arms end in tuples: each arm assigns its components,
    /// one name each, and the pattern binds those names. False (nothing
    /// lowered) where the pattern is not plain names and `_`, or an arm's
    /// value is not a tuple of the pattern's length written out.
    ///
    /// Before: `let (a, b) = if c { (x, y) } else { (y, x) };`
    /// After:  `if c { a = x; b = y; } else { a = y; b = x; }`, with `a`
    /// and `b` bound to a placeholder first (a name bound before, which
    /// an arm may read, as in a swap, is assigned under a fresh name and
    /// bound after).
    fn bind_arms_tuple(&mut self, pt: &syn::PatTuple, expr: &Expr) -> bool {
        let mut names: Vec<Option<syn::Ident>> = Vec::new();
        for p in &pt.elems {
            match p {
                Pat::Ident(pi) if pi.by_ref.is_none() && pi.subpat.is_none() => {
                    names.push(Some(pi.ident.clone()))
                }
                Pat::Wild(_) => names.push(None),
                _ => return false,
            }
        }
        let mut fresh = Fresh::of(&self.func.item);
        let targets: Vec<Option<syn::Ident>> = names
            .iter()
            .enumerate()
            .map(|(k, n)| {
                n.as_ref().map(|n| {
                    let name = n.to_string();
                    let taken = self.scopes.iter().any(|s| s.names.contains_key(&name))
                        || names[..k].iter().flatten().any(|m| *m == name);
                    if taken {
                        fresh.name(&name)
                    } else {
                        n.clone()
                    }
                })
            })
            .collect();
        let Some(rewritten) = assign_tails(expr, &targets) else {
            return false;
        };
        for t in targets.iter().flatten() {
            // Never read: each arm assigns every name. A literal has no
            // local of its own, so nothing of it is written out.
            let id = self.add(
                Node::Float(quote!(())),
                Name::Temp(t.to_string()),
                t.span(),
                false,
            );
            self.scopes
                .last_mut()
                .expect("a scope")
                .bind(t.to_string(), id, Form::Value);
        }
        self.stmt(&syn::Stmt::Expr(rewritten, Some(Default::default())));
        for (n, t) in names.iter().zip(&targets) {
            if let (Some(n), Some(t)) = (n, t) {
                if n != t {
                    let id = self.lookup(&t.to_string()).expect("a bound name");
                    self.bind_name(n.to_string(), id, self.graph.len(), Form::Value);
                }
            }
        }
        true
    }
}

/// `e` with each arm's tuple value replaced by assignments of its
/// components to `targets` (`None`: a `_`, dropped); `None` where a value
/// is not such a tuple.
fn assign_tails(e: &Expr, targets: &[Option<syn::Ident>]) -> Option<Expr> {
    match e {
        Expr::Paren(p) => assign_tails(&p.expr, targets),
        Expr::Tuple(t) if t.elems.len() == targets.len() => {
            let stmts = t.elems.iter().zip(targets).filter_map(|(v, t)| {
                t.as_ref()
                    .map(|t| -> syn::Stmt { syn::parse_quote_spanned!(v.span()=> #t = #v;) })
            });
            Some(syn::parse_quote!({ #(#stmts)* }))
        }
        Expr::Block(b) if b.label.is_none() => {
            let mut b = b.clone();
            b.block = assign_tails_block(&b.block, targets)?;
            Some(Expr::Block(b))
        }
        Expr::If(i) => {
            let mut i = i.clone();
            i.then_branch = assign_tails_block(&i.then_branch, targets)?;
            let (_, otherwise) = i.else_branch.as_mut()?;
            **otherwise = assign_tails(otherwise, targets)?;
            Some(Expr::If(i))
        }
        Expr::Match(m) => {
            let mut m = m.clone();
            for arm in &mut m.arms {
                *arm.body = assign_tails(&arm.body, targets)?;
                if arm.comma.is_none() && !matches!(*arm.body, Expr::Block(_)) {
                    arm.comma = Some(Default::default());
                }
            }
            Some(Expr::Match(m))
        }
        _ => None,
    }
}

/// A block whose final expression is rewritten by [`assign_tails`] into a
/// statement.
fn assign_tails_block(b: &syn::Block, targets: &[Option<syn::Ident>]) -> Option<syn::Block> {
    let mut b = b.clone();
    match b.stmts.pop()? {
        syn::Stmt::Expr(e, None) => {
            let e = assign_tails(&e, targets)?;
            b.stmts.push(syn::Stmt::Expr(e, None));
            Some(b)
        }
        _ => None,
    }
}

/// The index of the call a node is, if it is one.
fn call_index(node: &Node) -> Option<usize> {
    match node {
        Node::Op {
            op: Op::Call(k), ..
        } => Some(*k as usize),
        _ => None,
    }
}
