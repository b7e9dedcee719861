//! The rows of the `f64` methods that are ops beyond the first few
//! (`sinh` .. `cbrt`, the piecewise constant ones, `clamp`): the bodies of
//! rows of [`super`]'s table, named there.

use super::super::Arg::Operand;
use super::super::*;
use super::{BOUND, X};

pub(super) const SINH: OpDef = OpDef {
    methods: &["sinh"],
    method_usage: "`x.sinh()`",
    function: Some(X),
    function_usage: "`sinh(x)`",
    float_path: Some(X),
    example: "sum(&sinh(&(x * 2.0))) + sum(&x.sinh()) + s.sinh() + f64::sinh(s * 2.0)",
    ..unary("sinh", "Sinh", Reads::Out)
};

pub(super) const COSH: OpDef = OpDef {
    methods: &["cosh"],
    method_usage: "`x.cosh()`",
    function: Some(X),
    function_usage: "`cosh(x)`",
    float_path: Some(X),
    example: "sum(&cosh(&(x * 2.0))) + sum(&x.cosh()) + s.cosh() + f64::cosh(s * 2.0)",
    ..unary("cosh", "Cosh", Reads::X)
};

pub(super) const ASINH: OpDef = OpDef {
    methods: &["asinh"],
    method_usage: "`x.asinh()`",
    function: Some(X),
    function_usage: "`asinh(x)`",
    float_path: Some(X),
    example: "sum(&asinh(&(x * 2.0))) + sum(&x.asinh()) + s.asinh() + f64::asinh(s * 2.0)",
    ..unary("asinh", "Asinh", Reads::X)
};

pub(super) const ACOSH: OpDef = OpDef {
    methods: &["acosh"],
    method_usage: "`x.acosh()`",
    function: Some(X),
    function_usage: "`acosh(x)`",
    float_path: Some(X),
    example: "sum(&acosh(&(x * x + 1.5))) + sum(&(x + 2.0).acosh()) + (s + 1.5).acosh() + f64::acosh(s * 2.0 + 1.5)",
    ..unary("acosh", "Acosh", Reads::X)
};

pub(super) const ATANH: OpDef = OpDef {
    methods: &["atanh"],
    method_usage: "`x.atanh()`",
    function: Some(X),
    function_usage: "`atanh(x)`",
    float_path: Some(X),
    example: "sum(&atanh(&(x * 0.5))) + sum(&x.atanh()) + s.atanh() + f64::atanh(s * 2.0)",
    ..unary("atanh", "Atanh", Reads::X)
};

pub(super) const ASIN: OpDef = OpDef {
    methods: &["asin"],
    method_usage: "`x.asin()`",
    function: Some(X),
    function_usage: "`asin(x)`",
    float_path: Some(X),
    example: "sum(&asin(&(x * 0.5))) + sum(&x.asin()) + s.asin() + f64::asin(s * 2.0)",
    ..unary("asin", "Asin", Reads::X)
};

pub(super) const ACOS: OpDef = OpDef {
    methods: &["acos"],
    method_usage: "`x.acos()`",
    function: Some(X),
    function_usage: "`acos(x)`",
    float_path: Some(X),
    example: "sum(&acos(&(x * 0.5))) + sum(&x.acos()) + s.acos() + f64::acos(s * 2.0)",
    ..unary("acos", "Acos", Reads::X)
};

pub(super) const ATAN: OpDef = OpDef {
    methods: &["atan"],
    method_usage: "`x.atan()`",
    function: Some(X),
    function_usage: "`atan(x)`",
    float_path: Some(X),
    example: "sum(&atan(&(x * 2.0))) + sum(&x.atan()) + s.atan() + f64::atan(s * 2.0)",
    ..unary("atan", "Atan", Reads::X)
};

pub(super) const EXP2: OpDef = OpDef {
    methods: &["exp2"],
    method_usage: "`x.exp2()`",
    function: Some(X),
    function_usage: "`exp2(x)`",
    float_path: Some(X),
    example: "sum(&exp2(&(x * 2.0))) + sum(&x.exp2()) + s.exp2() + f64::exp2(s * 2.0)",
    ..unary("exp2", "Exp2", Reads::Out)
};

pub(super) const EXP_M1: OpDef = OpDef {
    methods: &["exp_m1"],
    method_usage: "`x.exp_m1()`",
    function: Some(X),
    function_usage: "`exp_m1(x)`",
    float_path: Some(X),
    example: "sum(&exp_m1(&(x * 2.0))) + sum(&x.exp_m1()) + s.exp_m1() + f64::exp_m1(s * 2.0)",
    ..unary("exp_m1", "ExpM1", Reads::X)
};

pub(super) const LN1P: OpDef = OpDef {
    methods: &["ln_1p"],
    method_usage: "`x.ln_1p()`",
    function: Some(X),
    function_usage: "`ln_1p(x)`",
    float_path: Some(X),
    example: "sum(&ln_1p(&(x * x))) + sum(&(x + 1.0).ln_1p()) + s.ln_1p() + f64::ln_1p(s * 2.0)",
    ..unary("ln_1p", "Ln1p", Reads::X)
};

pub(super) const LOG2: OpDef = OpDef {
    methods: &["log2"],
    method_usage: "`x.log2()`",
    function: Some(X),
    function_usage: "`log2(x)`",
    float_path: Some(X),
    example: "sum(&log2(&(x * x + 0.5))) + sum(&(x + 1.0).log2()) + s.log2() + f64::log2(s * 2.0)",
    ..unary("log2", "Log2", Reads::X)
};

