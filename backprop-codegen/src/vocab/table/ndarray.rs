//! The rows of ndarray's own reductions, views and gathers (`var` ..
//! `stack`): the bodies of rows of [`super`]'s table, named there.

use super::super::Arg::{Const, Operands, SliceInfo};
use super::super::*;
use super::FOLD;

pub(super) const VAR: OpDef = OpDef {
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
};

pub(super) const STD: OpDef = OpDef {
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
};

pub(super) const VAR_AXIS: OpDef = OpDef {
    name: "var_axis",
    methods: &["var_axis"],
    method_args: &[
        Const("the axis of `var_axis`"),
        Const("the `ddof` of `var_axis`"),
    ],
    method_usage: "`a.var_axis(Axis(k), ddof)` with a constant `ddof`",
    forward: "var_axis",
    rules: Rules::One("var_axis_vjp"),
    reads_out: false,
    example: "sum(&x.var_axis(Axis(0), 1.0)) + sum(&(&x.var_axis(Axis(1), 0.0) * s))",
    axes: Axes::Fewer,
    ..ROW
};

pub(super) const STD_AXIS: OpDef = OpDef {
    name: "std_axis",
    methods: &["std_axis"],
    method_args: &[
        Const("the axis of `std_axis`"),
        Const("the `ddof` of `std_axis`"),
    ],
    method_usage: "`a.std_axis(Axis(k), ddof)` with a constant `ddof`",
    forward: "std_dev_axis",
    rules: Rules::One("std_dev_axis_vjp"),
    reads_out: false,
    example: "sum(&x.std_axis(Axis(0), 1.0)) + sum(&(&w.std_axis(Axis(1), 0.0) * s))",
    axes: Axes::Fewer,
    ..ROW
};

pub(super) const MAX_AXIS: OpDef = OpDef {
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
};

pub(super) const MIN_AXIS: OpDef = OpDef {
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
};

pub(super) const PRODUCT: OpDef = OpDef {
    name: "product",
    methods: &["product"],
    method_usage: "`a.product()`",
    forward: "product",
    rules: Rules::One("product_vjp"),
    reads_out: false,
    flags: SCALAR_OUT,
    example: "x.product() + (&(v * 2.0) + s).product()",
    ..ROW
};

pub(super) const PRODUCT_AXIS: OpDef = OpDef {
    name: "product_axis",
    methods: &["product_axis"],
    method_args: &[Const("the axis of `product_axis`")],
    method_usage: "`a.product_axis(Axis(k))`",
    forward: "product_axis",
    rules: Rules::One("product_axis_vjp"),
    reads_out: false,
    example: "sum(&x.product_axis(Axis(1))) + (w * s).product_axis(Axis(1)).dot(v)",
    axes: Axes::Fewer,
    ..ROW
};

pub(super) const ITER_PRODUCT: OpDef = OpDef {
    name: "iter().product",
    methods: &["product"],
    adapter: Some("iter"),
    method_usage: "`a.iter().product::<f64>()`",
    forward: "iter_product",
    rules: Rules::One("product_vjp"),
    reads_out: false,
    flags: SCALAR_OUT,
    example: "let t: f64 = (x * 2.0).iter().product(); v.iter().product::<f64>() + t * s",
    ..ROW
};

pub(super) const SLICE: OpDef = OpDef {
    name: "slice",
    methods: &["slice"],
    method_args: &[SliceInfo("the slice of `slice`")],
    method_usage: "`a.slice(s![..])`",
    forward: "slice",
    rules: Rules::One("slice_vjp"),
    reads_out: false,
    flags: VIEW | PART | CONTRIBUTES | ACCUMULATES,
    example: "sum(&x.slice(s![1.., ..])) + sum(&(&x.slice(s![..;2, 1]) * &x.slice(s![1.., 0]))) + sum(&(&w.slice(s![.., NewAxis, 1..3;-1]) * s)) + sum(&x.slice(s![..-1, ..]))",
    ..ROW
};

pub(super) const SLICE_AXIS: OpDef = OpDef {
    name: "slice_axis",
    methods: &["slice_axis"],
    method_args: &[Const("the axis of `slice_axis`"), Const("the slice of `slice_axis`")],
    method_usage: "`a.slice_axis(Axis(k), Slice::from(a..b))`",
    forward: "slice_axis",
    rules: Rules::One("slice_axis_vjp"),
    reads_out: false,
    flags: VIEW | PART | CONTRIBUTES | ACCUMULATES,
    example: "sum(&x.slice_axis(Axis(0), Slice::from(1..))) + sum(&(&w.slice_axis(Axis(1), Slice::new(0, None, 2)) * s))",
    axes: Axes::Same,
    ..ROW
};

pub(super) const INDEX_AXIS: OpDef = OpDef {
    name: "index_axis",
    methods: &["index_axis"],
    method_args: &[
        Const("the axis of `index_axis`"),
        Const("the index of `index_axis`"),
    ],
    method_usage: "`a.index_axis(Axis(k), i)`",
    forward: "index_axis",
    rules: Rules::One("index_axis_vjp"),
    reads_out: false,
    flags: VIEW | PART | CONTRIBUTES | ACCUMULATES,
    example:
        "x.index_axis(Axis(1), 0).dot(&x.index_axis(Axis(1), 1)) + sum(&w.index_axis(Axis(0), 1))",
    axes: Axes::Fewer,
    ..ROW
};

pub(super) const REMOVE_AXIS: OpDef = OpDef {
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
};

pub(super) const SELECT: OpDef = OpDef {
    name: "select",
    methods: &["select"],
    method_args: &[
        Const("the axis of `select`"),
        Const("the indices of `select`"),
    ],
    method_usage: "`a.select(Axis(k), &indices)`",
    forward: "select",
    rules: Rules::One("select_vjp"),
    reads_out: false,
    example: "sum(&(&x.select(Axis(0), &[2, 0, 2]) * 2.0)) + sum(&w.select(Axis(1), &[1, 1]))",
    axes: Axes::Same,
    ..ROW
};

pub(super) const RESHAPE: OpDef = OpDef {
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
};

pub(super) const PERMUTED_AXES: OpDef = OpDef {
    name: "permuted_axes",
    methods: &["permuted_axes"],
    method_args: &[Const("the axes of `permuted_axes`")],
    method_usage: "`a.permuted_axes([1, 0])`",
    forward: "permuted_axes",
    rules: Rules::One("permuted_axes_vjp"),
    reads_out: false,
    flags: VIEW,
    example:
        "sum(&(&x.view().permuted_axes([1, 0]) * w)) + sum(&x.t().permuted_axes((1, 0)).dot(w))",
    axes: Axes::Same,
    ..ROW
};

pub(super) const BROADCAST: OpDef = OpDef {
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
};

pub(super) const CONCATENATE: OpDef = OpDef {
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
};

pub(super) const STACK: OpDef = OpDef {
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
};
