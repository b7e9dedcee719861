//! Models: a parameter of the user's type that `wrt` names, or `&self` of
//! a method, is read through its fields. A field read in a value (`model.w`,
//! `self.head.b`, `model.layers[i].w`, `model.weights[k]`) is a `Field`
//! node, the place below the model, whose rule adds its gradient into that
//! place of the model's gradient. A field read in a constant (a loop's
//! bound, an index, a `match`) is Rust's; the generated code checks that
//! such a field is not a model's parameter (`bp::constant_field`), and a
//! shape query (`model.layers.len()`, `model.w.nrows()`) is always fine.

use super::Lowerer;
use crate::ast::Kind;
use crate::graph::NodeId;
use crate::vocab::Op;
use proc_macro2::{Ident, Span};
use syn::spanned::Spanned;
use syn::visit_mut::VisitMut;
use syn::Expr;

/// The name a field path's model stands for in the path's constant
/// (`__backprop_model.layers[i].w`): the emitter puts the model there.
pub const MODEL_ROOT: &str = "__backprop_model";

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

/// Replaces the root of a place by [`MODEL_ROOT`].
struct Reroot;

impl VisitMut for Reroot {
    fn visit_expr_mut(&mut self, e: &mut Expr) {
        match e {
            Expr::Field(f) => self.visit_expr_mut(&mut f.base),
            Expr::Index(i) => self.visit_expr_mut(&mut i.expr),
            Expr::Paren(p) => self.visit_expr_mut(&mut p.expr),
            Expr::Group(g) => self.visit_expr_mut(&mut g.expr),
            Expr::Path(p) => {
                let root = Ident::new(MODEL_ROOT, p.span());
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
