//! Models: a parameter of the user's type that `wrt` names, or `&self` of
//! a method, is read through its fields. A field read in a value (`model.w`,
//! `self.head.b`, `model.layers[i].w`, `model.weights[k]`) is a `Field`
//! node, the place below the model, whose rule adds its gradient into that
//! place of the model's gradient. A field read in a constant (a loop's
//! bound, an index, a `match`) is Rust's; the generated code checks that
//! such a field is not a model's parameter (`bp::constant_field`), and a
//! shape query (`model.layers.len()`, `model.w.nrows()`) is always fine.
//!
//! A part of a model that is itself a model, bound to a name (`let layer =
//! &self.layers[i];`), is that place wherever the block reads it after
//! (`layer.w` is `self.layers[i].w`), as the item of `for layer in
//! &self.layers` is (see `iters`).

use super::Lowerer;
use crate::ast::Kind;
use crate::graph::NodeId;
use crate::vocab::Op;
use proc_macro2::{Ident, Span};
use quote::quote;
use syn::spanned::Spanned;
use syn::visit::Visit;
use syn::visit_mut::VisitMut;
use syn::{Expr, Pat, Stmt};

/// The name at the root of a place (`model` of `model.layers[i].w`), if the
/// expression is a field access or an index of one.
pub(super) fn place_root(expr: &Expr) -> Option<&Ident> {
    let mut e = expr;
    let mut through_field = false;
    loop {
        match e {
            Expr::Field(f) => {
                through_field = true;
                e = &f.base;
            }
            Expr::Index(i) => e = &i.expr,
            Expr::Paren(p) => e = &p.expr,
            Expr::Group(g) => e = &g.expr,
            Expr::Path(p) if through_field && p.qself.is_none() => return p.path.get_ident(),
            _ => return None,
        }
    }
}

/// Replaces the root of a place by [`crate::graph::MODEL_ROOT`].
struct Reroot;

impl VisitMut for Reroot {
    fn visit_expr_mut(&mut self, e: &mut Expr) {
        match e {
            Expr::Field(f) => self.visit_expr_mut(&mut f.base),
            Expr::Index(i) => self.visit_expr_mut(&mut i.expr),
            Expr::Paren(p) => self.visit_expr_mut(&mut p.expr),
            Expr::Group(g) => self.visit_expr_mut(&mut g.expr),
            Expr::Path(p) => {
                let root = Ident::new(crate::graph::MODEL_ROOT, p.span());
                *e = syn::parse_quote!(#root);
            }
            _ => {}
        }
    }
}

impl Lowerer<'_> {
    /// Whether `name`, here, is a differentiable model parameter (not a
    /// local that shadows it).
    pub(super) fn is_model(&self, name: &str) -> bool {
        let bound_at = self.scopes.iter().rposition(|s| s.names.contains_key(name));
        bound_at == Some(0)
            && self.func.params.iter().any(|p| {
                p.ident == name && p.differentiable && matches!(p.kind, Kind::Model { .. })
            })
    }

