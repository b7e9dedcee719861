//! Lowering: the syn body becomes a [`Graph`]. Every construct outside the
//! vocabulary is reported here, with a span on the user's tokens and a hint at
//! what is supported; lowering goes on after an error so that all of them are
//! reported in one build.
//!
//! `mod.rs` holds the lowerer's state and the statements and expressions;
//! `ops.rs` the ops of the table and calls, `closures.rs` closures mapped
//! over elements, `folds.rs` folds along an axis to a maximum or a minimum,
//! `control.rs` assignments, loops and branches (each a region of its own),
//! `consts.rs` the expressions the macro does not look into, `values.rs`
//! literals and what kind of value a node holds.

mod binds;
mod closures;
mod consts;
mod containers;
mod control;
mod exits;
mod folds;
mod iters;
mod lift;
mod matches;
pub mod models;
mod ops;
mod returns;
mod shape_fns;
mod tuples;
mod values;
mod views;

use crate::ast::{Function, Kind};
use crate::ctxt::Ctxt;
use crate::graph::{ConstArg, Form, Graph, Lowered, Name, Node, NodeId};
use crate::vocab::Op;
use proc_macro2::Span;
use quote::{quote, ToTokens};
use std::collections::HashMap;
use syn::spanned::Spanned;
use syn::{BinOp, Block, Expr, Pat, Stmt, UnOp};

/// How deep an expression may nest (a method call counts 3).
const MAX_DEPTH: usize = 3_000;

use binds::Fresh;

/// The graph being built for a loop body's enclosing code, set aside while
/// the body is lowered.
#[derive(Default)]
struct Frame {
    graph: Graph,
    varying: Vec<bool>,
    /// For each `Input(j)` node: (the node in the enclosing graph, the input node).
    captures: Vec<(NodeId, NodeId)>,
    /// Enclosing node -> its `Input` node, for values captured (not carried).
    capture_map: HashMap<NodeId, NodeId>,
}

struct Lowerer<'a> {
    func: &'a Function,
    graph: Graph,
    varying: Vec<bool>,
    captures: Vec<(NodeId, NodeId)>,
    capture_map: HashMap<NodeId, NodeId>,
    /// The enclosing graphs, outermost first, while a loop body is lowered.
    outer: Vec<Frame>,
    /// Each scope with the depth (loop nesting) of the graph its nodes belong to.
    scopes: Vec<Scope>,
    cx: &'a mut Ctxt,
    env: &'a Env,
    /// In the copy over duals, the next arm lowered again for its branch:
    /// which of its results of the original's types to read as `__F` (see
    /// `control::branch`).
    lift_arms: Vec<bool>,
    /// The name of the binding being lowered, for naming its intermediates.
    base: String,
    /// How deep the expression being lowered is nested, to stop with an error
    /// long before the stack would overflow.
    depth: usize,
    /// The components of a tuple output, once the final expression is lowered.
    components: Option<Vec<NodeId>>,
    /// The fields of models read in constants (see `models`).
    constant_fields: Vec<(Expr, Span)>,
    /// In the copy over duals, the names of the differentiable functions
    /// called (see [`Env::dual`]).
    dual_calls: std::collections::BTreeSet<String>,
}

/// What lowering a closure's body as a function of its own needs to know of
/// the expansion: the facade's path and the options.
pub struct Env {
    pub krate: proc_macro2::TokenStream,
    pub opts: crate::args::Options,
    /// Lowering the copy over duals of a `jvp`/`hvp` function: a call of a
    /// differentiable function calls its copy (`NAME_dual`), and the names
    /// called are kept (see [`Lowered::dual_calls`]).
    pub dual: bool,
    /// In the copy over duals, the module of the names of the functions it
    /// calls (`crate::generic::names_module`): a closure's body, lowered as a
    /// function of its own, names the enclosing copy's.
    pub names: Option<syn::Ident>,
}

