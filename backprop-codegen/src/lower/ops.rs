//! The ops of the table in their spellings (methods, functions, `f64::`
//! paths), and calls of other differentiable functions.

use super::{strip, strip_paren, Form, Lowerer};
use crate::graph::{Call, CallArg, NodeId};
use crate::vocab::{
    method_hint, Arg, Op, FLOATS_ONLY, MACRO_FORMS, TRANSPARENT_METHODS, UNWRAP_HINT,
    UNWRAP_METHODS,
};
use proc_macro2::Span;
use quote::ToTokens;
use syn::spanned::Spanned;
use syn::Expr;

impl Lowerer<'_> {
    /// A call of a function outside the vocabulary: a constant when it mentions
    /// no differentiable value, else a call of another differentiable function
    /// (or of one with a user-defined adjoint), whose `NAME_vjp` the reverse
    /// sweep calls.
    pub(super) fn user_call(&mut self, c: &syn::ExprCall) -> NodeId {
        let call = Expr::Call(c.clone());
        let of_model = c.args.iter().any(|a| self.is_model_value(a));
        if !of_model && !self.mentions_varying(&call) {
            return self.constant(&call, "");
        }
        let path = match &*c.func {
            Expr::Path(p) if p.qself.is_none() && !p.path.segments.is_empty() => p.path.clone(),
            other => {
                self.cx.error_at(
                    other,
                    "only a function named by a path can be called in a differentiable function",
                );
                return self.error_node(c.span());
            }
        };
        let args: Vec<&Expr> = c.args.iter().collect();
        if let (true, Some(last)) = (self.env.dual, path.segments.last()) {
            self.dual_calls.insert(last.ident.to_string());
        }
        self.call_of(path, None, &args, c.func.span())
    }

    /// A call of another differentiable function (`path`), or of a
    /// differentiable method of a model (`receiver.path(args)`): its
    /// `_vjp` beside it gives the arguments' gradients, the receiver's
    /// first.
    pub(super) fn call_of(
        &mut self,
        path: syn::Path,
        receiver: Option<NodeId>,
        call_args: &[&Expr],
        span: Span,
    ) -> NodeId {
        let (path, vjp) = if self.env.dual && receiver.is_none() {
            // The copy over duals calls the callee's copy.
            crate::generic::callee(&path, self.env.names.as_ref(), &self.env.krate, span)
        } else {
            let mut vjp = path.clone();
            let last = vjp.segments.last_mut().expect("a segment");
            last.ident = quote::format_ident!("{}_vjp", last.ident, span = last.ident.span());
            last.arguments = syn::PathArguments::None;
            (path.to_token_stream(), vjp.to_token_stream())
        };
        let mut inputs = Vec::new();
        let mut args = Vec::new();
        if let Some(receiver) = receiver {
            // Borrowed: a method of a model takes `&self`.
            args.push(CallArg::Input {
                input: 0,
                by_ref: true,
                view: false,
            });
            inputs.push(receiver);
        }
        for &arg in call_args {
            let (inner, mut by_ref) = match strip_paren(arg) {
                Expr::Reference(r) if r.mutability.is_none() => (&*r.expr, true),
                other => (other, false),
            };
            // The form the user passes: a view (`x.view()`, or a binding that
            // holds one), or a binding that holds a reference.
            let mut view = matches!(strip_paren(inner), Expr::MethodCall(m) if super::is_view(m));
            if let Expr::Path(p) = strip_paren(inner) {
                if let Some(ident) = p.path.get_ident() {
                    match self.form(&ident.to_string()) {
                        Form::Ref => by_ref = true,
                        Form::View if !by_ref => view = true,
                        _ => {}
                    }
                }
            }
            if self.is_model_value(inner) || self.mentions_varying(inner) {
                // A model passes as itself, to a function that takes one.
                let id = match self.model_name(inner) {
                    Some(model) => model,
                    None => self.expr(inner),
                };
                args.push(CallArg::Input {
                    input: inputs.len(),
                    by_ref,
                    view,
                });
                inputs.push(id);
            } else {
                match self.const_tokens(arg, "") {
                    Some(k) => args.push(CallArg::Const(Box::new(k))),
                    None => return self.error_node(span),
                }
            }
        }
        let k = u32::try_from(self.graph.calls.len()).expect("fewer than 2^32 calls");
        self.graph.calls.push(Call {
            path,
            vjp,
            args,
            map: None,
            method: receiver.is_some(),
            components: Vec::new(),
        });
        self.op(Op::Call(k), inputs, vec![], span)
    }

    pub(super) fn check_arity(
        &mut self,
        span: Span,
        name: &str,
        args: usize,
        want: usize,
        usage: &str,
    ) -> bool {
        if args == want {
            return true;
        }
        self.cx.error(
            span,
            format!(
                "`{name}` takes {want} argument{}: {usage}",
                if want == 1 { "" } else { "s" }
            ),
        );
        false
    }

    /// `receiver.name(args)`: a closure mapped over elements, a fold along
    /// an axis, an op of the table, `view()`, the unwrapping of an op's
    /// `Option` or `Result`, or a constant.
    pub(super) fn method(&mut self, m: &syn::ExprMethodCall) -> NodeId {
        // A sum over plain data: the loop it is, read by element.
        if self.walks_plain(&m.receiver) && self.mentions_varying(&m.receiver) {
            if let Some(id) = self.iterator_reduction(m) {
                return id;
            }
        }
        if let Some(id) = self.mapped_closure(m) {
            return id;
        }
        if let Some(id) = self.constant_iteration(m) {
            return id;
        }
        if let Some(id) = self.write_view(m) {
            return id;
        }
        if let Some(id) = self.axis_fold(m) {
            return id;
        }
        if let Some(id) = self.iterator_fold(m).or_else(|| self.iterator_reduction(m)) {
            return id;
        }
        let name = m.method.to_string();
        let span = m.method.span();
        if name == "zip_mut_with" && self.mentions_varying(&m.receiver) {
            let hint = method_hint(&name);
            self.cx.error(
                span,
                format!("`zip_mut_with` on a differentiable array is not supported; {hint}"),
            );
            return self.error_node(span);
        }
        if TRANSPARENT_METHODS.contains(&name.as_str()) {
            let usage = format!("`a.{name}()`");
            if !self.check_arity(span, &name, m.args.len(), 0, &usage) {
                return self.error_node(span);
            }
            return self.expr(&m.receiver);
        }
        if UNWRAP_METHODS.contains(&name.as_str()) {
            if let Some(id) = self.unwrapped(m) {
                return id;
            }
        }
        if let Some(id) = self.model_method(m) {
            return id;
        }
        self.method_op(m, false)
    }

    /// `a.mean().unwrap()`, `concatenate(..).expect("..")`: the value of an
    /// op whose ndarray spelling returns an `Option` or a `Result` (`None`
    /// when the receiver is no such op).
    fn unwrapped(&mut self, m: &syn::ExprMethodCall) -> Option<NodeId> {
        enum Inner<'e> {
            Method(&'e syn::ExprMethodCall),
            Call(&'e syn::ExprCall),
        }
        let inner = match strip_paren(&m.receiver) {
            Expr::MethodCall(inner)
                if self
                    .method_spelling(inner)
                    .is_some_and(|(op, _)| op.method_wrapped().is_some()) =>
            {
                Inner::Method(inner)
            }
            Expr::Call(c)
                if matches!(&*c.func, Expr::Path(p) if p.qself.is_none()
                    && self.op_by_path(&p.path).is_some_and(|(op, _)| op.function_wrapped().is_some())) =>
            {
                Inner::Call(c)
            }
            _ => return None,
        };
        let span = m.method.span();
        let name = m.method.to_string();
        let want = usize::from(name == "expect");
        let usage = if want == 0 {
            "`.unwrap()`"
        } else {
            "`.expect(\"..\")`"
        };
        if !self.check_arity(span, &name, m.args.len(), want, usage) {
            return Some(self.error_node(span));
        }
        // The message of `expect` is not part of the value: it is only
        // checked to be a constant.
        for a in &m.args {
            if self.const_tokens(a, "the message of `expect`").is_none() {
                return Some(self.error_node(span));
            }
        }
        Some(match inner {
            Inner::Method(inner) => self.method_op(inner, true),
            Inner::Call(c) => self.call_op(c, true),
        })
    }

    /// The op a method call spells, and its receiver: `a.tanh()` on `a`,
    /// `a.iter().sum()` on `a`.
    fn method_spelling<'m>(&self, m: &'m syn::ExprMethodCall) -> Option<(Op, &'m Expr)> {
        let name = m.method.to_string();
        if let Expr::MethodCall(inner) = strip_paren(&m.receiver) {
            let adapter = inner.method.to_string();
            if inner.args.is_empty() && Op::is_adapter(&adapter) {
                if let Some(op) = Op::by_chain(Some(&adapter), &name) {
                    return Some((op, &inner.receiver));
                }
            }
        }
        Op::by_method(&name).map(|op| (op, &*m.receiver))
    }

    /// A method call as an op of the table, or a constant; `unwrapped` when
    /// the body unwraps its value.
    fn method_op(&mut self, m: &syn::ExprMethodCall, unwrapped: bool) -> NodeId {
        let name = m.method.to_string();
        let span = m.method.span();
        let Some((op, receiver)) = self.method_spelling(m) else {
            let (name, hint) = chain_hint(m);
            let what = if hint.is_empty() {
                String::new()
            } else {
                format!("`{name}` is not supported on differentiable values: {hint}")
            };
            return self.constant(&Expr::MethodCall(m.clone()), &what);
        };
        let def = op.def();
        if let (Some(ty), false) = (op.method_wrapped(), unwrapped) {
            self.cx.error(
                span,
                format!(
                    "ndarray's `{name}` returns {} `{ty}`; unwrap its value: {}",
                    article(ty),
                    def.method_usage
                ),
            );
            return self.error_node(span);
        }
        if !self.check_arity(
            span,
            &name,
            m.args.len(),
            def.method_args.len(),
            def.method_usage,
        ) {
            return self.error_node(span);
        }
        let receiver = self.expr(receiver);
        if op.has(FLOATS_ONLY) && !self.is_float_value(receiver) {
            // `labels.to_owned()`, `t.clone()` of a constant: the copy as
            // written (the receiver itself would be moved where the copy
            // is consumed, `let u = t.clone(); u * &t`).
            return self.constant(&Expr::MethodCall(m.clone()), "");
        }
        let args: Vec<&Expr> = m.args.iter().collect();
        self.apply(op, vec![receiver], def.method_args, &args, span)
    }

    /// `f(args)`: an op of the table by its function spelling, else a call
    /// of another differentiable function (or a constant).
    pub(super) fn call(&mut self, c: &syn::ExprCall) -> NodeId {
        if let Some(id) = self.shape_fn_array(c) {
            return id;
        }
        self.call_op(c, false)
    }

    /// The op a path calls: [`Op::by_path`], where the function's float
    /// type parameter spells a float's function as `f64` does (`T::max`,
    /// `T::exp`).
    pub(super) fn op_by_path(
        &self,
        path: &syn::Path,
    ) -> Option<(Op, &'static [crate::vocab::Arg])> {
        let float = self.func.float_param.as_ref();
        match path.segments.first() {
            Some(first) if path.segments.len() == 2 && float.is_some_and(|t| first.ident == *t) => {
                let name = &path.segments[1].ident;
                Op::by_path(&syn::parse_quote!(f64::#name))
            }
            _ => Op::by_path(path),
        }
    }

    /// [`Self::call`]; `unwrapped` when the body unwraps its value.
    fn call_op(&mut self, c: &syn::ExprCall, unwrapped: bool) -> NodeId {
        let found = match &*c.func {
            Expr::Path(p) if p.qself.is_none() => self.op_by_path(&p.path),
            _ => None,
        };
        let Some((op, spec)) = found else {
            return self.user_call(c);
        };
        let span = c.func.span();
        let def = op.def();
        if let (Some(ty), false) = (op.function_wrapped(), unwrapped) {
            self.cx.error(
                span,
                format!(
                    "ndarray's `{}` returns {} `{ty}`; unwrap its value: {}",
                    def.name,
                    article(ty),
                    def.function_usage
                ),
            );
            return self.error_node(span);
        }
        if !self.check_arity(span, def.name, c.args.len(), spec.len(), def.function_usage) {
            return self.error_node(span);
        }
        let args: Vec<&Expr> = c.args.iter().collect();
        self.apply(op, Vec::new(), spec, &args, span)
    }

    /// `concatenate![Axis(k), a, b]`, `stack![..]` of differentiable arrays:
    /// the op of the table, as its function form unwrapped.
    pub(super) fn macro_form(&mut self, mac: &syn::Macro) -> Option<NodeId> {
        let name = mac.path.segments.last()?.ident.to_string();
        let (_, op) = MACRO_FORMS.iter().find(|(n, _)| *n == name)?;
        let whole = Expr::Macro(syn::ExprMacro {
            attrs: Vec::new(),
            mac: mac.clone(),
        });
        if !self.mentions_varying(&whole) {
            return None;
        }
        let span = mac.path.span();
        let parsed = mac
            .parse_body_with(syn::punctuated::Punctuated::<Expr, syn::Token![,]>::parse_terminated);
        let args: Vec<Expr> = match parsed {
            Ok(args) if args.len() >= 2 => args.into_iter().collect(),
            _ => {
                self.cx.error_at(
                    mac,
                    format!("`{name}!` takes an axis and the arrays: `{name}![Axis(k), a, b]`"),
                );
                return Some(self.error_node(span));
            }
        };
        let (axis, arrays) = args.split_first().expect("at least two");
        let list: Expr = syn::parse_quote!([#(#arrays),*]);
        let spec = op.def().function.unwrap_or(&[]);
        Some(self.apply(*op, Vec::new(), spec, &[axis, &list], span))
    }

    /// `op` applied to `operands` (a method's receiver) and then to `args` as
    /// `spec` says: each lowered in order, as an operand or a constant.
    pub(super) fn apply(
        &mut self,
        op: Op,
        mut operands: Vec<NodeId>,
        spec: &[Arg],
        args: &[&Expr],
        span: Span,
    ) -> NodeId {
        let mut consts = Vec::new();
        for (arg, expr) in spec.iter().zip(args) {
            match arg {
                Arg::Operand => operands.push(self.expr(expr)),
                Arg::Const(what) => {
                    consts.push(self.hinted_const_arg(expr, what, op.def().const_hint));
                }
                Arg::SliceInfo(what) => consts.push(self.slice_arg(expr, what)),
                Arg::Operands => match strip(expr) {
                    Expr::Array(a) if !a.elems.is_empty() => {
                        for e in &a.elems {
                            operands.push(self.expr(e));
                        }
                    }
                    other => {
                        let usage = op.def().function_usage;
                        self.cx.error_at(
                            other,
                            format!("`{}` needs the arrays written out: {usage}", op.def().name),
                        );
                        return self.error_node(span);
                    }
                },
            }
        }
        self.op(op, operands, consts, span)
    }
}

/// The first method along a receiver chain (`x.iter().map(..).sum()`)
/// that has a specific hint, or that is ndarray's fallible spelling of an
/// op (`a.mean().unwrap_or(0.0)`), else the outer method with none.
fn chain_hint(m: &syn::ExprMethodCall) -> (String, &'static str) {
    let mut cur = m;
    // The method applied to `cur`'s value.
    let mut outer = m;
    loop {
        let name = cur.method.to_string();
        let hint = method_hint(&name);
        if !hint.is_empty() {
            return (name, hint);
        }
        if Op::by_method(&name).is_some_and(|op| op.method_wrapped().is_some()) {
            return (outer.method.to_string(), UNWRAP_HINT);
        }
        match strip(&cur.receiver) {
            Expr::MethodCall(inner) => {
                outer = cur;
                cur = inner;
            }
            _ => return (m.method.to_string(), ""),
        }
    }
}

/// `a` or `an`, before the name of a type.
fn article(ty: &str) -> &'static str {
    if ty.starts_with(['A', 'E', 'I', 'O', 'U']) {
        "an"
    } else {
        "a"
    }
}