pub(super) const LOG10: OpDef = OpDef {
    methods: &["log10"],
    method_usage: "`x.log10()`",
    function: Some(X),
    function_usage: "`log10(x)`",
    float_path: Some(X),
    example:
        "sum(&log10(&(x * x + 0.5))) + sum(&(x + 1.0).log10()) + s.log10() + f64::log10(s * 2.0)",
    ..unary("log10", "Log10", Reads::X)
};

pub(super) const CBRT: OpDef = OpDef {
    methods: &["cbrt"],
    method_usage: "`x.cbrt()`",
    function: Some(X),
    function_usage: "`cbrt(x)`",
    float_path: Some(X),
    example: "sum(&cbrt(&(x * 2.0))) + sum(&x.cbrt()) + s.cbrt() + f64::cbrt(s - 1.0)",
    ..unary("cbrt", "Cbrt", Reads::Out)
};

pub(super) const TO_DEGREES: OpDef = OpDef {
    methods: &["to_degrees"],
    method_usage: "`x.to_degrees()`",
    function: Some(X),
    function_usage: "`to_degrees(x)`",
    float_path: Some(X),
    example: "sum(&to_degrees(&(x * 2.0))) + sum(&x.to_degrees()) + s.to_degrees() + f64::to_degrees(s * s)",
    ..unary("to_degrees", "ToDegrees", Reads::G)
};

pub(super) const TO_RADIANS: OpDef = OpDef {
    methods: &["to_radians"],
    method_usage: "`x.to_radians()`",
    function: Some(X),
    function_usage: "`to_radians(x)`",
    float_path: Some(X),
    example: "sum(&to_radians(&(x * 2.0))) + sum(&x.to_radians()) + s.to_radians() + f64::to_radians(s * s)",
    ..unary("to_radians", "ToRadians", Reads::G)
};

pub(super) const SIGNUM: OpDef = OpDef {
    methods: &["signum"],
    method_usage: "`x.signum()`",
    function: Some(X),
    function_usage: "`signum(x)`",
    float_path: Some(X),
    example: "sum(&(&signum(x) * x)) + sum(&(&x.signum() * 2.0)) + s.signum() * s + f64::signum(s - 1.0) * s",
    ..unary("signum", "Signum", Reads::Out)
};

pub(super) const FLOOR: OpDef = OpDef {
    methods: &["floor"],
    method_usage: "`x.floor()`",
    function: Some(X),
    function_usage: "`floor(x)`",
    float_path: Some(X),
    example: "sum(&(&floor(&(x * 2.0 + 3.17)) * x)) + sum(&x.floor()) + (s * 3.0).floor() * s + f64::floor(s - 1.2) * s",
    ..unary("floor", "Floor", Reads::Out)
};

pub(super) const CEIL: OpDef = OpDef {
    methods: &["ceil"],
    method_usage: "`x.ceil()`",
    function: Some(X),
    function_usage: "`ceil(x)`",
    float_path: Some(X),
    example: "sum(&(&ceil(&(x * 2.0 + 3.17)) * x)) + sum(&x.ceil()) + (s * 3.0).ceil() * s + f64::ceil(s - 1.2) * s",
    ..unary("ceil", "Ceil", Reads::Out)
};

pub(super) const ROUND: OpDef = OpDef {
    methods: &["round"],
    method_usage: "`x.round()`",
    function: Some(X),
    function_usage: "`round(x)`",
    float_path: Some(X),
    example: "sum(&(&round(&(x * 2.0 + 3.17)) * x)) + sum(&x.round()) + (s * 3.0).round() * s + f64::round(s - 1.2) * s",
    ..unary("round", "Round", Reads::Out)
};

pub(super) const TRUNC: OpDef = OpDef {
    methods: &["trunc"],
    method_usage: "`x.trunc()`",
    function: Some(X),
    function_usage: "`trunc(x)`",
    float_path: Some(X),
    example: "sum(&(&trunc(&(x * 2.0 + 3.17)) * x)) + sum(&x.trunc()) + (s * 3.0).trunc() * s + f64::trunc(s - 1.2) * s",
    ..unary("trunc", "Trunc", Reads::Out)
};

pub(super) const FRACT: OpDef = OpDef {
    methods: &["fract"],
    method_usage: "`x.fract()`",
    function: Some(X),
    function_usage: "`fract(x)`",
    float_path: Some(X),
    example: "sum(&(&fract(&(x * 2.0 + 3.17)) * x)) + sum(&x.fract()) + (s * 3.0).fract() * s + f64::fract(s - 1.2) * s",
    ..unary("fract", "Fract", Reads::Out)
};

pub(super) const CLAMP: OpDef = OpDef {
    methods: &["clamp"],
    method_args: &[BOUND, BOUND],
    method_usage: "`x.clamp(lo, hi)` with constants `lo` and `hi`",
    function: Some(&[Operand, BOUND, BOUND]),
    function_usage: "`clamp(x, lo, hi)` with constants `lo` and `hi`",
    float_path: Some(&[Operand, BOUND, BOUND]),
    const_hint: "for a differentiable bound, write `x.max(lo).min(hi)`, which has the same gradient",
    example: "sum(&clamp(&(x * 2.0), -0.5, 1.0)) + sum(&x.clamp(-0.5, 0.5)) + s.clamp(0.0, 1.0) + f64::clamp(s * 2.0, -1.0, 0.5)",
    ..unary("clamp", "Clamp", Reads::X)
};
