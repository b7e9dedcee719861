//! The rows of the op table (see [`super`] for what a row says), in one
//! list: each row is written here, or named here with its body in
//! [`floats`] (the later `f64` methods) or [`ndarray`] (ndarray's own
//! reductions, views and gathers). The other names a body may spell are in
//! `super::spellings`.
//!
//! Adding an elementwise op is one row here and one row of the runtime's
//! `ops/elementwise.rs`.

use super::Arg::{Const, Operand, Operands, SliceInfo};
use super::*;

mod floats;
mod ndarray;

pub use super::spellings::*;

/// The spellings of a unary function: `x.name()`, `name(x)`, `f64::name(x)`.
const X: &[Arg] = &[Operand];

/// `f64::name(a, b)`.
const AB: &[Arg] = &[Operand, Operand];

/// A bound of `clamp`.
const BOUND: Arg = Const("a bound of `clamp`");

/// The axis and the initial value of a fold along an axis.
const FOLD: &[Arg] = &[
    Const("the axis of the fold"),
    Const("the initial value of the fold"),
];

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
        float_path: Some(AB),
        in_place: InPlace::Never,
        example: "s.max(0.1) + (s * 2.0).max(s * 3.0) + f64::max(s, 0.2)",
        ..binary("max", "max", "Max")
    },
    /// `a.min(b)`.
    Min => OpDef {
        methods: &["min"],
        method_args: X,
        method_usage: "`a.min(b)`",
        float_path: Some(AB),
        in_place: InPlace::Never,
        example: "s.min(0.9) + (s * 2.0).min(s * 3.0) + f64::min(s, 0.5)",
        ..binary("min", "min", "Min")
    },
    /// `a.powf(b)`.
    Powf => OpDef {
        methods: &["powf"],
        method_args: X,
        method_usage: "`a.powf(b)`",
        float_path: Some(AB),
        in_place: InPlace::Never,
        example: "(s + 2.0).powf(s + 0.5) + (s * s + 1.0).powf(1.5) + f64::powf(s + 1.0, s) + sum(&(x * x + 1.0).powf(s))",
        ..binary("powf", "powf", "Powf")
    },
    /// `y.atan2(x)`: the angle of the point `(x, y)`.
    Atan2 => OpDef {
        methods: &["atan2"],
        method_args: X,
        method_usage: "`y.atan2(x)`",
        float_path: Some(AB),
        in_place: InPlace::Never,
        example: "s.atan2(0.5) + (s * 2.0).atan2(s - 1.0) + f64::atan2(s, s + 1.0)",
        ..binary("atan2", "atan2", "Atan2")
    },
    /// `x.hypot(y) = √(x² + y²)`.
    Hypot => OpDef {
        methods: &["hypot"],
        method_args: X,
        method_usage: "`x.hypot(y)`",
        float_path: Some(AB),
        in_place: InPlace::Never,
        example: "s.hypot(0.5) + (s * 2.0).hypot(s - 1.0) + f64::hypot(s, s + 1.0) + sum(&x.hypot(s)) + sum(&(x * 2.0).hypot(0.3))",
        ..binary("hypot", "hypot", "Hypot")
    },
    /// `x.log(b)`: the logarithm to the base `b`.
    Log => OpDef {
        methods: &["log"],
        method_args: X,
        method_usage: "`x.log(base)`",
        float_path: Some(AB),
        in_place: InPlace::Never,
        example: "(s + 1.0).log(s + 2.0) + s.log(3.0) + f64::log(s + 2.0, 10.0) + sum(&(x + 1.0).log(s + 2.0)) + sum(&(x * x + 1.0).log(2.0))",
        ..binary("log", "log", "Log")
    },
    /// `x.mul_add(a, b) = x·a + b`, fused (one rounding), of scalars.
    MulAdd => OpDef {
        name: "mul_add",
        methods: &["mul_add"],
        method_args: AB,
        method_usage: "`x.mul_add(a, b)`",
        float_path: Some(&[Operand, Operand, Operand]),
        forward: "mul_add",
        rules: Rules::Three("mul_add_vjp_x", "mul_add_vjp_a", "mul_add_vjp_b"),
        reads_out: false,
        flags: ELEMENTWISE,
        example: "s.mul_add(s + 1.0, 0.5) + (s * 2.0).mul_add(3.0, s) + f64::mul_add(s, s, s * s) + x[[0, 1]].mul_add(v[1], s) + 0.5_f64.mul_add(s, 1.0)",
        ..ROW
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
    /// `sinh x`.
    Sinh => floats::SINH,
    /// `cosh x`.
    Cosh => floats::COSH,
    /// `asinh x`.
    Asinh => floats::ASINH,
    /// `acosh x`.
    Acosh => floats::ACOSH,
    /// `atanh x`.
    Atanh => floats::ATANH,
    /// `asin x`.
    Asin => floats::ASIN,
    /// `acos x`.
    Acos => floats::ACOS,
    /// `atan x`.
    Atan => floats::ATAN,
    /// `2ˣ`.
    Exp2 => floats::EXP2,
    /// `eˣ - 1`.
    ExpM1 => floats::EXP_M1,
    /// `ln(1 + x)`.
    Ln1p => floats::LN1P,
    /// `log₂ x`.
    Log2 => floats::LOG2,
    /// `log₁₀ x`.
    Log10 => floats::LOG10,
    /// `∛x`.
    Cbrt => floats::CBRT,
    /// Radians to degrees.
    ToDegrees => floats::TO_DEGREES,
    /// Degrees to radians.
    ToRadians => floats::TO_RADIANS,
    /// The sign `±1` (gradient 0).
    Signum => floats::SIGNUM,
    /// The integer below (gradient 0).
    Floor => floats::FLOOR,
    /// The integer above (gradient 0).
    Ceil => floats::CEIL,
    /// The nearest integer (gradient 0).
    Round => floats::ROUND,
    /// The integer part (gradient 0).
    Trunc => floats::TRUNC,
    /// The fractional part `x - trunc(x)` (gradient `g`).
    Fract => floats::FRACT,
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
    /// `x` clamped to `[lo, hi]` for constants `lo ≤ hi` (the kernel
    /// `Clamp(lo, hi)`).
    Clamp => floats::CLAMP,
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
    /// `a.iter().sum()`: the sum of all elements in iteration order.
    IterSum => OpDef {
        name: "iter().sum",
        methods: &["sum"],
        adapter: Some("iter"),
        method_usage: "`a.iter().sum::<f64>()`",
        forward: "iter_sum",
        rules: Rules::One("sum_vjp"),
        reads_out: false,
        flags: SCALAR_OUT,
        example: "let t: f64 = (x * 2.0).iter().sum(); x.iter().sum::<f64>() + t * s",
        ..ROW
    },
    /// The mean of all elements (ndarray's `a.mean()` unwrapped).
    Mean => OpDef {
        name: "mean",
        methods: &["mean"],
        wrapped: Wrapped::Method("Option"),
        method_usage: "`a.mean().unwrap()` (or `.expect(\"..\")`)",
        function: Some(X),
        function_usage: "`mean(&x)`",
        forward: "mean",
        rules: Rules::One("mean_vjp"),
        reads_out: false,
        flags: SCALAR_OUT,
        example: "mean(x) * 2.0 + mean(&(v * 3.0)) + x.mean().unwrap() * s + (v * 2.0).mean().expect(\"not empty\")",
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
        axes: Axes::Fewer,
        ..ROW
    },
    /// The mean along an axis (ndarray's `a.mean_axis(Axis(k))` unwrapped).
    MeanAxis => OpDef {
        name: "mean_axis",
        methods: &["mean_axis"],
        method_args: &[Const("the axis of `mean_axis`")],
        wrapped: Wrapped::Method("Option"),
        method_usage: "`a.mean_axis(Axis(k)).unwrap()` (or `.expect(\"..\")`)",
        function: Some(&[Operand, Const("the axis of `mean_axis`")]),
        function_usage: "`mean_axis(&a, Axis(k))`",
        forward: "mean_axis",
        rules: Rules::One("mean_axis_vjp"),
        reads_out: false,
        example: "sum(&mean_axis(&(x * x), Axis(0))) + sum(&mean_axis(x, Axis(1))) + sum(&x.mean_axis(Axis(1)).unwrap()) * s + x.mean_axis(Axis(0)).expect(\"rows\").dot(v)",
        axes: Axes::Fewer,
        ..ROW
    },
    /// The variance with `ddof` degrees of freedom removed: ndarray's `a.var(ddof)`.
    Var => ndarray::VAR,
    /// The standard deviation: ndarray's `a.std(ddof)`.
    Std => ndarray::STD,
    /// The variance along an axis: ndarray's `a.var_axis(Axis(k), ddof)`.
    VarAxis => ndarray::VAR_AXIS,
    /// The standard deviation along an axis: ndarray's `a.std_axis(Axis(k), ddof)`.
    StdAxis => ndarray::STD_AXIS,
    /// The maximum along an axis, as ndarray spells it:
    /// `a.fold_axis(Axis(k), f64::NEG_INFINITY, |m, &v| m.max(v))`, or a
    /// fold of each lane in `map_axis` (see `lower/folds.rs`).
    MaxAxis => ndarray::MAX_AXIS,
    /// The minimum along an axis, as ndarray spells it:
    /// `a.fold_axis(Axis(k), f64::INFINITY, |m, &v| m.min(v))`, or a fold
    /// of each lane in `map_axis`.
    MinAxis => ndarray::MIN_AXIS,
    /// The product of all elements: ndarray's `a.product()`.
    Product => ndarray::PRODUCT,
    /// The product along an axis: ndarray's `a.product_axis(Axis(k))`.
    ProductAxis => ndarray::PRODUCT_AXIS,
    /// `a.iter().product()`: the product of all elements in iteration order.
    IterProduct => ndarray::ITER_PRODUCT,
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
        axes: Axes::Product,
        ..ROW
    },
    /// `a.t()`, `a.reversed_axes()`.
    T => OpDef {
        name: "t",
        methods: &["t", "reversed_axes"],
        method_usage: "`a.t()`",
        forward: "t",
        rules: Rules::One("t_vjp"),
        reads_out: false,
        flags: VIEW,
        example: "sum(&x.t().dot(x)) + sum(&(&w.t() * 2.0)) + sum(&(&x.view().reversed_axes() * w))",
        axes: Axes::Same,
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
        flags: VIEW | PART | CONTRIBUTES | ACCUMULATES,
        example: "sum(&(&x.row(1) * v)) + x.row(2).dot(v)",
        axes: Axes::Fewer,
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
        flags: VIEW | PART | CONTRIBUTES | ACCUMULATES,
        example: "sum(&x.column(0)) * 2.0 + x.column(1).dot(&x.column(0))",
        axes: Axes::Fewer,
        ..ROW
    },
    /// `v[i]`, `m[[i, j]]`.
    Index => OpDef {
        name: "index",
        forward: "index",
        rules: Rules::One("index_vjp"),
        reads_out: false,
        flags: SCALAR_OUT | PART | CONTRIBUTES | ACCUMULATES,
        example: "x[[1, 0]] * v[1] + w[[0, 2]]",
        ..ROW
    },
    /// `model.w`, `self.layers[i].b`, `model.weights[k]`: a place of a
    /// model (a struct parameter `wrt` names, or `&self`), borrowed.
    Field => OpDef {
        name: "field",
        forward: "field",
        rules: Rules::One("field_vjp"),
        reads_out: false,
        flags: CONTRIBUTES | ACCUMULATES,
        // A model is a parameter of the user's type: `tests/models.rs`.
        example: "",
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
    /// `y[i] = e`, `m[[i, j]] = e` (also `+= -= *= /=`), into an array the
    /// body made: the array's new value.
    SetIndex => OpDef {
        name: "set_index",
        forward: "set_index",
        rules: Rules::Two("set_index_vjp_lhs", "set_index_vjp_rhs"),
        reads_out: false,
        in_place: InPlace::Always,
        flags: RULES_SKIP_FIRST | RULES_READ_NONE,
        example: "let mut y = x.to_owned(); y[[0, 1]] = s * 2.0; y[[2, 0]] += y[[1, 1]] * s; let mut u = v * 1.0; u[1] *= s; sum(&(&y * &u))",
        axes: Axes::Same,
        ..ROW
    },
    /// `y.row_mut(i).assign(&v)`, into an array the body made.
    SetRow => OpDef {
        name: "set_row",
        forward: "set_row",
        rules: Rules::Two("set_row_vjp_lhs", "set_row_vjp_rhs"),
        reads_out: false,
        in_place: InPlace::Always,
        flags: RULES_SKIP_FIRST,
        example: "let mut y = x * 1.0; y.row_mut(1).assign(&(v * s)); y.row_mut(2).assign(&x.row(0)); sum(&(&y * &y))",
        axes: Axes::Same,
        ..ROW
    },
    /// `y.column_mut(j).assign(&v)`, into an array the body made.
    SetColumn => OpDef {
        name: "set_column",
        forward: "set_column",
        rules: Rules::Two("set_column_vjp_lhs", "set_column_vjp_rhs"),
        reads_out: false,
        in_place: InPlace::Always,
        flags: RULES_SKIP_FIRST,
        example: "let mut y = x * 1.0; y.column_mut(0).assign(&(&x.column(1) * s)); sum(&(&y * &y))",
        axes: Axes::Same,
        ..ROW
    },
    /// `y.slice_mut(s![..]).assign(&v)`, into an array the body made.
    SetSlice => OpDef {
        name: "set_slice",
        method_args: &[SliceInfo("the slice of `slice_mut`")],
        forward: "set_slice",
        rules: Rules::Two("set_slice_vjp_lhs", "set_slice_vjp_rhs"),
        reads_out: false,
        in_place: InPlace::Always,
        flags: RULES_SKIP_FIRST,
        example: "let mut y = x * 1.0; y.slice_mut(s![1.., ..]).assign(&(v * s)); let mut u = v * 2.0; u.slice_mut(s![..1]).assign(&x.row(0).slice(s![1..])); sum(&(&y * &y)) + sum(&u)",
        axes: Axes::Same,
        ..ROW
    },
    /// `y.assign(&v)`, `y.fill(e)`: every element set, into an array the
    /// body made.
    SetAll => OpDef {
        name: "set_all",
        forward: "set_all",
        rules: Rules::Two("set_all_vjp_lhs", "set_all_vjp_rhs"),
        reads_out: false,
        in_place: InPlace::Always,
        flags: RULES_SKIP_FIRST,
        example: "let mut y = x * 1.0; y.fill(s); y.row_mut(0).assign(&v); let mut u = v * 2.0; u.assign(&(v * s)); sum(&(&y * x)) + sum(&(&u * v))",
        axes: Axes::Same,
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
        axes: Axes::More,
        ..ROW
    },
    /// `a.slice(s![..])`: ranges, steps, single indices, new axes.
    Slice => ndarray::SLICE,
    /// `a.slice_axis(Axis(k), Slice::from(a..b))`.
    SliceAxis => ndarray::SLICE_AXIS,
    /// `a.index_axis(Axis(k), i)`.
    IndexAxis => ndarray::INDEX_AXIS,
    /// `a.remove_axis(Axis(k))`: `index_axis(Axis(k), 0)`.
    RemoveAxis => ndarray::REMOVE_AXIS,
    /// `a.select(Axis(k), &indices)`: lanes gathered, repeats allowed.
    Select => ndarray::SELECT,
    /// `a.into_shape_with_order(shape).unwrap()`, `a.to_shape(shape).unwrap()`.
    Reshape => ndarray::RESHAPE,
    /// `a.permuted_axes(axes)`.
    PermutedAxes => ndarray::PERMUTED_AXES,
    /// `a.broadcast(shape).unwrap()`.
    Broadcast => ndarray::BROADCAST,
    /// ndarray's `concatenate(Axis(k), &[a.view(), b.view()])`, unwrapped.
    Concatenate => ndarray::CONCATENATE,
    /// ndarray's `stack(Axis(k), &[a.view(), b.view()])`, unwrapped.
    Stack => ndarray::STACK,
    /// Row-wise `softmax`.
    Softmax => OpDef {
        name: "softmax",
        function: Some(X),
        function_usage: "`softmax(&x)`",
        forward: "softmax",
        rules: Rules::One("softmax_vjp"),
        flags: ROW_OUT,
        example: "sum(&(&softmax(x) * x))",
        axes: Axes::Same,
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
        axes: Axes::Same,
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
        axes: Axes::Reduced,
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
        axes: Axes::Same,
        ..ROW
    },
    /// A vector of floats: `[a, b]`, `vec![a, b]`, `array![a, b]` in a body.
    Pack => OpDef {
        name: "pack",
        function: Some(&[Operands]),
        function_usage: "`[a, b, c]`",
        forward: "pack",
        rules: Rules::Indexed("pack_vjp"),
        reads_out: false,
        example: "{ let p = [s, s * 2.0, x.sum()]; let q = vec![s * s, v[0]]; p[0] * p[1] + p[2] + q[0] * q[1] }",
        axes: Axes::Vector,
        ..ROW
    },
    /// `[a, b, c]` that is the function's value, a container of a fixed
    /// size (`-> [f64; 3]`, `-> Vector3<f64>`): on the stack, its upstream
    /// gradient too (`bp::fixed_copy`).
    PackFixed => OpDef {
        name: "pack_fixed",
        function: Some(&[Operands]),
        function_usage: "`[a, b, c]`",
        forward: "pack_fixed",
        rules: Rules::Indexed("pack_fixed_vjp"),
        reads_out: false,
        // The value of a function: `tests/plain_data.rs`, `tests/nalgebra.rs`.
        example: "",
        axes: Axes::Vector,
        ..ROW
    },
    /// A statically sized nalgebra value made of the elements the macro
    /// wrote it as, passed to a call (`helper(&v)`): of the callee's
    /// parameter's type (`bp::pack_matrix`).
    PackMatrix => OpDef {
        name: "pack_matrix",
        function: Some(&[Operands]),
        function_usage: "a nalgebra value passed to a call",
        forward: "pack_matrix",
        rules: Rules::Indexed("pack_matrix_vjp"),
        reads_out: false,
        // Written by the nalgebra rewrite: `tests/nalgebra.rs`.
        example: "",
        axes: Axes::Unknown,
        ..ROW
    },
    /// A model's field that a closure walks, read as an array whatever its
    /// type (`self.c.iter().map(..)` of a `Vec<f64>` or an `Array1<f64>`):
    /// its gradient goes back in the field's own type.
    PlainView => OpDef {
        name: "plain_view",
        forward: "plain_view",
        rules: Rules::One("plain_view_vjp"),
        reads_out: false,
        flags: VIEW,
        // A model is a parameter of the user's type: `tests/plain_data.rs`.
        example: "",
        axes: Axes::Same,
        ..ROW
    },
}
