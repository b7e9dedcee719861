//! The other names a body may spell, beside the rows of the table: the
//! views written through, the macro forms of ops, the methods that only
//! read a shape or see through to their receiver, and hints for the
//! methods that are rejected.

use super::Op;

/// The views a body writes through, `y.row_mut(i).assign(&v)`: the op
/// each write is, and the method that reads the same part.
pub const WRITE_VIEWS: &[(&str, Op, &str)] = &[
    ("row_mut", Op::SetRow, "row"),
    ("column_mut", Op::SetColumn, "column"),
    ("slice_mut", Op::SetSlice, "slice"),
];

/// The methods that write a whole array or a view of one:
/// `assign(&v)`, `fill(e)` (set it), `scaled_add(a, &v)` (add `a·v` to it),
/// `mapv_inplace(f)` (map it).
pub const WRITE_METHODS: &[(&str, usize)] = &[
    ("assign", 1),
    ("fill", 1),
    ("scaled_add", 2),
    ("mapv_inplace", 1),
    // `|v| *v = e`, written as `mapv_inplace(|v| e)` (see `lower::control`).
    ("map_inplace", 1),
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
            "a fold along an axis is differentiated when it is the maximum or the minimum of a differentiable array, from a constant initial value: `a.fold_axis(Axis(k), f64::NEG_INFINITY, |m, &v| m.max(v))` (`f64::INFINITY` and `min` for a minimum) or `a.map_axis(Axis(k), |r| r.fold(f64::NEG_INFINITY, |m, &v| m.max(v)))`; `x.map_axis(Axis(k), |lane| ..)` of a matrix bound to a name takes any closure (the loop over its lanes); for other reductions use `sum_axis`, `mean_axis(Axis(k)).unwrap()`, `var_axis`, ..."
        }
        "fold" => {
            "an iterator's `fold` is differentiated as the loop it is: `x.iter().fold(init, |acc, &v| ..)` (also over a range, `.zip(..)`, `.enumerate()`, `.rev()`, ..., or with a function, `f64::max`), where the closure does not return early (`return`, `?`) and a `.map(|v| ..)` before it binds no name the fold's closure reads from outside; ndarray's own `a.fold(..)` visits the elements in memory order: write `a.iter().fold(..)`"
        }
        "mapv" | "map" | "mapv_into" | "map_inplace" | "for_each" | "map_collect" => {
            "a closure is differentiated where it maps elements: `a.mapv(|v| ..)`, `a.map(|&v| ..)`, `a.mapv_into(..)`, `Zip::from(&a).and(&b).map_collect(|&x, &y| ..)` (up to five arrays), `a.iter().map(|x| ..).sum::<f64>()`; otherwise use the elementwise ops and the reductions (`sum_axis`, `mean_axis(Axis(k)).unwrap()`, `var_axis`, ...)"
        }
        "slice_mut" | "slice_move" | "slice_collapse" | "slice_each_axis" | "slice_axis_mut"
        | "index_axis_mut" | "index_axis_move" | "row_mut" | "column_mut" => {
            "an array the body made is written as `y[i] = e` (also `+= -= *= /=`), or through `y.row_mut(i)`, `y.column_mut(j)` or `y.slice_mut(s![..])` with `.assign(&v)`, `.fill(e)`, `.scaled_add(a, &v)` or `.mapv_inplace(|v| ..)` (a statement on a binding of the body; the same four methods write the whole array); other writes are not supported"
        }
        "zip_mut_with" => {
            "write the new value with the operators or a `Zip` (`y *= &b;`, `y.assign(&Zip::from(&y).and(&b).map_collect(|&a, &b| ..))`), or `y.mapv_inplace(|v| ..)` for one array"
        }
        "into_shape" | "into_shape_clone" | "reshape" => {
            "use `a.to_shape(shape).unwrap()` or `a.into_shape_with_order(shape).unwrap()`"
        }
        "iter" | "into_iter" | "iter_mut" | "outer_iter" | "axis_iter" | "lanes" | "rows" | "columns" => {
            "iterators are differentiable as sums, products and folds of what a `for` loop walks: `a.iter().sum::<f64>()`, `a.iter().map(|x| ..).sum::<f64>()`, `a.iter().zip(b.iter()).map(|(x, y)| ..).sum::<f64>()`, `a.iter().enumerate().map(|(i, &x)| ..).product::<f64>()`, `a.iter().fold(0.0, |acc, &x| ..)` (over `.iter()`, `.rows()`, ranges, with `.enumerate()`, `.zip(..)`, `.skip(n)`, `.take(n)`, `.step_by(n)`, `.rev()`), or as `for` loops; otherwise use the array ops (`sum`, `mean().unwrap()`, `sum_axis`, `product_axis`, `select`, `slice`, ...)"
        }
        _ => "",
    }
}

/// The hint of a method of a row whose ndarray spelling returns an
/// `Option` or a `Result`, used with something else than `unwrap` or
/// `expect` (`a.mean().unwrap_or(0.0)`).
pub const UNWRAP_HINT: &str = "the `Option` or `Result` of ndarray's `mean`, `mean_axis`, `to_shape`, `broadcast`, `concatenate`, ... is differentiable only unwrapped, with `.unwrap()` or `.expect(\"..\")`";
