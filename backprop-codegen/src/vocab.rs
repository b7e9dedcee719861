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

/// How an op's adjoint rules are named (an op without a [`Kernel`]).
#[derive(Clone, Copy, Debug)]
pub enum Rules {
    /// `foo_vjp`: one differentiable operand.
    One(&'static str),
    /// `foo_vjp_lhs`, `foo_vjp_rhs`.
    Two(&'static str, &'static str),
    /// `concat_vjp(.., k)`: one rule, told which operand.
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

/// An elementwise op's kernel in the runtime (`bp::Tanh`, `bp::Add`): its
/// one line of maths for the value and for the rule, which the generic
/// forms apply (`bp::map_vjp_out(g, &out, bp::Tanh)`).
#[derive(Clone, Copy, Debug)]
pub struct Kernel {
    /// The kernel's type (a unit struct, or `Powi(n)` with the op's constant).
    pub name: &'static str,
    /// What its rule reads.
    pub reads: Reads,
}

/// What a kernel's rule reads besides the upstream gradient.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Reads {
    /// The input: `bp::map_vjp_x(g, &x, K)`.
    X,
    /// The output: `bp::map_vjp_out(g, &out, K)`; the op may write its
    /// result over its input.
    Out,
    /// Both: `bp::map_vjp(g, &x, &out, K)`.
    #[allow(
        dead_code,
        reason = "no op of the table reads both yet; the runtime's form is there"
    )]
    XOut,
    /// Neither: `bp::map_vjp_g(g, K)`.
    G,
    /// A binary kernel: both operands, `bp::zip_vjp_lhs(g, &a, &b, K)`.
    Operands,
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
    /// The runtime forward function. An operand written over is passed to
    /// it by value.
    pub forward: &'static str,
    /// The kernel of an elementwise op, whose generic forms are its rules.
    pub kernel: Option<Kernel>,
    /// The rules of an op without a kernel.
    pub rules: Rules,
    /// An op without a kernel: its rules take the forward output last.
    pub reads_out: bool,
    /// The forward keeps an intermediate for the rules, which take it in the
    /// place of the output: its local's suffix, and the forward function
    /// that returns `(out, saved)`.
    pub saves: Option<(&'static str, &'static str)>,
    /// An op without a kernel that reads its output: when it may write over
    /// its operand (a kernel's rule decides that from what it reads).
    pub in_place: InPlace,
    pub flags: u16,
    /// For an operator: its rules on scalars, for each operand.
    pub scalar_rules: [ScalarRule; 2],
    /// A body that uses the op in each of its spellings and forms, of
    /// `x: &Array2<f64>` (3 × 2), `v: &Array1<f64>` (2), `s: f64` and
    /// `w: &Array2<f64>` (2 × 3): `tests/vocab.rs` compiles one
    /// differentiable function per row and gradchecks it.
    pub example: &'static str,
}

/// Applied element by element (with broadcasting): a scalar in every operand
/// gives a scalar, and the rules take the output as any array of the
/// input's kind.
pub const ELEMENTWISE: u16 = 1;
/// Its value is always a scalar.
pub const SCALAR_OUT: u16 = 2;
/// Its value is a view of its operand (`t`, `row`, ...).
pub const VIEW: u16 = 4;
/// Its rules take its output (and its operand) as any array, so a loop may
/// keep the output as a row of a buffer and lend it back as a view.
pub const ROW_OUT: u16 = 8;
/// Its rules take one type for all operands (so none may be a view of a row).
pub const SAME_TYPE: u16 = 16;
/// Only a float value is copied; any other value passes through as it is.
pub const FLOATS_ONLY: u16 = 32;
/// A Rust operator (its name is its symbol): on scalars the forward is
/// written with it, and the rules as the arithmetic of `scalar_rules`.
pub const OPERATOR: u16 = 64;
/// Its rules return a `Contribution`, which the planner may add into an
/// accumulator (a loop's gradient, an earlier contribution) or, for a
/// product, defer to a loop's `Outers`.
pub const ACCUMULATES: u16 = 128;
/// Its rules' contributions are `bp::…(..).value()` (a binary kernel's, a
/// product's); the planner adds only those of `ACCUMULATES` ops.
pub const CONTRIBUTES: u16 = 256;
/// `a + b`: where neither operand was broadcast, one gradient may borrow
/// the other's (`bp::add_vjp_lend`).
pub const LENDS: u16 = 512;
/// The rule of its first operand may write over that operand's buffer,
/// where nothing reads it after the rule (`mse`'s residual).
pub const RULE_OVER_FIRST: u16 = 1024;

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
    kernel: None,
    rules: Rules::One(""),
    reads_out: true,
    saves: None,
    in_place: InPlace::Never,
    flags: 0,
    scalar_rules: [ScalarRule::G, ScalarRule::G],
    example: "",
};