    /// The model at the root of a place (`self` of `self.layers[i].w`),
    /// if the expression is a place of a model.
    pub(super) fn model_root<'e>(&self, expr: &'e Expr) -> Option<&'e Ident> {
        place_root(expr).filter(|r| self.is_model(&r.to_string()))
    }

    /// A field read of a model in a value: its `Field` node.
    pub(super) fn model_field(&mut self, expr: &Expr) -> Option<NodeId> {
        let root = self.model_root(expr)?;
        let model = self.lookup(&root.to_string())?;
        let mut path = expr.clone();
        Reroot.visit_expr_mut(&mut path);
        let path = self.const_arg(&path, "an index in a model's field path");
        Some(self.op(Op::Field, vec![model], vec![path], expr.span()))
    }

    /// The node of a model named as a whole (`model`, `self`), as a call's
    /// argument or receiver.
    pub(super) fn model_name(&mut self, e: &Expr) -> Option<NodeId> {
        let Expr::Path(p) = super::strip_paren(e) else {
            return None;
        };
        let name = p.path.get_ident()?.to_string();
        if !self.is_model(&name) {
            return None;
        }
        self.lookup(&name)
    }

    /// Whether `e` is a model or a place of one (`model`, `&self.encoder`),
    /// which a call's argument passes as a value.
    pub(super) fn is_model_value(&self, e: &Expr) -> bool {
        let e = match super::strip_paren(e) {
            Expr::Reference(r) if r.mutability.is_none() => &*r.expr,
            other => other,
        };
        match super::strip_paren(e) {
            Expr::Path(p) => p
                .path
                .get_ident()
                .is_some_and(|r| self.is_model(&r.to_string())),
            other => self.model_root(other).is_some(),
        }
    }

    /// `model.method(args)`, `self.encoder.forward(&x)`: a call of a
    /// differentiable method of a model or of one of its fields, when the
    /// method is none of the array ops.
    pub(super) fn model_method(&mut self, m: &syn::ExprMethodCall) -> Option<NodeId> {
        let name = m.method.to_string();
        if Op::by_method(&name).is_some() || crate::vocab::SHAPE_METHODS.contains(&name.as_str()) {
            return None;
        }
        let receiver = match self.model_name(&m.receiver) {
            Some(model) => model,
            None => self.model_field(&m.receiver)?,
        };
        let path: syn::Path = m.method.clone().into();
        let args: Vec<&Expr> = m.args.iter().collect();
        Some(self.call_of(path, Some(receiver), &args, m.method.span()))
    }

    /// A field of a model read as a float (its `let` says so): the `Field`
    /// node, marked as a float.
    pub(super) fn float_field(&mut self, expr: &Expr) -> Option<NodeId> {
        let id = self.model_field(expr)?;
        self.graph.float_fields.insert(id);
        Some(id)
    }

    /// Whether a type is the function's float type (`f64`, `f32`, its float
    /// type parameter).
    pub(super) fn is_float_type(&self, ty: &syn::Type) -> bool {
        crate::ast::Elem::of(ty, self.func.float_param.as_ref()).is_some()
    }

    /// A model parameter read as a whole value, which is not supported.
    pub(super) fn whole_model(&mut self, name: &Ident) -> NodeId {
        self.cx.error(
            name.span(),
            format!("a model is read through its fields (`{name}.w`, `{name}.layers[i].b`); pass the fields a function needs, or call a differentiable method of it"),
        );
        self.error_node(name.span())
    }

    /// A field of a model read in a constant: checked to be no parameter
    /// of the model by the generated code.
    pub(super) fn constant_field(&mut self, field: &Expr, span: Span) {
        self.constant_fields.push((field.clone(), span));
    }
}

