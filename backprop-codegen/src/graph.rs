//! The IR: a flat vector of nodes, children before parents.
//!
//! Every value of the body is one node; every use of a value is one edge (an
//! entry of a parent's `inputs`). Because children come first, the forward
//! pass is the nodes in order and the reverse sweep is the nodes in reverse
//! order: no search is ever needed.

use proc_macro2::{Span, TokenStream};

/// A node's index in its [`Graph`].
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
pub struct NodeId(pub u32);

impl NodeId {
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// An operation of the vocabulary. Each one names its forward function and its
/// adjoint rules in the runtime (see [`Op::spec`]).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Op {
    Add,
    Sub,
    Mul,
    Div,
    Max,
    Min,
    Powf,
    Neg,
    /// An elementwise function such as `exp`, by its runtime name.
    Unary(&'static str),
    /// `powi(x, n)`: one constant argument.
    Powi,
    Sum,
    Mean,
    /// `sum_axis(x, Axis(k))`: one constant argument.
    SumAxis,
    MeanAxis,
    Dot,
    T,
    /// `a.row(i)`: one constant argument.
    Row,
    Column,
    /// `v[i]`, `m[[i, j]]`: one constant argument.
    Index,
    /// `.to_owned()`, `.clone()`.
    Copy,
    /// `a.insert_axis(Axis(k))`: one constant argument.
    InsertAxis,
    Softmax,
    LogSoftmax,
    LogSumExp,
    /// `softmax_cross_entropy(&logits, labels)`: one constant argument, saves the probabilities.
    SoftmaxCrossEntropy,
    Mse,
    /// `concat(Axis(k), &[&a, &b, ...])`: the axis is its constant argument.
    Concat,
    /// A call of another differentiable function (or of a function with a
    /// user-defined adjoint rule), by its index in [`Graph::calls`].
    Call(u32),
}

/// A call of a function the macro does not see into: the forward calls it,
/// the reverse sweep calls its `NAME_vjp`.
#[derive(Clone)]
pub struct Call {
    /// The called path, as the user wrote it.
    pub path: syn::Path,
    /// The path of its positional adjoint, `NAME_vjp`, beside it.
    pub vjp: syn::Path,
    /// Each argument, in order.
    pub args: Vec<CallArg>,
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
    Const(ConstArg),
}

/// How an op's adjoint rules are named.
pub enum Vjps {
    /// `foo_vjp`: one differentiable operand.
    One(&'static str),
    /// `foo_vjp_lhs`, `foo_vjp_rhs`.
    Two(&'static str, &'static str),
    /// `concat_vjp(.., k, ..)`: one rule, told which operand.
    Indexed(&'static str),
}

/// The runtime names of an op.
pub struct Spec {
    pub forward: &'static str,
    pub vjps: Vjps,
    /// The adjoint rule takes the forward output last.
    pub needs_out: bool,
    /// The forward is `forward_fwd` returning `(out, saved)`, and the adjoint
    /// takes the saved value in the place of the output. The string names it.
    pub saves: Option<&'static str>,
}

impl Op {
    /// An op applied element by element (with broadcasting): a scalar in
    /// every operand gives a scalar, and the adjoint rule takes the output,
    /// where it reads it, as any array of the input's kind.
    pub fn elementwise(self) -> bool {
        matches!(
            self,
            Op::Add
                | Op::Sub
                | Op::Mul
                | Op::Div
                | Op::Max
                | Op::Min
                | Op::Powf
                | Op::Neg
                | Op::Unary(_)
                | Op::Powi
                | Op::Copy
        )
    }

    pub fn spec(self) -> Spec {
        use Vjps::*;
        let (forward, vjps, needs_out, saves) = match self {
            Op::Add => ("add", Two("add_vjp_lhs", "add_vjp_rhs"), false, None),
            Op::Sub => ("sub", Two("sub_vjp_lhs", "sub_vjp_rhs"), false, None),
            Op::Mul => ("mul", Two("mul_vjp_lhs", "mul_vjp_rhs"), false, None),
            Op::Div => ("div", Two("div_vjp_lhs", "div_vjp_rhs"), false, None),
            Op::Max => ("max", Two("max_vjp_lhs", "max_vjp_rhs"), false, None),
            Op::Min => ("min", Two("min_vjp_lhs", "min_vjp_rhs"), false, None),
            Op::Powf => ("powf", Two("powf_vjp_lhs", "powf_vjp_rhs"), false, None),
            Op::Neg => ("neg", One("neg_vjp"), false, None),
            Op::Unary(name) => (name, One(unary_vjp_name(name)), true, None),
            Op::Powi => ("powi", One("powi_vjp"), true, None),
            Op::Sum => ("sum", One("sum_vjp"), true, None),
            Op::Mean => ("mean", One("mean_vjp"), true, None),
            Op::SumAxis => ("sum_axis", One("sum_axis_vjp"), true, None),
            Op::MeanAxis => ("mean_axis", One("mean_axis_vjp"), true, None),
            Op::Dot => ("dot", Two("dot_vjp_lhs", "dot_vjp_rhs"), false, None),
            Op::T => ("t", One("t_vjp"), true, None),
            Op::Row => ("row", One("row_vjp"), true, None),
            Op::Column => ("column", One("column_vjp"), true, None),
            Op::Index => ("index", One("index_vjp"), true, None),
            Op::Copy => ("copy", One("copy_vjp"), true, None),
            Op::InsertAxis => ("insert_axis", One("insert_axis_vjp"), true, None),
            Op::Softmax => ("softmax", One("softmax_vjp"), true, None),
            Op::LogSoftmax => ("log_softmax", One("log_softmax_vjp"), true, None),
            Op::LogSumExp => ("logsumexp", One("logsumexp_vjp"), true, None),
            Op::SoftmaxCrossEntropy => (
                "softmax_cross_entropy",
                One("softmax_cross_entropy_vjp"),
                false,
                Some("probs"),
            ),
            Op::Mse => ("mse", Two("mse_vjp_lhs", "mse_vjp_rhs"), true, None),
            Op::Concat => ("concat", Indexed("concat_vjp"), true, None),
            Op::Call(_) => ("", One(""), false, None),
        };
        Spec {
            forward,
            vjps,
            needs_out,
            saves,
        }
    }
}

/// The adjoint rule of an elementwise function.
fn unary_vjp_name(name: &'static str) -> &'static str {
    match name {
        "exp" => "exp_vjp",
        "ln" => "ln_vjp",
        "sqrt" => "sqrt_vjp",
        "square" => "square_vjp",
        "abs" => "abs_vjp",
        "sin" => "sin_vjp",
        "cos" => "cos_vjp",
        "tan" => "tan_vjp",
        "tanh" => "tanh_vjp",
        "sigmoid" => "sigmoid_vjp",
        "relu" => "relu_vjp",
        "recip" => "recip_vjp",
        _ => unreachable!("unary ops are listed in lower::UNARY"),
    }
}

/// A constant argument of an op (an axis, an index, a label slice, `n` of
/// `powi`): tokens with the nodes they mention, to be renamed on emission.
#[derive(Clone)]
pub struct ConstArg {
    pub tokens: TokenStream,
    pub deps: Vec<NodeId>,
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
    /// The `k`-th result of a loop (its carried variables) or of a branch
    /// (the variables it assigns, then its value).
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

/// `for var in start..end { body }`, with the variables the body assigns
/// carried from one iteration to the next.
#[derive(Clone)]
pub struct Loop {
    pub var: Option<syn::Ident>,
    pub start: ConstArg,
    pub end: ConstArg,
    pub inclusive: bool,
    /// Nodes of the enclosing graph: the initial value of each carried
    /// variable, then each value the body captures.
    pub inputs: Vec<NodeId>,
    /// How many of `inputs` are carried variables.
    pub carried: usize,
    pub body: Region,
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

/// How the node's local is named in the generated code.
#[derive(Clone)]
pub enum Name {
    /// A `let` binding of the user: keeps the user's name.
    User(String),
    /// An intermediate value inside the expression bound to `base`.
    Temp(String),
    /// The value of the body's final expression (whose adjoint is `d_out`).
    Output,
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
                    for a in &self.calls[*k as usize].args {
                        if let CallArg::Const(c) = a {
                            d.extend(c.deps.iter().copied());
                        }
                    }
                }
                d
            }
            Node::Const(c) => c.deps.clone(),
            Node::Loop(lp) => {
                let mut d = lp.inputs.clone();
                d.extend(lp.start.deps.iter().chain(&lp.end.deps).copied());
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