/// An elementwise function of one operand, spelled as the method, the
/// function and the `f64::` path of its name.
const fn unary(name: &'static str, kernel: &'static str, reads: Reads) -> OpDef {
    OpDef {
        name,
        forward: name,
        kernel: Some(Kernel {
            name: kernel,
            reads,
        }),
        flags: ELEMENTWISE | ROW_OUT,
        ..ROW
    }
}

/// A binary kernel (`+ - * /`, `max min powf`).
const fn binary(name: &'static str, forward: &'static str, kernel: &'static str) -> OpDef {
    OpDef {
        name,
        forward,
        kernel: Some(Kernel {
            name: kernel,
            reads: Reads::Operands,
        }),
        in_place: InPlace::UnlessOtherActive,
        flags: ELEMENTWISE | ROW_OUT | CONTRIBUTES,
        ..ROW
    }
}

/// The spellings of a unary function: `x.name()`, `name(x)`, `f64::name(x)`.
const X: &[Arg] = &[Operand];

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
        in_place: InPlace::Always,
        flags: ELEMENTWISE | ROW_OUT | CONTRIBUTES | OPERATOR | ACCUMULATES | LENDS,
        scalar_rules: [ScalarRule::G, ScalarRule::G],
        example: "sum(&(&(x * 2.0) + v)) * (s + 0.5)",
        ..binary("+", "add", "Add")
    },
    /// `a - b`.
    Sub => OpDef {
        in_place: InPlace::Always,
        flags: ELEMENTWISE | ROW_OUT | CONTRIBUTES | OPERATOR | ACCUMULATES,
        scalar_rules: [ScalarRule::G, ScalarRule::NegG],
        example: "sum(&(v - &(x * 2.0))) * (s - 0.5)",
        ..binary("-", "sub", "Sub")
    },
    /// `a * b`.
    Mul => OpDef {
        flags: ELEMENTWISE | ROW_OUT | CONTRIBUTES | OPERATOR,
        scalar_rules: [ScalarRule::TimesRhs, ScalarRule::TimesLhs],
        example: "sum(&(&(x + 1.0) * v)) * (s * 0.5)",
        ..binary("*", "mul", "Mul")
    },
    /// `a / b`.
    Div => OpDef {
        flags: ELEMENTWISE | ROW_OUT | CONTRIBUTES | OPERATOR,
        scalar_rules: [ScalarRule::OverRhs, ScalarRule::Quotient],
        example: "sum(&(&(x + 3.0) / &(v * v + 1.0))) + 1.0 / (s + 2.0)",
        ..binary("/", "div", "Div")
    },
    /// `a.max(b)`.
    Max => OpDef {
        methods: &["max"],
        method_args: X,
        method_usage: "`a.max(b)`",
        in_place: InPlace::Never,
        example: "s.max(0.1) + (s * 2.0).max(s * 3.0)",
        ..binary("max", "max", "Max")
    },
    /// `a.min(b)`.
    Min => OpDef {
        methods: &["min"],
        method_args: X,
        method_usage: "`a.min(b)`",
        in_place: InPlace::Never,
        example: "s.min(0.9) + (s * 2.0).min(s * 3.0)",
        ..binary("min", "min", "Min")
    },
    /// `a.powf(b)`.
    Powf => OpDef {
        methods: &["powf"],
        method_args: X,
        method_usage: "`a.powf(b)`",
        in_place: InPlace::Never,
        example: "(s + 2.0).powf(s + 0.5) + (s * s + 1.0).powf(1.5)",
        ..binary("powf", "powf", "Powf")
    },
    /// `-x`.
    Neg => OpDef {
        name: "-",
        flags: ELEMENTWISE | ROW_OUT | OPERATOR,
        scalar_rules: [ScalarRule::NegG, ScalarRule::NegG],
        example: "sum(&(-(x * 2.0))) - s",
        ..unary("neg", "Neg", Reads::G)
    },
    /// `eˣ`.
    Exp => OpDef {
        methods: &["exp"],
        method_usage: "`x.exp()`",
        function: Some(X),
        function_usage: "`exp(x)`",
        float_path: Some(X),
        example: "sum(&exp(&(x * 0.5))) + s.exp() + f64::exp(s)",
        ..unary("exp", "Exp", Reads::Out)
    },
    /// `ln x`.
    Ln => OpDef {
        methods: &["ln"],
        method_usage: "`x.ln()`",
        function: Some(X),
        function_usage: "`ln(x)`",
        float_path: Some(X),
        example: "sum(&ln(&(x * x + 0.5))) + (s + 1.0).ln() + f64::ln(s + 2.0)",
        ..unary("ln", "Ln", Reads::X)
    },
    /// `√x`.
    Sqrt => OpDef {
        methods: &["sqrt"],
        method_usage: "`x.sqrt()`",
        function: Some(X),
        function_usage: "`sqrt(x)`",
        float_path: Some(X),
        example: "sum(&sqrt(&(x * x + 0.5))) + (s + 1.0).sqrt() + f64::sqrt(s + 2.0)",
        ..unary("sqrt", "Sqrt", Reads::Out)
    },
    /// `x²` (also what `x * x` lowers to).
    Square => OpDef {
        function: Some(X),
        function_usage: "`square(x)`",
        example: "sum(&square(&(x + 0.5))) + square(s)",
        ..unary("square", "Square", Reads::X)
    },
    /// `|x|`.
    Abs => OpDef {
        methods: &["abs"],
        method_usage: "`x.abs()`",
        function: Some(X),
        function_usage: "`abs(x)`",
        float_path: Some(X),
        example: "sum(&abs(&(x * 3.0))) + s.abs() + f64::abs(s - 1.0)",
        ..unary("abs", "Abs", Reads::X)
    },
    /// `sin x`.
    Sin => OpDef {
        methods: &["sin"],
        method_usage: "`x.sin()`",
        function: Some(X),
        function_usage: "`sin(x)`",
        float_path: Some(X),
        example: "sum(&sin(&(x * 2.0))) + s.sin() + f64::sin(s * 2.0)",
        ..unary("sin", "Sin", Reads::X)
    },
    /// `cos x`.
    Cos => OpDef {
        methods: &["cos"],
        method_usage: "`x.cos()`",
        function: Some(X),
        function_usage: "`cos(x)`",
        float_path: Some(X),
        example: "sum(&cos(&(x * 2.0))) + s.cos() + f64::cos(s * 2.0)",
        ..unary("cos", "Cos", Reads::X)
    },
    /// `tan x`.
    Tan => OpDef {
        methods: &["tan"],
        method_usage: "`x.tan()`",
        function: Some(X),
        function_usage: "`tan(x)`",
        float_path: Some(X),
        example: "sum(&tan(&(x * 0.5))) + s.tan() + f64::tan(s * 0.5)",
        ..unary("tan", "Tan", Reads::Out)
    },
    /// `tanh x`.
    Tanh => OpDef {
        methods: &["tanh"],
        method_usage: "`x.tanh()`",
        function: Some(X),
        function_usage: "`tanh(x)`",
        float_path: Some(X),
        example: "sum(&tanh(&(x * 2.0))) + s.tanh() + f64::tanh(s * 2.0)",
        ..unary("tanh", "Tanh", Reads::Out)
    },
    /// `σ(x)`.
    Sigmoid => OpDef {
        function: Some(X),
        function_usage: "`sigmoid(x)`",
        example: "sum(&sigmoid(&(x * 2.0 + 0.1))) + sigmoid(s)",
        ..unary("sigmoid", "Sigmoid", Reads::Out)
    },
    /// `max(x, 0)`.
    Relu => OpDef {
        function: Some(X),
        function_usage: "`relu(x)`",
        example: "sum(&relu(&(x + 0.05))) + relu(s)",
        ..unary("relu", "Relu", Reads::Out)
    },
    /// `1 / x`.
    Recip => OpDef {
        methods: &["recip"],
        method_usage: "`x.recip()`",
        function: Some(X),
        function_usage: "`recip(x)`",
        float_path: Some(X),
        example: "sum(&recip(&(x * x + 1.0))) + (s + 2.0).recip() + f64::recip(s + 3.0)",
        ..unary("recip", "Recip", Reads::Out)
    },
    /// `ln(1 + eˣ)`, stable.
    Softplus => OpDef {
        function: Some(X),
        function_usage: "`softplus(x)`",
        example: "sum(&softplus(&(x * 3.0))) + softplus(s)",
        ..unary("softplus", "Softplus", Reads::Out)
    },
    /// `ln σ(x)`, stable.
    LogSigmoid => OpDef {
        function: Some(X),
        function_usage: "`log_sigmoid(x)`",
        example: "sum(&log_sigmoid(&(x * 3.0))) + log_sigmoid(s)",
        ..unary("log_sigmoid", "LogSigmoid", Reads::Out)
    },
    /// `xⁿ` for an `i32` constant `n` (the kernel `Powi(n)`).
    Powi => OpDef {
        methods: &["powi"],
        method_args: &[Const("the exponent of `powi`")],
        method_usage: "`x.powi(n)` with an `i32` constant `n`",
        function: Some(&[Operand, Const("the exponent of `powi`")]),
        function_usage: "`powi(x, n)` with an `i32` constant `n`",
        float_path: Some(&[Operand, Const("the exponent of `powi`")]),
        example: "sum(&powi(&(x + 0.5), 3)) + s.powi(2) + f64::powi(s, 3)",
        ..unary("powi", "Powi", Reads::X)
    },
    /// The sum of all elements.
    Sum => OpDef {
        name: "sum",
        methods: &["sum"],
        method_usage: "`a.sum()`",
        function: Some(X),
        function_usage: "`sum(&x)`",
        forward: "sum",
        rules: Rules::One("sum_vjp"),
        reads_out: false,
        flags: SCALAR_OUT,
        example: "x.sum() + sum(v) + sum(&(x * 2.0))",
        ..ROW
    },
    /// The mean of all elements.
    Mean => OpDef {
        name: "mean",
        function: Some(X),
        function_usage: "`mean(&x)`",
        forward: "mean",
        rules: Rules::One("mean_vjp"),
        reads_out: false,
        flags: SCALAR_OUT,
        example: "mean(x) * 2.0 + mean(&(v * 3.0))",
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
        reads_out: false,
        example: "sum(&x.sum_axis(Axis(0))) + sum(&sum_axis(&(x * x), Axis(1)))",
        ..ROW
    },
    /// The mean along an axis.
    MeanAxis => OpDef {
        name: "mean_axis",
        function: Some(&[Operand, Const("the axis of `mean_axis`")]),
        function_usage: "`mean_axis(&a, Axis(k))`",
        forward: "mean_axis",
        rules: Rules::One("mean_axis_vjp"),
        reads_out: false,
        example: "sum(&mean_axis(&(x * x), Axis(0))) + sum(&mean_axis(x, Axis(1)))",
        ..ROW
    },
    /// `a.dot(&b)`.
    Dot => OpDef {
        name: "dot",
        methods: &["dot"],
        method_args: X,
        method_usage: "`a.dot(b)`",
        forward: "dot",
        rules: Rules::Two("dot_vjp_lhs", "dot_vjp_rhs"),
        reads_out: false,
        flags: ROW_OUT | CONTRIBUTES | ACCUMULATES,
        example: "sum(&x.dot(v)) + v.dot(v) + sum(&x.dot(w)) + sum(&v.dot(w))",
        ..ROW
    },
    /// `a.t()`.
    T => OpDef {
        name: "t",
        methods: &["t"],
        method_usage: "`a.t()`",
        forward: "t",
        rules: Rules::One("t_vjp"),
        reads_out: false,
        flags: VIEW,
        example: "sum(&x.t().dot(x)) + sum(&(&w.t() * 2.0))",
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
        reads_out: false,
        flags: VIEW,
        example: "sum(&(&x.row(1) * v)) + x.row(2).dot(v)",
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
        reads_out: false,
        flags: VIEW,
        example: "sum(&x.column(0)) * 2.0 + x.column(1).dot(&x.column(0))",
        ..ROW
    },
    /// `v[i]`, `m[[i, j]]`.
    Index => OpDef {
        name: "index",
        forward: "index",
        rules: Rules::One("index_vjp"),
        reads_out: false,
        flags: SCALAR_OUT,
        example: "x[[1, 0]] * v[1] + w[[0, 2]]",
        ..ROW
    },
    /// `.to_owned()`, `.clone()`.
    Copy => OpDef {
        name: "to_owned",
        methods: &["to_owned", "clone"],
        method_usage: "`a.to_owned()`",
        forward: "copy",
        rules: Rules::One("copy_vjp"),
        reads_out: false,
        flags: ELEMENTWISE | ROW_OUT | FLOATS_ONLY,
        example: "sum(&x.to_owned()) + sum(&(v.clone() * 2.0))",
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
        reads_out: false,
        flags: VIEW,
        example: "sum(&(x - &v.view().insert_axis(Axis(0))))",
        ..ROW
    },
    /// Row-wise `softmax`.
    Softmax => OpDef {
        name: "softmax",
        function: Some(X),
        function_usage: "`softmax(&x)`",
        forward: "softmax",
        rules: Rules::One("softmax_vjp"),
        flags: ROW_OUT,
        example: "sum(&(&softmax(x) * x))",
        ..ROW
    },
    /// Row-wise `log_softmax`.
    LogSoftmax => OpDef {
        name: "log_softmax",
        function: Some(X),
        function_usage: "`log_softmax(&x)`",
        forward: "log_softmax",
        rules: Rules::One("log_softmax_vjp"),
        flags: ROW_OUT,
        example: "sum(&(&log_softmax(x) * x))",
        ..ROW
    },
    /// Row-wise `logsumexp`.
    LogSumExp => OpDef {
        name: "logsumexp",
        function: Some(X),
        function_usage: "`logsumexp(&x)`",
        forward: "logsumexp",
        rules: Rules::One("logsumexp_vjp"),
        example: "sum(&logsumexp(x)) + logsumexp(v)",
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
        flags: SCALAR_OUT,
        example: "softmax_cross_entropy(&(x * 2.0), &[1, 0, 1]) + softmax_cross_entropy(x, &[0, 0, 1])",
        ..ROW
    },
    /// The mean squared error.
    Mse => OpDef {
        name: "mse",
        function: Some(&[Operand, Operand]),
        function_usage: "`mse(&prediction, &target)`",
        forward: "mse",
        rules: Rules::Two("mse_vjp_lhs", "mse_vjp_rhs"),
        reads_out: false,
        flags: SCALAR_OUT | RULE_OVER_FIRST,
        example: "mse(x, &(x * 0.5 + 0.25)) + mse(&(x * 2.0 - 0.5), &(x * x))",
        ..ROW
    },
    /// `concat(Axis(k), &[&a, &b, ...])`.
    Concat => OpDef {
        name: "concat",
        function: Some(&[Const("the axis of `concat`"), Operands]),
        function_usage: "`concat(Axis(k), &[&a, &b, ...])`",
        forward: "concat",
        rules: Rules::Indexed("concat_vjp"),
        reads_out: false,
        flags: SAME_TYPE,
        example: "sum(&(&concat(Axis(1), &[x, &(x * 2.0)]) * 3.0))",
        ..ROW
    },
}

