//! Lowering: the syn body becomes a [`Graph`]. Every construct outside the
//! vocabulary is reported here, with a span on the user's tokens and a hint at
//! what is supported; lowering goes on after an error so that all of them are
//! reported in one build.

use crate::ast::{Function, Kind};
use crate::ctxt::Ctxt;
use crate::graph::{Branch, Call, CallArg, ConstArg, Graph, Loop, Name, Node, NodeId, Op, Region};
use proc_macro2::{Ident, Span};
use quote::{quote, ToTokens};
use std::collections::HashMap;
use syn::spanned::Spanned;
use syn::visit::Visit;
use syn::visit_mut::VisitMut;
use syn::{BinOp, Block, Expr, Lit, LitFloat, Pat, Stmt, UnOp};

/// The elementwise functions, by the name they have both as a float method
/// and as a `backprop::ops` function.
const UNARY: &[&str] = &[
    "exp", "ln", "sqrt", "square", "abs", "sin", "cos", "tan", "tanh", "sigmoid", "relu", "recip",
];
/// Of those, the ones `f32`/`f64` have as methods.
const FLOAT_METHODS: &[&str] = &[
    "exp", "ln", "sqrt", "abs", "sin", "cos", "tan", "tanh", "recip",
];

const SUPPORTED_METHODS: &str =
    "exp ln sqrt powi powf sin cos tan tanh abs max min recip (on floats and arrays), \
     dot t sum sum_axis insert_axis row column view to_owned clone (on arrays)";
const SUPPORTED_FUNCTIONS: &str =
    "exp ln sqrt square abs sin cos tan tanh sigmoid relu recip powi sum mean \
     sum_axis mean_axis concat softmax log_softmax logsumexp softmax_cross_entropy mse";

/// Methods that only read an array's shape: constants even on a differentiable value.
const SHAPE_METHODS: &[&str] = &[
    "len", "len_of", "nrows", "ncols", "shape", "dim", "raw_dim", "ndim", "is_empty",
];

/// How deep an expression may nest (a method call counts 3).
const MAX_DEPTH: usize = 3_000;

/// The prefix of the placeholder that stands for a node inside constant tokens.
pub const NODE_MARKER: &str = "__backprop_node_";

/// The lowered body.
pub struct Lowered {
    pub graph: Graph,
    pub output: NodeId,
}

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
    /// The name of the binding being lowered, for naming its intermediates.
    base: String,
    /// How deep the expression being lowered is nested, to stop with an error
    /// long before the stack would overflow.
    depth: usize,
}

/// Lowers the body of `func`; `None` when an error was reported.
pub fn lower(func: &Function, cx: &mut Ctxt) -> Option<Lowered> {
    let mut l = Lowerer {
        func,
        graph: Graph::default(),
        varying: Vec::new(),
        captures: Vec::new(),
        capture_map: HashMap::new(),
        outer: Vec::new(),
        scopes: vec![Scope::new(0, HashMap::new())],
        cx,
        base: "out".to_owned(),
        depth: 0,
    };
    for (i, p) in func.params.iter().enumerate() {
        let id = l.add(
            Node::Param(i),
            Name::User(p.ident.to_string()),
            p.ident.span(),
            p.differentiable,
        );
        l.scopes[0].names.insert(p.ident.to_string(), id);
    }
    let before = l.graph.len();
    let output = l.block_value(&func.item.block, true);
    if output.index() >= before && matches!(l.graph.get(output).name, Name::Temp(_)) {
        l.graph.nodes[output.index()].name = Name::Output;
    }
    if let Node::Int(_) = l.graph.get(output).node {
        let span = l.graph.get(output).span;
        let text = match &l.graph.get(output).node {
            Node::Int(t) => t.to_string(),
            _ => String::new(),
        };
        l.cx.error(span, format!("the value of a differentiable function must be a float; write the literal with a decimal point (`{text}.0`)"));
    }
    if matches!(l.graph.get(output).node, Node::Error) && !l.cx.has_errors() {
        let span = l.graph.get(output).span;
        l.cx.error(span, "the body of a differentiable function must end with an expression: the value to differentiate");
    }
    if l.cx.has_errors() {
        return None;
    }
    Some(Lowered {
        graph: l.graph,
        output,
    })
}

