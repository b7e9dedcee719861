//! The IR: a flat vector of nodes, children before parents.
//!
//! Every value of the body is one node; every use of a value is one edge (an
//! entry of a parent's `inputs`). Because children come first, the forward
//! pass is the nodes in order and the reverse sweep is the nodes in reverse
//! order: no search is ever needed.

use crate::vocab::{Op, SLICE_MACROS};
use proc_macro2::{Delimiter, Group, Span, TokenStream, TokenTree};
use quote::{quote, ToTokens};
use syn::parse::{Parse, ParseStream};
use syn::visit_mut::VisitMut;

/// A node's index in its [`Graph`].
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
pub struct NodeId(pub u32);

impl NodeId {
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// A call of a function the macro does not see into: the forward calls it,
/// the reverse sweep calls its `NAME_vjp`.
#[derive(Clone)]
pub struct Call {
    /// The called path, as the user wrote it; in a copy over duals, the
    /// callee's copy (`crate::dual::calls`: `{ .. }.call`).
    pub path: proc_macro2::TokenStream,
    /// The path of its positional adjoint, `NAME_vjp`, beside it; in a copy
    /// over duals, that of the callee's copy (`{ .. }.vjp`).
    pub vjp: proc_macro2::TokenStream,
    /// Each argument, in order.
    pub args: Vec<CallArg>,
    /// A closure mapped over arrays, whose forward and rule are not a path's.
    pub map: Option<Box<MapCall>>,
    /// A method of a model: the first argument is the receiver
    /// (`receiver.path(..)`, `receiver.vjp(.., d)`).
    pub method: bool,
    /// A call whose value is a tuple, bound by a tuple pattern
    /// (`let (r, theta) = polar(x, y);`): the `Out` node of each component,
    /// in order. Empty for a call whose value is one value.
    pub components: Vec<NodeId>,
}

/// A closure mapped over arrays (see `lower::closures`): the call's inputs
/// are the arrays, then the differentiable scalars the closure captures.
#[derive(Clone)]
pub struct MapCall {
    pub walk: Walk,
    /// The closure's elements, then the captured differentiable scalars:
    /// the parameters of `rule`.
    pub params: Vec<syn::Ident>,
    /// The constants the closure captures, bound by name before `rule`.
    pub constants: Vec<(syn::Ident, ConstArg)>,
    /// The closure's body, lowered as the scalar function
    /// `fn closure(params..) -> F`, whose reverse the emitter writes.
    pub body: Box<ClosureBody>,
}

/// A closure's body as a function of its own (see [`MapCall`]).
#[derive(Clone)]
pub struct ClosureBody {
    pub func: crate::ast::Function,
    pub lowered: Lowered,
    /// Every identifier of the function, which its generated names avoid.
    pub used: std::collections::HashSet<String>,
    /// The expansion's path to the facade, and its options.
    pub krate: TokenStream,
    pub opts: crate::args::Options,
}

/// How a mapped closure walks its arrays, and the runtime rule that walks
/// them again.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Walk {
    /// `a.mapv(f)`: an array of `a`'s shape.
    Map,
    /// `Zip::from(a).and(b).map_collect(f)`, over this many arrays (two
    /// to five, as ndarray's `map_collect` takes).
    Zip(u8),
    /// `a.iter().map(f).sum()`: a float.
    SumMap,
    /// `a.iter().zip(b.iter()).map(f).sum()`: a float.
    SumZip,
}