impl Default for Env {
    fn default() -> Env {
        Env {
            krate: quote!(::backprop),
            opts: crate::args::Options::default(),
            dual: false,
            names: None,
        }
    }
}

/// Lowers the body of `func`; `None` when an error was reported.
#[cfg(test)]
pub fn lower(func: &Function, cx: &mut Ctxt) -> Option<Lowered> {
    lower_with(func, cx, &Env::default())
}

/// Lowers the body of `func` in an expansion of `env`; `None` when an
/// error was reported.
pub fn lower_with(func: &Function, cx: &mut Ctxt, env: &Env) -> Option<Lowered> {
    let mut l = Lowerer {
        func,
        graph: Graph::default(),
        varying: Vec::new(),
        captures: Vec::new(),
        capture_map: HashMap::new(),
        outer: Vec::new(),
        scopes: vec![Scope::new(0, HashMap::new())],
        cx,
        env,
        base: "out".to_owned(),
        depth: 0,
        components: None,
        constant_fields: Vec::new(),
        dual_calls: Default::default(),
        lift_arms: Vec::new(),
    };
    for (i, p) in func.params.iter().enumerate() {
        // In the copy over duals every float is a dual, one outside
        // `wrt(..)` too (its tangent zero): all are the macro's values, so
        // that no arithmetic on floats is left to Rust's spelling, which
        // ndarray has for `f64` only.
        // A constant `self` stays one: its fields are read as constants,
        // each lifted to `__F` where an op reads it (`may_be_original`).
        // Nor does constant data in a plain container (`ys: &[f64]` outside
        // `wrt(..)`): Rust's spellings read it (`ys.first()`), its floats
        // the copy's `__F` already.
        let constant_data = !p.differentiable && (p.ident == "self" || p.kind.plain().is_some());
        let float = !matches!(p.kind, Kind::Constant) && !constant_data;
        let id = l.add(
            Node::Param(i),
            Name::User(p.ident.to_string()),
            p.ident.span(),
            p.differentiable || (env.dual && float),
        );
        l.scopes[0].names.insert(p.ident.to_string(), id);
    }
    let before = l.graph.len();
    let value = match returns::rewrite_returns(&func.item) {
        Ok(body) => {
            containers::check_nested(func, &body, l.cx);
            l.block_value(&body, true)
        }
        Err((span, message)) => {
            l.cx.error(span, message);
            l.error_node(span)
        }
    };
    let outputs = l.components.take().unwrap_or_else(|| vec![value]);
    // A constant place (`self.q[3]`), which its local borrows, copied out.
    let outputs: Vec<NodeId> = outputs.into_iter().map(|o| l.copied_place(o)).collect();
    if let [output] = outputs[..] {
        if output.index() >= before && matches!(l.graph.get(output).name, Name::Temp(_)) {
            l.graph.nodes[output.index()].name = Name::Output;
        }
    }
    for &output in &outputs {
        if let Node::Int(t) = &l.graph.get(output).node {
            let span = l.graph.get(output).span;
            let text = t.to_string();
            l.cx.error(span, format!("the value of a differentiable function must be a float; write the literal with a decimal point (`{text}.0`)"));
        }
    }
    if matches!(l.graph.get(value).node, Node::Error) && !l.cx.has_errors() {
        let span = l.graph.get(value).span;
        l.cx.error(span, "the body of a differentiable function must end with an expression: the value to differentiate");
    }
    if l.cx.has_errors() {
        return None;
    }
    containers::fixed_value(&mut l.graph, func, &outputs);
    Some(Lowered {
        graph: l.graph,
        outputs,
        constant_fields: l.constant_fields,
        dual_calls: l.dual_calls,
    })
}

