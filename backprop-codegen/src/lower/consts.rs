//! The expressions the macro does not look into: constants (an axis, an
//! index, `labels.len() as f64`), loop bounds and branch conditions. Each
//! keeps the bindings it mentions, so that emission writes their locals.

use super::{shorten, strip, Fresh, Lowerer};
use crate::graph::{ConstArg, Node, NodeId, SliceElems};
use crate::vocab::SHAPE_METHODS;
use proc_macro2::Ident;
use quote::ToTokens;
use std::collections::{HashMap, HashSet};
use syn::spanned::Spanned;
use syn::visit::Visit;
use syn::Expr;

/// Finds the names an expression mentions, and any macro inside it.
#[derive(Default)]
struct Mentions {
    idents: Vec<Ident>,
    /// Names whose shape only is read (`x.len()`).
    shape_only: Vec<Ident>,
    /// The names inside macros (`array![a, 1.0]`, `s![..n]`), and where
    /// the first macro is: a macro the macro cannot see into is a constant
    /// only when none of them is a differentiable value.
    in_macros: Vec<Ident>,
    has_macro: Option<syn::Macro>,
    /// Whether `s![..]` may appear (the slice of `slice`): its expressions
    /// are looked into like any other.
    slice_macro: bool,
    /// The roots of places (`model` of `model.layers[i].w`), with the place
    /// and whether only its shape is read (`model.layers.len()`).
    field_roots: Vec<(Ident, Expr, bool)>,
}

impl Mentions {
    /// A place rooted at a name: the root recorded with the place, the
    /// indices along it visited. False if `e` is no such place.
    fn place(&mut self, e: &Expr, shape: bool) -> bool {
        let Some(root) = super::models::place_root(e) else {
            return false;
        };
        self.field_roots.push((root.clone(), e.clone(), shape));
        let mut at = e;
        loop {
            match at {
                Expr::Field(f) => at = &f.base,
                Expr::Index(i) => {
                    self.visit_expr(&i.index);
                    at = &i.expr;
                }
                Expr::Paren(p) => at = &p.expr,
                Expr::Group(g) => at = &g.expr,
                _ => return true,
            }
        }
    }
}

/// Every plain name an expression reads.
pub(super) fn idents_of(e: &Expr, out: &mut Vec<String>) {
    let mut m = Mentions::default();
    m.visit_expr(e);
    out.extend(
        m.idents
            .iter()
            .chain(&m.shape_only)
            .chain(&m.in_macros)
            .map(|i| i.to_string()),
    );
}

/// Every identifier in a macro's tokens.
fn idents_in(tokens: proc_macro2::TokenStream, out: &mut Vec<Ident>) {
    for t in tokens {
        match t {
            proc_macro2::TokenTree::Ident(i) => out.push(i),
            proc_macro2::TokenTree::Group(g) => idents_in(g.stream(), out),
            _ => {}
        }
    }
}

impl<'ast> Visit<'ast> for Mentions {
    fn visit_expr_path(&mut self, p: &'ast syn::ExprPath) {
        if p.qself.is_none() {
            if let Some(id) = p.path.get_ident() {
                self.idents.push(id.clone());
            }
        }
        syn::visit::visit_expr_path(self, p);
    }
    fn visit_expr_field(&mut self, f: &'ast syn::ExprField) {
        if !self.place(&Expr::Field(f.clone()), false) {
            syn::visit::visit_expr_field(self, f);
        }
    }
    fn visit_expr_method_call(&mut self, m: &'ast syn::ExprMethodCall) {
        if SHAPE_METHODS.contains(&m.method.to_string().as_str())
            && self.place(strip(&m.receiver), true)
        {
            for a in &m.args {
                self.visit_expr(a);
            }
            return;
        }
        if SHAPE_METHODS.contains(&m.method.to_string().as_str()) {
            if let Expr::Path(p) = strip(&m.receiver) {
                if let Some(id) = p.path.get_ident() {
                    self.shape_only.push(id.clone());
                    for a in &m.args {
                        self.visit_expr(a);
                    }
                    return;
                }
            }
        }
        syn::visit::visit_expr_method_call(self, m);
    }
    fn visit_macro(&mut self, m: &'ast syn::Macro) {
        if self.slice_macro {
            if let Some(elems) = SliceElems::of(m) {
                for (e, step) in &elems.0 {
                    self.visit_expr(e);
                    if let Some(step) = step {
                        self.visit_expr(step);
                    }
                }
                return;
            }
        }
        self.has_macro.get_or_insert_with(|| m.clone());
        idents_in(m.tokens.clone(), &mut self.in_macros);
    }
}