impl Walk {
    /// The runtime's forward of the walk, which keeps the local derivatives.
    pub fn forward(self) -> &'static str {
        match self {
            Walk::Map => "closure_map",
            Walk::Zip(3) => "closure_zip3",
            Walk::Zip(4) => "closure_zip4",
            Walk::Zip(5) => "closure_zip5",
            Walk::Zip(_) => "closure_zip",
            Walk::SumMap => "closure_sum_map",
            Walk::SumZip => "closure_sum_zip",
        }
    }

    /// The runtime's reverse of the walk.
    pub fn back(self) -> &'static str {
        match self {
            Walk::Map => "closure_map_back",
            Walk::Zip(3) => "closure_zip3_back",
            Walk::Zip(4) => "closure_zip4_back",
            Walk::Zip(5) => "closure_zip5_back",
            Walk::Zip(_) => "closure_zip_back",
            Walk::SumMap => "closure_sum_back",
            Walk::SumZip => "closure_sum_zip_back",
        }
    }

    /// How many arrays it walks.
    pub fn arrays(self) -> usize {
        match self {
            Walk::Map | Walk::SumMap => 1,
            Walk::Zip(n) => usize::from(n),
            Walk::SumZip => 2,
        }
    }

    /// Whether its value is a float (the sum of the mapped elements).
    pub fn summed(self) -> bool {
        matches!(self, Walk::SumMap | Walk::SumZip)
    }
}

/// One argument of a [`Call`].
#[derive(Clone)]
pub enum CallArg {
    /// A value of the graph: the op's input at this position; `by_ref` when the
    /// user borrowed it (`&h`).
    Input {
        input: usize,
        by_ref: bool,
        /// Passed as a view (`x.view()`, or a binding that holds one).
        view: bool,
    },
    /// Anything that mentions no differentiable value, as written.
    Const(Box<ConstArg>),
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

/// An expression the macro does not look into: a constant argument of an op
/// (an axis, an index, a label slice, `n` of `powi`), a loop bound, a
/// branch's condition. It is written as the user wrote it, except that each
/// binding it mentions becomes the local of that binding's node.
#[derive(Clone)]
pub struct ConstArg {
    pub expr: syn::Expr,
    /// The bindings it mentions, by name: the node and how the binding holds it.
    pub refs: Vec<(String, NodeId, Form)>,
    /// The nodes it needs, once per mention.
    pub deps: Vec<NodeId>,
    /// A place (`data.x`): its local borrows it, since a field of a
    /// borrowed constant cannot be moved out.
    pub place: bool,
}

impl ConstArg {
    /// A constant that mentions no binding.
    pub fn plain(expr: syn::Expr) -> ConstArg {
        ConstArg {
            expr,
            refs: Vec::new(),
            deps: Vec::new(),
            place: false,
        }
    }

    /// The node a binding of this name stands for here, if it is one.
    pub fn resolve(&self, name: &str) -> Option<(NodeId, Form)> {
        self.refs
            .iter()
            .find(|(n, ..)| n == name)
            .map(|(_, id, form)| (*id, *form))
    }

    /// The expression, each binding replaced by `local(node, form)`.
    pub fn render(&self, local: impl Fn(NodeId, Form) -> TokenStream) -> TokenStream {
        struct Subst<'a, F> {
            arg: &'a ConstArg,
            local: F,
        }
        impl<F: Fn(NodeId, Form) -> TokenStream> Subst<'_, F> {
            /// A macro's tokens, each binding's name replaced as in an
            /// expression (the macro cannot be parsed, so by name).
            fn tokens(&self, tokens: TokenStream) -> TokenStream {
                tokens
                    .into_iter()
                    .map(|t| match t {
                        TokenTree::Ident(i) => match self.arg.resolve(&i.to_string()) {
                            Some((id, form)) => TokenTree::Group(Group::new(
                                Delimiter::None,
                                (self.local)(id, form),
                            )),
                            None => TokenTree::Ident(i),
                        },
                        TokenTree::Group(g) => {
                            let mut inner = Group::new(g.delimiter(), self.tokens(g.stream()));
                            inner.set_span(g.span());
                            TokenTree::Group(inner)
                        }
                        other => other,
                    })
                    .collect()
            }
        }
        impl<F: Fn(NodeId, Form) -> TokenStream> VisitMut for Subst<'_, F> {
            fn visit_expr_mut(&mut self, e: &mut syn::Expr) {
                if let syn::Expr::Macro(m) = e {
                    m.mac.tokens = self.tokens(m.mac.tokens.clone());
                    return;
                }
                if let syn::Expr::Path(p) = e {
                    if let (None, Some(ident)) = (&p.qself, p.path.get_ident()) {
                        if let Some((id, form)) = self.arg.resolve(&ident.to_string()) {
                            let tokens = (self.local)(id, form);
                            let group = Group::new(Delimiter::None, tokens);
                            *e = syn::Expr::Verbatim(TokenTree::Group(group).into());
                            return;
                        }
                    }
                }
                syn::visit_mut::visit_expr_mut(self, e);
            }
            fn visit_macro_mut(&mut self, m: &mut syn::Macro) {
                // `s![..]`, the one macro a constant may hold: its
                // expressions are renamed like any other.
                if let Some(mut elems) = SliceElems::of(m) {
                    for (e, step) in &mut elems.0 {
                        self.visit_expr_mut(e);
                        if let Some(step) = step {
                            self.visit_expr_mut(step);
                        }
                    }
                    m.tokens = elems.into_token_stream();
                }
            }
        }
        let mut expr = self.expr.clone();
        Subst { arg: self, local }.visit_expr_mut(&mut expr);
        expr.into_token_stream()
    }
}