/// The bindings of one block, arm or loop body.
struct Scope {
    /// The depth of the region (graph) the scope belongs to.
    depth: usize,
    /// The node each name is bound to.
    names: HashMap<String, NodeId>,
    /// The bindings that are a reference (`let r = &t;`) or a view
    /// (`let v = p.view();`) of their node, rather than the value itself.
    forms: HashMap<String, Form>,
    /// The names a `let` bound to a container of one axis written as Rust's
    /// (`vec![0.0; n]`, `[a, b]`): Rust code passed through reads them as
    /// slices (see [`containers::slice_methods`]), whatever the generated
    /// code holds them as.
    plain: std::collections::HashSet<String>,
}

impl Scope {
    fn new(depth: usize, names: HashMap<String, NodeId>) -> Scope {
        Scope {
            depth,
            names,
            forms: HashMap::new(),
            plain: std::collections::HashSet::new(),
        }
    }

    /// Binds (or rebinds) `name` to `id`, held in `form`.
    fn bind(&mut self, name: String, id: NodeId, form: Form) {
        match form {
            Form::Value => self.forms.remove(&name),
            form => self.forms.insert(name.clone(), form),
        };
        self.names.insert(name, id);
    }
}

/// Whether a method call is `a.view()` (a method that sees through to its
/// receiver).
fn is_view(m: &syn::ExprMethodCall) -> bool {
    m.args.is_empty()
        && crate::vocab::TRANSPARENT_METHODS
            .iter()
            .any(|t| m.method == t)
}

/// Whether a place is a field, or an element of one (`data.x`,
/// `model.mats[b]`, `data.xs[i][j]`).
fn of_field(e: &Expr) -> bool {
    match strip_paren(e) {
        Expr::Field(_) => true,
        Expr::Index(i) => of_field(&i.expr),
        _ => false,
    }
}

/// The form of a `let`'s value: `&e` is a reference, `e.view()` a view.
fn form_of(e: &Expr) -> Form {
    match strip_paren(e) {
        Expr::Reference(r) if r.mutability.is_none() => Form::Ref,
        Expr::MethodCall(m) if is_view(m) => Form::View,
        _ => Form::Value,
    }
}

