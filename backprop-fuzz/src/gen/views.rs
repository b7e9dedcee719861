//! Views, gathers and products: ndarray's `slice(s![..])` (ranges, steps,
//! negative ends and steps, single indices), `slice_axis`, `index_axis`,
//! `select` (indices sometimes repeated), `to_shape`,
//! `into_shape_with_order`, `permuted_axes`, `reversed_axes`, `broadcast`,
//! `remove_axis`, `concatenate`, `stack`; and `t()`, `dot`, `concat`.
//!
//! Slices, indices and reshapes are within the shape. A view of a name is
//! a view; a view of a temporary is made owned (`.to_owned()`) or reduced
//! in its statement (and, in loops and branches, only `select` is taken of
//! a temporary: see `Options::region_bugs`).

use super::program::Program;
use super::value::{size, Form, Shape, LIMIT, V};

impl Program<'_> {
    /// A view or a gather of an array expression.
    pub fn nd_view(&mut self, depth: i32) -> V {
        let Some(a) = self.array_operand(depth, |_| true) else {
            return self.unary(depth);
        };
        let nd = a.shape.len();
        let named = a.named();
        let mut ops = self.view_ops(&a);
        if !named && nd == 2 && !self.opts.owned_lhs {
            // An owned temporary transposed (`(..).to_owned().permuted_axes(..)`)
            // is column-major in the original only: a reduction of it may
            // round differently in the backward (`Options::owned_lhs`).
            ops.retain(|o| !matches!(*o, "permuted" | "reversed"));
        }
        if ops.is_empty() {
            return self.unary(depth);
        }
        let op = self.rng.word(&ops);
        let recv = if named { a.code.clone() } else { a.atom() };
        let owned = |m: &'static str| if named { "view" } else { m };
        let (code, shape) = match op {
            "slice" => {
                let (spec, shape) = self.slice_spec(&a.shape);
                (format!("{recv}.slice({spec})"), shape)
            }
            "slice_axis" => {
                let k = self.rng.below(nd);
                let d = a.shape[k];
                let lo = self.rng.below(d);
                let hi = self.rng.between(lo + 1, d);
                let (range, m) = if self.rng.chance(0.5) {
                    (format!("{lo}..{hi}"), hi - lo)
                } else {
                    (format!("{lo}.."), d - lo)
                };
                let shape = with_axis(&a.shape, k, m);
                (
                    format!("{recv}.slice_axis(Axis({k}), Slice::from({range}))"),
                    shape,
                )
            }
            "index_axis" => {
                let k = self.rng.below(2);
                let i = self.rng.below(a.shape[k]);
                (
                    format!("{recv}.index_axis(Axis({k}), {i})"),
                    vec![a.shape[1 - k]],
                )
            }
            "select" => return self.select(&a),
            "to_shape" | "into_shape" => {
                let shapes = reshapes(&a.shape);
                let shape = self.rng.pick(&shapes).clone();
                let sh = if shape.len() == 1 {
                    shape[0].to_string()
                } else {
                    format!("({}, {})", shape[0], shape[1])
                };
                if op == "into_shape" {
                    (
                        format!("{recv}.view().into_shape_with_order({sh}).unwrap()"),
                        shape,
                    )
                } else {
                    (format!("{recv}.to_shape({sh}).unwrap()"), shape)
                }
            }
            "permuted" => {
                let (axes, shape) = if nd == 2 {
                    ("[1, 0]", vec![a.shape[1], a.shape[0]])
                } else {
                    ("[0]", a.shape.clone())
                };
                (
                    format!("{recv}.{}().permuted_axes({axes})", owned("to_owned")),
                    shape,
                )
            }
            "reversed" => (
                format!("{recv}.{}().reversed_axes()", owned("to_owned")),
                vec![a.shape[1], a.shape[0]],
            ),
            "remove_axis" => {
                let k = a
                    .shape
                    .iter()
                    .position(|&d| d == 1)
                    .expect("an axis of length 1");
                (
                    format!("{recv}.{}().remove_axis(Axis({k}))", owned("to_owned")),
                    vec![a.shape[1 - k]],
                )
            }
            "broadcast" => {
                let shape = if nd == 1 {
                    vec![*self.rng.pick(&[1, 2, 3]), a.shape[0]]
                } else if a.shape[0] == 1 {
                    vec![*self.rng.pick(&[2, 3]), a.shape[1]]
                } else {
                    vec![a.shape[0], *self.rng.pick(&[2, 3])]
                };
                (
                    format!("{recv}.broadcast(({}, {})).unwrap()", shape[0], shape[1]),
                    shape,
                )
            }
            "concatenate" => return self.concatenate(&a),
            _ => return self.stack(&a),
        };
        if !named && matches!(op, "permuted" | "reversed" | "remove_axis") {
            // Made owned before the view: a value, not a view.
            return V::new(code, shape, a.bound);
        }
        self.view_of(&a, op, code, shape)
    }

    /// The views and gathers that fit `a`.
    fn view_ops(&self, a: &V) -> Vec<&'static str> {
        let nd = a.shape.len();
        let named = a.named();
        let in_region = self.avoid_region_bugs();
        if in_region && !named {
            // Views of temporaries in loops and branches: a known bug once
            // (tools/regressions/view_of_temporary_in_region.rs).
            return vec!["select", "select"];
        }
        let mut ops = vec![
            "slice",
            "slice",
            "slice_axis",
            "select",
            "select",
            "to_shape",
            "permuted",
            "concatenate",
        ];
        if nd == 2 {
            ops.extend(["index_axis", "reversed"]);
        }
        if named && self.is_param(&a.code) {
            ops.extend(["into_shape", "into_shape"]);
        }
        if nd == 1 || a.shape.contains(&1) {
            ops.extend(["broadcast", "broadcast"]);
        }
        if nd == 2 && a.shape.contains(&1) {
            ops.extend(["remove_axis", "remove_axis"]);
        }
        if nd == 1 {
            ops.extend(["stack", "stack"]);
        }
        if in_region {
            ops.retain(|o| !matches!(*o, "concatenate" | "stack"));
        }
        ops
    }

    /// The view `code` of `a` as a value: a view of a name, else owned or
    /// reduced in its statement.
    fn view_of(&mut self, a: &V, op: &str, code: String, shape: Shape) -> V {
        let in_region = self.avoid_region_bugs();
        if a.named() && !(in_region && matches!(op, "permuted" | "reversed" | "remove_axis")) {
            return V::new(code, shape, a.bound).form(Form::View);
        }
        if in_region || self.rng.chance(0.7) {
            return V::new(format!("{code}.to_owned()"), shape, a.bound);
        }
        let n = size(&shape) as f64;
        V::scalar_expr(format!("{code}.sum()"), a.bound * n)
    }

    /// `a.select(Axis(k), &[..])`, an index sometimes repeated (its
    /// gradients add).
    fn select(&mut self, a: &V) -> V {
        let k = self.rng.below(a.shape.len());
        let d = a.shape[k];
        let count = self.rng.between(1, 4);
        let mut ids: Vec<usize> = (0..count).map(|_| self.rng.below(d)).collect();
        if ids.len() >= 2 && self.rng.chance(0.5) {
            ids[count - 1] = ids[0];
        }
        let shape = with_axis(&a.shape, k, ids.len());
        let ids: Vec<String> = ids.iter().map(usize::to_string).collect();
        V::new(
            format!("{}.select(Axis({k}), &[{}])", a.recv(), ids.join(", ")),
            shape,
            a.bound,
        )
    }

    /// `stack(Axis(k), &[a.view(), b.view()]).unwrap()` of two vectors of
    /// one length.
    fn stack(&mut self, a: &V) -> V {
        let shape = a.shape.clone();
        let b = self.leaf(|v| v.shape == shape).unwrap_or_else(|| a.clone());
        let k = self.rng.below(2);
        let shape = if k == 0 {
            vec![2, a.shape[0]]
        } else {
            vec![a.shape[0], 2]
        };
        let code = format!(
            "stack(Axis({k}), &[{}.view(), {}.view()]).unwrap()",
            a.recv(),
            b.recv()
        );
        V::new(code, shape, a.bound.max(b.bound))
    }

    /// `concatenate(Axis(k), &[a.view(), b.view()]).unwrap()` with pieces
    /// that agree on the other axes.
    fn concatenate(&mut self, a: &V) -> V {
        let k = self.rng.below(a.shape.len());
        let pieces = self.pieces(a, k, false);
        let views: Vec<String> = pieces
            .iter()
            .map(|p| format!("{}.view()", p.recv()))
            .collect();
        let shape = with_axis(&a.shape, k, pieces.iter().map(|p| p.shape[k]).sum());
        let bound = pieces.iter().map(|p| p.bound).fold(0.0, f64::max);
        V::new(
            format!("concatenate(Axis({k}), &[{}]).unwrap()", views.join(", ")),
            shape,
            bound,
        )
    }

    /// `a` and one or two operands that agree with it on every axis but
    /// `k` (owned arrays only, for `concat`).
    fn pieces(&mut self, a: &V, k: usize, owned: bool) -> Vec<V> {
        let mut pieces = vec![a.clone()];
        for _ in 0..*self.rng.pick(&[1, 1, 2]) {
            let shape = a.shape.clone();
            let fits = |v: &V| {
                v.shape.len() == shape.len()
                    && (0..shape.len()).all(|i| i == k || v.shape[i] == shape[i])
                    && (!owned || Self::owned_array(v))
            };
            match self.leaf(fits) {
                Some(b) => pieces.push(b),
                None => break,
            }
        }
        pieces
    }

    /// An `s![..]` for `shape` and the shape of the slice (at least one
    /// axis kept).
    fn slice_spec(&mut self, shape: &[usize]) -> (String, Shape) {
        for _ in 0..10 {
            let mut parts = Vec::new();
            let mut out = Vec::new();
            for &d in shape {
                let a = self.rng.below(d);
                let b = self.rng.between(a + 1, d);
                let k = self.rng.between(1, d);
                let mut opts: Vec<(String, Option<usize>)> = vec![
                    ("..".into(), Some(d)),
                    ("..;-1".into(), Some(d)),
                    ("..;2".into(), Some(d.div_ceil(2))),
                    (format!("{a}..{b}"), Some(b - a)),
                    (format!("{a}.."), Some(d - a)),
                    (format!("..{b}"), Some(b)),
                    (format!("-{k}.."), Some(k)),
                ];
                if d >= 2 {
                    opts.push(("..-1".into(), Some(d - 1)));
                    opts.push(("1..;2".into(), Some(d / 2)));
                    opts.push((format!("{a}..{b};-1"), Some(b - a)));
                }
                opts.push((String::new(), None));
                match self.rng.pick(&opts).clone() {
                    (spec, Some(m)) => {
                        parts.push(spec);
                        out.push(m);
                    }
                    (_, None) => {
                        // A single index, typed: with an integer literal of
                        // no type, the number of axes of the slice is
                        // unknown when a method is resolved.
                        let i = self.rng.below(d);
                        parts.push(if self.rng.chance(0.7) {
                            format!("{i}_usize")
                        } else {
                            format!("{}_isize", i as isize - d as isize)
                        });
                    }
                }
            }
            if !out.is_empty() {
                return (format!("s![{}]", parts.join(", ")), out);
            }
        }
        (
            format!("s![{}]", vec![".."; shape.len()].join(", ")),
            shape.to_vec(),
        )
    }

    /// A transpose, a `concat`, or a product with an operand of a
    /// compatible shape.
    pub fn linalg(&mut self, depth: i32) -> V {
        let a = self.expr(depth - 1);
        if a.scalar() {
            return self.binary(depth);
        }
        let nd = a.shape.len();
        if nd == 2 && self.rng.chance(0.3) && (self.opts.region_bugs || self.region == 0) {
            // A transpose, used right away or as a name's view.
            let form = if a.named() { Form::View } else { Form::TView };
            let t = V::new(
                format!("{}.t()", a.recv()),
                vec![a.shape[1], a.shape[0]],
                a.bound,
            )
            .form(form);
            if form == Form::View {
                return t;
            }
            // Consume it in this statement: a product or a reduction.
            let rows = a.shape[0];
            if let Some(b) = self.leaf(|v| matches!(v.shape.len(), 1 | 2) && v.shape[0] == rows) {
                return self.dot(t, b);
            }
            return V::scalar_expr(format!("sum(&{})", t.code), a.bound * size(&a.shape) as f64);
        }
        if self.rng.chance(0.2) && Self::owned_array(&a) {
            // `concat` along an axis of pieces that agree on the others.
            let k = self.rng.below(nd);
            let pieces = self.pieces(&a, k, true);
            let refs: Vec<String> = pieces.iter().map(V::as_ref).collect();
            let shape = with_axis(&a.shape, k, pieces.iter().map(|p| p.shape[k]).sum());
            let bound = pieces.iter().map(|p| p.bound).fold(0.0, f64::max);
            return V::new(
                format!("concat(Axis({k}), &[{}])", refs.join(", ")),
                shape,
                bound,
            );
        }
        let inner = a.shape[nd - 1];
        let b = match self.leaf(|v| matches!(v.shape.len(), 1 | 2) && v.shape[0] == inner) {
            Some(b) => b,
            None => {
                // A transposed name.
                let b2 = self.leaf(|v| v.shape.len() == 2 && v.shape[1] == inner && v.named());
                match b2 {
                    Some(b2) if !self.avoid_region_bugs() => V::new(
                        format!("{}.t()", b2.code),
                        vec![b2.shape[1], b2.shape[0]],
                        b2.bound,
                    )
                    .form(Form::TView),
                    _ => return self.reduce_or_structure(depth),
                }
            }
        };
        self.dot(a, b)
    }

    /// Whether `v.as_ref()` is a `&Array` (not a reference to a view).
    pub fn owned_array(v: &V) -> bool {
        !v.scalar() && !v.is_view && matches!(v.form, Form::Ref | Form::Name | Form::Expr)
    }

    /// `a.dot(&b)`, both squashed first when the product may be large.
    fn dot(&mut self, mut a: V, mut b: V) -> V {
        let k = a.shape[a.shape.len() - 1];
        let mut shape: Shape = a.shape[..a.shape.len() - 1].to_vec();
        shape.extend_from_slice(&b.shape[1..]);
        let mut bound = a.bound * b.bound * k as f64;
        if bound > LIMIT * 2.0 {
            // Elementwise first: squashing keeps the shapes.
            a = self.squash_array(&a);
            b = self.squash_array(&b);
            bound = k as f64;
        }
        let rhs = match b.form {
            Form::View | Form::TView => format!("&{}", b.code),
            _ => b.as_ref(),
        };
        let recv = if a.form == Form::Expr {
            a.atom()
        } else {
            a.code.clone()
        };
        V::new(format!("{recv}.dot({rhs})"), shape, bound)
    }
}

/// `shape` with axis `k` of length `m`.
fn with_axis(shape: &[usize], k: usize, m: usize) -> Shape {
    let mut out = shape.to_vec();
    out[k] = m;
    out
}

/// The shapes an array of `shape` may be reshaped to.
fn reshapes(shape: &[usize]) -> Vec<Shape> {
    let n = size(shape);
    let mut cands = vec![vec![n], vec![1, n], vec![n, 1]];
    cands.extend(
        (2..n)
            .filter(|r| n.is_multiple_of(*r))
            .map(|r| vec![r, n / r]),
    );
    let other: Vec<Shape> = cands
        .iter()
        .filter(|c| c.as_slice() != shape)
        .cloned()
        .collect();
    if other.is_empty() {
        cands
    } else {
        other
    }
}
