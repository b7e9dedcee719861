//! Assignments, `for` loops and `if` branches: a loop body and each arm of a
//! branch is a region (a graph of its own) whose inputs are the values it
//! reads from the enclosing code.

use super::{strip_paren, ArmBody, Frame, Lowerer, Scope};
use crate::graph::{Adapter, Branch, ConstArg, Form, Graph, Loop, Name, Node, NodeId, Region};
use crate::vocab::{Op, WRITE_METHODS, WRITE_VIEWS};
use proc_macro2::{Ident, Span};
use std::collections::HashMap;
use syn::spanned::Spanned;
use syn::visit::Visit;
use syn::{BinOp, Expr, Pat};

/// The names a loop body assigns (`x = ...`, `x += ...`), in order.
#[derive(Default)]
struct Assigned {
    names: Vec<String>,
}

impl<'ast> Visit<'ast> for Assigned {
    // A named `&mut` view (`let mut r = y.row_mut(t);`) may write `y`.
    fn visit_local(&mut self, l: &'ast syn::Local) {
        if let Some(base) = super::views::view_base(l) {
            self.names.push(base.to_string());
        }
        syn::visit::visit_local(self, l);
    }
    fn visit_expr_assign(&mut self, a: &'ast syn::ExprAssign) {
        if let Some(id) = written(&a.left) {
            self.names.push(id.to_string());
        }
        syn::visit::visit_expr_assign(self, a);
    }
    fn visit_expr_method_call(&mut self, m: &'ast syn::ExprMethodCall) {
        if let Some(w) = view_write(m) {
            self.names.push(w.name.to_string());
        }
        syn::visit::visit_expr_method_call(self, m);
    }
    fn visit_expr_binary(&mut self, b: &'ast syn::ExprBinary) {
        if matches!(
            b.op,
            BinOp::AddAssign(_) | BinOp::SubAssign(_) | BinOp::MulAssign(_) | BinOp::DivAssign(_)
        ) {
            if let Some(id) = written(&b.left) {
                self.names.push(id.to_string());
            }
        }
        syn::visit::visit_expr_binary(self, b);
    }
}

/// The binding an assignment writes: `x` of `x = ..` and of `x[i] = ..`.
fn written(place: &Expr) -> Option<&Ident> {
    match strip_paren(place) {
        Expr::Path(p) => p.path.get_ident(),
        Expr::Index(i) => match strip_paren(&i.expr) {
            Expr::Path(p) => p.path.get_ident(),
            _ => None,
        },
        _ => None,
    }
}

/// A write through a method: `y.row_mut(i).assign(&v)`, `y.fill(e)`,
/// `y.slice_mut(s![..]).scaled_add(a, &v)`, `y.mapv_inplace(f)`.
pub(super) struct MethodWrite<'a> {
    /// The binding written.
    pub name: &'a Ident,
    /// The view written through: its op, its argument and the method that
    /// reads the same part (`None`: the whole array).
    pub view: Option<(Op, &'a Expr, &'static str)>,
}

/// The binding `e` names, if it is one.
fn binding(e: &Expr) -> Option<&Ident> {
    match strip_paren(e) {
        Expr::Path(p) => p.path.get_ident(),
        _ => None,
    }
}

/// The method write `m` is, if it is one.
pub(super) fn view_write(m: &syn::ExprMethodCall) -> Option<MethodWrite<'_>> {
    let method = m.method.to_string();
    if !WRITE_METHODS.contains(&(method.as_str(), m.args.len())) {
        return None;
    }
    if let Some(name) = binding(&m.receiver) {
        return Some(MethodWrite { name, view: None });
    }
    let Expr::MethodCall(view) = strip_paren(&m.receiver) else {
        return None;
    };
    let (_, op, read) = WRITE_VIEWS.iter().find(|(name, ..)| view.method == name)?;
    match (binding(&view.receiver), view.args.first()) {
        (Some(name), Some(arg)) if view.args.len() == 1 => Some(MethodWrite {
            name,
            view: Some((*op, arg, read)),
        }),
        _ => None,
    }
}