/// What an arm of a branch is made of.
enum ArmBody<'a> {
    Block(&'a Block),
    Expr(&'a Expr),
    /// A missing `else`.
    Empty,
}

impl Lowerer<'_> {
    fn add(&mut self, node: Node, name: Name, span: Span, varying: bool) -> NodeId {
        let id = self.graph.add(node, name, span);
        self.varying.push(varying);
        id
    }

    fn temp(&self) -> Name {
        Name::Temp(self.base.clone())
    }

    fn error_node(&mut self, span: Span) -> NodeId {
        self.add(Node::Error, Name::Temp(self.base.clone()), span, false)
    }

    /// The node a name stands for in the graph being built; a value of an
    /// enclosing graph is captured as an `Input` of each loop body in between.
    /// Enters a scope whose names rebind those of the enclosing ones (a
    /// loop's carried variables, an arm's): each keeps what its binding is
    /// ([`Scope::plain`]).
    fn push_scope(&mut self, mut scope: Scope) {
        let plain: Vec<String> = scope
            .names
            .keys()
            .filter(|n| self.plain_local(n))
            .cloned()
            .collect();
        scope.plain.extend(plain);
        self.scopes.push(scope);
    }

    fn lookup(&mut self, name: &str) -> Option<NodeId> {
        let (depth, id) = self
            .scopes
            .iter()
            .rev()
            .find_map(|s| s.names.get(name).map(|id| (s.depth, *id)))?;
        let mut id = id;
        for d in depth + 1..=self.outer.len() {
            id = self.capture_into(d, id);
        }
        Some(id)
    }

    /// How a name holds its node: the value, a reference to it, or a view.
    fn form(&self, name: &str) -> Form {
        match self.scopes.iter().rposition(|s| s.names.contains_key(name)) {
            Some(k) => self.scopes[k]
                .forms
                .get(name)
                .copied()
                .unwrap_or(Form::Value),
            None => Form::Value,
        }
    }

    /// The `Input` node of the graph at depth `d` for node `parent` of the graph at `d - 1`.
    fn capture_into(&mut self, d: usize, parent: NodeId) -> NodeId {
        let parent_varying = self.outer[d - 1].varying[parent.index()];
        let cur = self.outer.len();
        let (graph, varying, captures, map) = if d == cur {
            (
                &mut self.graph,
                &mut self.varying,
                &mut self.captures,
                &mut self.capture_map,
            )
        } else {
            let f = &mut self.outer[d];
            (
                &mut f.graph,
                &mut f.varying,
                &mut f.captures,
                &mut f.capture_map,
            )
        };
        if let Some(id) = map.get(&parent) {
            return *id;
        }
        let span = Span::call_site();
        let id = graph.add(
            Node::Input(captures.len()),
            Name::Temp("in".to_owned()),
            span,
        );
        varying.push(parent_varying);
        captures.push((parent, id));
        map.insert(parent, id);
        id
    }

    /// The node behind a chain of loop inputs: what a captured value is.
    fn origin(&self, id: NodeId) -> &Node {
        let (depth, id) = self.origin_at(self.outer.len(), id);
        &self.graph_at(depth).get(id).node
    }

    /// The node a region's input stands for, followed out of the regions
    /// from the graph at `depth`: the graph it is in, and its id there.
    fn origin_at(&self, mut depth: usize, mut id: NodeId) -> (usize, NodeId) {
        loop {
            let captures = if depth == self.outer.len() {
                &self.captures
            } else {
                &self.outer[depth].captures
            };
            match &self.graph_at(depth).get(id).node {
                Node::Input(j) if depth > 0 => {
                    id = captures[*j].0;
                    depth -= 1;
                }
                _ => return (depth, id),
            }
        }
    }

    /// The graph of the region at `depth` (the current one at the deepest).
    fn graph_at(&self, depth: usize) -> &Graph {
        if depth == self.outer.len() {
            &self.graph
        } else {
            &self.outer[depth].graph
        }
    }

    /// The block's statements, then its final expression as its value.
    fn block_value(&mut self, block: &Block, is_body: bool) -> NodeId {
        self.block(block, is_body, true)
    }

    /// A block; `needs_value` is false for a block in statement position.
    fn block(&mut self, block: &Block, is_body: bool, needs_value: bool) -> NodeId {
        self.scopes
            .push(Scope::new(self.outer.len(), HashMap::new()));
        let mut value = None;
        // Rewritten statements are copies: borrowed as they are otherwise
        // (the dual copy finds calls by their address in the body).
        let valued = self.tuple_value(&block.stmts, is_body);
        let stmts = valued.as_deref().unwrap_or(&block.stmts);
        let placed = self.named_places(stmts);
        let stmts = placed.as_deref().unwrap_or(stmts);
        let mut stmts = match self.named_views(stmts) {
            Some(v) => std::borrow::Cow::Owned(v),
            None => std::borrow::Cow::Borrowed(stmts),
        };
        let n = stmts.len();
        for k in 0..n {
            self.tuple_let_at(&mut stmts, k);
            let stmt = &stmts[k];
            let last = k + 1 == n;
            match stmt {
                Stmt::Expr(e, None) if last && needs_value => {
                    if is_body {
                        self.base = "out".to_owned();
                    }
                    value = Some(match &self.func.tuple {
                        Some(arrays) if is_body => self.tuple_output(e, arrays.len()),
                        _ => self.expr(e),
                    })
                }
                _ => self.stmt(stmt),
            }
        }
        self.scopes.pop();
        match value {
            Some(v) => v,
            None if !needs_value => self.error_node(block.brace_token.span.close()),
            None if matches!(block.stmts.last(), Some(Stmt::Expr(Expr::Return(_), _))) => {
                // The `return` was reported already.
                self.error_node(block.brace_token.span.close())
            }
            None => {
                let span = block.brace_token.span.close();
                if is_body {
                    self.cx.error(
                        span,
                        "the body of a differentiable function must end with an expression: the value to differentiate",
                    );
                } else {
                    self.cx.error(
                        span,
                        "this block must end with an expression: the value it stands for",
                    );
                }
                self.error_node(span)
            }
        }
    }

    fn stmt(&mut self, stmt: &Stmt) {
        match stmt {
            Stmt::Local(local) => {
                let Some(init) = &local.init else {
                    self.cx.error_at(local, "`let` without a value is not supported; bind the value where it is computed: `let x = ...;`");
                    if let Pat::Ident(pi) = &local.pat {
                        // Bound to an error, so later uses report nothing more.
                        let id = self.error_node(pi.ident.span());
                        self.scopes.last_mut().expect("a scope").names.insert(pi.ident.to_string(), id);
                    }
                    return;
                };
                if let Some((else_token, _)) = &init.diverge {
                    self.cx.error(else_token.span(), "`let ... else` is not supported in a differentiable function; bind the value with a plain `let x = ...;`");
                    return;
                }
                self.bind(&local.pat, &init.expr);
            }
            Stmt::Item(item) => self.cx.error_at(
                item,
                "items (fn, struct, use, ...) inside a differentiable function are not supported; define them outside the function",
            ),
            Stmt::Macro(m) => self.cx.error_at(&m.mac, MACRO_HINT),
            Stmt::Expr(Expr::Match(m), _) => {
                let outer = std::mem::replace(&mut self.base, "branch".to_owned());
                self.match_expr(m, false);
                self.base = outer;
            }
            Stmt::Expr(Expr::If(i), _) => {
                let outer = std::mem::replace(&mut self.base, "branch".to_owned());
                self.branch(i, false);
                self.base = outer;
            }
            Stmt::Expr(Expr::Block(b), _) if b.label.is_none() => {
                self.block(&b.block, false, false);
            }
            Stmt::Expr(e, _) => {
                let outer = std::mem::replace(&mut self.base, "unused".to_owned());
                self.expr(e);
                self.base = outer;
            }
        }
    }

    /// The final expression of a function that returns a tuple: a tuple
    /// expression, each component lowered as a value of its own (into
    /// `self.components`). Returns the first component, or an error node.
    ///
    /// Before: `(x.hypot(y), y.atan2(x))`; after: two output nodes, whose
    /// adjoints are seeded with `d_out.0` and `d_out.1`.
    fn tuple_output(&mut self, e: &Expr, n: usize) -> NodeId {
        let t = match strip_paren(e) {
            Expr::Tuple(t) if t.elems.len() == n => t,
            Expr::Tuple(t) => {
                let message = format!(
                    "this tuple has {} components where the function returns {n}; write one expression per component",
                    t.elems.len()
                );
                return self.whole_error(e, &message);
            }
            _ => {
                return self.whole_error(
                    e,
                    "a differentiable function that returns a tuple must end with a tuple expression, one component each: `(r, theta)`; a tuple bound to a name, made by a block or returned by a call is not supported there (bind a call's value with a tuple pattern first: `let (r, theta) = polar(x, y); (r, theta)`)",
                );
            }
        };
        let mut components = Vec::with_capacity(n);
        for (k, c) in t.elems.iter().enumerate() {
            self.base = format!("out_{k}");
            let before = self.graph.len();
            let id = self.expr(c);
            if id.index() >= before && matches!(self.graph.get(id).name, Name::Temp(_)) {
                self.graph.nodes[id.index()].name = Name::Component(k);
            }
            components.push(id);
        }
        self.base = "out".to_owned();
        let first = components[0];
        self.components = Some(components);
        first
    }

    /// Lowers a value expression.
    fn expr(&mut self, expr: &Expr) -> NodeId {
        // A method chain costs more stack per level than an operator tree.
        let cost = if matches!(expr, Expr::MethodCall(_)) {
            3
        } else {
            1
        };
        if self.depth + cost > MAX_DEPTH {
            self.cx.error(
                expr.span(),
                format!(
                    "this expression is nested too deeply for #[differentiable] (more than {} levels, or {} chained method calls); split it with `let` bindings",
                    MAX_DEPTH,
                    MAX_DEPTH / 3
                ),
            );
            self.depth = usize::MAX / 2; // report once
            return self.error_node(expr.span());
        }
        self.depth += cost;
        let id = self.expr_inner(expr);
        self.depth = self.depth.saturating_sub(cost);
        id
    }

    fn expr_inner(&mut self, expr: &Expr) -> NodeId {
        match expr {
            Expr::Paren(p) => self.expr(&p.expr),
            Expr::Group(g) => self.expr(&g.expr),
            Expr::Reference(r) => {
                if r.mutability.is_some() {
                    self.cx.error(r.span(), "`&mut` is not supported in a differentiable function; borrow with `&`");
                }
                self.expr(&r.expr)
            }
            Expr::Lit(l) => self.literal(&l.lit),
            Expr::Path(p) => {
                if p.qself.is_none() {
                    if let Some(ident) = p.path.get_ident() {
                        if self.is_model(&ident.to_string()) {
                            return self.whole_model(ident);
                        }
                        if let Some(id) = self.lookup(&ident.to_string()) {
                            return id;
                        }
                    }
                }
                // A constant from outside the function (`PI`, `std::f64::consts::E`).
                self.constant(expr, "")
            }
            Expr::Unary(u) => match u.op {
                // `*` of a constant is Rust's (`*label` of a `&usize`); of a
                // differentiable value, transparent.
                UnOp::Deref(_) if !self.mentions_varying(&u.expr) => self.constant(expr, ""),
                UnOp::Deref(_) => self.expr(&u.expr),
                UnOp::Neg(_) => {
                    let inner = self.expr(&u.expr);
                    match &self.graph.get(inner).node {
                        Node::Float(t) => {
                            let t = quote!(-#t);
                            self.add(Node::Float(t), self.temp(), u.op.span(), false)
                        }
                        Node::Int(t) => {
                            let t = quote!(-#t);
                            self.add(Node::Int(t), self.temp(), u.op.span(), false)
                        }
                        _ if self.rust_arithmetic(&[inner]) => self.constant(expr, ""),
                        _ => self.op(Op::Neg, vec![inner], vec![], u.op.span()),
                    }
                }
                _ => self.constant(expr, "`!` is only supported on constants"),
            },
            Expr::Binary(b) => {
                let op = match b.op {
                    BinOp::Add(_) => Op::Add,
                    BinOp::Sub(_) => Op::Sub,
                    BinOp::Mul(_) => Op::Mul,
                    BinOp::Div(_) => Op::Div,
                    BinOp::AddAssign(_) => return self.assign(&b.left, Some(Op::Add), &b.right, expr),
                    BinOp::SubAssign(_) => return self.assign(&b.left, Some(Op::Sub), &b.right, expr),
                    BinOp::MulAssign(_) => return self.assign(&b.left, Some(Op::Mul), &b.right, expr),
                    BinOp::DivAssign(_) => return self.assign(&b.left, Some(Op::Div), &b.right, expr),
                    BinOp::RemAssign(_)
                    | BinOp::BitXorAssign(_)
                    | BinOp::BitAndAssign(_)
                    | BinOp::BitOrAssign(_)
                    | BinOp::ShlAssign(_)
                    | BinOp::ShrAssign(_) => {
                        self.cx.error_at(expr, "only `+=`, `-=`, `*=` and `/=` are supported as compound assignments in a differentiable function");
                        return self.error_node(expr.span());
                    }
                    _ => {
                        return self.constant(
                            expr,
                            "comparisons, `%` and logical or bit operators are only supported on constants; the arithmetic operators `+ - * /` are differentiable",
                        )
                    }
                };
                let lhs = self.expr(&b.left);
                let rhs = self.expr(&b.right);
                // Rust's arithmetic on constants; not where the syntax reads
                // a differentiable value whose value the operand does not
                // depend on (the sum of a constant over `x.iter()`).
                if self.rust_arithmetic(&[lhs, rhs]) && !self.mentions_varying(expr) {
                    return self.constant(expr, "");
                }
                self.op(op, vec![lhs, rhs], vec![], b.op.span())
            }
            Expr::MethodCall(m) => self.method(m),
            Expr::Call(c) => self.call(c),
            Expr::Index(_) | Expr::Field(_) if self.model_root(expr).is_some() => {
                self.model_field(expr).unwrap_or_else(|| self.error_node(expr.span()))
            }
            Expr::Index(i) => {
                if let Some(id) = self.plain_index(i) {
                    return id;
                }
                let base = self.expr(&i.expr);
                if !self.is_float_value(base) {
                    // An element of a constant struct's field is a place
                    // like the field (`model.mats[b]`): its local borrows
                    // it, a `Vec` of arrays cannot give it away.
                    return if of_field(&i.expr) {
                        self.place(expr, "")
                    } else {
                        self.constant(expr, "")
                    };
                }
                let idx = self.const_arg(&i.index, "an index");
                self.op(Op::Index, vec![base], vec![idx], i.bracket_token.span.join())
            }
            Expr::Block(b) => {
                if let Some(label) = &b.label {
                    self.cx.error_at(label, "labelled blocks are not supported in a differentiable function; remove the label");
                }
                self.block_value(&b.block, false)
            }
            Expr::Unsafe(u) => self.cx_error(expr, u.unsafe_token.span(), "`unsafe` blocks are not supported in a differentiable function; the vocabulary needs none: remove `unsafe`"),
            Expr::Cast(_) => self.constant(expr, "`as` casts are only supported on constants (such as `labels.len() as f64`); a differentiable value keeps its float type"),
            Expr::Field(f) => self.field(expr, f),
            Expr::While(w) => self.while_loop(w),
            Expr::Loop(l) => self.loop_until_break(l),
            Expr::ForLoop(f) => self.for_loop(f),
            Expr::If(i) => self.branch(i, true),
            Expr::Match(m) => self.match_expr(m, true),
            Expr::Return(r) => self.cx_error(expr, r.return_token.span(), "#[differentiable] does not support early `return`; make the value the final expression of the body"),
            Expr::Break(b) => self.cx_error(expr, b.break_token.span(), "this `break` ends no loop around it: `break` and `break 'label` end an enclosing `for`, `while` or `loop` (with a value, `break v`, a `loop` whose value is used)"),
            Expr::Continue(c) => self.cx_error(expr, c.continue_token.span(), "this `continue` goes on with no loop around it: `continue` and `continue 'label` name an enclosing `for`, `while` or `loop`"),
            Expr::Closure(_) => self.whole_error(expr, "closures are not supported in a differentiable function but where they map elements (`a.mapv(|v| ..)`, `Zip`, `a.iter().map(|x| ..).sum::<f64>()`), fold an iterator (`x.iter().fold(0.0, |acc, &v| ..)`) or make an array (`Array1::from_shape_fn(n, |i| ..)`, `Array2` with `|(i, j)|`, `Array3`), without `return` or `?`; write the computation with the vocabulary (`relu`, `exp`, `sum`, ...) or a `#[differentiable]` function"),
            // `array![..]`, `vec![..]`: a constant when it mentions no differentiable value.
            Expr::Macro(m) => match self.container_macro(expr, &m.mac) {
                Some(id) => id,
                None => match self.macro_form(&m.mac) {
                    Some(id) => id,
                    None => self.constant(expr, ""),
                },
            },
            Expr::Assign(a) => self.assign(&a.left, None, &a.right, expr),
            Expr::Try(t) => self.cx_error(expr, t.question_token.span(), "the `?` operator is not supported in a differentiable function; compute fallible values outside the function and pass them in"),
            Expr::Async(_) | Expr::Await(_) => self.whole_error(expr, "`async`/`.await` is not supported in a differentiable function; await the values outside and pass them in"),
            Expr::Array(a) => {
                let elems: Vec<&Expr> = a.elems.iter().collect();
                self.array_literal(expr, &elems)
            }
            Expr::Repeat(r) => self.repeat_literal(expr, &r.expr),
            Expr::Tuple(_) => self.whole_error(expr, "a tuple is only supported on the right of a tuple `let` (`let (a, b) = (x, y);`) and as the final expression of a function that returns a tuple (`-> (f64, f64)`)"),
            // A struct literal, a range, ... of constants: Rust's.
            _ if !self.mentions_varying(expr) => self.constant(expr, ""),
            _ => self.whole_error(expr, "this expression is not supported in a differentiable function; see the vocabulary in the backprop README"),
        }
    }

    fn cx_error(&mut self, _expr: &Expr, span: Span, message: &str) -> NodeId {
        self.cx.error(span, message);
        self.error_node(span)
    }

    /// An error spanning the whole expression.
    fn whole_error(&mut self, expr: &Expr, message: &str) -> NodeId {
        self.cx.error_at(expr, message);
        self.error_node(expr.span())
    }

    /// Adds an op on `inputs`.
    fn op(&mut self, op: Op, inputs: Vec<NodeId>, consts: Vec<ConstArg>, span: Span) -> NodeId {
        let mut failed = false;
        for &i in &inputs {
            match &self.graph.get(i).node {
                Node::Int(t) => {
                    let t = t.clone();
                    self.cx.error(
                        self.graph.get(i).span,
                        format!("integer literal `{t}` where a float is needed; write it with a decimal point (`{t}.0`)"),
                    );
                    failed = true;
                }
                Node::Error => failed = true,
                _ => {}
            }
        }
        if failed {
            return self.error_node(span);
        }
        let inputs: Vec<NodeId> = inputs.into_iter().map(|i| self.viewed(i, span)).collect();
        let inputs = if self.generic_copy() {
            inputs.into_iter().map(|i| self.lifted(i, span)).collect()
        } else {
            inputs
        };
        let varying = inputs.iter().any(|i| self.varying[i.index()]);
        // `x * x` is `square(x)`: the same value, and its adjoint `2 g x` is
        // one pass instead of two contributions and their sum.
        let (op, inputs) = match (op, inputs.as_slice()) {
            (Op::Mul, [a, b]) if a == b => (Op::Square, vec![*a]),
            _ => (op, inputs),
        };
        self.add(Node::Op { op, inputs, consts }, self.temp(), span, varying)
    }
}

const MACRO_HINT: &str = "macros are not supported in a differentiable function: the macro cannot see what they expand to; remove it, and print or compute such values outside the function (only `s![..]` is read, as the argument of `a.slice(..)`)";

/// The expression without parentheses and groups.
fn strip_paren(e: &Expr) -> &Expr {
    match e {
        Expr::Paren(p) => strip_paren(&p.expr),
        Expr::Group(g) => strip_paren(&g.expr),
        other => other,
    }
}

/// The expression without parentheses, groups and `&`.
fn strip(e: &Expr) -> &Expr {
    match e {
        Expr::Paren(p) => strip(&p.expr),
        Expr::Group(g) => strip(&g.expr),
        Expr::Reference(r) => strip(&r.expr),
        other => other,
    }
}

/// A short rendering of an expression for a message.
fn shorten(e: &Expr) -> String {
    let s = e.to_token_stream().to_string();
    if s.len() > 60 {
        format!(
            "{}...",
            &s[..s.char_indices().nth(57).map_or(s.len(), |(i, _)| i)]
        )
    } else {
        s
    }
}
