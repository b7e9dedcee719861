//! Arrays written after the body made them (`let mut y = x.to_owned();` or
//! `Array1::<f64>::zeros(n)`, then `y[i] = e`, `y[i] += e`, `y[[i, j]] =
//! e`, `y.row_mut(i).assign(&v)`, `y.column_mut(j).assign(&v)` in a loop);
//! such an array carried across an outer loop and written and read by
//! sibling inner loops (`nested_write`); and loops over iterators
//! (`x.rows()`, `x.columns()`, `ws.iter().enumerate()` of a constant `ws:
//! &[f64]`, `labels.iter().enumerate()`, `x.rows().into_iter().zip(ws
//! .iter())`) accumulating a scalar.

use super::program::Program;
use super::value::{mentions, size, Form, Shape, LIMIT, V};

impl Program<'_> {
    /// The arrays a write may start from: names of one or two axes, of the
    /// parameters (`p`) or the locals (`t`).
    fn write_sources(&self, max_axes: usize) -> Vec<V> {
        self.env
            .iter()
            .filter(|v| v.named() && !v.scalar() && !v.is_view && v.shape.len() <= max_axes)
            .filter(|v| v.code.starts_with('p') || v.code.starts_with('t'))
            .cloned()
            .collect()
    }

    /// `let mut tN = src.to_owned();` (with probability `copy`) or `zeros`
    /// of its shape: the new name and its bound.
    fn written_array(&mut self, src: &V, copy: f64) -> (String, f64) {
        let name = self.fresh();
        let (init, bound) = if self.rng.chance(copy) {
            (format!("{}.to_owned()", src.recv()), src.bound)
        } else {
            let r = src.recv();
            let dims = if src.shape.len() == 1 {
                format!("{r}.len()")
            } else {
                format!("({r}.nrows(), {r}.ncols())")
            };
            (
                format!("Array{}::<{}>::zeros({dims})", src.shape.len(), self.ty),
                0.0,
            )
        };
        self.let_(&name, &init, None);
        self.last_mut();
        (name, bound)
    }

    /// An array the body makes, written in a loop.
    pub fn write(&mut self, depth: i32) -> bool {
        let arrays = self.write_sources(6);
        if arrays.is_empty() {
            return false;
        }
        let src = self.rng.pick(&arrays).clone();
        let shape = src.shape.clone();
        let (name, bound) = self.written_array(&src, 0.5);
        let inner = (depth - 1).max(1);
        let (code, e, op) = self.in_region(|p| {
            if shape.len() == 1 {
                let extra: Vec<V> = if src.code.starts_with('p') {
                    vec![V::scalar_expr(format!("{}[i]", src.code), src.bound)]
                } else {
                    Vec::new()
                };
                let e = p.scalar_of(inner, &extra);
                let op = p.rng.word(&["=", "+=", "="]);
                p.count("write_1d");
                let code = format!(
                    "for i in 0..{name}.len() {{\n        {name}[i] {op} {};\n    }}",
                    e.code
                );
                return (code, e, op);
            }
            let r = p.rng.float();
            if r < 0.4 {
                let j = p.rng.below(shape[1]);
                let e = p.scalar_of(
                    inner,
                    &[V::scalar_expr(format!("{}[[i, {j}]]", src.code), src.bound)],
                );
                let op = p.rng.word(&["=", "+="]);
                p.count("write_2d");
                let code = format!(
                    "for i in 0..{name}.nrows() {{\n        {name}[[i, {j}]] {op} {};\n    }}",
                    e.code
                );
                return (code, e, op);
            }
            let along = if r < 0.7 { "row" } else { "column" };
            let (lane, count) = if along == "row" {
                (shape[1], shape[0])
            } else {
                (shape[0], shape[1])
            };
            let v = match p.leaf(|v| v.shape == [lane]) {
                Some(v) if !p.rng.chance(0.3) => v,
                _ => lane_view(&src, along, lane),
            };
            let v = p.scaled_lane(v);
            p.count("write_lane");
            let code = format!(
                "for i in 0..{count} {{\n        {name}.{along}_mut(i).assign({});\n    }}",
                v.as_ref()
            );
            (code, v, "=")
        });
        self.stmts.push(code);
        let bound = bound.max(e.bound) + if op == "+=" { bound } else { 0.0 };
        self.env.push(V::new(name, shape, bound).form(Form::Name));
        true
    }

    /// A lane squashed, and now and then scaled by a scalar.
    fn scaled_lane(&mut self, v: V) -> V {
        let v = self.squash_array(&v);
        if self.rng.chance(0.5) {
            let s = self.scalar_of(1, &[]);
            return V::new(format!("{} * {}", v.as_ref(), s.atom()), v.shape, s.bound);
        }
        v
    }

    /// An array carried across an outer loop (`for o in 0..K`, or a `while`
    /// with a counter), written element by element (a matrix: row by row)
    /// in one inner loop and read element by element (row by row) in a
    /// sibling inner loop into a carried scalar: the writes may read the old
    /// value or the scalar, the reads may come before the writes (they see
    /// the iteration before's), a second write and read may follow, and an
    /// `if` may wrap one inner loop.
    pub fn nested_write(&mut self, depth: i32) -> bool {
        let arrays = self.write_sources(2);
        if arrays.is_empty() {
            return false;
        }
        let vectors: Vec<V> = arrays
            .iter()
            .filter(|v| v.shape.len() == 1)
            .cloned()
            .collect();
        let from = if !vectors.is_empty() && self.rng.chance(0.6) {
            vectors
        } else {
            arrays
        };
        let src = self.rng.pick(&from).clone();
        let (name, mut bound) = self.written_array(&src, 0.4);
        let mut acc = self.accumulator(depth);
        let k = self.rng.between(1, 3);
        let counter = self.rng.chance(0.3).then(|| self.int_name());
        let outer = counter.clone().unwrap_or_else(|| "o".to_owned());
        let w = Written {
            name: name.clone(),
            src: src.clone(),
            acc: acc.code.clone(),
            outer,
            k,
            depth,
        };
        let order = self.rng.word(&[
            "write_read",
            "write_read",
            "read_write",
            "write_read_write_read",
        ]);
        let mut loops = Vec::new();
        let mut acc_bound = acc.bound;
        self.in_region(|p| {
            for step in order.split('_') {
                if step == "write" {
                    let (code, b) = p.write_loop(&w, bound);
                    bound = b;
                    loops.push(code);
                } else {
                    let (code, b) = p.read_loop(&w, bound);
                    acc_bound += k as f64 * b;
                    loops.push(code);
                }
            }
        });
        if self.rng.chance(0.25) {
            let at = self.rng.below(loops.len());
            let body = loops[at].replace('\n', "\n    ");
            let cond = self.condition();
            loops[at] = format!("if {cond} {{\n            {body}\n        }}");
            self.count("nested_write_if");
        }
        let head = match counter {
            None => format!("for o in 0..{k}"),
            Some(c) => {
                self.stmts.push(format!("let mut {c} = 0;"));
                loops.push(format!("{c} += 1;"));
                self.count("nested_write_while");
                format!("while {c} < {k}")
            }
        };
        self.stmts.push(format!(
            "{head} {{\n{}\n    }}",
            super::value::indent(&loops, "        ")
        ));
        self.count("nested_write");
        acc.bound = acc_bound;
        self.env
            .push(V::new(name, src.shape, bound).form(Form::Name));
        self.env.push(acc);
        true
    }

    /// The inner loop of `nested_write` that writes; the array's bound
    /// after it.
    fn write_loop(&mut self, w: &Written, bound: f64) -> (String, f64) {
        let (name, src, inner) = (&w.name, &w.src, (w.depth - 1).max(1));
        let shape = &src.shape;
        if shape.len() == 1 {
            let mut extra = vec![V::scalar_expr(format!("{}[j]", src.code), src.bound)];
            let n = shape[0];
            let mats: Vec<V> = self
                .env
                .iter()
                .filter(|v| v.form == Form::Ref && v.shape.len() == 2 && v.code.starts_with('p'))
                .filter(|v| v.shape[0] >= w.k && v.shape[1] >= n)
                .cloned()
                .collect();
            if !mats.is_empty() && self.rng.chance(0.5) {
                // A matrix parameter read at the outer index (`p1[[o, j]]`).
                let m = self.rng.pick(&mats).clone();
                extra.push(V::scalar_expr(
                    format!("{}[[{}, j]]", m.code, w.outer),
                    m.bound,
                ));
            }
            if self.rng.chance(0.3) {
                extra.push(V::scalar_expr(format!("{}.tanh()", w.acc), 1.0));
            }
            let mut e = self.scalar_of(inner, &extra);
            if !e.code.contains("[j]") {
                e = V::scalar_expr(
                    format!("{} + {}[j]", e.atom(), src.code),
                    e.bound + src.bound,
                );
            }
            let r = self.rng.float();
            let (stmt, nb) = if r < 0.5 {
                (format!("{name}[j] = {};", e.code), e.bound)
            } else if r < 0.8 {
                (
                    format!("{name}[j] = {name}[j] * 0.5 + {};", e.atom()),
                    bound + 2.0 * e.bound,
                )
            } else {
                (
                    format!("{name}[j] += {};", e.atom()),
                    bound + 2.0 * w.k as f64 * e.bound,
                )
            };
            self.count("nested_write_elems");
            return (
                format!("for j in 0..{name}.len() {{\n            {stmt}\n        }}"),
                nb,
            );
        }
        if self.rng.chance(0.4) {
            // Element by element, in a loop over the rows.
            let extra = [V::scalar_expr(format!("{}[[i, j]]", src.code), src.bound)];
            let mut e = self.scalar_of(inner, &extra);
            if !e.code.contains("[[i, j]]") {
                e = V::scalar_expr(
                    format!("{} + {}[[i, j]]", e.atom(), src.code),
                    e.bound + src.bound,
                );
            }
            let (stmt, nb) = if self.rng.chance(0.5) {
                (format!("{name}[[i, j]] = {};", e.code), e.bound)
            } else {
                (
                    format!("{name}[[i, j]] = {name}[[i, j]] * 0.5 + {};", e.atom()),
                    bound + 2.0 * e.bound,
                )
            };
            self.count("nested_write_elems");
            let code = format!(
                "for i in 0..{name}.nrows() {{\n            for j in 0..{name}.ncols() {{\n                {stmt}\n            }}\n        }}"
            );
            return (code, nb);
        }
        let lane = shape[1];
        let region_bugs = self.opts.region_bugs;
        let v = self.leaf(|v| v.shape == [lane] && (region_bugs || !v.borrowed));
        let v = match v {
            Some(v) if !self.rng.chance(0.4) => v,
            _ => lane_view(src, "row", lane),
        };
        let v = self.scaled_lane(v);
        let (stmt, nb) = if self.rng.chance(0.3) {
            // The new row first: `row_mut` borrows the array.
            let stmt = format!(
                "let row = &{name}.row(i) * 0.5 + {};\n            {name}.row_mut(i).assign(&row);",
                v.as_ref()
            );
            (stmt, bound + 2.0 * v.bound)
        } else {
            (
                format!("{name}.row_mut(i).assign({});", v.as_ref()),
                v.bound,
            )
        };
        self.count("nested_write_rows");
        (
            format!("for i in 0..{name}.nrows() {{\n            {stmt}\n        }}"),
            nb,
        )
    }

    /// The inner loop of `nested_write` that reads into the scalar; the
    /// bound of what one run of it adds.
    fn read_loop(&mut self, w: &Written, bound: f64) -> (String, f64) {
        let (name, shape, inner) = (&w.name, &w.src.shape, (w.depth - 1).max(1));
        let (mut e, head, count) = if shape.len() == 1 {
            let elem = V::scalar_expr(format!("{name}[j]"), bound);
            let mut e = self.scalar_of(inner, &[elem]);
            if !e.code.contains(&format!("{name}[j]")) {
                e = V::scalar_expr(format!("{name}[j] * {}", e.atom()), bound * e.bound);
            }
            (e, format!("for j in 0..{name}.len()"), shape[0])
        } else {
            let r = self.rng.float();
            let region_bugs = self.opts.region_bugs;
            let lane = shape[1];
            let q = self.leaf(|v| v.shape == [lane] && (region_bugs || !v.borrowed));
            let e = match q {
                Some(q) if r < 0.3 => V::scalar_expr(
                    format!("{name}.row(i).dot({})", q.as_ref()),
                    bound * q.bound * lane as f64,
                ),
                _ if r < 0.5 => V::scalar_expr(format!("{name}.row(i).sum()"), bound * lane as f64),
                _ if r < 0.7 => {
                    V::scalar_expr(format!("{name}[[i, {}]]", self.rng.below(lane)), bound)
                }
                _ => return self.read_elements(w, bound),
            };
            (e, format!("for i in 0..{name}.nrows()"), shape[0])
        };
        if e.bound > LIMIT {
            e = self.squash(&e);
        }
        let op = self.rng.word(&["+=", "-="]);
        let code = format!(
            "{head} {{\n            {} {op} {};\n        }}",
            w.acc,
            e.atom()
        );
        (code, count as f64 * e.bound)
    }

    /// A matrix of `nested_write` read element by element.
    fn read_elements(&mut self, w: &Written, bound: f64) -> (String, f64) {
        let name = &w.name;
        let elem = V::scalar_expr(format!("{name}[[i, j]]"), bound);
        let mut e = self.scalar_of((w.depth - 1).max(1), &[elem]);
        if !e.code.contains(&format!("{name}[[i, j]]")) {
            e = V::scalar_expr(format!("{name}[[i, j]] * {}", e.atom()), bound * e.bound);
        }
        if e.bound > LIMIT {
            e = self.squash(&e);
        }
        let op = self.rng.word(&["+=", "-="]);
        let code = format!(
            "for i in 0..{name}.nrows() {{\n            for j in 0..{name}.ncols() {{\n                {} {op} {};\n            }}\n        }}",
            w.acc,
            e.atom()
        );
        (code, size(&w.src.shape) as f64 * e.bound)
    }

    /// A loop over an iterator (rows, columns, labels, a constant `ws`)
    /// accumulating a scalar.
    pub fn iter_loop(&mut self, depth: i32) -> bool {
        let params = |n: usize| -> Vec<V> {
            self.env
                .iter()
                .filter(|v| v.form == Form::Ref && v.shape.len() == n && v.code.starts_with('p'))
                .cloned()
                .collect()
        };
        let (mats, vecs) = (params(2), params(1));
        let r = self.rng.float();
        let mut extra = Vec::new();
        let ty = self.ty;
        let labels = self.uses_labels;
        let fits: Vec<V> = mats
            .iter()
            .filter(|m| labels.is_none_or(|l| l == (m.shape[0], m.shape[1])))
            .cloned()
            .collect();
        let (head, kind) = if !fits.is_empty() && r < 0.15 {
            // The labels as indices: `x[[i, l]]` is the entry of the label.
            let m = self.rng.pick(&fits).clone();
            self.uses_labels = Some((m.shape[0], m.shape[1]));
            extra.push(V::scalar_expr(format!("{}[[i, l]]", m.code), m.bound));
            extra.push(lane_view(&m, "row", m.shape[1]));
            extra.push(V::scalar_expr(format!("(l as {ty})"), m.shape[1] as f64));
            (
                "for (i, &l) in labels.iter().enumerate()".to_owned(),
                "labels",
            )
        } else if !mats.is_empty() && r < 0.5 {
            let m = self.rng.pick(&mats).clone();
            let rows = V::new("r", vec![m.shape[1]], m.bound)
                .form(Form::Name)
                .view();
            if self.rng.chance(0.5) {
                extra.push(rows);
                (format!("for r in {}.rows()", m.code), "rows")
            } else if self.rng.chance(0.5) {
                extra.push(
                    V::new("r", vec![m.shape[0]], m.bound)
                        .form(Form::Name)
                        .view(),
                );
                (format!("for r in {}.columns()", m.code), "columns")
            } else {
                self.ensure_ws();
                extra.push(rows);
                extra.push(V::scalar_expr("c", 2.0));
                (
                    format!(
                        "for (r, &c) in {}.rows().into_iter().zip(ws.iter())",
                        m.code
                    ),
                    "zip",
                )
            }
        } else {
            self.ensure_ws();
            extra.push(V::scalar_expr("c", 2.0));
            let n = self.uses_ws.as_ref().map_or(0, Vec::len);
            for v in vecs.iter().filter(|v| v.shape[0] >= n) {
                extra.push(V::scalar_expr(format!("{}[i]", v.code), v.bound));
            }
            for m in mats.iter().filter(|m| m.shape[0] >= n) {
                let j = self.rng.below(m.shape[1]);
                extra.push(V::scalar_expr(format!("{}[[i, {j}]]", m.code), m.bound));
            }
            (
                "for (i, &c) in ws.iter().enumerate()".to_owned(),
                "enumerate",
            )
        };
        let mut acc = self.accumulator(depth);
        let mut e = self.in_region(|p| p.scalar_of((depth - 1).max(1), &extra));
        if extra.iter().any(|v| v.code == "r") && !mentions(&e.code, "r") {
            // The Python generator checked for the letter `r` anywhere in
            // the code; the word is what reads the row.
            e = V::scalar_expr(
                format!("{} + r.sum()", e.atom()),
                e.bound + 3.0 * extra[0].bound,
            );
        }
        let op = self.rng.word(&["+=", "-="]);
        self.stmts.push(format!(
            "{head} {{\n        {} {op} {};\n    }}",
            acc.code,
            e.atom()
        ));
        acc.bound += 3.0 * e.bound;
        self.env.push(acc);
        self.count(&format!("iter_{kind}"));
        true
    }

    /// A constant `ws: &[f64]` parameter of one to three values.
    pub fn ensure_ws(&mut self) {
        if self.uses_ws.is_none() {
            let n = self.rng.between(1, 3);
            let ws = (0..n)
                .map(|_| *self.rng.pick(&[0.5, -1.25, 2.0, 0.75, -0.5, 1.5]))
                .collect();
            self.uses_ws = Some(ws);
        }
    }
}

/// What the loops of one `nested_write` share.
struct Written {
    /// The written array, and the array it was made from.
    name: String,
    src: V,
    /// The carried scalar.
    acc: String,
    /// The outer loop's index or counter.
    outer: String,
    /// The outer loop's count.
    k: usize,
    depth: i32,
}

/// `src.row(i)` (or `.column(i)`): a view of a lane of `len` elements.
fn lane_view(src: &V, along: &str, len: usize) -> V {
    let shape: Shape = vec![len];
    V::new(format!("{}.{along}(i)", src.code), shape, src.bound)
        .form(Form::View)
        .view()
}
