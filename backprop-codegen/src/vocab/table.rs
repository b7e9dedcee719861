//! The rows of the op table (see [`super`] for what a row says), and the
//! other names a body may spell: the methods that only read a shape, the
//! methods that see through to their receiver, and hints for the methods
//! that are rejected.
//!
//! Adding an elementwise op is one row here and one row of the runtime's
//! `ops/elementwise.rs`.

use super::Arg::{Const, Operand, Operands, SliceInfo};
use super::*;

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
    Sinh => OpDef {
        methods: &["sinh"],
        method_usage: "`x.sinh()`",
        function: Some(X),
        function_usage: "`sinh(x)`",
        float_path: Some(X),
        example: "sum(&sinh(&(x * 2.0))) + sum(&x.sinh()) + s.sinh() + f64::sinh(s * 2.0)",
        ..unary("sinh", "Sinh", Reads::Out)
    },
    /// `cosh x`.
    Cosh => OpDef {
        methods: &["cosh"],
        method_usage: "`x.cosh()`",
        function: Some(X),
        function_usage: "`cosh(x)`",
        float_path: Some(X),
        example: "sum(&cosh(&(x * 2.0))) + sum(&x.cosh()) + s.cosh() + f64::cosh(s * 2.0)",
        ..unary("cosh", "Cosh", Reads::X)
    },
    /// `asinh x`.
    Asinh => OpDef {
        methods: &["asinh"],
        method_usage: "`x.asinh()`",
        function: Some(X),
        function_usage: "`asinh(x)`",
        float_path: Some(X),
        example: "sum(&asinh(&(x * 2.0))) + sum(&x.asinh()) + s.asinh() + f64::asinh(s * 2.0)",
        ..unary("asinh", "Asinh", Reads::X)
    },
    /// `acosh x`.
    Acosh => OpDef {
        methods: &["acosh"],
        method_usage: "`x.acosh()`",
        function: Some(X),
        function_usage: "`acosh(x)`",
        float_path: Some(X),
        example: "sum(&acosh(&(x * x + 1.5))) + sum(&(x + 2.0).acosh()) + (s + 1.5).acosh() + f64::acosh(s * 2.0 + 1.5)",
        ..unary("acosh", "Acosh", Reads::X)
    },
    /// `atanh x`.
    Atanh => OpDef {
        methods: &["atanh"],
        method_usage: "`x.atanh()`",
        function: Some(X),
        function_usage: "`atanh(x)`",
        float_path: Some(X),
        example: "sum(&atanh(&(x * 0.5))) + sum(&x.atanh()) + s.atanh() + f64::atanh(s * 2.0)",
        ..unary("atanh", "Atanh", Reads::X)
    },
    /// `asin x`.
    Asin => OpDef {
        methods: &["asin"],
        method_usage: "`x.asin()`",
        function: Some(X),
        function_usage: "`asin(x)`",
        float_path: Some(X),
        example: "sum(&asin(&(x * 0.5))) + sum(&x.asin()) + s.asin() + f64::asin(s * 2.0)",
        ..unary("asin", "Asin", Reads::X)
    },
    /// `acos x`.
    Acos => OpDef {
        methods: &["acos"],
        method_usage: "`x.acos()`",
        function: Some(X),
        function_usage: "`acos(x)`",
        float_path: Some(X),
        example: "sum(&acos(&(x * 0.5))) + sum(&x.acos()) + s.acos() + f64::acos(s * 2.0)",
        ..unary("acos", "Acos", Reads::X)
    },
    /// `atan x`.
    Atan => OpDef {
        methods: &["atan"],
        method_usage: "`x.atan()`",
        function: Some(X),
        function_usage: "`atan(x)`",
        float_path: Some(X),
        example: "sum(&atan(&(x * 2.0))) + sum(&x.atan()) + s.atan() + f64::atan(s * 2.0)",
        ..unary("atan", "Atan", Reads::X)
    },
    /// `2ˣ`.
    Exp2 => OpDef {
        methods: &["exp2"],
        method_usage: "`x.exp2()`",
        function: Some(X),
        function_usage: "`exp2(x)`",
        float_path: Some(X),
        example: "sum(&exp2(&(x * 2.0))) + sum(&x.exp2()) + s.exp2() + f64::exp2(s * 2.0)",
        ..unary("exp2", "Exp2", Reads::Out)
    },
    /// `eˣ - 1`.
    ExpM1 => OpDef {
        methods: &["exp_m1"],
        method_usage: "`x.exp_m1()`",
        function: Some(X),
        function_usage: "`exp_m1(x)`",
        float_path: Some(X),
        example: "sum(&exp_m1(&(x * 2.0))) + sum(&x.exp_m1()) + s.exp_m1() + f64::exp_m1(s * 2.0)",
        ..unary("exp_m1", "ExpM1", Reads::X)
    },
    /// `ln(1 + x)`.
    Ln1p => OpDef {
        methods: &["ln_1p"],
        method_usage: "`x.ln_1p()`",
        function: Some(X),
        function_usage: "`ln_1p(x)`",
        float_path: Some(X),
        example: "sum(&ln_1p(&(x * x))) + sum(&(x + 1.0).ln_1p()) + s.ln_1p() + f64::ln_1p(s * 2.0)",
        ..unary("ln_1p", "Ln1p", Reads::X)
    },
    /// `log₂ x`.
    Log2 => OpDef {
        methods: &["log2"],
        method_usage: "`x.log2()`",
        function: Some(X),
        function_usage: "`log2(x)`",
        float_path: Some(X),
        example: "sum(&log2(&(x * x + 0.5))) + sum(&(x + 1.0).log2()) + s.log2() + f64::log2(s * 2.0)",
        ..unary("log2", "Log2", Reads::X)
    },
    /// `log₁₀ x`.
    Log10 => OpDef {
        methods: &["log10"],
        method_usage: "`x.log10()`",
        function: Some(X),
        function_usage: "`log10(x)`",
        float_path: Some(X),
        example: "sum(&log10(&(x * x + 0.5))) + sum(&(x + 1.0).log10()) + s.log10() + f64::log10(s * 2.0)",
        ..unary("log10", "Log10", Reads::X)
    },
    /// `∛x`.
    Cbrt => OpDef {
        methods: &["cbrt"],
        method_usage: "`x.cbrt()`",
        function: Some(X),
        function_usage: "`cbrt(x)`",
        float_path: Some(X),
        example: "sum(&cbrt(&(x * 2.0))) + sum(&x.cbrt()) + s.cbrt() + f64::cbrt(s - 1.0)",
        ..unary("cbrt", "Cbrt", Reads::Out)
    },
    /// Radians to degrees.
    ToDegrees => OpDef {
        methods: &["to_degrees"],
        method_usage: "`x.to_degrees()`",
        function: Some(X),
        function_usage: "`to_degrees(x)`",
        float_path: Some(X),
        example: "sum(&to_degrees(&(x * 2.0))) + sum(&x.to_degrees()) + s.to_degrees() + f64::to_degrees(s * s)",
        ..unary("to_degrees", "ToDegrees", Reads::G)
    },
    /// Degrees to radians.
    ToRadians => OpDef {
        methods: &["to_radians"],
        method_usage: "`x.to_radians()`",
        function: Some(X),
        function_usage: "`to_radians(x)`",
        float_path: Some(X),
        example: "sum(&to_radians(&(x * 2.0))) + sum(&x.to_radians()) + s.to_radians() + f64::to_radians(s * s)",
        ..unary("to_radians", "ToRadians", Reads::G)
    },
    /// The sign `±1` (gradient 0).
    Signum => OpDef {
        methods: &["signum"],
        method_usage: "`x.signum()`",
        function: Some(X),
        function_usage: "`signum(x)`",
        float_path: Some(X),
        example: "sum(&(&signum(x) * x)) + sum(&(&x.signum() * 2.0)) + s.signum() * s + f64::signum(s - 1.0) * s",
        ..unary("signum", "Signum", Reads::Out)
    },
    /// The integer below (gradient 0).
    Floor => OpDef {
        methods: &["floor"],
        method_usage: "`x.floor()`",
        function: Some(X),
        function_usage: "`floor(x)`",
        float_path: Some(X),
        example: "sum(&(&floor(&(x * 2.0 + 3.17)) * x)) + sum(&x.floor()) + (s * 3.0).floor() * s + f64::floor(s - 1.2) * s",
        ..unary("floor", "Floor", Reads::Out)
    },
    /// The integer above (gradient 0).
    Ceil => OpDef {
        methods: &["ceil"],
        method_usage: "`x.ceil()`",
        function: Some(X),
        function_usage: "`ceil(x)`",
        float_path: Some(X),
        example: "sum(&(&ceil(&(x * 2.0 + 3.17)) * x)) + sum(&x.ceil()) + (s * 3.0).ceil() * s + f64::ceil(s - 1.2) * s",
        ..unary("ceil", "Ceil", Reads::Out)
    },
    /// The nearest integer (gradient 0).
    Round => OpDef {
        methods: &["round"],
        method_usage: "`x.round()`",
        function: Some(X),
        function_usage: "`round(x)`",
        float_path: Some(X),
        example: "sum(&(&round(&(x * 2.0 + 3.17)) * x)) + sum(&x.round()) + (s * 3.0).round() * s + f64::round(s - 1.2) * s",
        ..unary("round", "Round", Reads::Out)
    },
    /// The integer part (gradient 0).
    Trunc => OpDef {
        methods: &["trunc"],
        method_usage: "`x.trunc()`",
        function: Some(X),
        function_usage: "`trunc(x)`",
        float_path: Some(X),
        example: "sum(&(&trunc(&(x * 2.0 + 3.17)) * x)) + sum(&x.trunc()) + (s * 3.0).trunc() * s + f64::trunc(s - 1.2) * s",
        ..unary("trunc", "Trunc", Reads::Out)
    },
    /// The fractional part `x - trunc(x)` (gradient `g`).
    Fract => OpDef {
        methods: &["fract"],
        method_usage: "`x.fract()`",
        function: Some(X),
        function_usage: "`fract(x)`",
        float_path: Some(X),
        example: "sum(&(&fract(&(x * 2.0 + 3.17)) * x)) + sum(&x.fract()) + (s * 3.0).fract() * s + f64::fract(s - 1.2) * s",
        ..unary("fract", "Fract", Reads::Out)
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
    /// `x` clamped to `[lo, hi]` for constants `lo ≤ hi` (the kernel
    /// `Clamp(lo, hi)`).
    Clamp => OpDef {
        methods: &["clamp"],
        method_args: &[BOUND, BOUND],
        method_usage: "`x.clamp(lo, hi)` with constants `lo` and `hi`",
        function: Some(&[Operand, BOUND, BOUND]),
        function_usage: "`clamp(x, lo, hi)` with constants `lo` and `hi`",
        float_path: Some(&[Operand, BOUND, BOUND]),
        const_hint: "for a differentiable bound, write `x.max(lo).min(hi)`, which has the same gradient",
        example: "sum(&clamp(&(x * 2.0), -0.5, 1.0)) + sum(&x.clamp(-0.5, 0.5)) + s.clamp(0.0, 1.0) + f64::clamp(s * 2.0, -1.0, 0.5)",
        ..unary("clamp", "Clamp", Reads::X)
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
    Var => OpDef {
        name: "var",
        methods: &["var"],
        method_args: &[Const("the `ddof` of `var`")],
        method_usage: "`a.var(ddof)` with a constant `ddof` (`0.0` or `1.0`)",
        forward: "var",
        rules: Rules::One("var_vjp"),
        reads_out: false,
        flags: SCALAR_OUT,
        example: "x.var(0.0) + (v * 3.0).var(1.0) * s",
        ..ROW
    },
    /// The standard deviation: ndarray's `a.std(ddof)`.
    Std => OpDef {
        name: "std",
        methods: &["std"],
        method_args: &[Const("the `ddof` of `std`")],
        method_usage: "`a.std(ddof)` with a constant `ddof` (`0.0` or `1.0`)",
        forward: "std_dev",
        rules: Rules::One("std_dev_vjp"),
        reads_out: false,
        flags: SCALAR_OUT,
        example: "x.std(0.0) + (&(x * x) + 1.0).std(1.0) * s",
        ..ROW
    },
    /// The variance along an axis: ndarray's `a.var_axis(Axis(k), ddof)`.
    VarAxis => OpDef {
        name: "var_axis",
        methods: &["var_axis"],
        method_args: &[Const("the axis of `var_axis`"), Const("the `ddof` of `var_axis`")],
        method_usage: "`a.var_axis(Axis(k), ddof)` with a constant `ddof`",
        forward: "var_axis",
        rules: Rules::One("var_axis_vjp"),
        reads_out: false,
        example: "sum(&x.var_axis(Axis(0), 1.0)) + sum(&(&x.var_axis(Axis(1), 0.0) * s))",
        axes: Axes::Fewer,
        ..ROW
    },
    /// The standard deviation along an axis: ndarray's `a.std_axis(Axis(k), ddof)`.
    StdAxis => OpDef {
        name: "std_axis",
        methods: &["std_axis"],
        method_args: &[Const("the axis of `std_axis`"), Const("the `ddof` of `std_axis`")],
        method_usage: "`a.std_axis(Axis(k), ddof)` with a constant `ddof`",
        forward: "std_dev_axis",
        rules: Rules::One("std_dev_axis_vjp"),
        reads_out: false,
        example: "sum(&x.std_axis(Axis(0), 1.0)) + sum(&(&w.std_axis(Axis(1), 0.0) * s))",
        axes: Axes::Fewer,
        ..ROW
    },
    /// The maximum along an axis, as ndarray spells it:
    /// `a.fold_axis(Axis(k), f64::NEG_INFINITY, |m, &v| m.max(v))`, or a
    /// fold of each lane in `map_axis` (see `lower/folds.rs`).
    MaxAxis => OpDef {
        name: "max_axis",
        method_args: FOLD,
        method_usage: "`a.fold_axis(Axis(k), f64::NEG_INFINITY, |m, &v| m.max(v))` with a constant initial value",
        const_hint: "for a differentiable initial value, fold from `f64::NEG_INFINITY` and take the `max` with it after: `a.fold_axis(..).mapv(|m| m.max(init))`",
        fold: Some("max"),
        forward: "max_axis",
        rules: Rules::One("max_axis_vjp"),
        example: "sum(&x.fold_axis(Axis(1), f64::NEG_INFINITY, |m, &v| m.max(v))) + sum(&(&w.fold_axis(Axis(0), 0.2, |&m, &v| v.max(m)) * s)) + x.map_axis(Axis(0), |r| r.fold(f64::NEG_INFINITY, |m, &v| f64::max(m, v))).dot(v) + sum(&w.map_axis(Axis(1), |lane| lane.iter().cloned().fold(f64::NEG_INFINITY, f64::max)))",
        axes: Axes::Fewer,
        ..ROW
    },
    /// The minimum along an axis, as ndarray spells it:
    /// `a.fold_axis(Axis(k), f64::INFINITY, |m, &v| m.min(v))`, or a fold
    /// of each lane in `map_axis`.
    MinAxis => OpDef {
        name: "min_axis",
        method_args: FOLD,
        method_usage: "`a.fold_axis(Axis(k), f64::INFINITY, |m, &v| m.min(v))` with a constant initial value",
        const_hint: "for a differentiable initial value, fold from `f64::INFINITY` and take the `min` with it after: `a.fold_axis(..).mapv(|m| m.min(init))`",
        fold: Some("min"),
        forward: "min_axis",
        rules: Rules::One("min_axis_vjp"),
        example: "sum(&x.fold_axis(Axis(0), f64::INFINITY, |m, v| m.min(*v))) + sum(&(&w.fold_axis(Axis(1), 0.5, |m, &v| f64::min(*m, v)) * s)) + x.map_axis(Axis(0), |r| r.fold(f64::INFINITY, |m, &v| v.min(m))).dot(v) + sum(&w.map_axis(Axis(1), |lane| lane.iter().copied().fold(f64::INFINITY, f64::min)))",
        axes: Axes::Fewer,
        ..ROW
    },
    /// The product of all elements: ndarray's `a.product()`.
    Product => OpDef {
        name: "product",
        methods: &["product"],
        method_usage: "`a.product()`",
        forward: "product",
        rules: Rules::One("product_vjp"),
        reads_out: false,
        flags: SCALAR_OUT,
        example: "x.product() + (&(v * 2.0) + s).product()",
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
        flags: VIEW,
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
        flags: VIEW,
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
    /// `y[i] = e`, `m[[i, j]] = e` (also `+= -= *= /=`), into an array the
    /// body made: the array's new value.
    SetIndex => OpDef {
        name: "set_index",
        forward: "set_index",
        rules: Rules::Two("set_index_vjp_lhs", "set_index_vjp_rhs"),
        reads_out: false,
        in_place: InPlace::Always,
        flags: RULES_SKIP_FIRST,
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
    Slice => OpDef {
        name: "slice",
        methods: &["slice"],
        method_args: &[SliceInfo("the slice of `slice`")],
        method_usage: "`a.slice(s![..])`",
        forward: "slice",
        rules: Rules::One("slice_vjp"),
        reads_out: false,
        flags: VIEW,
        example: "sum(&x.slice(s![1.., ..])) + sum(&(&x.slice(s![..;2, 1]) * &x.slice(s![1.., 0]))) + sum(&(&w.slice(s![.., NewAxis, 1..3;-1]) * s)) + sum(&x.slice(s![..-1, ..]))",
        ..ROW
    },
    /// `a.slice_axis(Axis(k), Slice::from(a..b))`.
    SliceAxis => OpDef {
        name: "slice_axis",
        methods: &["slice_axis"],
        method_args: &[Const("the axis of `slice_axis`"), Const("the slice of `slice_axis`")],
        method_usage: "`a.slice_axis(Axis(k), Slice::from(a..b))`",
        forward: "slice_axis",
        rules: Rules::One("slice_axis_vjp"),
        reads_out: false,
        flags: VIEW,
        example: "sum(&x.slice_axis(Axis(0), Slice::from(1..))) + sum(&(&w.slice_axis(Axis(1), Slice::new(0, None, 2)) * s))",
        axes: Axes::Same,
        ..ROW
    },
    /// `a.index_axis(Axis(k), i)`.
    IndexAxis => OpDef {
        name: "index_axis",
        methods: &["index_axis"],
        method_args: &[Const("the axis of `index_axis`"), Const("the index of `index_axis`")],
        method_usage: "`a.index_axis(Axis(k), i)`",
        forward: "index_axis",
        rules: Rules::One("index_axis_vjp"),
        reads_out: false,
        flags: VIEW,
        example: "x.index_axis(Axis(1), 0).dot(&x.index_axis(Axis(1), 1)) + sum(&w.index_axis(Axis(0), 1))",
        axes: Axes::Fewer,
        ..ROW
    },
    /// `a.remove_axis(Axis(k))`: `index_axis(Axis(k), 0)`.
    RemoveAxis => OpDef {
        name: "remove_axis",
        methods: &["remove_axis"],
        method_args: &[Const("the axis of `remove_axis`")],
        method_usage: "`a.remove_axis(Axis(k))`",
        forward: "remove_axis",
        rules: Rules::One("remove_axis_vjp"),
        reads_out: false,
        flags: VIEW,
        example: "sum(&x.slice(s![..1, ..]).remove_axis(Axis(0))) + (v * 2.0).insert_axis(Axis(1)).remove_axis(Axis(1)).dot(v)",
        axes: Axes::Fewer,
        ..ROW
    },
    /// `a.select(Axis(k), &indices)`: lanes gathered, repeats allowed.
    Select => OpDef {
        name: "select",
        methods: &["select"],
        method_args: &[Const("the axis of `select`"), Const("the indices of `select`")],
        method_usage: "`a.select(Axis(k), &indices)`",
        forward: "select",
        rules: Rules::One("select_vjp"),
        reads_out: false,
        example: "sum(&(&x.select(Axis(0), &[2, 0, 2]) * 2.0)) + sum(&w.select(Axis(1), &[1, 1]))",
        axes: Axes::Same,
        ..ROW
    },
    /// `a.into_shape_with_order(shape).unwrap()`, `a.to_shape(shape).unwrap()`.
    Reshape => OpDef {
        name: "reshape",
        methods: &["into_shape_with_order", "to_shape"],
        method_args: &[Const("the shape")],
        wrapped: Wrapped::Method("Result"),
        method_usage: "`a.to_shape(shape).unwrap()` or `a.into_shape_with_order(shape).unwrap()`",
        forward: "reshape",
        rules: Rules::One("reshape_vjp"),
        reads_out: false,
        flags: VIEW,
        example: "sum(&(&x.to_shape((2, 3)).unwrap() * w)) + x.view().into_shape_with_order(6).expect(\"six\").dot(&x.to_shape(((6,), backprop::ndarray::Order::ColumnMajor)).unwrap())",
        ..ROW
    },
    /// `a.permuted_axes(axes)`.
    PermutedAxes => OpDef {
        name: "permuted_axes",
        methods: &["permuted_axes"],
        method_args: &[Const("the axes of `permuted_axes`")],
        method_usage: "`a.permuted_axes([1, 0])`",
        forward: "permuted_axes",
        rules: Rules::One("permuted_axes_vjp"),
        reads_out: false,
        flags: VIEW,
        example: "sum(&(&x.view().permuted_axes([1, 0]) * w)) + sum(&x.t().permuted_axes((1, 0)).dot(w))",
        axes: Axes::Same,
        ..ROW
    },
    /// `a.broadcast(shape).unwrap()`.
    Broadcast => OpDef {
        name: "broadcast",
        methods: &["broadcast"],
        method_args: &[Const("the shape of `broadcast`")],
        wrapped: Wrapped::Method("Option"),
        method_usage: "`a.broadcast(shape).unwrap()` (or `.expect(\"..\")`)",
        forward: "broadcast",
        rules: Rules::One("broadcast_vjp"),
        reads_out: false,
        flags: VIEW,
        example: "sum(&(&v.broadcast((3, 2)).unwrap() * x)) + sum(&x.column(0).insert_axis(Axis(1)).broadcast((3, 4)).expect(\"fits\")) * s",
        ..ROW
    },
    /// ndarray's `concatenate(Axis(k), &[a.view(), b.view()])`, unwrapped.
    Concatenate => OpDef {
        name: "concatenate",
        function: Some(&[Const("the axis of `concatenate`"), Operands]),
        wrapped: Wrapped::Function("Result"),
        function_usage: "`concatenate(Axis(k), &[a.view(), b.view()]).unwrap()`",
        forward: "concatenate",
        rules: Rules::Indexed("concatenate_vjp"),
        reads_out: false,
        flags: SLICE_OF_VIEWS,
        example: "sum(&(&concatenate(Axis(0), &[x.view(), w.t()]).unwrap() * 2.0)) + sum(&backprop::ndarray::concatenate(Axis(1), &[x.slice(s![.., ..1]), x.view()]).expect(\"rows agree\")) * s",
        axes: Axes::Same,
        ..ROW
    },
    /// ndarray's `stack(Axis(k), &[a.view(), b.view()])`, unwrapped.
    Stack => OpDef {
        name: "stack",
        function: Some(&[Const("the axis of `stack`"), Operands]),
        wrapped: Wrapped::Function("Result"),
        function_usage: "`stack(Axis(k), &[a.view(), b.view()]).unwrap()`",
        forward: "stack",
        rules: Rules::Indexed("stack_vjp"),
        reads_out: false,
        flags: SLICE_OF_VIEWS,
        example: "sum(&(&stack(Axis(0), &[x.view(), x.view()]).unwrap() * 2.0)) + stack(Axis(1), &[v.view(), (v * 3.0).view()]).expect(\"same shapes\").sum() * s",
        axes: Axes::More,
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
}

/// The views a body writes through, `y.row_mut(i).assign(&v)`, and the op
/// each write is.
pub const WRITE_VIEWS: &[(&str, Op)] = &[
    ("row_mut", Op::SetRow),
    ("column_mut", Op::SetColumn),
    ("slice_mut", Op::SetSlice),
];

/// Methods that only read an array's shape: constants even on a
/// differentiable value.
pub const SHAPE_METHODS: &[&str] = &[
    "len", "len_of", "nrows", "ncols", "shape", "dim", "raw_dim", "ndim", "is_empty",
];

/// Methods that see through to their receiver.
pub const TRANSPARENT_METHODS: &[&str] = &["view"];

/// Methods that unwrap the `Option` or `Result` of an op's ndarray
/// spelling (`a.mean().unwrap()`).
pub const UNWRAP_METHODS: &[&str] = &["unwrap", "expect"];

/// ndarray's macro forms of ops of the table (`concatenate![Axis(0), a, b]`
/// is `concatenate(Axis(0), &[a.view(), b.view()]).unwrap()`).
pub const MACRO_FORMS: &[(&str, Op)] = &[("concatenate", Op::Concatenate), ("stack", Op::Stack)];

/// The macro a constant may be: ndarray's `s![..]`, the slice of `slice`.
pub const SLICE_MACROS: &[&str] = &["s"];

/// What to use instead of a method that cannot be differentiated ("" if
/// nothing specific).
pub fn method_hint(name: &str) -> &'static str {
    match name {
        "fold_axis" | "map_axis" => {
            "a fold along an axis is differentiated when it is the maximum or the minimum of a differentiable array, from a constant initial value: `a.fold_axis(Axis(k), f64::NEG_INFINITY, |m, &v| m.max(v))` (`f64::INFINITY` and `min` for a minimum) or `a.map_axis(Axis(k), |r| r.fold(f64::NEG_INFINITY, |m, &v| m.max(v)))`; for other reductions use `sum_axis`, `mean_axis(Axis(k)).unwrap()`, `var_axis`, ..."
        }
        "mapv" | "map" | "mapv_into" | "mapv_inplace" | "map_inplace" | "for_each" | "fold"
        | "map_collect" => {
            "a closure is differentiated where it maps elements: `a.mapv(|v| ..)`, `a.map(|&v| ..)`, `a.mapv_into(..)`, `Zip::from(&a).and(&b).map_collect(|&x, &y| ..)`, `a.iter().map(|x| ..).sum::<f64>()`; otherwise use the elementwise ops and the reductions (`sum_axis`, `mean_axis(Axis(k)).unwrap()`, `var_axis`, ...)"
        }
        "slice_mut" | "slice_move" | "slice_collapse" | "slice_each_axis" | "slice_axis_mut"
        | "index_axis_mut" | "index_axis_move" | "row_mut" | "column_mut" => {
            "an array the body made is written as `y[i] = e`, `y.row_mut(i).assign(&v)`, `y.column_mut(j).assign(&v)` or `y.slice_mut(s![..]).assign(&v)` (a statement on a binding of the body); other writes, and writes into parameters, are not supported"
        }
        "into_shape" | "into_shape_clone" | "reshape" => {
            "use `a.to_shape(shape).unwrap()` or `a.into_shape_with_order(shape).unwrap()`"
        }
        "iter" | "into_iter" | "iter_mut" | "outer_iter" | "axis_iter" | "lanes" | "rows" | "columns" => {
            "iterators are differentiable as sums: `a.iter().sum::<f64>()`, `a.iter().map(|x| ..).sum::<f64>()`, `a.iter().zip(b.iter()).map(|(x, y)| ..).sum::<f64>()`; otherwise use the array ops (`sum`, `mean().unwrap()`, `sum_axis`, `select`, `slice`, ...)"
        }
        _ => "",
    }
}

/// The hint of a method of a row whose ndarray spelling returns an
/// `Option` or a `Result`, used with something else than `unwrap` or
/// `expect` (`a.mean().unwrap_or(0.0)`).
pub const UNWRAP_HINT: &str = "the `Option` or `Result` of ndarray's `mean`, `mean_axis`, `to_shape`, `broadcast`, `concatenate`, ... is differentiable only unwrapped, with `.unwrap()` or `.expect(\"..\")`";
