//! Reductions and the functions of an array that give a smaller value:
//! `sum`, `mean`, `sum_axis`, `mean_axis`, `logsumexp`, rows, columns,
//! element reads, `softmax_cross_entropy`, `mse`; ndarray's own reductions
//! (`mean().unwrap()`, `mean_axis(..).unwrap()`, `var`, `std`, `var_axis`,
//! `std_axis`, `product`, `iter().sum::<f64>()`); and a scalar of any
//! value (`scalarize`).

use super::program::Program;
use super::value::{size, Form, LIMIT, V};

impl Program<'_> {
    /// A reduction, a row or column, an element, or a loss.
    pub fn reduce_or_structure(&mut self, depth: i32) -> V {
        let a = self.expr(depth - 1);
        if a.scalar() {
            return self.unary(depth);
        }
        let nd = a.shape.len();
        let mut ops = vec!["sum", "mean", "sum_m"];
        if nd == 2 {
            ops.extend([
                "sum_axis",
                "mean_axis",
                "sum_axis_m",
                "logsumexp",
                "row",
                "column",
                "index",
                "sce",
            ]);
        }
        if nd == 1 {
            ops.extend(["logsumexp", "index"]);
        }
        ops.push("mse");
        let op = self.rng.word(&ops);
        let n = size(&a.shape) as f64;
        let b = a.bound;
        match op {
            "sum" => V::scalar_expr(format!("sum({})", a.as_ref()), b * n),
            "sum_m" => V::scalar_expr(format!("{}.sum()", a.recv()), b * n),
            "mean" => V::scalar_expr(format!("mean({})", a.as_ref()), b),
            "sum_axis" | "mean_axis" | "sum_axis_m" => {
                let k = self.rng.below(2);
                let shape = vec![a.shape[1 - k]];
                let along = a.shape[k] as f64;
                match op {
                    "sum_axis_m" => V::new(
                        format!("{}.sum_axis(Axis({k}))", a.recv()),
                        shape,
                        b * along,
                    ),
                    "sum_axis" => V::new(
                        format!("sum_axis({}, Axis({k}))", a.as_ref()),
                        shape,
                        b * along,
                    ),
                    _ => V::new(format!("mean_axis({}, Axis({k}))", a.as_ref()), shape, b),
                }
            }
            "logsumexp" => {
                let shape = a.shape[..nd - 1].to_vec();
                let a = if b > LIMIT { self.squash(&a) } else { a };
                V::new(format!("logsumexp({})", a.as_ref()), shape, a.bound + 2.0)
            }
            "row" | "column" => self.lane(a, op),
            "index" => {
                if a.form == Form::Expr || (self.avoid_region_bugs() && !a.named()) {
                    return self.reduce_or_structure(depth);
                }
                if nd == 2 {
                    let (i, j) = (self.rng.below(a.shape[0]), self.rng.below(a.shape[1]));
                    return V::scalar_expr(format!("{}[[{i}, {j}]]", a.code), b);
                }
                V::scalar_expr(format!("{}[{}]", a.code, self.rng.below(a.shape[0])), b)
            }
            "sce" => {
                let rc = (a.shape[0], a.shape[1]);
                if self.uses_labels.is_some_and(|l| l != rc) {
                    return V::scalar_expr(format!("sum({})", a.as_ref()), b * n);
                }
                self.uses_labels = Some(rc);
                V::scalar_expr(
                    format!("softmax_cross_entropy({}, labels)", a.as_ref()),
                    b * 2.0 + 2.0,
                )
            }
            _ => self.mse(a),
        }
    }

    /// `a.row(k)` or `a.column(k)`: a view of a name, or reduced right away
    /// (a view of a temporary cannot outlive its statement).
    fn lane(&mut self, a: V, op: &str) -> V {
        let n = size(&a.shape) as f64;
        if self.avoid_region_bugs() {
            return V::scalar_expr(format!("sum({})", a.as_ref()), a.bound * n);
        }
        let k = self
            .rng
            .below(if op == "row" { a.shape[0] } else { a.shape[1] });
        if !a.named() {
            let f = self.rng.word(&["sum", "mean"]);
            return V::scalar_expr(format!("{f}(&{}.{op}({k}))", a.atom()), a.bound * 3.0);
        }
        let shape = if op == "row" {
            vec![a.shape[1]]
        } else {
            vec![a.shape[0]]
        };
        V::new(format!("{}.{op}({k})", a.recv()), shape, a.bound).form(Form::View)
    }

    /// `mse(a, b)` of two values of one shape.
    fn mse(&mut self, mut a: V) -> V {
        let shape = a.shape.clone();
        let mut b = self
            .leaf(|v| v.shape == shape)
            .unwrap_or_else(|| V::new(format!("{} * 0.5", a.as_ref()), a.shape.clone(), a.bound));
        if (a.bound + b.bound).powi(2) > LIMIT * 4.0 {
            a = self.squash(&a);
            b = self.squash(&b);
        }
        V::scalar_expr(
            format!("mse({}, {})", a.arg(), b.arg()),
            (a.bound + b.bound).powi(2),
        )
    }

    /// One of ndarray's reductions of an array expression.
    pub fn nd_reduction(&mut self, depth: i32) -> V {
        let Some(mut a) = self.array_operand(depth, |_| true) else {
            return self.unary(depth);
        };
        let nd = a.shape.len();
        let n = size(&a.shape);
        let mut ops = vec!["mean", "mean", "iter_sum"];
        if n >= 2 {
            ops.extend(["var", "std"]);
        }
        if n <= 4 {
            ops.extend(["product", "product"]);
        }
        if nd == 2 {
            ops.push("mean_axis");
            if a.shape.iter().max() >= Some(&2) {
                ops.extend(["var_axis", "std_axis"]);
            }
        }
        let op = self.rng.word(&ops);
        match op {
            "mean" => {
                let unwrap = self.rng.word(&["unwrap()", "expect(\"not empty\")"]);
                V::scalar_expr(format!("{}.mean().{unwrap}", a.recv()), a.bound)
            }
            "iter_sum" => V::scalar_expr(
                format!("{}.iter().sum::<{}>()", a.recv(), self.ty),
                a.bound * n as f64,
            ),
            "product" => {
                // At most four elements of magnitude at most 1.
                if a.bound > 1.0 {
                    a = self.squash_array(&a);
                }
                V::scalar_expr(format!("{}.product()", a.recv()), 1.0)
            }
            "mean_axis" => {
                let k = self.rng.below(2);
                V::new(
                    format!("{}.mean_axis(Axis({k})).unwrap()", a.recv()),
                    vec![a.shape[1 - k]],
                    a.bound,
                )
            }
            _ => self.spread_reduction(a, op),
        }
    }

    /// `var` and `std` (and their `_axis` forms) of `0.1 · x + spread` with
    /// `|x| ≤ 1` and a constant `spread` that increases by 0.5 along every
    /// axis: every lane has two or more elements that differ by 0.3 or
    /// more, far from zero variance (the kink of `std`).
    fn spread_reduction(&mut self, mut a: V, op: &str) -> V {
        if a.bound > 1.0 {
            a = self.squash_array(&a);
        }
        let c = self.const_array(&a.shape, true);
        // `(&(x * 0.1) + &c)`, borrowed: written `(x * 0.1 + &c)`, ndarray
        // adds into the buffer of `x * 0.1`, keeping its layout (a product's
        // or a transpose's may be column-major), and `var` and `std` add in
        // memory order, while the macro's forward pass lays the sum out in
        // standard order: its value differs from the original's in the last
        // bit (an open bug, `Options::owned_lhs`; see the README's "Limits"
        // and tests/fuzz_regressions.rs).
        let x = self.operand(&a);
        let spread = if self.opts.owned_lhs {
            format!("({x} * 0.1 + &{})", c.code)
        } else {
            format!("(&({x} * 0.1) + &{})", c.code)
        };
        let ddof = self.rng.word(&["0.0", "1.0"]);
        let var = (c.bound + 0.1).powi(2);
        let bound = if op.starts_with("var") {
            var
        } else {
            var.sqrt()
        };
        if op == "var" || op == "std" {
            return V::scalar_expr(format!("{spread}.{op}({ddof})"), bound);
        }
        let axes: Vec<usize> = (0..2).filter(|&i| a.shape[i] >= 2).collect();
        let k = *self.rng.pick(&axes);
        V::new(
            format!("{spread}.{op}(Axis({k}), {ddof})"),
            vec![a.shape[1 - k]],
            bound,
        )
    }

    /// A scalar of `v` (its code and bound): itself, or a sum, a mean, a dot
    /// with itself, a `logsumexp`, an element.
    pub fn scalarize(&mut self, v: &V) -> (String, f64) {
        if v.scalar() {
            return (v.atom(), v.bound);
        }
        let nd = v.shape.len();
        let n = size(&v.shape) as f64;
        let b = v.bound;
        let mut opts = if self.rng.chance(0.3) {
            vec![
                (format!("{}.mean().unwrap()", v.recv()), b),
                (format!("{}.iter().sum::<{}>()", v.recv(), self.ty), b * n),
            ]
        } else {
            vec![
                (format!("sum({})", v.as_ref()), b * n),
                (format!("mean({})", v.as_ref()), b),
                (format!("{}.sum()", v.recv()), b * n),
            ]
        };
        if nd == 1 {
            opts.push((format!("{}.dot({})", v.recv(), v.as_ref()), b * b * n));
            opts.push((format!("logsumexp({})", v.as_ref()), b + 2.0));
        }
        if v.named() && nd == 2 {
            let (i, j) = (self.rng.below(v.shape[0]), self.rng.below(v.shape[1]));
            opts.push((format!("{}[[{i}, {j}]]", v.code), b));
        }
        self.rng.pick(&opts).clone()
    }
}