/// Finds the names an expression mentions, and any macro inside it.
#[derive(Default)]
struct Mentions {
    idents: Vec<Ident>,
    /// Names whose shape only is read (`x.len()`).
    shape_only: Vec<Ident>,
    has_macro: Option<Span>,
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
    fn visit_expr_method_call(&mut self, m: &'ast syn::ExprMethodCall) {
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
        self.has_macro.get_or_insert(m.span());
    }
}

/// How a binding holds its node, which the macro otherwise sees through.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Form {
    Value,
    /// `let r = &t;`
    Ref,
    /// `let v = p.view();`
    View,
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
}

impl Scope {
    fn new(depth: usize, names: HashMap<String, NodeId>) -> Scope {
        Scope {
            depth,
            names,
            forms: HashMap::new(),
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

/// The form of a `let`'s value: `&e` is a reference, `e.view()` a view.
fn form_of(e: &Expr) -> Form {
    match strip_paren(e) {
        Expr::Reference(r) if r.mutability.is_none() => Form::Ref,
        Expr::MethodCall(m) if m.method == "view" && m.args.is_empty() => Form::View,
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

/// The names a loop body assigns (`x = ...`, `x += ...`), in order.
#[derive(Default)]
struct Assigned {
    names: Vec<String>,
}

impl<'ast> Visit<'ast> for Assigned {
    fn visit_expr_assign(&mut self, a: &'ast syn::ExprAssign) {
        if let Expr::Path(p) = strip_paren(&a.left) {
            if let Some(id) = p.path.get_ident() {
                self.names.push(id.to_string());
            }
        }
        syn::visit::visit_expr_assign(self, a);
    }
    fn visit_expr_binary(&mut self, b: &'ast syn::ExprBinary) {
        if matches!(
            b.op,
            BinOp::AddAssign(_) | BinOp::SubAssign(_) | BinOp::MulAssign(_) | BinOp::DivAssign(_)
        ) {
            if let Expr::Path(p) = strip_paren(&b.left) {
                if let Some(id) = p.path.get_ident() {
                    self.names.push(id.to_string());
                }
            }
        }
        syn::visit::visit_expr_binary(self, b);
    }
}

/// Replaces the names of bindings by node markers, so that the emitter can
/// write the name each node has in the generated code.
struct Rename<'a> {
    resolve: &'a HashMap<String, (NodeId, Form)>,
}

impl VisitMut for Rename<'_> {
    fn visit_expr_mut(&mut self, e: &mut Expr) {
        if let Expr::Path(p) = e {
            if p.qself.is_none() {
                if let Some(id) = p.path.get_ident() {
                    if let Some((node, form)) = self.resolve.get(&id.to_string()).copied() {
                        let suffix = match form {
                            Form::Value => "",
                            Form::Ref => "_ref",
                            Form::View => "_view",
                        };
                        let marker =
                            Ident::new(&format!("{NODE_MARKER}{}{suffix}", node.0), id.span());
                        *e = syn::parse_quote!(#marker);
                        return;
                    }
                }
            }
        }
        syn::visit_mut::visit_expr_mut(self, e);
    }
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
        let mut depth = self.outer.len();
        let mut id = id;
        loop {
            let (graph, captures) = if depth == self.outer.len() {
                (&self.graph, &self.captures)
            } else {
                (&self.outer[depth].graph, &self.outer[depth].captures)
            };
            match &graph.get(id).node {
                Node::Input(j) if depth > 0 => {
                    id = captures[*j].0;
                    depth -= 1;
                }
                other => return other,
            }
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
        let n = block.stmts.len();
        for (k, stmt) in block.stmts.iter().enumerate() {
            let last = k + 1 == n;
            match stmt {
                Stmt::Expr(e, None) if last && needs_value => {
                    if is_body {
                        self.base = "out".to_owned();
                    }
                    value = Some(self.expr(e))
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

    /// `let pat = expr;`
    fn bind(&mut self, pat: &Pat, expr: &Expr) {
        match pat {
            Pat::Ident(pi) if pi.by_ref.is_none() && pi.subpat.is_none() => {
                let name = pi.ident.to_string();
                let outer = std::mem::replace(&mut self.base, name.clone());
                let before = self.graph.len();
                let id = self.expr(expr);
                self.base = outer;
                // A node created for this `let` takes the user's name; an alias
                // (`let y = x;`) refers to the existing node.
                if id.index() >= before {
                    self.graph.nodes[id.index()].name = Name::User(name.clone());
                }
                let form = form_of(expr);
                self.scopes.last_mut().expect("a scope").bind(name, id, form);
            }
            Pat::Type(pt) => self.bind(&pt.pat, expr),
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
                _ => self.cx.error_at(
                    pt,
                    "a tuple pattern needs a tuple of the same length on the right: `let (a, b) = (x, y);`",
                ),
            },
            other => self.cx.error_at(
                other,
                "this pattern is not supported in a differentiable function; bind a plain name (`let x = ...;`) or a tuple of names",
            ),
        }
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
                        if let Some(id) = self.lookup(&ident.to_string()) {
                            return id;
                        }
                    }
                }
                // A constant from outside the function (`PI`, `std::f64::consts::E`).
                self.constant(expr, "")
            }
            Expr::Unary(u) => match u.op {
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
                self.op(op, vec![lhs, rhs], vec![], b.op.span())
            }
            Expr::MethodCall(m) => self.method(m),
            Expr::Call(c) => self.call(c),
            Expr::Index(i) => {
                let base = self.expr(&i.expr);
                if !self.is_float_value(base) {
                    return self.constant(expr, "");
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
            Expr::Field(_) => self.constant(expr, "field access is only supported on constants"),
            Expr::While(w) => self.cx_error(expr, w.while_token.span(), "#[differentiable] does not support `while` loops; use a `for` loop over a range (`for i in 0..n`)"),
            Expr::Loop(l) => self.cx_error(expr, l.loop_token.span(), "#[differentiable] does not support `loop`; use a `for` loop over a range (`for i in 0..n`)"),
            Expr::ForLoop(f) => self.for_loop(f),
            Expr::If(i) => self.branch(i, true),
            Expr::Match(m) => self.cx_error(expr, m.match_token.span(), "#[differentiable] does not support `match`; write the cases with `max`, `min`, `abs` or `relu` where you can"),
            Expr::Return(r) => self.cx_error(expr, r.return_token.span(), "#[differentiable] does not support early `return`; make the value the final expression of the body"),
            Expr::Break(b) => self.cx_error(expr, b.break_token.span(), "#[differentiable] does not support `break`: a loop runs its whole range; compute the number of iterations before the loop, or use `if` inside the body"),
            Expr::Continue(c) => self.cx_error(expr, c.continue_token.span(), "#[differentiable] does not support `continue`: put the rest of the body in an `if` instead"),
            Expr::Closure(_) => self.whole_error(expr, "closures are not supported in a differentiable function; write the computation with the vocabulary (`relu`, `exp`, `sum`, ...)"),
            Expr::Macro(m) => {
                self.cx.error_at(&m.mac, MACRO_HINT);
                self.error_node(expr.span())
            }
            Expr::Assign(a) => self.assign(&a.left, None, &a.right, expr),
            Expr::Try(t) => self.cx_error(expr, t.question_token.span(), "the `?` operator is not supported in a differentiable function; compute fallible values outside the function and pass them in"),
            Expr::Async(_) | Expr::Await(_) => self.whole_error(expr, "`async`/`.await` is not supported in a differentiable function; await the values outside and pass them in"),
            Expr::Array(_) => self.whole_error(expr, "array literals are only supported as the list of arrays of `concat(Axis(k), &[&a, &b, ...])`"),
            Expr::Tuple(_) => self.whole_error(expr, "a tuple is only supported on the right of a tuple `let`: `let (a, b) = (x, y);`; a differentiable function returns one value"),
            _ => self.whole_error(expr, "this expression is not supported in a differentiable function; see the vocabulary in the backprop README"),
        }
    }

    /// `x = e;` and `x op= e;`: the name is bound to a new node (SSA renaming),
    /// in the scope where it was declared. The value of the assignment is `()`,
    /// so the node returned stands for nothing.
    fn assign(&mut self, place: &Expr, op: Option<Op>, value: &Expr, whole: &Expr) -> NodeId {
        let name = match strip_paren(place) {
            Expr::Path(p) if p.qself.is_none() && p.path.get_ident().is_some() => {
                p.path.get_ident().expect("checked").to_string()
            }
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
        let rhs = self.expr(value);
        let id = match op {
            None => rhs,
            Some(op) => {
                let old = self.scopes[scope].names[&name];
                self.op(op, vec![old, rhs], vec![], whole.span())
            }
        };
        self.base = outer;
        if id.index() >= before {
            self.graph.nodes[id.index()].name = Name::User(name.clone());
        }
        self.scopes[scope].bind(name, id, Form::Value);
        self.error_node(whole.span())
    }

    /// `for var in start..end { body }`: the body becomes a region of its own,
    /// the variables it assigns are carried from one iteration to the next.
    fn for_loop(&mut self, f: &syn::ExprForLoop) -> NodeId {
        let span = f.for_token.span();
        if let Some(label) = &f.label {
            self.cx.error_at(
                label,
                "labelled loops are not supported in a differentiable function; remove the label",
            );
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
        let (start, end, inclusive) = match strip_paren(&f.expr) {
            Expr::Range(r) => match (&r.start, &r.end) {
                (Some(a), Some(b)) => (
                    self.const_arg(a, "the start of a loop's range"),
                    self.const_arg(b, "the end of a loop's range"),
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
                    "#[differentiable] supports `for` loops over a range, `for i in a..b`; loop over the indices of the data (`for i in 0..xs.len()`)",
                );
                return self.error_node(span);
            }
        };
        // Every name the body assigns that exists before the loop is carried.
        let mut assigned = Assigned::default();
        assigned.visit_block(&f.body);
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
        let (body, captures, out_varying) = loop {
            let saved = std::mem::take(&mut *self.cx);
            let result = self.loop_body(f, var.as_ref(), &carried, &carried_varying);
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
    fn bind_results(&mut self, of: NodeId, names: &[String], varying: &[bool], span: Span) {
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
    fn push_frame(&mut self) {
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
    fn pop_frame(&mut self) -> (Graph, Vec<(NodeId, NodeId)>) {
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
    fn branch(&mut self, i: &syn::ExprIf, with_value: bool) -> NodeId {
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
        let then = self.arm(ArmBody::Block(&i.then_branch), &names, with_value);
        let otherwise = match &i.else_branch {
            Some((_, e)) => self.arm(ArmBody::Expr(e), &names, with_value),
            None => self.arm(ArmBody::Empty, &names, false),
        };
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
    fn arm(
        &mut self,
        body: ArmBody<'_>,
        names: &[String],
        with_value: bool,
    ) -> (Region, Vec<NodeId>, Vec<bool>) {
        self.push_frame();
        // The names the arms assign are bound in the arm's own scope, so that
        // an assignment rebinds them here and the arm's results can be read.
        let mut scope = HashMap::new();
        for name in names {
            if let Some(id) = self.lookup(name) {
                scope.insert(name.clone(), id);
            }
        }
        self.scopes.push(Scope::new(self.outer.len(), scope));
        let value = match body {
            ArmBody::Block(b) => self.block(b, false, with_value),
            ArmBody::Expr(e) => match e {
                Expr::Block(b) => self.block(&b.block, false, with_value),
                Expr::If(i) => self.branch(i, with_value),
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
        let out_varying = outputs.iter().map(|o| self.varying[o.index()]).collect();
        let (graph, captures) = self.pop_frame();
        let region = Region {
            graph,
            inputs: captures.iter().map(|c| c.1).collect(),
            outputs,
        };
        (region, captures.iter().map(|c| c.0).collect(), out_varying)
    }

    /// The condition of an `if`: any expression; it may compare differentiable
    /// values, since the branch taken is a constant of the gradient.
    fn condition_tokens(&mut self, expr: &Expr) -> Option<ConstArg> {
        self.mentioning_tokens(expr, None)
    }

    /// Lowers a loop body into a region: returns it, the enclosing nodes it
    /// captures (after the carried ones) and which carried values vary at its end.
    fn loop_body(
        &mut self,
        f: &syn::ExprForLoop,
        var: Option<&Ident>,
        carried: &[(String, NodeId)],
        carried_varying: &[bool],
    ) -> (Region, Vec<NodeId>, Vec<bool>) {
        self.push_frame();
        let depth = self.outer.len();
        let mut scope = HashMap::new();
        for (k, (name, parent_id)) in carried.iter().enumerate() {
            let id = self.add(
                Node::Input(k),
                Name::User(format!("{name}_in")),
                f.for_token.span(),
                carried_varying[k],
            );
            self.captures.push((*parent_id, id));
            scope.insert(name.clone(), id);
        }
        if let Some(v) = var {
            let id = self.add(Node::LoopVar, Name::User(v.to_string()), v.span(), false);
            scope.insert(v.to_string(), id);
        }
        self.scopes.push(Scope::new(depth, scope));
        let outer_base = self.base.clone();
        self.block(&f.body, false, false);
        self.base = outer_base;
        let scope = self.scopes.pop().expect("the loop's scope").names;
        let outputs: Vec<NodeId> = carried.iter().map(|(name, _)| scope[name]).collect();
        let out_varying = outputs.iter().map(|o| self.varying[o.index()]).collect();
        let (graph, captures) = self.pop_frame();
        let region = Region {
            graph,
            inputs: captures.iter().map(|c| c.1).collect(),
            outputs,
        };
        let captured = captures[carried.len()..].iter().map(|c| c.0).collect();
        (region, captured, out_varying)
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

    fn literal(&mut self, lit: &Lit) -> NodeId {
        match lit {
            Lit::Float(f) => {
                let tokens = if f.suffix().is_empty() {
                    let mut digits = f.base10_digits().to_owned();
                    if !digits.contains(['.', 'e', 'E']) {
                        digits.push_str(".0");
                    } else if digits.ends_with('.') {
                        digits.push('0');
                    }
                    let typed = format!("{digits}_{}", self.func.elem.ident());
                    LitFloat::new(&typed, f.span()).into_token_stream()
                } else {
                    f.into_token_stream()
                };
                self.add(Node::Float(tokens), self.temp(), f.span(), false)
            }
            Lit::Int(i) => self.add(
                Node::Int(i.into_token_stream()),
                self.temp(),
                i.span(),
                false,
            ),
            other => {
                let tokens = other.into_token_stream();
                self.add(
                    Node::Const(ConstArg {
                        tokens,
                        deps: Vec::new(),
                    }),
                    self.temp(),
                    other.span(),
                    false,
                )
            }
        }
    }

    /// Whether a node holds a float or a float array (rather than some
    /// constant of another type, such as a `&[f64]` or a `usize`).
    fn is_float_value(&self, id: NodeId) -> bool {
        match self.origin(id) {
            Node::Param(i) => !matches!(self.func.params[*i].kind, Kind::Constant),
            Node::Op { .. } | Node::Float(_) | Node::Error | Node::Out { .. } => true,
            Node::Int(_) | Node::Const(_) | Node::LoopVar | Node::Loop(_) | Node::Branch(_) => {
                false
            }
            Node::Input(_) => true,
        }
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
        let varying = inputs.iter().any(|i| self.varying[i.index()]);
        // `x * x` is `square(x)`: the same value, and its adjoint `2 g x` is
        // one pass instead of two contributions and their sum.
        let (op, inputs) = match (op, inputs.as_slice()) {
            (Op::Mul, [a, b]) if a == b => (Op::Unary("square"), vec![*a]),
            _ => (op, inputs),
        };
        self.add(Node::Op { op, inputs, consts }, self.temp(), span, varying)
    }

    /// Tokens of a constant expression: checks it mentions no differentiable
    /// value, and replaces the names of bindings by node markers.
    fn const_tokens(&mut self, expr: &Expr, what: &str) -> Option<ConstArg> {
        self.mentioning_tokens(expr, Some(what))
    }

    /// Tokens of an expression the macro does not look into, with the names
    /// of bindings replaced by node markers. `constant` is `None` where the
    /// expression may mention differentiable values (an `if` condition), else
    /// the message for when it does (`""`: outside the vocabulary).
    fn mentioning_tokens(&mut self, expr: &Expr, constant: Option<&str>) -> Option<ConstArg> {
        let mut m = Mentions::default();
        m.visit_expr(expr);
        let mut resolve = HashMap::new();
        for ident in m.idents.iter().chain(&m.shape_only) {
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
                            "`{}` is not in the vocabulary of #[differentiable], and it uses `{ident}`, which depends on a differentiable parameter. Supported methods: {SUPPORTED_METHODS}; functions: {SUPPORTED_FUNCTIONS}",
                            shorten(expr)
                        )
                    } else {
                        format!("{what}; here it uses `{ident}`, which depends on a differentiable parameter")
                    };
                    self.cx.error_at(expr, message);
                    return None;
                }
            }
        }
        if let Some(span) = m.has_macro {
            self.cx.error(span, MACRO_HINT);
            return None;
        }
        let deps = m
            .idents
            .iter()
            .chain(&m.shape_only)
            .filter_map(|ident| resolve.get(&ident.to_string()).map(|(id, _)| *id))
            .collect();
        let mut renamed = expr.clone();
        Rename { resolve: &resolve }.visit_expr_mut(&mut renamed);
        Some(ConstArg {
            tokens: renamed.into_token_stream(),
            deps,
        })
    }

    /// A constant argument of an op (an axis, an index, `n`).
    fn const_arg(&mut self, expr: &Expr, what: &str) -> ConstArg {
        let message = format!(
            "{what} must be a constant (a literal or a parameter that is not differentiated)"
        );
        self.const_tokens(expr, &message)
            .unwrap_or_else(|| ConstArg {
                tokens: quote!(()),
                deps: Vec::new(),
            })
    }

    /// An expression outside the vocabulary that is fine as a constant.
    fn constant(&mut self, expr: &Expr, what: &str) -> NodeId {
        match self.const_tokens(expr, what) {
            Some(c) => {
                let varying = false;
                self.add(Node::Const(c), self.temp(), expr.span(), varying)
            }
            None => self.error_node(expr.span()),
        }
    }

    /// Whether an expression mentions a value that depends on a differentiable parameter.
    fn mentions_varying(&mut self, expr: &Expr) -> bool {
        let mut m = Mentions::default();
        m.visit_expr(expr);
        m.idents.iter().any(|i| {
            self.lookup(&i.to_string())
                .is_some_and(|id| self.varying[id.index()])
        })
    }

    /// A call of a function outside the vocabulary: a constant when it mentions
    /// no differentiable value, else a call of another differentiable function
    /// (or of one with a user-defined adjoint), whose `NAME_vjp` the reverse
    /// sweep calls.
    fn user_call(&mut self, c: &syn::ExprCall) -> NodeId {
        let call = Expr::Call(c.clone());
        if !self.mentions_varying(&call) {
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
        let mut vjp = path.clone();
        let last = vjp.segments.last_mut().expect("a segment");
        last.ident = quote::format_ident!("{}_vjp", last.ident, span = last.ident.span());
        last.arguments = syn::PathArguments::None;
        let mut inputs = Vec::new();
        let mut args = Vec::new();
        for arg in &c.args {
            let (inner, mut by_ref) = match strip_paren(arg) {
                Expr::Reference(r) if r.mutability.is_none() => (&*r.expr, true),
                other => (other, false),
            };
            // The form the user passes: a view (`x.view()`, or a binding that
            // holds one), or a binding that holds a reference.
            let mut view = matches!(strip_paren(inner), Expr::MethodCall(m) if m.method == "view" && m.args.is_empty());
            if let Expr::Path(p) = strip_paren(inner) {
                if let Some(ident) = p.path.get_ident() {
                    match self.form(&ident.to_string()) {
                        Form::Ref => by_ref = true,
                        Form::View if !by_ref => view = true,
                        _ => {}
                    }
                }
            }
            if self.mentions_varying(inner) {
                let id = self.expr(inner);
                args.push(CallArg::Input {
                    input: inputs.len(),
                    by_ref,
                    view,
                });
                inputs.push(id);
            } else {
                match self.const_tokens(arg, "") {
                    Some(k) => args.push(CallArg::Const(k)),
                    None => return self.error_node(c.span()),
                }
            }
        }
        let k = u32::try_from(self.graph.calls.len()).expect("fewer than 2^32 calls");
        self.graph.calls.push(Call { path, vjp, args });
        self.op(Op::Call(k), inputs, vec![], c.func.span())
    }

    fn check_arity(
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

    fn method(&mut self, m: &syn::ExprMethodCall) -> NodeId {
        let name = m.method.to_string();
        let span = m.method.span();
        let nargs = m.args.len();
        let arity = |want: usize, usage: &str, l: &mut Self| {
            l.check_arity(m.method.span(), &name, nargs, want, usage)
        };
        match name.as_str() {
            n if FLOAT_METHODS.contains(&n) => {
                if !arity(0, &format!("`x.{n}()`"), self) {
                    return self.error_node(span);
                }
                let x = self.expr(&m.receiver);
                self.op(Op::Unary(static_name(n)), vec![x], vec![], span)
            }
            "powi" => {
                if !arity(1, "`x.powi(n)` with an `i32` constant `n`", self) {
                    return self.error_node(span);
                }
                let x = self.expr(&m.receiver);
                let n = self.const_arg(&m.args[0], "the exponent of `powi`");
                self.op(Op::Powi, vec![x], vec![n], span)
            }
            "powf" | "max" | "min" | "dot" => {
                if !arity(1, &format!("`a.{name}(b)`"), self) {
                    return self.error_node(span);
                }
                let op = match name.as_str() {
                    "powf" => Op::Powf,
                    "max" => Op::Max,
                    "min" => Op::Min,
                    _ => Op::Dot,
                };
                let a = self.expr(&m.receiver);
                let b = self.expr(&m.args[0]);
                self.op(op, vec![a, b], vec![], span)
            }
            "t" | "sum" | "to_owned" | "clone" | "view" => {
                if !arity(0, &format!("`a.{name}()`"), self) {
                    return self.error_node(span);
                }
                let a = self.expr(&m.receiver);
                match name.as_str() {
                    "view" => a,
                    "t" => self.op(Op::T, vec![a], vec![], span),
                    "sum" => self.op(Op::Sum, vec![a], vec![], span),
                    _ => {
                        if self.is_float_value(a) {
                            self.op(Op::Copy, vec![a], vec![], span)
                        } else {
                            a
                        }
                    }
                }
            }
            "sum_axis" | "row" | "column" | "insert_axis" => {
                let usage = match name.as_str() {
                    "sum_axis" => "`a.sum_axis(Axis(k))`",
                    "insert_axis" => "`a.insert_axis(Axis(k))`",
                    "row" => "`a.row(i)`",
                    _ => "`a.column(j)`",
                };
                if !arity(1, usage, self) {
                    return self.error_node(span);
                }
                let a = self.expr(&m.receiver);
                let what = match name.as_str() {
                    "sum_axis" => "the axis of `sum_axis`",
                    "insert_axis" => "the axis of `insert_axis`",
                    "row" => "the row index",
                    _ => "the column index",
                };
                let c = self.const_arg(&m.args[0], what);
                let op = match name.as_str() {
                    "sum_axis" => Op::SumAxis,
                    "insert_axis" => Op::InsertAxis,
                    "row" => Op::Row,
                    _ => Op::Column,
                };
                self.op(op, vec![a], vec![c], span)
            }
            _ => {
                let (name, hint) = chain_hint(m);
                let what = if hint.is_empty() {
                    String::new()
                } else {
                    format!("`{name}` is not supported on differentiable values: {hint}")
                };
                self.constant(&Expr::MethodCall(m.clone()), &what)
            }
        }
    }

    fn call(&mut self, c: &syn::ExprCall) -> NodeId {
        let span = c.func.span();
        let name = match &*c.func {
            Expr::Path(p) if p.qself.is_none() => vocabulary_name(&p.path),
            _ => None,
        };
        let Some(name) = name else {
            return self.user_call(c);
        };
        let nargs = c.args.len();
        let args: Vec<&Expr> = c.args.iter().collect();
        let fspan = c.func.span();
        match name.as_str() {
            n if UNARY.contains(&n) => {
                if !self.check_arity(fspan, n, nargs, 1, &format!("`{n}(x)`")) {
                    return self.error_node(span);
                }
                let x = self.expr(args[0]);
                self.op(Op::Unary(static_name(n)), vec![x], vec![], span)
            }
            "sum" | "mean" | "softmax" | "log_softmax" | "logsumexp" => {
                if !self.check_arity(fspan, &name, nargs, 1, &format!("`{name}(&x)`")) {
                    return self.error_node(span);
                }
                let op = match name.as_str() {
                    "sum" => Op::Sum,
                    "mean" => Op::Mean,
                    "softmax" => Op::Softmax,
                    "log_softmax" => Op::LogSoftmax,
                    _ => Op::LogSumExp,
                };
                let x = self.expr(args[0]);
                self.op(op, vec![x], vec![], span)
            }
            "powi" | "sum_axis" | "mean_axis" | "softmax_cross_entropy" => {
                let (usage, what, op) = match name.as_str() {
                    "powi" => (
                        "`powi(x, n)` with an `i32` constant `n`",
                        "the exponent of `powi`",
                        Op::Powi,
                    ),
                    "sum_axis" => (
                        "`sum_axis(&a, Axis(k))`",
                        "the axis of `sum_axis`",
                        Op::SumAxis,
                    ),
                    "mean_axis" => (
                        "`mean_axis(&a, Axis(k))`",
                        "the axis of `mean_axis`",
                        Op::MeanAxis,
                    ),
                    _ => (
                        "`softmax_cross_entropy(&logits, labels)`",
                        "the labels of `softmax_cross_entropy`",
                        Op::SoftmaxCrossEntropy,
                    ),
                };
                if !self.check_arity(fspan, &name, nargs, 2, usage) {
                    return self.error_node(span);
                }
                let x = self.expr(args[0]);
                let k = self.const_arg(args[1], what);
                self.op(op, vec![x], vec![k], span)
            }
            "mse" => {
                if !self.check_arity(fspan, &name, nargs, 2, "`mse(&prediction, &target)`") {
                    return self.error_node(span);
                }
                let a = self.expr(args[0]);
                let b = self.expr(args[1]);
                self.op(Op::Mse, vec![a, b], vec![], span)
            }
            "concat" => {
                if !self.check_arity(fspan, &name, nargs, 2, "`concat(Axis(k), &[&a, &b, ...])`") {
                    return self.error_node(span);
                }
                let axis = self.const_arg(args[0], "the axis of `concat`");
                let pieces = match strip(args[1]) {
                    Expr::Array(a) if !a.elems.is_empty() => a.elems.iter().collect::<Vec<_>>(),
                    other => {
                        self.cx.error_at(other, "`concat` needs the arrays written out: `concat(Axis(k), &[&a, &b, ...])`");
                        return self.error_node(span);
                    }
                };
                let inputs = pieces.into_iter().map(|e| self.expr(e)).collect();
                self.op(Op::Concat, inputs, vec![axis], span)
            }
            _ => unreachable!("vocabulary_name returns vocabulary names"),
        }
    }
}

const MACRO_HINT: &str = "macros are not supported in a differentiable function: the macro cannot see what they expand to; remove it, and print or compute such values outside the function";

const ASSIGN_HINT: &str = "only a binding of the function can be assigned (`x = ...;`, `x += ...;`); an element or a field cannot: build a new value instead";

/// What to use instead of a method that cannot be differentiated ("" if nothing specific).
fn method_hint(name: &str) -> &'static str {
    match name {
        "mean" => "ndarray's `mean()` returns an `Option`; use `mean(&a)` from `backprop::ops`",
        "mean_axis" => "ndarray's `mean_axis` returns an `Option`; use `mean_axis(&a, Axis(k))` from `backprop::ops`",
        "mapv" | "map" | "mapv_into" | "mapv_inplace" | "map_inplace" | "for_each" => {
            "a closure cannot be differentiated by #[differentiable]; use the elementwise ops (`exp`, `relu`, `sigmoid`, `powi`, ...) instead"
        }
        "slice" | "slice_mut" | "slice_axis" | "slice_move" | "select" => {
            "slicing is not supported yet; use `row(i)`, `column(j)` or an index `a[[i, j]]`"
        }
        _ => "",
    }
}

/// The first method along a receiver chain (`a.mean().unwrap()`) that has a
/// specific hint, else the outer method with none.
fn chain_hint(m: &syn::ExprMethodCall) -> (String, &'static str) {
    let mut cur = m;
    loop {
        let hint = method_hint(&cur.method.to_string());
        if !hint.is_empty() {
            return (cur.method.to_string(), hint);
        }
        match strip(&cur.receiver) {
            Expr::MethodCall(inner) => cur = inner,
            _ => return (m.method.to_string(), ""),
        }
    }
}

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

/// The vocabulary name a called path stands for: `relu`, `ops::relu`,
/// `backprop::ops::relu`, `f64::exp`.
fn vocabulary_name(path: &syn::Path) -> Option<String> {
    let segs: Vec<String> = path.segments.iter().map(|s| s.ident.to_string()).collect();
    let (last, prefix) = segs.split_last()?;
    let known = UNARY.contains(&last.as_str())
        || matches!(
            last.as_str(),
            "powi"
                | "sum"
                | "mean"
                | "sum_axis"
                | "mean_axis"
                | "concat"
                | "softmax"
                | "log_softmax"
                | "logsumexp"
                | "softmax_cross_entropy"
                | "mse"
        );
    if !known {
        return None;
    }
    let prefix_ok = prefix
        .iter()
        .all(|s| matches!(s.as_str(), "backprop" | "ops" | "prelude"))
        || (prefix.len() == 1
            && matches!(prefix[0].as_str(), "f64" | "f32")
            && (FLOAT_METHODS.contains(&last.as_str()) || last == "powi"));
    prefix_ok.then(|| last.clone())
}

fn static_name(n: &str) -> &'static str {
    UNARY
        .iter()
        .find(|u| **u == n)
        .copied()
        .expect("a unary op")
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
