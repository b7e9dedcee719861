//! Constants made in the body, as Rust: shape queries of parameters
//! (`let (n1, m1) = p0.dim();`, `nrows`/`ncols`, `len`) as lengths,
//! integer arithmetic on them as indices (`let n1 = p0.len() - 1;`,
//! `p0[n1]`), and constant arrays (`zeros`, `ones`, `from_elem`, `eye`,
//! `linspace`, `from_shape_vec`, `array![..]`) mixed into differentiable
//! arithmetic. Also the choice among the newer spellings.

use super::program::{Program, Style};
use super::value::{broadcast, literal, size, Form, LIMIT, V};

impl Program<'_> {
    /// One of the newer spellings: a closure mapped over elements, one of
    /// ndarray's reductions, a view or gather, or a constant made in the
    /// body.
    pub fn extended(&mut self, depth: i32) -> V {
        let r = self.rng.float();
        if r < 0.4 {
            self.closure(depth)
        } else if r < 0.62 {
            self.nd_reduction(depth)
        } else if r < 0.88 {
            self.nd_view(depth)
        } else {
            self.constant_mix(depth)
        }
    }

    /// An array expression (or an array operand) for which `pred` holds.
    pub fn array_operand(&mut self, depth: i32, pred: impl Fn(&V) -> bool) -> Option<V> {
        for _ in 0..3 {
            let a = self.expr(depth - 1);
            if !a.scalar() && pred(&a) {
                return Some(a);
            }
        }
        self.leaf(|v| !v.scalar() && pred(v))
    }

    /// A float literal typed as the program's float (for `array![..]` and
    /// `from_elem`, whose element type Rust infers).
    pub fn float_lit(&self, x: &str) -> String {
        format!("{x}_{}", self.ty)
    }

    /// The length `d` as code: a literal, or now and then a shape query of
    /// a parameter with that length (`let (n1, m1) = p0.dim();`).
    pub fn dim(&mut self, d: usize) -> String {
        let cands: Vec<(usize, usize)> = self
            .params
            .iter()
            .enumerate()
            .filter(|(_, p)| !matches!(p.style, Style::Plain(_)))
            .flat_map(|(i, p)| {
                p.shape
                    .iter()
                    .enumerate()
                    .filter(|&(_, &dd)| dd == d)
                    .map(move |(k, _)| (i, k))
            })
            .collect();
        if cands.is_empty() || self.rng.chance(0.35) {
            return d.to_string();
        }
        let (i, k) = *self.rng.pick(&cands);
        let pname = self.params[i].name.clone();
        if !self.dim_names.contains_key(&pname) {
            self.int_counter += 1;
            let c = self.int_counter;
            let names = if self.params[i].shape.len() == 2 {
                let (n, m) = (format!("n{c}"), format!("m{c}"));
                if self.rng.chance(0.7) {
                    self.stmts.push(format!("let ({n}, {m}) = {pname}.dim();"));
                } else {
                    self.stmts.push(format!("let {n} = {pname}.nrows();"));
                    self.stmts.push(format!("let {m} = {pname}.ncols();"));
                }
                vec![n, m]
            } else {
                let n = format!("n{c}");
                self.stmts.push(format!("let {n} = {pname}.len();"));
                vec![n]
            };
            self.dim_names.insert(pname.clone(), names);
        }
        self.dim_names[&pname][k].clone()
    }

    /// A shape as the argument of `zeros` (`n1` or `(n1, 2)`).
    fn shape_code(&mut self, shape: &[usize]) -> String {
        if shape.len() == 1 {
            return self.dim(shape[0]);
        }
        let (a, b) = (self.dim(shape[0]), self.dim(shape[1]));
        format!("({a}, {b})")
    }

    /// `let tK = <constant array>;` made in the body, as an operand.
    /// `spread`: its values increase by at least 0.5 along every axis.
    pub fn const_array(&mut self, shape: &[usize], spread: bool) -> V {
        let ty = self.ty;
        let nd = shape.len();
        let n = size(shape);
        let (kind, vals, mut bound) = if spread {
            let kinds: &[&str] = if nd == 1 {
                &["array", "vec", "linspace"]
            } else {
                &["array", "vec"]
            };
            let vals: Vec<f64> = (0..n).map(|k| 0.5 * k as f64).collect();
            (self.rng.word(kinds), vals, 0.5 * n as f64)
        } else {
            let mut kinds = vec!["zeros", "ones", "from_elem", "array", "array"];
            if nd == 2 && shape[0] == shape[1] {
                kinds.extend(["eye", "eye"]);
            }
            if nd == 1 {
                kinds.push("linspace");
            }
            let kind = self.rng.word(&kinds);
            let vals = (0..n)
                .map(|_| *self.rng.pick(&[0.5, -1.0, 1.5, 0.25, -0.75, 2.0]))
                .collect();
            (kind, vals, 2.0)
        };
        let array = if nd == 1 { "Array1" } else { "Array2" };
        let code = match kind {
            "linspace" => {
                let (lo, hi): (f64, f64) = if spread {
                    (0.0, 0.5 * (n as f64 - 1.0))
                } else {
                    (-1.0, 1.0)
                };
                bound = f64::max(lo.abs(), hi.abs());
                let len = self.dim(shape[0]);
                format!("Array1::<{ty}>::linspace({lo:?}, {hi:?}, {len})")
            }
            "zeros" | "ones" => {
                bound = 1.0;
                format!("{array}::<{ty}>::{kind}({})", self.shape_code(shape))
            }
            "eye" => {
                bound = 1.0;
                format!("Array2::<{ty}>::eye({})", self.dim(shape[0]))
            }
            "from_elem" => {
                let c = self.rng.word(&["0.5", "-1.5", "2.0"]);
                bound = literal(c).abs();
                let sh = self.shape_code(shape);
                format!("Array::from_elem({sh}, {})", self.float_lit(c))
            }
            "vec" => {
                let vals: Vec<String> = vals.iter().map(|x| format!("{x:?}")).collect();
                let sh = self.shape_code(shape);
                format!(
                    "{array}::<{ty}>::from_shape_vec({sh}, vec![{}]).unwrap()",
                    vals.join(", ")
                )
            }
            _ => {
                let mut lits: Vec<String> = vals.iter().map(|x| format!("{x:?}")).collect();
                lits[0] = self.float_lit(&lits[0]);
                if nd == 1 {
                    format!("array![{}]", lits.join(", "))
                } else {
                    let rows: Vec<String> = lits
                        .chunks(shape[1])
                        .map(|row| format!("[{}]", row.join(", ")))
                        .collect();
                    format!("array![{}]", rows.join(", "))
                }
            }
        };
        let name = self.fresh();
        self.stmts.push(format!("let {name} = {code};"));
        self.unknown_ty.insert(name.clone());
        V::new(name, shape.to_vec(), bound).form(Form::Name)
    }

    /// Constants made in the body and mixed into differentiable arithmetic:
    /// an index computed from a shape query (`p0[n1]`), or a constant array.
    fn constant_mix(&mut self, depth: i32) -> V {
        let idx: Vec<usize> = (0..self.params.len())
            .filter(|&i| {
                let p = &self.params[i];
                !p.shape.is_empty()
                    && size(&p.shape) >= 2
                    && !matches!(p.style, Style::View | Style::Plain(_))
            })
            .collect();
        if !idx.is_empty() && self.rng.chance(0.35) {
            let p = self.params[*self.rng.pick(&idx)].clone();
            self.int_counter += 1;
            let c = self.int_counter;
            if p.shape.len() == 1 {
                self.stmts.push(format!("let n{c} = {}.len() - 1;", p.name));
                return V::scalar_expr(format!("{}[n{c}]", p.name), 1.0);
            }
            self.stmts
                .push(format!("let (n{c}, m{c}) = {}.dim();", p.name));
            let i = self
                .rng
                .pick(&[format!("n{c} - 1"), "0".to_owned()])
                .clone();
            let j = self
                .rng
                .pick(&[format!("m{c} - 1"), format!("m{c} / 2")])
                .clone();
            return V::scalar_expr(format!("{}[[{i}, {j}]]", p.name), 1.0);
        }
        let Some(a) = self.array_operand(depth, |_| true) else {
            return self.unary(depth);
        };
        let mut shapes = vec![a.shape.clone()];
        if a.shape.len() == 2 {
            shapes.extend([vec![a.shape[1]], vec![1, a.shape[1]], vec![a.shape[0], 1]]);
        }
        let shape = self.rng.pick(&shapes).clone();
        let c = self.const_array(&shape, false);
        let mut op = self.rng.word(&["+", "-", "*"]);
        if op == "*" && a.bound * c.bound > LIMIT {
            op = "+";
        }
        let bound = if op == "*" {
            a.bound * c.bound
        } else {
            a.bound + c.bound
        };
        let out = broadcast(&a.shape, &c.shape).expect("a constant of a broadcast shape");
        let x = self.operand(&a);
        let code = if self.rng.chance(0.5) {
            format!("{x} {op} {}", c.as_ref())
        } else {
            format!("{} {op} {x}", c.as_ref())
        };
        V::new(code, out, bound)
    }
}