/// The elements of ndarray's `s![..]` (the argument of `a.slice(..)`),
/// each an expression (a range, an index, `NewAxis`) with its `;step`.
pub struct SliceElems(pub Vec<(syn::Expr, Option<syn::Expr>)>);

impl SliceElems {
    /// The elements of `m`, if it is `s![..]` and they parse.
    pub fn of(m: &syn::Macro) -> Option<SliceElems> {
        let last = m.path.segments.last()?.ident.to_string();
        if !SLICE_MACROS.contains(&last.as_str()) {
            return None;
        }
        m.parse_body::<SliceElems>().ok()
    }
}

impl Parse for SliceElems {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        let mut elems = Vec::new();
        while !input.is_empty() {
            let e: syn::Expr = input.parse()?;
            let step = if input.peek(syn::Token![;]) {
                input.parse::<syn::Token![;]>()?;
                Some(input.parse()?)
            } else {
                None
            };
            elems.push((e, step));
            if !input.is_empty() {
                input.parse::<syn::Token![,]>()?;
            }
        }
        Ok(SliceElems(elems))
    }
}

impl ToTokens for SliceElems {
    fn to_tokens(&self, tokens: &mut TokenStream) {
        let elems = self.0.iter().map(|(e, step)| match step {
            Some(step) => quote!(#e ; #step),
            None => quote!(#e),
        });
        tokens.extend(quote!(#(#elems),*));
    }
}

/// What a node is.
#[derive(Clone)]
pub enum Node {
    /// The function's parameter at this index.
    Param(usize),
    /// A float literal, already suffixed with the function's float type.
    Float(TokenStream),
    /// An integer literal: fine as an index, an error as a float.
    Int(TokenStream),
    /// A constant expression the macro does not look into (`labels.len() as f64`);
    /// it mentions no differentiable value.
    Const(ConstArg),
    /// An op applied to `inputs` (uses of other nodes) and constant arguments.
    Op {
        op: Op,
        inputs: Vec<NodeId>,
        consts: Vec<ConstArg>,
    },
    /// Stands for an expression that was rejected, so lowering can go on.
    Error,
    /// In a loop body: the loop's input at this position (a carried value at
    /// the start of the iteration, or a value captured from outside).
    Input(usize),
    /// In a loop body: the loop's index variable, a constant of the gradient.
    LoopVar,
    /// A `for` loop over a range.
    Loop(Box<Loop>),
    /// `if cond { .. } else { .. }`.
    Branch(Box<Branch>),
    /// The `k`-th result of a loop (its carried variables), of a branch
    /// (the variables it assigns, then its value) or of a call whose value
    /// is a tuple (its `k`-th component).
    Out { of: NodeId, k: usize },
}

/// `if cond { then } else { otherwise }`: each arm is a region; the branch
/// taken is a constant of the gradient, and the reverse sweep takes it again.
#[derive(Clone)]
pub struct Branch {
    /// The condition, which may mention differentiable values.
    pub cond: ConstArg,
    /// The two arms: `then`, then `else` (an empty `else` passes values through).
    pub arms: [Region; 2],
    /// For each arm, the enclosing node behind each of its `Input(j)` nodes.
    pub arm_inputs: [Vec<NodeId>; 2],
    /// How many results: the assigned variables, then the value if it has one.
    pub outputs: usize,
}

/// `for var in start..end { body }` (or over `(start..end).rev()`,
/// `.step_by(k)`), or `while cond { body }`, with the variables the body
/// assigns carried from one iteration to the next.
#[derive(Clone)]
pub struct Loop {
    pub var: Option<syn::Ident>,
    pub start: ConstArg,
    pub end: ConstArg,
    pub inclusive: bool,
    /// What walks the range, in order (`.rev()`, `.step_by(k)`).
    pub adapters: Vec<Adapter>,
    /// A `while` loop's condition, over the body's inputs (the carried
    /// variables at the start of an iteration, and what it captures); it
    /// has no range: `start` is 0 and the iterations are counted.
    pub cond: Option<ConstArg>,
    /// Nodes of the enclosing graph: the initial value of each carried
    /// variable, then each value the body captures.
    pub inputs: Vec<NodeId>,
    /// How many of `inputs` are carried variables.
    pub carried: usize,
    pub body: Region,
}

impl Loop {
    /// Whether the body surely runs at least once: a `for` over a range
    /// whose bounds are integer literals and not empty, or `while true`
    /// (a `loop`). Anything else may run no iteration, and then the loop's
    /// results are the values from before it.
    pub fn runs_at_least_once(&self) -> bool {
        let int = |e: &syn::Expr| match e {
            syn::Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Int(i),
                ..
            }) => i.base10_parse::<u128>().ok(),
            _ => None,
        };
        match &self.cond {
            Some(c) => matches!(
                &c.expr,
                syn::Expr::Lit(syn::ExprLit {
                    lit: syn::Lit::Bool(b),
                    ..
                }) if b.value
            ),
            None => match (int(&self.start.expr), int(&self.end.expr)) {
                (Some(a), Some(b)) => a < b || (self.inclusive && a == b),
                _ => false,
            },
        }
    }
}

/// An iterator adapter on a loop's range.
#[derive(Clone)]
pub enum Adapter {
    Rev,
    StepBy(Box<ConstArg>),
}

/// A loop body: its own graph, whose `Input(j)` nodes stand for the loop's inputs.
#[derive(Clone)]
pub struct Region {
    pub graph: Graph,
    /// The `Input(j)` node of each loop input.
    pub inputs: Vec<NodeId>,
    /// The value of each carried variable at the end of an iteration.
    pub outputs: Vec<NodeId>,
}

/// The lowered body: the graph of a function and its value.
#[derive(Clone)]
pub struct Lowered {
    pub graph: Graph,
    /// The function's value: one node, or one per component of a tuple
    /// output (the same node may be several components).
    pub outputs: Vec<NodeId>,
    /// The fields of models read in constants, each with its span: the
    /// generated code checks that none is a parameter of the model.
    pub constant_fields: Vec<(syn::Expr, Span)>,
    /// For the copy over duals: the names of the differentiable functions
    /// it calls (whose copies it calls, `crate::dual::names`).
    pub dual_calls: std::collections::BTreeSet<String>,
}

/// The name a field path's model stands for in the path's constant
/// (`__backprop_model.layers[i].w`): the emitter puts the model there.
pub const MODEL_ROOT: &str = "__backprop_model";

/// How the node's local is named in the generated code.
#[derive(Clone)]
pub enum Name {
    /// A `let` binding of the user: keeps the user's name.
    User(String),
    /// An intermediate value inside the expression bound to `base`.
    Temp(String),
    /// The value of the body's final expression (whose adjoint is `d_out`).
    Output,
    /// Component `k` of a tuple output (whose adjoint is `d_out`'s `k`-th).
    Component(usize),
}

/// One node and where it came from.
#[derive(Clone)]
pub struct NodeData {
    pub node: Node,
    pub name: Name,
    /// The user's tokens that produced it, for error spans and `quote_spanned!`.
    pub span: Span,
}

/// The DAG of a function body.
#[derive(Default, Clone)]
pub struct Graph {
    pub nodes: Vec<NodeData>,
    /// The calls of [`Op::Call`] nodes.
    pub calls: Vec<Call>,
    /// The fields of models a `let` with a float type binds
    /// (`let g: f64 = self.g;`): floats, read by value.
    pub float_fields: std::collections::HashSet<NodeId>,
    /// The values a `let` binds with a float type (`let v: f64 = f(x);`):
    /// floats, whatever the macro knows of what they are made of.
    pub typed_floats: std::collections::HashSet<NodeId>,
    /// Constant containers kept as the user wrote them (`[a, b]`,
    /// `vec![a, b]` of constants that are not literals): Rust's code reads
    /// them as they are, an op through a view (`bp::plain_view`).
    pub plain_consts: std::collections::HashSet<NodeId>,
}

impl Graph {
    /// Adds a node; its inputs must already exist (children first).
    pub fn add(&mut self, node: Node, name: Name, span: Span) -> NodeId {
        let id = NodeId(u32::try_from(self.nodes.len()).expect("fewer than 2^32 nodes"));
        if let Node::Op { inputs, .. } = &node {
            assert!(inputs.iter().all(|i| *i < id), "children before parents");
        }
        self.nodes.push(NodeData { node, name, span });
        id
    }

    pub fn get(&self, id: NodeId) -> &NodeData {
        &self.nodes[id.index()]
    }

    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    /// The call a node is, if it is one.
    pub fn call(&self, id: NodeId) -> Option<&Call> {
        match &self.get(id).node {
            Node::Op {
                op: Op::Call(k), ..
            } => Some(&self.calls[*k as usize]),
            _ => None,
        }
    }

    /// The components of a call whose value is a tuple (its `Out` nodes),
    /// if the node is one: such a call has no adjoint of its own, each
    /// component has one.
    pub fn tuple_call(&self, id: NodeId) -> Option<&[NodeId]> {
        self.call(id)
            .map(|c| c.components.as_slice())
            .filter(|c| !c.is_empty())
    }

    /// The ids in forward order.
    pub fn ids(&self) -> impl DoubleEndedIterator<Item = NodeId> {
        (0..self.nodes.len() as u32).map(NodeId)
    }

    /// Every node this node needs to be computed: its inputs, then the nodes
    /// its constant arguments mention.
    pub fn deps(&self, id: NodeId) -> Vec<NodeId> {
        match &self.get(id).node {
            Node::Op { op, inputs, consts } => {
                let mut d = inputs.clone();
                d.extend(consts.iter().flat_map(|c| c.deps.iter().copied()));
                if let Op::Call(k) = op {
                    let call = &self.calls[*k as usize];
                    for a in &call.args {
                        if let CallArg::Const(c) = a {
                            d.extend(c.deps.iter().copied());
                        }
                    }
                    if let Some(m) = &call.map {
                        d.extend(m.constants.iter().flat_map(|(_, c)| c.deps.iter().copied()));
                    }
                }
                d
            }
            Node::Const(c) => c.deps.clone(),
            Node::Loop(lp) => {
                let mut d = lp.inputs.clone();
                d.extend(lp.start.deps.iter().chain(&lp.end.deps).copied());
                for a in &lp.adapters {
                    if let Adapter::StepBy(k) = a {
                        d.extend(k.deps.iter().copied());
                    }
                }
                d
            }
            Node::Branch(b) => {
                let mut d: Vec<NodeId> = b.arm_inputs.iter().flatten().copied().collect();
                d.extend(b.cond.deps.iter().copied());
                d
            }
            Node::Out { of, .. } => vec![*of],
            _ => Vec::new(),
        }
    }
}
