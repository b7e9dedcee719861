//! The op table: every operation of the vocabulary is one row, written once.
//!
//! A row says how a body spells the op (a method, a function of
//! `backprop::ops`, an `f64::` path), which of its arguments are
//! differentiable operands and which are constants (with the words an error
//! uses for them), the runtime functions its forward pass and its adjoint
//! rules call, what those rules read, and what the planner may do with it
//! (write it over an operand's buffer, fuse it into the pass of the op
//! before, add its contributions into an accumulator).
//!
//! Lowering, planning and emission ask this table; nothing else in the
//! compiler lists op names. Every runtime name here is checked by the test
//! that expands one function per row and compiles it (`tests/vocab.rs`).

/// An argument of a spelling, after the receiver of a method.
#[derive(Clone, Copy, Debug)]
pub enum Arg {
    /// A value the op differentiates.
    Operand,
    /// A constant of the gradient (an exponent, an axis, an index, labels),
    /// and what it is, for the message when it is not a constant.
    Const(&'static str),
    /// `&[&a, &b, ...]`: the operands written out (`concat`).
    Operands,
}

use Arg::{Const, Operand, Operands};

/// How an op's adjoint rules are named.
#[derive(Clone, Copy, Debug)]
pub enum Rules {
    /// `foo_vjp`: one differentiable operand.
    One(&'static str),
    /// `foo_vjp_lhs`, `foo_vjp_rhs`.
    Two(&'static str, &'static str),
    /// `concat_vjp(.., k, ..)`: one rule, told which operand.
    Indexed(&'static str),
}

/// When an op may write its result over its first operand's buffer.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum InPlace {
    Never,
    /// No rule of the op that runs reads the first operand's values.
    Always,
    /// Only while the other operand has no adjoint: its rule reads the
    /// first operand (`∂b = g·a` for `a * b`).
    UnlessOtherActive,
}

/// The forms of an op's rules that add a contribution into an existing
/// gradient instead of making a new one, for the left and right operand.
#[derive(Clone, Copy, Debug)]
pub struct Accumulating {
    /// `rule_acc(&mut acc, g, ..)`: added in place.
    pub acc: [&'static str; 2],
    /// `rule_add(acc, g, ..) -> acc`: added into `acc`'s buffer.
    pub add: [&'static str; 2],
    /// `rule_defer(slot, &mut acc, g, ..)`: an outer product kept in a
    /// loop's `Outers` (a product only).
    pub defer: Option<[&'static str; 2]>,
}

/// One row of the table.
#[derive(Debug)]
pub struct OpDef {
    /// The op's name, as users see it in messages.
    pub name: &'static str,
    /// The method names that spell it (`x.tanh()`), none if it has no method.
    pub methods: &'static [&'static str],
    /// The arguments of the method, after the receiver (an operand).
    pub method_args: &'static [Arg],
    /// How the method is used, for an arity error.
    pub method_usage: &'static str,
    /// The arguments of `name(..)` (also `ops::name`, `backprop::ops::name`);
    /// `None` if there is no such function.
    pub function: Option<&'static [Arg]>,
    /// How the function is used, for an arity error.
    pub function_usage: &'static str,
    /// The arguments of `f64::name(..)` and `f32::name(..)`; `None` if `f64`
    /// has no such method.
    pub float_path: Option<&'static [Arg]>,
    /// The runtime forward function.
    pub forward: &'static str,
    /// The runtime adjoint rules.
    pub rules: Rules,
    /// The rules take the forward output last.
    pub reads_out: bool,
    /// The forward keeps an intermediate for the rules, which take it in the
    /// place of the output: its local's suffix, and the forward function
    /// that returns `(out, saved)`.
    pub saves: Option<(&'static str, &'static str)>,
    pub in_place: InPlace,
    /// The forward that writes over its first operand's buffer.
    pub owned: &'static str,
    /// `owned`, then an elementwise function of each element, in one pass
    /// (the arithmetic ops, which a function of their result may follow).
    pub owned_map: &'static str,
    /// The op's function of one element, which `owned_map` applies (the
    /// elementwise functions that may run in place).
    pub elem: &'static str,
    /// The rule of the first operand that writes its gradient over that
    /// operand's buffer, where nothing reads it after the rule.
    pub rule_owned: &'static str,
    /// The rules that add into an accumulator.
    pub accumulating: Option<Accumulating>,
    /// Both operands' rules in one call, which gives the upstream buffer to
    /// the one that was not broadcast.
    pub both: &'static str,
    /// Both operands' rules, where one gradient may borrow the other's
    /// (`a + b`): the one for a borrowing right operand, then left.
    pub lend: Option<[&'static str; 2]>,
    pub flags: u8,
    /// For an operator: its rules on scalars, for each operand.
    pub scalar_rules: [ScalarRule; 2],
}

/// Applied element by element (with broadcasting): a scalar in every operand
/// gives a scalar, and the rules take the output as any array of the
/// input's kind.
pub const ELEMENTWISE: u8 = 1;
/// Its value is always a scalar.
pub const SCALAR_OUT: u8 = 2;
/// Its value is a view of its operand (`t`, `row`, ...).
pub const VIEW: u8 = 4;
/// Its rules take its output (and its operand) as any array, so a loop may
/// keep the output as a row of a buffer and lend it back as a view.
pub const ROW_OUT: u8 = 8;
/// Its rules take one type for all operands (so none may be a view of a row).
pub const SAME_TYPE: u8 = 16;
/// Only a float value is copied; any other value passes through as it is.
pub const FLOATS_ONLY: u8 = 32;
/// A Rust operator (its name is its symbol): on scalars the forward is
/// written with it, and the rules as the arithmetic of `scalar_rules`.
pub const OPERATOR: u8 = 64;

/// The local derivative of an operator on scalars, times the upstream
/// gradient `g`, as written in the generated code (`a`, `b`: the operands).
#[derive(Clone, Copy, Debug)]
pub enum ScalarRule {
    /// `g`
    G,
    /// `-g`
    NegG,
    /// `g * b`
    TimesRhs,
    /// `g * a`
    TimesLhs,
    /// `g / b`
    OverRhs,
    /// `-(g * a) / (b * b)`
    Quotient,
}

/// The defaults of a row.
const ROW: OpDef = OpDef {
    name: "",
    methods: &[],
    method_args: &[],
    method_usage: "",
    function: None,
    function_usage: "",
    float_path: None,
    forward: "",
    rules: Rules::One(""),
    reads_out: true,
    saves: None,
    in_place: InPlace::Never,
    owned: "",
    owned_map: "",
    elem: "",
    rule_owned: "",
    accumulating: None,
    both: "",
    lend: None,
    flags: 0,
    scalar_rules: [ScalarRule::G, ScalarRule::G],
};

macro_rules! vocabulary {
    ($($(#[$doc:meta])* $op:ident => $def:expr,)*) => {
        /// An operation of the vocabulary (a row of the table), or a call of
        /// another differentiable function by its index in the graph's calls.
        #[derive(Clone, Copy, PartialEq, Eq, Debug, Hash)]
        pub enum Op {
            $($(#[$doc])* $op,)*
            Call(u32),
        }

        impl Op {
            /// Every op of the table, in its order.
            pub const ALL: &'static [Op] = &[$(Op::$op,)*];

            /// The op's row.
            pub fn def(self) -> &'static OpDef {
                match self {
                    $(Op::$op => { const DEF: OpDef = $def; &DEF })*
                    Op::Call(_) => &ROW,
                }
            }
        }
    };
}

vocabulary! {
    /// `a + b`.
    Add => OpDef {
        name: "+",
        forward: "add",
        rules: Rules::Two("add_vjp_lhs", "add_vjp_rhs"),
        reads_out: false,
        in_place: InPlace::Always,
        owned: "add_owned",
        owned_map: "add_owned_map",
        accumulating: Some(Accumulating {
            acc: ["add_vjp_lhs_acc", "add_vjp_rhs_acc"],
            add: ["add_vjp_lhs_add", "add_vjp_rhs_add"],
            defer: None,
        }),
        both: "add_vjp_both",
        lend: Some(["add_vjp_lend_rhs", "add_vjp_lend_lhs"]),
        flags: ELEMENTWISE | ROW_OUT | OPERATOR,
        scalar_rules: [ScalarRule::G, ScalarRule::G],
        ..ROW
    },
    /// `a - b`.
    Sub => OpDef {
        name: "-",
        forward: "sub",
        rules: Rules::Two("sub_vjp_lhs", "sub_vjp_rhs"),
        reads_out: false,
        in_place: InPlace::Always,
        owned: "sub_owned",
        owned_map: "sub_owned_map",
        accumulating: Some(Accumulating {
            acc: ["sub_vjp_lhs_acc", "sub_vjp_rhs_acc"],
            add: ["sub_vjp_lhs_add", "sub_vjp_rhs_add"],
            defer: None,
        }),
        both: "sub_vjp_both",
        flags: ELEMENTWISE | ROW_OUT | OPERATOR,
        scalar_rules: [ScalarRule::G, ScalarRule::NegG],
        ..ROW
    },
    /// `a * b`.
    Mul => OpDef {
        name: "*",
        forward: "mul",
        rules: Rules::Two("mul_vjp_lhs", "mul_vjp_rhs"),
        reads_out: false,
        in_place: InPlace::UnlessOtherActive,
        owned: "mul_owned",
        owned_map: "mul_owned_map",
        both: "mul_vjp_both",
        flags: ELEMENTWISE | ROW_OUT | OPERATOR,
        scalar_rules: [ScalarRule::TimesRhs, ScalarRule::TimesLhs],
        ..ROW
    },
    /// `a / b`.
    Div => OpDef {
        name: "/",
        forward: "div",
        rules: Rules::Two("div_vjp_lhs", "div_vjp_rhs"),
        reads_out: false,
        in_place: InPlace::UnlessOtherActive,
        owned: "div_owned",
        owned_map: "div_owned_map",
        both: "div_vjp_both",
        flags: ELEMENTWISE | ROW_OUT | OPERATOR,
        scalar_rules: [ScalarRule::OverRhs, ScalarRule::Quotient],
        ..ROW
    },
    /// `a.max(b)`.
    Max => OpDef {
        name: "max",
        methods: &["max"],
        method_args: &[Operand],
        method_usage: "`a.max(b)`",
        forward: "max",
        rules: Rules::Two("max_vjp_lhs", "max_vjp_rhs"),
        reads_out: false,
        flags: ELEMENTWISE | ROW_OUT,
        ..ROW
    },
    /// `a.min(b)`.
    Min => OpDef {
        name: "min",
        methods: &["min"],
        method_args: &[Operand],
        method_usage: "`a.min(b)`",
        forward: "min",
        rules: Rules::Two("min_vjp_lhs", "min_vjp_rhs"),
        reads_out: false,
        flags: ELEMENTWISE | ROW_OUT,
        ..ROW
    },
    /// `a.powf(b)`.
    Powf => OpDef {
        name: "powf",
        methods: &["powf"],
        method_args: &[Operand],
        method_usage: "`a.powf(b)`",
        forward: "powf",
        rules: Rules::Two("powf_vjp_lhs", "powf_vjp_rhs"),
        reads_out: false,
        flags: ELEMENTWISE | ROW_OUT,
        ..ROW
    },
    /// `-x`.
    Neg => OpDef {
        name: "-",
        forward: "neg",
        rules: Rules::One("neg_vjp"),
        reads_out: false,
        in_place: InPlace::Always,
        owned: "neg_owned",
        elem: "neg_elem",
        flags: ELEMENTWISE | ROW_OUT | OPERATOR,
        scalar_rules: [ScalarRule::NegG, ScalarRule::NegG],
        ..ROW
    },
    /// `eˣ`.
    Exp => OpDef {
        name: "exp",
        methods: &["exp"],
        method_usage: "`x.exp()`",
        function: Some(&[Operand]),
        function_usage: "`exp(x)`",
        float_path: Some(&[Operand]),
        forward: "exp",
        rules: Rules::One("exp_vjp"),
        in_place: InPlace::Always,
        owned: "exp_owned",
        elem: "exp_elem",
        flags: ELEMENTWISE | ROW_OUT,
        ..ROW
    },
    /// `ln x`.
    Ln => OpDef {
        name: "ln",
        methods: &["ln"],
        method_usage: "`x.ln()`",
        function: Some(&[Operand]),
        function_usage: "`ln(x)`",
        float_path: Some(&[Operand]),
        forward: "ln",
        rules: Rules::One("ln_vjp"),
        flags: ELEMENTWISE | ROW_OUT,
        ..ROW
    },
    /// `√x`.
    Sqrt => OpDef {
        name: "sqrt",
        methods: &["sqrt"],
        method_usage: "`x.sqrt()`",
        function: Some(&[Operand]),
        function_usage: "`sqrt(x)`",
        float_path: Some(&[Operand]),
        forward: "sqrt",
        rules: Rules::One("sqrt_vjp"),
        in_place: InPlace::Always,
        owned: "sqrt_owned",
        elem: "sqrt_elem",
        flags: ELEMENTWISE | ROW_OUT,
        ..ROW
    },
    /// `x²` (also what `x * x` lowers to).
    Square => OpDef {
        name: "square",
        function: Some(&[Operand]),
        function_usage: "`square(x)`",
        forward: "square",
        rules: Rules::One("square_vjp"),
        flags: ELEMENTWISE | ROW_OUT,
        ..ROW
    },
    /// `|x|`.
    Abs => OpDef {
        name: "abs",
        methods: &["abs"],
        method_usage: "`x.abs()`",
        function: Some(&[Operand]),
        function_usage: "`abs(x)`",
        float_path: Some(&[Operand]),
        forward: "abs",
        rules: Rules::One("abs_vjp"),
        flags: ELEMENTWISE | ROW_OUT,
        ..ROW
    },
    /// `sin x`.
    Sin => OpDef {
        name: "sin",
        methods: &["sin"],
        method_usage: "`x.sin()`",
        function: Some(&[Operand]),
        function_usage: "`sin(x)`",
        float_path: Some(&[Operand]),
        forward: "sin",
        rules: Rules::One("sin_vjp"),
        flags: ELEMENTWISE | ROW_OUT,
        ..ROW
    },
    /// `cos x`.
    Cos => OpDef {
        name: "cos",
        methods: &["cos"],
        method_usage: "`x.cos()`",
        function: Some(&[Operand]),
        function_usage: "`cos(x)`",
        float_path: Some(&[Operand]),
        forward: "cos",
        rules: Rules::One("cos_vjp"),
        flags: ELEMENTWISE | ROW_OUT,
        ..ROW
    },
    /// `tan x`.
    Tan => OpDef {
        name: "tan",
        methods: &["tan"],
        method_usage: "`x.tan()`",
        function: Some(&[Operand]),
        function_usage: "`tan(x)`",
        float_path: Some(&[Operand]),
        forward: "tan",
        rules: Rules::One("tan_vjp"),
        in_place: InPlace::Always,
        owned: "tan_owned",
        elem: "tan_elem",
        flags: ELEMENTWISE | ROW_OUT,
        ..ROW
    },
    /// `tanh x`.
    Tanh => OpDef {
        name: "tanh",
        methods: &["tanh"],
        method_usage: "`x.tanh()`",
        function: Some(&[Operand]),
        function_usage: "`tanh(x)`",
        float_path: Some(&[Operand]),
        forward: "tanh",
        rules: Rules::One("tanh_vjp"),
        in_place: InPlace::Always,
        owned: "tanh_owned",
        elem: "tanh_elem",
        flags: ELEMENTWISE | ROW_OUT,
        ..ROW
    },
    /// `σ(x)`.
    Sigmoid => OpDef {
        name: "sigmoid",
        function: Some(&[Operand]),
        function_usage: "`sigmoid(x)`",
        forward: "sigmoid",
        rules: Rules::One("sigmoid_vjp"),
        in_place: InPlace::Always,
        owned: "sigmoid_owned",
        elem: "sigmoid_elem",
        flags: ELEMENTWISE | ROW_OUT,
        ..ROW
    },
    /// `max(x, 0)`.
    Relu => OpDef {
        name: "relu",
        function: Some(&[Operand]),
        function_usage: "`relu(x)`",
        forward: "relu",
        rules: Rules::One("relu_vjp"),
        in_place: InPlace::Always,
        owned: "relu_owned",
        elem: "relu_elem",
        flags: ELEMENTWISE | ROW_OUT,
        ..ROW
    },
    /// `1 / x`.
    Recip => OpDef {
        name: "recip",
        methods: &["recip"],
        method_usage: "`x.recip()`",
        function: Some(&[Operand]),
        function_usage: "`recip(x)`",
        float_path: Some(&[Operand]),
        forward: "recip",
        rules: Rules::One("recip_vjp"),
        in_place: InPlace::Always,
        owned: "recip_owned",
        elem: "recip_elem",
        flags: ELEMENTWISE | ROW_OUT,
        ..ROW
    },
    /// `xⁿ` for an `i32` constant `n`.
    Powi => OpDef {
        name: "powi",
        methods: &["powi"],
        method_args: &[Const("the exponent of `powi`")],
        method_usage: "`x.powi(n)` with an `i32` constant `n`",
        function: Some(&[Operand, Const("the exponent of `powi`")]),
        function_usage: "`powi(x, n)` with an `i32` constant `n`",
        float_path: Some(&[Operand, Const("the exponent of `powi`")]),
        forward: "powi",
        rules: Rules::One("powi_vjp"),
        flags: ELEMENTWISE | ROW_OUT,
        ..ROW
    },
    /// The sum of all elements.
    Sum => OpDef {
        name: "sum",
        methods: &["sum"],
        method_usage: "`a.sum()`",
        function: Some(&[Operand]),
        function_usage: "`sum(&x)`",
        forward: "sum",
        rules: Rules::One("sum_vjp"),
        flags: SCALAR_OUT,
        ..ROW
    },
    /// The mean of all elements.
    Mean => OpDef {
        name: "mean",
        function: Some(&[Operand]),
        function_usage: "`mean(&x)`",
        forward: "mean",
        rules: Rules::One("mean_vjp"),
        flags: SCALAR_OUT,
        ..ROW
    },
    /// The sum along an axis.
    SumAxis => OpDef {
        name: "sum_axis",
        methods: &["sum_axis"],
        method_args: &[Const("the axis of `sum_axis`")],
        method_usage: "`a.sum_axis(Axis(k))`",
        function: Some(&[Operand, Const("the axis of `sum_axis`")]),
        function_usage: "`sum_axis(&a, Axis(k))`",
        forward: "sum_axis",
        rules: Rules::One("sum_axis_vjp"),
        ..ROW
    },
    /// The mean along an axis.
    MeanAxis => OpDef {
        name: "mean_axis",
        function: Some(&[Operand, Const("the axis of `mean_axis`")]),
        function_usage: "`mean_axis(&a, Axis(k))`",
        forward: "mean_axis",
        rules: Rules::One("mean_axis_vjp"),
        ..ROW
    },
    /// `a.dot(&b)`.
    Dot => OpDef {
        name: "dot",
        methods: &["dot"],
        method_args: &[Operand],
        method_usage: "`a.dot(b)`",
        forward: "dot",
        rules: Rules::Two("dot_vjp_lhs", "dot_vjp_rhs"),
        reads_out: false,
        accumulating: Some(Accumulating {
            acc: ["dot_vjp_lhs_acc", "dot_vjp_rhs_acc"],
            add: ["dot_vjp_lhs_add", "dot_vjp_rhs_add"],
            defer: Some(["dot_vjp_lhs_defer", "dot_vjp_rhs_defer"]),
        }),
        flags: ROW_OUT,
        ..ROW
    },
    /// `a.t()`.
    T => OpDef {
        name: "t",
        methods: &["t"],
        method_usage: "`a.t()`",
        forward: "t",
        rules: Rules::One("t_vjp"),
        flags: VIEW,
        ..ROW
    },
    /// `a.row(i)`.
    Row => OpDef {
        name: "row",
        methods: &["row"],
        method_args: &[Const("the row index")],
        method_usage: "`a.row(i)`",
        forward: "row",
        rules: Rules::One("row_vjp"),
        flags: VIEW,
        ..ROW
    },
    /// `a.column(j)`.
    Column => OpDef {
        name: "column",
        methods: &["column"],
        method_args: &[Const("the column index")],
        method_usage: "`a.column(j)`",
        forward: "column",
        rules: Rules::One("column_vjp"),
        flags: VIEW,
        ..ROW
    },
    /// `v[i]`, `m[[i, j]]`.
    Index => OpDef {
        name: "index",
        forward: "index",
        rules: Rules::One("index_vjp"),
        flags: SCALAR_OUT,
        ..ROW
    },
    /// `.to_owned()`, `.clone()`.
    Copy => OpDef {
        name: "to_owned",
        methods: &["to_owned", "clone"],
        method_usage: "`a.to_owned()`",
        forward: "copy",
        rules: Rules::One("copy_vjp"),
        flags: ELEMENTWISE | ROW_OUT | FLOATS_ONLY,
        ..ROW
    },
    /// `a.insert_axis(Axis(k))`.
    InsertAxis => OpDef {
        name: "insert_axis",
        methods: &["insert_axis"],
        method_args: &[Const("the axis of `insert_axis`")],
        method_usage: "`a.insert_axis(Axis(k))`",
        forward: "insert_axis",
        rules: Rules::One("insert_axis_vjp"),
        flags: VIEW,
        ..ROW
    },
    /// Row-wise `softmax`.
    Softmax => OpDef {
        name: "softmax",
        function: Some(&[Operand]),
        function_usage: "`softmax(&x)`",
        forward: "softmax",
        rules: Rules::One("softmax_vjp"),
        flags: ROW_OUT,
        ..ROW
    },
    /// Row-wise `log_softmax`.
    LogSoftmax => OpDef {
        name: "log_softmax",
        function: Some(&[Operand]),
        function_usage: "`log_softmax(&x)`",
        forward: "log_softmax",
        rules: Rules::One("log_softmax_vjp"),
        flags: ROW_OUT,
        ..ROW
    },
    /// Row-wise `logsumexp`.
    LogSumExp => OpDef {
        name: "logsumexp",
        function: Some(&[Operand]),
        function_usage: "`logsumexp(&x)`",
        forward: "logsumexp",
        rules: Rules::One("logsumexp_vjp"),
        ..ROW
    },
    /// The mean softmax cross-entropy of rows of logits against labels.
    SoftmaxCrossEntropy => OpDef {
        name: "softmax_cross_entropy",
        function: Some(&[Operand, Const("the labels of `softmax_cross_entropy`")]),
        function_usage: "`softmax_cross_entropy(&logits, labels)`",
        forward: "softmax_cross_entropy",
        rules: Rules::One("softmax_cross_entropy_vjp"),
        reads_out: false,
        saves: Some(("probs", "softmax_cross_entropy_fwd")),
        in_place: InPlace::Always,
        owned: "softmax_cross_entropy_fwd_owned",
        flags: SCALAR_OUT,
        ..ROW
    },
    /// The mean squared error.
    Mse => OpDef {
        name: "mse",
        function: Some(&[Operand, Operand]),
        function_usage: "`mse(&prediction, &target)`",
        forward: "mse",
        rules: Rules::Two("mse_vjp_lhs", "mse_vjp_rhs"),
        rule_owned: "mse_vjp_lhs_owned",
        flags: SCALAR_OUT,
        ..ROW
    },
    /// `concat(Axis(k), &[&a, &b, ...])`.
    Concat => OpDef {
        name: "concat",
        function: Some(&[Const("the axis of `concat`"), Operands]),
        function_usage: "`concat(Axis(k), &[&a, &b, ...])`",
        forward: "concat",
        rules: Rules::Indexed("concat_vjp"),
        flags: SAME_TYPE,
        ..ROW
    },
}

impl Op {
    pub fn has(self, flag: u8) -> bool {
        self.def().flags & flag != 0
    }

    /// Applied element by element (see [`ELEMENTWISE`]).
    pub fn elementwise(self) -> bool {
        self.has(ELEMENTWISE)
    }

    /// The op spelled as the method `name`.
    pub fn by_method(name: &str) -> Option<Op> {
        Op::ALL
            .iter()
            .copied()
            .find(|op| op.def().methods.contains(&name))
    }

    /// The op `path` names as a function: `relu`, `ops::relu`,
    /// `backprop::ops::relu`, `f64::exp`.
    pub fn by_path(path: &syn::Path) -> Option<(Op, &'static [Arg])> {
        let segs: Vec<String> = path.segments.iter().map(|s| s.ident.to_string()).collect();
        let (last, prefix) = segs.split_last()?;
        let in_ops = prefix
            .iter()
            .all(|s| matches!(s.as_str(), "backprop" | "ops" | "prelude"));
        let float = prefix.len() == 1 && matches!(prefix[0].as_str(), "f64" | "f32");
        Op::ALL.iter().copied().find_map(|op| {
            let def = op.def();
            if def.name != last {
                return None;
            }
            match (def.function, def.float_path) {
                (Some(args), _) if in_ops => Some((op, args)),
                (_, Some(args)) if float => Some((op, args)),
                _ => None,
            }
        })
    }

    /// Whether the op may write its result over its first operand's
    /// buffer, given which of its operands have adjoints.
    pub fn in_place(self, active: &[bool]) -> bool {
        match self.def().in_place {
            InPlace::Never => false,
            InPlace::Always => true,
            InPlace::UnlessOtherActive => !active.get(1).copied().unwrap_or(false),
        }
    }
}

/// The runtime's fused forms that are not one op's.
pub mod fused {
    /// `sum(square(x))` as one reduction, and its rules.
    pub const SUM_SQUARE: &str = "sum_square";
    pub const SUM_SQUARE_VJP: &str = "sum_square_vjp";
    pub const SUM_SQUARE_VJP_OWNED: &str = "sum_square_vjp_owned";
    /// `x + m.dot(&v)` with the product added into `x`'s buffer.
    pub const ADD_DOT_OWNED: &str = "add_dot_owned";
    /// A product computed into a loop's spare buffer.
    pub const DOT_REUSE: &str = "dot_reuse";
}

/// Methods that only read an array's shape: constants even on a
/// differentiable value.
pub const SHAPE_METHODS: &[&str] = &[
    "len", "len_of", "nrows", "ncols", "shape", "dim", "raw_dim", "ndim", "is_empty",
];

/// Methods that see through to their receiver.
pub const TRANSPARENT_METHODS: &[&str] = &["view"];

/// What to use instead of a method that cannot be differentiated ("" if
/// nothing specific).
pub fn method_hint(name: &str) -> &'static str {
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