const ASSIGN_HINT: &str = "only a binding of the function, an element of an array it made (`y[i] = ...;`) or a row or column through `y.row_mut(i).assign(&v)` can be assigned; a field cannot: build a new value instead";

impl Lowerer<'_> {
    /// `x = e;` and `x op= e;`: the name is bound to a new node (SSA renaming),
    /// in the scope where it was declared. The value of the assignment is `()`,
    /// so the node returned stands for nothing.
    pub(super) fn assign(
        &mut self,
        place: &Expr,
        op: Option<Op>,
        value: &Expr,
        whole: &Expr,
    ) -> NodeId {
        let (name, element) = match strip_paren(place) {
            Expr::Path(p) if p.qself.is_none() && p.path.get_ident().is_some() => {
                (p.path.get_ident().expect("checked").to_string(), None)
            }
            Expr::Index(i) if written(place).is_some() => (
                written(place).expect("checked").to_string(),
                Some(&*i.index),
            ),
            _ => {
                self.cx.error_at(place, ASSIGN_HINT);
                return self.error_node(whole.span());
            }
        };
        let Some(scope) = self
            .scopes
            .iter()
            .rposition(|s| s.names.contains_key(&name))
        else {
            self.cx
                .error_at(place, format!("`{name}` is not a binding of this function"));
            return self.error_node(whole.span());
        };
        if self.scopes[scope].depth != self.outer.len() {
            // A loop carries every name its body assigns, so this cannot happen.
            self.cx
                .error_at(place, "this assignment is not supported here");
            return self.error_node(whole.span());
        }
        let outer = std::mem::replace(&mut self.base, name.clone());
        let before = self.graph.len();
        if let Some(index) = element {
            // `y[i] op= e`: the array's new value, with the element set.
            let old = self.scopes[scope].names[&name];
            let index = self.const_arg(index, "an index written to");
            let rhs = self.expr(value);
            let e = match op {
                None => rhs,
                Some(op) => {
                    let read = self.add(
                        Node::Op {
                            op: Op::Index,
                            inputs: vec![old],
                            consts: vec![index.clone()],
                        },
                        self.temp(),
                        whole.span(),
                        self.varying[old.index()],
                    );
                    self.op(op, vec![read, rhs], vec![], whole.span())
                }
            };
            let id = self.op(Op::SetIndex, vec![old, e], vec![index], whole.span());
            return self.rebind(scope, name, outer, before, id, whole);
        }
        let rhs = self.expr(value);
        let id = match op {
            None => rhs,
            Some(op) => {
                let old = self.scopes[scope].names[&name];
                // In the copy over duals, a float of the copy's type and a
                // constant of the original's (`t += self.at(i)`): an op,
                // which reads the constant as `__F`.
                let mixed =
                    self.generic_copy() && self.known_float(old) && self.may_be_original(rhs);
                if self.rust_arithmetic(&[old, rhs]) && !mixed {
                    // `k += 1` on an integer: Rust's `k + 1`.
                    let symbol = op.def().name;
                    let text = quote::ToTokens::to_token_stream(value);
                    // The right side first, as `x op= e` evaluates it before
                    // it takes `x` (`e` may read `x`).
                    // `t * e` moves `t`: where a rule may read the old
                    // value (`y = p * &t; t *= 2.0`), or the region's
                    // input is read outside it, the old value is cloned.
                    let lhs = if self.old_value_read(old) {
                        format!("{name}.clone()")
                    } else {
                        name.clone()
                    };
                    let sum = match strip_paren(value) {
                        Expr::Lit(_) | Expr::Path(_) => format!("{lhs} {symbol} {text}"),
                        _ => format!("{{ let __rhs = {text}; {lhs} {symbol} __rhs }}"),
                    };
                    match syn::parse_str::<Expr>(&sum) {
                        Ok(e) => self.constant(&e, ""),
                        Err(_) => self.op(op, vec![old, rhs], vec![], whole.span()),
                    }
                } else {
                    self.op(op, vec![old, rhs], vec![], whole.span())
                }
            }
        };
        self.rebind(scope, name, outer, before, id, whole)
    }

    /// The name bound to its new value after an assignment.
    fn rebind(
        &mut self,
        scope: usize,
        name: String,
        outer: String,
        before: usize,
        id: NodeId,
        whole: &Expr,
    ) -> NodeId {
        self.base = outer;
        if id.index() >= before {
            self.graph.nodes[id.index()].name = Name::User(name.clone());
        }
        self.scopes[scope].bind(name, id, Form::Value);
        self.error_node(whole.span())
    }

    /// `y.row_mut(i).assign(&v)` and the other method writes: `y`'s new
    /// value, the part set (`assign`, `fill`), added to (`scaled_add(a, &v)`
    /// is the part plus `a * v`) or mapped (`mapv_inplace(f)` is the part's
    /// `mapv(f)`); the whole array where there is no view.
    pub(super) fn write_view(&mut self, m: &syn::ExprMethodCall) -> Option<NodeId> {
        let w = view_write(m)?;
        if m.method == "map_inplace" {
            return Some(self.map_inplace(m));
        }
        let whole = Expr::MethodCall(m.clone());
        let name = w.name.to_string();
        let Some(scope) = self
            .scopes
            .iter()
            .rposition(|s| s.names.contains_key(&name))
        else {
            self.cx.error_at(
                &m.receiver,
                format!("`{name}` is not a binding of this function"),
            );
            return Some(self.error_node(whole.span()));
        };
        let outer = std::mem::replace(&mut self.base, name.clone());
        let before = self.graph.len();
        let old = self.scopes[scope].names[&name];
        // The part's value before the write, as the body would read it.
        let binding = w.name;
        let part: Expr = match w.view {
            Some((_, arg, read)) => {
                let read = Ident::new(read, m.method.span());
                syn::parse_quote!(#binding.#read(#arg))
            }
            None => syn::parse_quote!(#binding),
        };
        let args: Vec<&Expr> = m.args.iter().collect();
        let method = m.method.to_string();
        let new: Expr = match (method.as_str(), &args[..]) {
            ("scaled_add", [a, v]) => syn::parse_quote!(&#part + &(#a * #v)),
            ("mapv_inplace", [f]) => syn::parse_quote!(#part.mapv(#f)),
            (_, [v]) => (*v).clone(),
            _ => unreachable!("checked by `view_write`"),
        };
        let set = matches!(method.as_str(), "assign" | "fill");
        let id = match w.view {
            Some((op, arg, _)) => {
                let at = match op.def().method_args {
                    [crate::vocab::Arg::SliceInfo(what)] => self.slice_arg(arg, what),
                    _ => self.const_arg(arg, "the row or column written to"),
                };
                let v = self.expr(&new);
                self.op(op, vec![old, v], vec![at], m.method.span())
            }
            None if set => {
                let v = self.expr(&new);
                self.op(Op::SetAll, vec![old, v], vec![], m.method.span())
            }
            None => self.expr(&new),
        };
        Some(self.rebind(scope, name, outer, before, id, &whole))
    }

    /// `for var in start..end { body }`: the body becomes a region of its own,
    /// the variables it assigns are carried from one iteration to the next.
    pub(super) fn for_loop(&mut self, f: &syn::ExprForLoop) -> NodeId {
        let span = f.for_token.span();
        if let Some(id) = self.for_with_exits(f) {
            return id;
        }
        if !is_range(&f.expr) {
            if let Some(id) = self.iter_loop(f) {
                return id;
            }
        }
        let var = match &*f.pat {
            Pat::Ident(pi) if pi.by_ref.is_none() && pi.subpat.is_none() => Some(pi.ident.clone()),
            Pat::Wild(_) => None,
            other => {
                self.cx.error_at(
                    other,
                    "a loop variable must be a plain name, as in `for i in 0..n`",
                );
                return self.error_node(span);
            }
        };
        // `(a..b).rev()`, `(a..b).step_by(k)`, in any order.
        let mut range = strip_paren(&f.expr);
        let mut adapters = Vec::new();
        while let Expr::MethodCall(m) = range {
            match (m.method.to_string().as_str(), m.args.len()) {
                ("rev", 0) => adapters.push(Adapter::Rev),
                ("step_by", 1) => adapters.push(Adapter::StepBy(Box::new(
                    self.const_arg(&m.args[0], "the step of `step_by`"),
                ))),
                _ => break,
            }
            range = strip_paren(&m.receiver);
        }
        adapters.reverse();
        let (start, end, inclusive) = match range {
            Expr::Range(r) => match (&r.start, &r.end) {
                // Without parentheses: `(i + 1)..n` is bound as
                // `let j_start = i + 1;` (rustc's `unused_parens` otherwise).
                (Some(a), Some(b)) => (
                    self.const_arg(strip_paren(a), "the start of a loop's range"),
                    self.const_arg(strip_paren(b), "the end of a loop's range"),
                    matches!(r.limits, syn::RangeLimits::Closed(_)),
                ),
                _ => {
                    self.cx.error_at(
                        r,
                        "a loop needs a range with both ends, as in `for i in 0..n`",
                    );
                    return self.error_node(span);
                }
            },
            other => {
                self.cx.error_at(
                    other,
                    "#[differentiable] supports `for` loops over a range, `for i in a..b` (also `(a..b).rev()` and `.step_by(k)`); loop over the indices of the data (`for i in 0..xs.len()`)",
                );
                return self.error_node(span);
            }
        };
        let header = Header {
            var,
            start,
            end,
            inclusive,
            adapters,
            cond: None,
        };
        self.looped(span, &f.body, header)
    }

    /// `while cond { body }`: a loop without a range, which counts its
    /// iterations; `cond` may compare differentiable values (the number of
    /// iterations is a constant of the gradient).
    pub(super) fn while_loop(&mut self, w: &syn::ExprWhile) -> NodeId {
        let span = w.while_token.span();
        if let Expr::Let(l) = strip_paren(&w.cond) {
            self.cx.error_at(l, "`while let` is not supported in a differentiable function; loop with `while cond` or over a range");
            return self.error_node(span);
        }
        if let Some(id) = self.while_with_exits(w) {
            return id;
        }
        if let Some(e) = side_effect(&w.cond) {
            self.cx.error_at(e, "a `while` condition must not change anything (an assignment, a `&mut`); compute the condition from the loop's values");
            return self.error_node(span);
        }
        let zero: Expr = syn::parse_quote!(0);
        let header = Header {
            var: None,
            start: ConstArg::plain(zero.clone()),
            end: ConstArg::plain(zero),
            inclusive: false,
            adapters: Vec::new(),
            cond: Some((*w.cond).clone()),
        };
        self.looped(span, &w.body, header)
    }

    /// A loop of either kind: its body a region, the variables it assigns carried.
    fn looped(&mut self, span: Span, block: &syn::Block, h: Header) -> NodeId {
        let Header {
            var,
            start,
            end,
            inclusive,
            adapters,
            cond,
        } = h;
        // Every name the body assigns that exists before the loop is carried.
        let mut assigned = Assigned::default();
        assigned.visit_block(block);
        let mut carried: Vec<(String, NodeId)> = Vec::new();
        for name in assigned.names {
            if carried.iter().any(|(n, _)| *n == name) {
                continue;
            }
            if let Some(id) = self.lookup(&name) {
                carried.push((name, id));
            }
        }
        // A carried value that becomes differentiable in the body is
        // differentiable from the first iteration on: lower again until stable.
        let mut carried_varying: Vec<bool> = carried
            .iter()
            .map(|(_, id)| self.varying[id.index()])
            .collect();
        let mut lifted = vec![false; carried.len()];
        let (body, captures, out_varying, cond) = loop {
            // In the copy over duals, a constant of the original's float type
            // (`let mut u = self.at(3);`, `let mut c = PI;`) carried by a loop
            // that makes it a float of the copy, `__F` from the first
            // iteration on.
            for (k, (_, id)) in carried.iter_mut().enumerate() {
                let float = carried_varying[k] || self.known_float(*id);
                if self.generic_copy() && float && !lifted[k] && self.may_be_original(*id) {
                    *id = self.lifted(*id, span);
                    lifted[k] = true;
                }
            }
            let saved = std::mem::take(&mut *self.cx);
            let result = self.loop_body(
                span,
                block,
                cond.as_ref(),
                var.as_ref(),
                &carried,
                &carried_varying,
            );
            let pass = std::mem::replace(&mut *self.cx, saved);
            let mut changed = false;
            for (k, v) in result.2.iter().enumerate() {
                if *v && !carried_varying[k] {
                    carried_varying[k] = true;
                    changed = true;
                }
            }
            if !changed {
                self.cx.merge(pass);
                break result;
            }
        };
        let inputs: Vec<NodeId> = carried.iter().map(|(_, id)| *id).chain(captures).collect();
        let ncarried = carried.len();
        let lp = Loop {
            var,
            start,
            end,
            inclusive,
            adapters,
            cond,
            inputs,
            carried: ncarried,
            body,
        };
        let loop_id = self.add(
            Node::Loop(Box::new(lp)),
            Name::Temp("loop".to_owned()),
            span,
            false,
        );
        let names: Vec<String> = carried.iter().map(|(name, _)| name.clone()).collect();
        let varying: Vec<bool> = (0..names.len())
            .map(|k| carried_varying[k] || out_varying[k])
            .collect();
        self.bind_results(loop_id, &names, &varying, span);
        self.error_node(span)
    }

    /// The results of a loop or a branch: one `Out` node per variable it
    /// assigns, which the name is bound to from now on.
    pub(super) fn bind_results(
        &mut self,
        of: NodeId,
        names: &[String],
        varying: &[bool],
        span: Span,
    ) {
        for (k, name) in names.iter().enumerate() {
            let out = self.add(
                Node::Out { of, k },
                Name::User(name.clone()),
                span,
                varying[k],
            );
            if let Some(scope) = self.scopes.iter().rposition(|s| s.names.contains_key(name)) {
                self.scopes[scope].bind(name.clone(), out, Form::Value);
            }
        }
    }

    /// Starts a new graph (a region) for a loop body or a branch arm, setting
    /// the enclosing one aside.
    pub(super) fn push_frame(&mut self) {
        let parent = Frame {
            graph: std::mem::take(&mut self.graph),
            varying: std::mem::take(&mut self.varying),
            captures: std::mem::take(&mut self.captures),
            capture_map: std::mem::take(&mut self.capture_map),
        };
        self.outer.push(parent);
    }

    /// Ends the current region: returns its graph and its captures, and goes
    /// back to the enclosing graph.
    pub(super) fn pop_frame(&mut self) -> (Graph, Vec<(NodeId, NodeId)>) {
        let parent = self.outer.pop().expect("the enclosing frame");
        let graph = std::mem::replace(&mut self.graph, parent.graph);
        self.varying = parent.varying;
        let captures = std::mem::replace(&mut self.captures, parent.captures);
        self.capture_map = parent.capture_map;
        (graph, captures)
    }

    /// `if cond { a } else { b }`, as a statement (`with_value` false) or as an
    /// expression. Each arm is a region; the variables either arm assigns are
    /// results of the branch, and so is its value.
    pub(super) fn branch(&mut self, i: &syn::ExprIf, with_value: bool) -> NodeId {
        let span = i.if_token.span();
        if let Expr::Let(l) = &*i.cond {
            self.cx.error_at(l, "`if let` is not supported in a differentiable function; compare values with `if a < b`");
            return self.error_node(span);
        }
        if with_value && i.else_branch.is_none() {
            self.cx
                .error(span, "an `if` used as a value needs an `else` branch");
            return self.error_node(span);
        }
        let Some(cond) = self.condition_tokens(&i.cond) else {
            return self.error_node(span);
        };
        let mut assigned = Assigned::default();
        assigned.visit_block(&i.then_branch);
        if let Some((_, e)) = &i.else_branch {
            assigned.visit_expr(e);
        }
        let mut names: Vec<String> = Vec::new();
        for name in assigned.names {
            if !names.contains(&name) && self.scopes.iter().any(|s| s.names.contains_key(&name)) {
                names.push(name);
            }
        }
        let arms = |l: &mut Self, lift: &[bool]| {
            l.lift_arms = lift.to_vec();
            let then = l.arm(ArmBody::Block(&i.then_branch), &names, with_value);
            l.lift_arms = lift.to_vec();
            let otherwise = match &i.else_branch {
                Some((_, e)) => l.arm(ArmBody::Expr(e), &names, with_value),
                None => l.arm(ArmBody::Empty, &names, false),
            };
            (then, otherwise)
        };
        let before = std::mem::take(&mut *self.cx);
        let (mut then, mut otherwise) = arms(self, &[]);
        // In the copy over duals, a result that one arm leaves a value of
        // the original's types (`self.at(0)`, `PI`) and the other does not
        // (a float of the copy, whose constants are `__F` too): the arms
        // again, that value read as `__F` (see `lifted_outputs`).
        if self.generic_copy() {
            let original = |l: &Self, a: &(Region, Vec<NodeId>, Vec<bool>), k: usize| {
                l.arm_original(&a.0, &a.1, a.0.outputs[k])
            };
            let mixed: Vec<bool> = (0..then.0.outputs.len().min(otherwise.0.outputs.len()))
                .map(|k| original(self, &then, k) != original(self, &otherwise, k))
                .collect();
            if mixed.contains(&true) {
                // The first pass's errors are the second's.
                *self.cx = crate::ctxt::Ctxt::default();
                (then, otherwise) = arms(self, &mixed);
            }
        }
        let pass = std::mem::replace(&mut *self.cx, before);
        self.cx.merge(pass);
        let (then_region, then_inputs, then_varying) = then;
        let (else_region, else_inputs, else_varying) = otherwise;
        let outputs = names.len() + usize::from(with_value);
        let b = Branch {
            cond,
            arms: [then_region, else_region],
            arm_inputs: [then_inputs, else_inputs],
            outputs,
        };
        let id = self.add(
            Node::Branch(Box::new(b)),
            Name::Temp("branch".to_owned()),
            span,
            false,
        );
        let varying: Vec<bool> = (0..names.len())
            .map(|k| then_varying[k] || else_varying[k])
            .collect();
        self.bind_results(id, &names, &varying, span);
        if with_value {
            let k = names.len();
            let varying = then_varying[k] || else_varying[k];
            self.add(Node::Out { of: id, k }, self.temp(), i.span(), varying)
        } else {
            self.error_node(span)
        }
    }

    /// One arm of a branch as a region: the enclosing nodes behind its inputs,
    /// and which of its results vary.
    pub(super) fn arm(
        &mut self,
        body: ArmBody<'_>,
        names: &[String],
        with_value: bool,
    ) -> (Region, Vec<NodeId>, Vec<bool>) {
        // For this arm's results only, not those of what it nests.
        let lift = std::mem::take(&mut self.lift_arms);
        self.push_frame();
        // The names the arms assign are bound in the arm's own scope, so that
        // an assignment rebinds them here and the arm's results can be read.
        let mut scope = HashMap::new();
        for name in names {
            if let Some(id) = self.lookup(name) {
                scope.insert(name.clone(), id);
            }
        }
        self.push_scope(Scope::new(self.outer.len(), scope));
        let value = match body {
            ArmBody::Block(b) => self.block(b, false, with_value),
            ArmBody::Expr(e) => match e {
                Expr::Block(b) => self.block(&b.block, false, with_value),
                Expr::If(i) => self.branch(i, with_value),
                Expr::Match(m) => self.match_expr(m, with_value),
                other => {
                    let v = self.expr(other);
                    if with_value {
                        v
                    } else {
                        self.error_node(other.span())
                    }
                }
            },
            ArmBody::Empty => self.error_node(Span::call_site()),
        };
        let scope = self.scopes.pop().expect("the arm's scope").names;
        let mut outputs: Vec<NodeId> = Vec::new();
        for name in names {
            match scope.get(name) {
                Some(id) => outputs.push(*id),
                None => outputs.push(self.error_node(Span::call_site())),
            }
        }
        if with_value {
            outputs.push(value);
        }
        let outputs = self.lifted_outputs(outputs, &lift);
        let out_varying = outputs.iter().map(|o| self.varying[o.index()]).collect();
        let (graph, captures) = self.pop_frame();
        let region = Region {
            graph,
            inputs: captures.iter().map(|c| c.1).collect(),
            outputs,
        };
        (region, captures.iter().map(|c| c.0).collect(), out_varying)
    }

    /// Lowers a loop body into a region: returns it, the enclosing nodes it
    /// captures (after the carried ones) and which carried values vary at its end.
    #[allow(
        clippy::type_complexity,
        reason = "the region and what the loop needs of it"
    )]
    pub(super) fn loop_body(
        &mut self,
        span: Span,
        block: &syn::Block,
        cond: Option<&Expr>,
        var: Option<&Ident>,
        carried: &[(String, NodeId)],
        carried_varying: &[bool],
    ) -> (Region, Vec<NodeId>, Vec<bool>, Option<ConstArg>) {
        self.push_frame();
        let depth = self.outer.len();
        let mut scope = HashMap::new();
        for (k, (name, parent_id)) in carried.iter().enumerate() {
            let id = self.add(
                Node::Input(k),
                Name::User(format!("{name}_in")),
                span,
                carried_varying[k],
            );
            self.captures.push((*parent_id, id));
            scope.insert(name.clone(), id);
        }
        if let Some(v) = var {
            let id = self.add(Node::LoopVar, Name::User(v.to_string()), v.span(), false);
            scope.insert(v.to_string(), id);
        }
        self.push_scope(Scope::new(depth, scope));
        // A `while` condition reads the iteration's starting values.
        let cond = cond.map(|c| {
            self.condition_tokens(c)
                .unwrap_or_else(|| ConstArg::plain(syn::parse_quote!(false)))
        });
        let outer_base = self.base.clone();
        self.block(block, false, false);
        self.base = outer_base;
        let scope = self.scopes.pop().expect("the loop's scope").names;
        let outputs: Vec<NodeId> = carried.iter().map(|(name, _)| scope[name]).collect();
        let outputs = self.lifted_outputs(outputs, &[]);
        let out_varying = outputs.iter().map(|o| self.varying[o.index()]).collect();
        let (graph, captures) = self.pop_frame();
        let region = Region {
            graph,
            inputs: captures.iter().map(|c| c.1).collect(),
            outputs,
        };
        let captured = captures[carried.len()..].iter().map(|c| c.0).collect();
        (region, captured, out_varying, cond)
    }
}

/// A loop's header: its variable and range, or its condition.
struct Header {
    var: Option<Ident>,
    start: ConstArg,
    end: ConstArg,
    inclusive: bool,
    adapters: Vec<Adapter>,
    cond: Option<Expr>,
}

/// An assignment or a `&mut` in an expression, if there is one.
pub(super) fn side_effect(e: &Expr) -> Option<&Expr> {
    struct Find<'a>(Option<&'a Expr>);
    impl<'a> Visit<'a> for Find<'a> {
        fn visit_expr(&mut self, e: &'a Expr) {
            if self.0.is_some() {
                return;
            }
            match e {
                Expr::Assign(_) => self.0 = Some(e),
                Expr::Binary(b) if is_compound(&b.op) => self.0 = Some(e),
                Expr::Reference(r) if r.mutability.is_some() => self.0 = Some(e),
                _ => syn::visit::visit_expr(self, e),
            }
        }
    }
    let mut f = Find(None);
    f.visit_expr(e);
    f.0
}

/// `+=` and the other compound assignments (the syntax reader's).
pub(super) use crate::ast::reads::is_compound;

/// A range, maybe reversed or stepped: `a..b`, `(a..b).rev()`.
fn is_range(e: &Expr) -> bool {
    match strip_paren(e) {
        Expr::Range(_) => true,
        Expr::MethodCall(m) if m.method == "rev" || m.method == "step_by" => is_range(&m.receiver),
        _ => false,
    }
}