impl Lowerer<'_> {
    /// A constant expression: checks it mentions no differentiable value,
    /// and records the bindings it mentions.
    pub(super) fn const_tokens(&mut self, expr: &Expr, what: &str) -> Option<ConstArg> {
        self.mentioning_tokens(expr, Some(what))
    }

    /// The slice of `a.slice(..)`: a constant that may be `s![..]`.
    pub(super) fn slice_arg(&mut self, expr: &Expr, what: &str) -> ConstArg {
        let message = format!(
            "{what} must be a constant (`s![..]` of literals, loop variables and parameters that are not differentiated)"
        );
        self.mentions(expr, Some(&message), true)
            .unwrap_or_else(|| ConstArg::plain(syn::parse_quote!(())))
    }

    /// An expression the macro does not look into, with the bindings it
    /// mentions. `constant` is `None` where the
    /// expression may mention differentiable values (an `if` condition), else
    /// the message for when it does (`""`: outside the vocabulary).
    pub(super) fn mentioning_tokens(
        &mut self,
        expr: &Expr,
        constant: Option<&str>,
    ) -> Option<ConstArg> {
        self.mentions(expr, constant, false)
    }

    /// [`Self::mentioning_tokens`], where `slice_macro` says whether
    /// `s![..]` may appear.
    fn mentions(
        &mut self,
        expr: &Expr,
        constant: Option<&str>,
        slice_macro: bool,
    ) -> Option<ConstArg> {
        // A closure's parameter that shadows a binding of the function is
        // renamed in it first: the bindings are substituted by name.
        let renamed = self.closure_params_renamed(expr);
        let expr = &renamed;
        let mut m = Mentions {
            slice_macro,
            ..Mentions::default()
        };
        m.visit_expr(expr);
        // A place rooted at a model is a constant read of its field (a
        // shape query, or a field checked to be no parameter); any other
        // place is read through its root, as a name.
        for (root, place, shape) in std::mem::take(&mut m.field_roots) {
            if self.is_model(&root.to_string()) {
                if !shape && constant.is_some() {
                    self.constant_field(&place, place.span());
                }
                m.shape_only.push(root);
            } else if shape {
                m.shape_only.push(root);
            } else {
                m.idents.push(root);
            }
        }
        let mut resolve = HashMap::new();
        for ident in m.idents.iter().chain(&m.shape_only).chain(&m.in_macros) {
            if let Some(id) = self.lookup(&ident.to_string()) {
                if matches!(self.graph.get(id).node, Node::Error) {
                    // Already reported where it was bound.
                    return None;
                }
                let form = self.form(&ident.to_string());
                resolve.insert(ident.to_string(), (id, form));
            }
        }
        if let Some(what) = constant {
            // A shape query (`x.len()`) is a constant even of a differentiable value.
            for ident in &m.idents {
                let Some(&(id, _)) = resolve.get(&ident.to_string()) else {
                    continue;
                };
                if self.varying[id.index()] {
                    let message = if what.is_empty() {
                        format!(
                            "`{}` is not in the vocabulary of #[differentiable], and it uses `{ident}`, which depends on a differentiable parameter; the supported methods and functions are listed in the docs of `backprop::ops`",
                            shorten(expr),
                        )
                    } else {
                        format!("{what}; here it uses `{ident}`, which depends on a differentiable parameter")
                    };
                    self.cx.error_at(expr, message);
                    return None;
                }
            }
        }
        // A condition may read differentiable values, also in a macro
        // (`matches!(k, 0 if x > 0.0)`): it is not differentiated.
        if let (Some(mac), Some(_)) = (&m.has_macro, constant) {
            let varying = m.in_macros.iter().find(|i| {
                resolve
                    .get(&i.to_string())
                    .is_some_and(|(id, _)| self.varying[id.index()])
            });
            if let Some(ident) = varying {
                self.cx.error_at(
                    mac,
                    format!("a macro cannot be differentiated: #[differentiable] cannot see what it expands to, and this one uses `{ident}`, which depends on a differentiable parameter; a macro of constants (`array![1.0, 2.0]`, `s![1..n]`) is fine; write the differentiable part with the vocabulary, and print values outside the function"),
                );
                return None;
            }
        }
        let deps = m
            .idents
            .iter()
            .chain(&m.shape_only)
            .chain(&m.in_macros)
            .filter_map(|ident| resolve.get(&ident.to_string()).map(|(id, _)| *id))
            .collect();
        let mut refs: Vec<_> = resolve
            .into_iter()
            .map(|(name, (id, form))| (name, id, form))
            .collect();
        refs.sort_by(|a, b| a.0.cmp(&b.0));
        let mut expr = expr.clone();
        let containers: HashSet<String> = refs
            .iter()
            .filter(|(name, id, _)| self.one_axis_plain(name, *id))
            .map(|(name, ..)| name.clone())
            .collect();
        if !containers.is_empty() {
            super::containers::slice_methods(&mut expr, &containers, &self.env.krate);
        }
        if self.generic_copy() {
            let floats: HashSet<String> = refs
                .iter()
                .filter(|(_, id, _)| self.is_float_value(*id))
                .map(|(name, ..)| name.clone())
                .collect();
            let bound: HashSet<String> = refs.iter().map(|(name, ..)| name.clone()).collect();
            let originals: HashSet<String> = refs
                .iter()
                .filter(|(_, id, _)| self.may_be_original(*id))
                .map(|(name, ..)| name.clone())
                .collect();
            let names = crate::generic::Names {
                bound: &bound,
                floats: &floats,
                originals: &originals,
            };
            crate::generic::generic_constant(&mut expr, &self.env.krate, names);
        }
        Some(ConstArg {
            expr,
            refs,
            deps,
            place: false,
        })
    }

    /// `expr` with each parameter of its closures that has the name of a
    /// binding of the function (`|(i, &v)| v * i as f64` inside `for i in
    /// ..`) renamed, in the closure, to a fresh name (`i_1`).
    fn closure_params_renamed(&mut self, expr: &Expr) -> Expr {
        use syn::visit_mut::VisitMut;
        struct Rename<'a> {
            shadows: &'a dyn Fn(&str) -> bool,
            fresh: Fresh,
        }
        impl VisitMut for Rename<'_> {
            fn visit_expr_closure_mut(&mut self, c: &mut syn::ExprClosure) {
                let mut names = Vec::new();
                for p in &c.inputs {
                    super::iters::names_in(p, &mut names);
                }
                for old in names.into_iter().filter(|n| (self.shadows)(&n.to_string())) {
                    let new = self.fresh.name(&old.to_string());
                    let mut sub = Substitute {
                        old: &old,
                        new: &new,
                    };
                    for p in c.inputs.iter_mut() {
                        sub.visit_pat_mut(p);
                    }
                    sub.visit_expr_mut(&mut c.body);
                }
                syn::visit_mut::visit_expr_closure_mut(self, c);
            }
        }
        struct Substitute<'a> {
            old: &'a syn::Ident,
            new: &'a syn::Ident,
        }
        impl VisitMut for Substitute<'_> {
            fn visit_ident_mut(&mut self, i: &mut syn::Ident) {
                if i == self.old {
                    *i = syn::Ident::new(&self.new.to_string(), i.span());
                }
            }
            fn visit_macro_mut(&mut self, mac: &mut syn::Macro) {
                crate::generic::visit_macro_exprs(mac, &mut |e| self.visit_expr_mut(e));
            }
        }
        // The names closures bind, and of them those the function binds.
        struct Params(Vec<syn::Ident>);
        impl<'a> Visit<'a> for Params {
            fn visit_expr_closure(&mut self, c: &'a syn::ExprClosure) {
                for p in &c.inputs {
                    super::iters::names_in(p, &mut self.0);
                }
                syn::visit::visit_expr_closure(self, c);
            }
        }
        let mut params = Params(Vec::new());
        params.visit_expr(expr);
        let bound: HashSet<String> = params
            .0
            .iter()
            .map(|i| i.to_string())
            .filter(|n| self.lookup(n).is_some())
            .collect();
        if bound.is_empty() {
            return expr.clone();
        }
        let mut e = expr.clone();
        let shadows = |n: &str| bound.contains(n);
        Rename {
            shadows: &shadows,
            fresh: Fresh::of(&self.func.item),
        }
        .visit_expr_mut(&mut e);
        e
    }

    /// A constant argument (an axis, an index, `n`, a loop's bound).
    pub(super) fn const_arg(&mut self, expr: &Expr, what: &str) -> ConstArg {
        self.hinted_const_arg(expr, what, "")
    }

    /// A constant argument, and what to write instead when it is not one
    /// (`hint`, or "").
    pub(super) fn hinted_const_arg(&mut self, expr: &Expr, what: &str, hint: &str) -> ConstArg {
        let hint = if hint.is_empty() {
            String::new()
        } else {
            format!("; {hint}")
        };
        let message = format!(
            "{what} must be a constant (a literal or a parameter that is not differentiated{hint})"
        );
        self.const_tokens(expr, &message)
            .unwrap_or_else(|| ConstArg::plain(syn::parse_quote!(())))
    }

    /// An expression outside the vocabulary that is fine as a constant.
    pub(super) fn constant(&mut self, expr: &Expr, what: &str) -> NodeId {
        if let Some(e) = super::control::side_effect(expr) {
            // Passed through, it would change a local the macro does not
            // know changed.
            self.cx.error_at(
                e,
                "an assignment or a `&mut` inside an expression the macro passes through as a constant is not supported; assign in a statement of its own",
            );
            return self.error_node(expr.span());
        }
        match self.const_tokens(expr, what) {
            Some(c) => {
                let varying = false;
                self.add(Node::Const(c), self.temp(), expr.span(), varying)
            }
            None => self.error_node(expr.span()),
        }
    }

    /// A constant place (`data.x`, a field of a constant parameter),
    /// which its local borrows.
    pub(super) fn place(&mut self, expr: &Expr, what: &str) -> NodeId {
        match self.const_tokens(expr, what) {
            Some(c) => {
                // In a copy over duals a place of `self` is read as the
                // copy's float (a value, `generic::generic_constant`).
                let place = !(self.generic_copy() && crate::generic::reads_self(&c.expr));
                let c = ConstArg { place, ..c };
                self.add(Node::Const(c), self.temp(), expr.span(), false)
            }
            None => self.error_node(expr.span()),
        }
    }

    /// `data.x`, a constant place; `p.0` of a tuple of differentiable
    /// values (a call's) is an error: its components are bound by a tuple
    /// pattern.
    pub(super) fn field(&mut self, expr: &Expr, f: &syn::ExprField) -> NodeId {
        if matches!(f.member, syn::Member::Unnamed(_)) && self.mentions_varying(&f.base) {
            let message = format!(
                "a component of a tuple of differentiable values cannot be read with `.{}`; bind the tuple with a tuple pattern, one name or `_` per component, and use the names: `let (a, b) = {};`",
                f.member.to_token_stream(),
                shorten(&f.base)
            );
            self.cx.error_at(expr, message);
            return self.error_node(expr.span());
        }
        self.place(expr, "field access is only supported on constants")
    }

    /// Every name an expression mentions (also inside macros), in order.
    pub(super) fn mentioned_names(&self, expr: &Expr) -> Vec<Ident> {
        let mut m = Mentions::default();
        m.visit_expr(expr);
        m.idents
            .into_iter()
            .chain(m.shape_only)
            .chain(m.in_macros)
            .collect()
    }

    /// Whether an expression mentions a value that depends on a differentiable parameter
    /// (a field of a model read as a value counts: `self.w.mapv(..)`).
    pub(super) fn mentions_varying(&mut self, expr: &Expr) -> bool {
        let mut m = Mentions::default();
        m.visit_expr(expr);
        let model_value = m
            .field_roots
            .iter()
            .any(|(root, _, shape)| !shape && self.is_model(&root.to_string()));
        model_value
            || m.idents.iter().chain(&m.in_macros).any(|i| {
                self.lookup(&i.to_string())
                    .is_some_and(|id| self.varying[id.index()])
            })
    }

    /// The condition of an `if`: any expression; it may compare differentiable
    /// values, since the branch taken is a constant of the gradient.
    pub(super) fn condition_tokens(&mut self, expr: &Expr) -> Option<ConstArg> {
        self.mentioning_tokens(expr, None)
    }
}