impl Lowerer<'_> {
    /// The statements with each `let name = &place;` of a model's place
    /// that the rest reads as a model (`name.w`, `name.forward(..)`) taken
    /// out, and `name` replaced by the place after it; `None` when there is
    /// none. A place whose index the rest assigns or binds again (`i` of
    /// `self.layers[i]`) would move, and `name` bound again would stand for
    /// two things: both are errors.
    pub(super) fn named_places(&mut self, stmts: &[Stmt]) -> Option<Vec<Stmt>> {
        let mut out: Option<Vec<Stmt>> = None;
        let mut k = 0;
        loop {
            let current = out.as_deref().unwrap_or(stmts);
            let Some((name, place)) = current
                .get(k)
                .and_then(|s| self.named_place(s, &current[k + 1..]))
            else {
                if k >= current.len() {
                    return out;
                }
                k += 1;
                continue;
            };
            let rest = &current[k + 1..];
            if let Some(moved) = place_moves(&place, rest) {
                self.cx.error(
                    moved.span(),
                    format!("`{name}` names a part of a model at an index that changes after the `let`: `{moved}` is assigned or bound again here; read the part in place where it is used"),
                );
            }
            let rest = match super::iters::put_places(rest, &[(name.clone(), quote!(#place))]) {
                Ok(rest) => rest,
                Err(again) => {
                    self.cx.error(
                        again.span(),
                        format!("`{again}` names a part of a model here, and the block binds the name again; use another name"),
                    );
                    rest.to_vec()
                }
            };
            let mut next = current[..k].to_vec();
            next.extend(rest);
            out = Some(next);
        }
    }

    /// `let name = &place;` (or `let name: &T = &place;`) of a place of a
    /// model that `rest` reads as a model.
    fn named_place(&self, s: &Stmt, rest: &[Stmt]) -> Option<(Ident, Expr)> {
        let Stmt::Local(local) = s else { return None };
        let init = local.init.as_ref().filter(|i| i.diverge.is_none())?;
        let Expr::Reference(r) = super::strip_paren(&init.expr) else {
            return None;
        };
        let pat = match &local.pat {
            Pat::Type(t) => &*t.pat,
            other => other,
        };
        let Pat::Ident(p) = pat else { return None };
        if r.mutability.is_some() || p.by_ref.is_some() || p.subpat.is_some() {
            return None;
        }
        self.model_root(&r.expr)?;
        let mut reads = ReadAsModel {
            name: &p.ident,
            found: false,
        };
        rest.iter().for_each(|s| reads.visit_stmt(s));
        reads.found.then(|| (p.ident.clone(), (*r.expr).clone()))
    }
}

/// Whether a block reads `name` as a model: a field of it (`name.w`), or
/// a method of it that is none of the array ops (`name.forward(..)`).
struct ReadAsModel<'a> {
    name: &'a Ident,
    found: bool,
}

impl<'ast> Visit<'ast> for ReadAsModel<'_> {
    fn visit_expr(&mut self, e: &'ast Expr) {
        let is_name =
            |e: &Expr| matches!(super::strip_paren(e), Expr::Path(p) if p.path.is_ident(self.name));
        match e {
            Expr::Field(f) if is_name(&f.base) => self.found = true,
            Expr::MethodCall(m) if is_name(&m.receiver) => {
                let method = m.method.to_string();
                if Op::by_method(&method).is_none()
                    && !crate::vocab::SHAPE_METHODS.contains(&method.as_str())
                {
                    self.found = true;
                }
            }
            _ => {}
        }
        syn::visit::visit_expr(self, e);
    }
}

/// A name the place reads (`i` of `self.layers[i]`) that `rest` assigns or
/// binds again.
fn place_moves(place: &Expr, rest: &[Stmt]) -> Option<Ident> {
    struct Names(Vec<Ident>);
    impl<'ast> Visit<'ast> for Names {
        fn visit_path(&mut self, p: &'ast syn::Path) {
            if let Some(i) = p.get_ident() {
                self.0.push(i.clone());
            }
        }
    }
    struct Changes<'a>(&'a [Ident], Option<Ident>);
    impl Changes<'_> {
        fn check(&mut self, e: &Expr) {
            if let Expr::Path(p) = super::strip_paren(e) {
                if let Some(i) = p.path.get_ident().filter(|i| self.0.contains(i)) {
                    self.1.get_or_insert_with(|| i.clone());
                }
            }
        }
    }
    impl<'ast> Visit<'ast> for Changes<'_> {
        fn visit_expr(&mut self, e: &'ast Expr) {
            match e {
                Expr::Assign(a) => self.check(&a.left),
                Expr::Binary(b) if super::control::is_compound(&b.op) => self.check(&b.left),
                Expr::Reference(r) if r.mutability.is_some() => self.check(&r.expr),
                _ => {}
            }
            syn::visit::visit_expr(self, e);
        }
        fn visit_pat_ident(&mut self, p: &'ast syn::PatIdent) {
            if self.0.contains(&p.ident) {
                self.1.get_or_insert_with(|| p.ident.clone());
            }
        }
    }
    let mut names = Names(Vec::new());
    // The root (`self`) is the model, which the body cannot assign.
    if let Expr::Field(_) | Expr::Index(_) = place {
        names.visit_expr(place);
    }
    let root = place_root(place).cloned();
    names.0.retain(|n| Some(n) != root.as_ref());
    let mut changes = Changes(&names.0, None);
    rest.iter().for_each(|s| changes.visit_stmt(s));
    changes.1
}