impl Op {
    pub fn has(self, flag: u16) -> bool {
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
    /// buffer, given which of its operands have adjoints: a unary kernel
    /// whose rule does not read its input, or as the row says.
    pub fn in_place(self, active: &[bool]) -> bool {
        let def = self.def();
        if let Some(Kernel { reads, .. }) = def.kernel {
            if reads != Reads::Operands {
                return matches!(reads, Reads::Out | Reads::G);
            }
        }
        match def.in_place {
            InPlace::Never => false,
            InPlace::Always => true,
            InPlace::UnlessOtherActive => !active.get(1).copied().unwrap_or(false),
        }
    }

    /// The unary kernel, if the op has one.
    pub fn unary_kernel(self) -> Option<Kernel> {
        self.def().kernel.filter(|k| k.reads != Reads::Operands)
    }

    /// The binary kernel, if the op has one.
    pub fn binary_kernel(self) -> Option<Kernel> {
        self.def().kernel.filter(|k| k.reads == Reads::Operands)
    }

    /// Whether the op's rules read its (first) operand, its values or its
    /// shape: all but a unary kernel that reads only its output.
    pub fn rule_reads_operand(self) -> bool {
        self.unary_kernel()
            .is_none_or(|k| matches!(k.reads, Reads::X | Reads::XOut))
    }

    /// Whether the op's rules read its output.
    pub fn rule_reads_out(self) -> bool {
        match self.def().kernel {
            Some(k) => matches!(k.reads, Reads::Out | Reads::XOut),
            None => self.def().reads_out,
        }
    }
}

/// The runtime's fused forms that are not one op's.
pub mod fused {
    /// `sum(square(x))` as one reduction, and its rule.
    pub const SUM_SQUARE: &str = "sum_square";
    pub const SUM_SQUARE_VJP: &str = "sum_square_vjp";
    /// An arithmetic op's kernel, then a unary kernel, in one pass.
    pub const ZIP_MAP: &str = "zip_map";
    /// `x + m.dot(&v)` with the product added into `x`'s buffer.
    pub const ADD_DOT: &str = "add_dot";
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
