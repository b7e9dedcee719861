//! Closures mapped over elements, in the spellings of ndarray and of
//! iterators: `a.mapv(|v| ..)`, `a.map(|&v| ..)`, `a.mapv_into(..)` of a
//! temporary, `a.mapv(f64::tanh)` and other paths, `Zip::from(&a).and(&b)
//! .map_collect(|&x, &y| ..)`, `a.iter().map(|x| ..).sum::<f64>()` and
//! `a.iter().zip(b.iter()).map(|(x, y)| ..).sum::<f64>()`. A body is a
//! scalar expression over the elements, built like any other (with the same
//! guards), sometimes an `if`/`else` on a comparison of an element; it
//! captures float constants (`let c1 = 0.5;`) and differentiable scalars of
//! the program. The elements are squashed to magnitude 3 at most first.

use super::program::{Out, Program};
use super::value::{is_ident, is_literal, literal, size, Form, Shape, EXP_LIMIT, LIMIT, V};

impl Program<'_> {
    /// A closure mapped over the elements of an array expression.
    pub fn closure(&mut self, depth: i32) -> V {
        let Some(mut a) = self.array_operand(depth, |_| true) else {
            return self.unary(depth);
        };
        if a.bound > 3.0 {
            a = self.squash_array(&a);
        }
        let mut kinds = vec![
            "mapv",
            "mapv",
            "map",
            "mapv_into",
            "path",
            "zip",
            "iter_sum",
        ];
        if a.shape.len() == 1 {
            kinds.extend(["iter_zip", "iter_zip"]);
        }
        let kind = self.rng.word(&kinds);
        match kind {
            "path" => self.closure_path(a),
            "zip" | "iter_zip" => match self.zip_partner(&a, depth, kind == "zip") {
                Some(b) if kind == "zip" => self.zip_closure(a, b, depth),
                Some(b) => self.iter_zip_closure(a, b, depth),
                None => self.map_closure(a, "mapv", depth),
            },
            _ => self.map_closure(a, kind, depth),
        }
    }

    /// `a.mapv(f)` for a path `f`: a float method, an op, or a scalar
    /// differentiable function of the program.
    fn closure_path(&mut self, mut a: V) -> V {
        let ty = self.ty;
        let mut fs: Vec<String> = ["tanh", "sin", "cos"]
            .iter()
            .map(|f| format!("{ty}::{f}"))
            .collect();
        fs.extend(["sigmoid", "relu", "softplus"].map(String::from));
        if a.bound <= EXP_LIMIT {
            fs.push(format!("{ty}::exp"));
        }
        let start = self.callees.len().saturating_sub(40);
        let scalar_fns = self.callees[start..]
            .iter()
            .filter(|c| c.params.len() == 1 && c.params[0].shape.is_empty())
            .filter(|c| matches!(&c.out, Out::Value(s) if s.is_empty()));
        fs.extend(scalar_fns.take(2).map(|c| c.name.clone()));
        let f = self.rng.pick(&fs).clone();
        let mut bound = match f.as_str() {
            "relu" => a.bound,
            "softplus" => a.bound + 1.0,
            _ if f.ends_with("exp") => a.bound.exp(),
            _ => 1.0,
        };
        if let Some(callee) = self.callees.iter().find(|c| c.name == f) {
            // The callee was generated for arguments in [-1, 1].
            bound = callee.out_bound;
            if a.bound > 1.0 {
                a = self.squash_array(&a);
            }
        }
        let v = V::new(format!("{}.mapv({f})", a.recv()), a.shape, bound);
        if bound > LIMIT * 2.0 {
            return self.squash_array(&v);
        }
        v
    }

    /// The second array of a zip: of `a`'s shape (`Zip`), or any vector
    /// (`iter().zip`), squashed to magnitude 3.
    fn zip_partner(&mut self, a: &V, depth: i32, same_shape: bool) -> Option<V> {
        let shape = a.shape.clone();
        let fits = move |v: &V| {
            if same_shape {
                v.shape == shape
            } else {
                v.shape.len() == 1
            }
        };
        let mut b = self.leaf(|v| !v.scalar() && fits(v));
        if b.is_none() || self.rng.chance(0.3) {
            b = self.array_operand(depth, fits.clone()).or(b);
        }
        let b = b?;
        Some(if b.bound > 3.0 {
            self.squash_array(&b)
        } else {
            b
        })
    }

    /// `Zip::from(&a).and(&b).map_collect(|&x, &y| ..)`.
    fn zip_closure(&mut self, a: V, b: V, depth: i32) -> V {
        let (na, nb) = self.elem_pair();
        let body = self.closure_body(
            &[V::scalar_expr(na, a.bound), V::scalar_expr(nb, b.bound)],
            depth,
        );
        let code = format!(
            "Zip::from({}).and({}).map_collect(|&{na}, &{nb}| {})",
            a.as_ref(),
            b.as_ref(),
            body.code
        );
        V::new(code, a.shape, body.bound)
    }

    /// `a.iter().zip(b.iter()).map(|(x, y)| ..).sum::<f64>()` of vectors.
    fn iter_zip_closure(&mut self, a: V, b: V, depth: i32) -> V {
        let (na, nb) = self.elem_pair();
        let m = a.shape[0].min(b.shape[0]) as f64;
        let (pat, ea, eb) = if self.rng.chance(0.5) {
            (format!("(&{na}, &{nb})"), na.to_owned(), nb.to_owned())
        } else {
            // `x` is a `&f64`: `*x` in the body.
            (format!("({na}, {nb})"), format!("*{na}"), format!("*{nb}"))
        };
        let body = self.closure_body(
            &[V::scalar_expr(ea, a.bound), V::scalar_expr(eb, b.bound)],
            depth,
        );
        let other = if self.rng.chance(0.7) {
            format!("{}.iter()", b.recv())
        } else {
            b.as_ref()
        };
        let code = format!(
            "{}.iter().zip({other}).map(|{pat}| {}).sum::<{}>()",
            a.recv(),
            body.code,
            self.ty
        );
        V::scalar_expr(code, body.bound * m)
    }

    /// `mapv`, `map`, `mapv_into` and `iter().map(..).sum()` of one array.
    fn map_closure(&mut self, a: V, kind: &str, depth: i32) -> V {
        let name = self.rng.word(&["v", "u", "e", "z"]);
        let ty = self.ty;
        if kind == "iter_sum" {
            let (pat, e) = if self.rng.chance(0.5) {
                (format!("&{name}"), name.to_owned())
            } else {
                (name.to_owned(), format!("*{name}"))
            };
            let body = self.closure_body(&[V::scalar_expr(e, a.bound)], depth);
            let n = size(&a.shape) as f64;
            let code = format!(
                "{}.iter().map(|{pat}| {}).sum::<{ty}>()",
                a.recv(),
                body.code
            );
            return V::scalar_expr(code, body.bound * n);
        }
        let body = self.closure_body(&[V::scalar_expr(name, a.bound)], depth);
        let shape: Shape = a.shape.clone();
        let code = match kind {
            "map" => format!("{}.map(|&{name}| {})", a.recv(), body.code),
            "mapv_into" => {
                // On a temporary (it consumes its array).
                let recv = if Self::owned_array(&a) && a.form == Form::Expr {
                    a.atom()
                } else {
                    format!("{}.to_owned()", a.recv())
                };
                format!("{recv}.mapv_into(|{name}| {})", body.code)
            }
            _ => {
                let pat = if self.rng.chance(0.8) {
                    name.to_owned()
                } else {
                    format!("{name}: {ty}")
                };
                format!("{}.mapv(|{pat}| {})", a.recv(), body.code)
            }
        };
        V::new(code, shape, body.bound)
    }

    fn elem_pair(&mut self) -> (&'static str, &'static str) {
        *self.rng.pick(&[("a", "b"), ("u", "v"), ("l", "r")])
    }

    /// A scalar expression over the closure's elements `elems` and the
    /// differentiable scalars of the program it may capture (plain names),
    /// or float constants bound before it (`let c1 = 0.5;`).
    pub fn closure_body(&mut self, elems: &[V], depth: i32) -> V {
        let mut caps: Vec<V> = self
            .env
            .iter()
            .filter(|v| v.scalar() && is_ident(&v.code) && !self.unknown_ty.contains(&v.code))
            .cloned()
            .collect();
        caps.drain(..caps.len().saturating_sub(3));
        if self.rng.chance(0.3) {
            self.int_counter += 1;
            let c = format!("c{}", self.int_counter);
            let (val, bound) = self.lit_or_named(false);
            // Typed: a float literal used only as a receiver (`c1.cos()`)
            // would have no type in Rust.
            let stmt = if self.rng.chance(0.5) || !is_literal(&val) {
                format!("let {c}: {} = {val};", self.ty)
            } else {
                format!("let {c} = {};", self.float_lit(&val))
            };
            self.stmts.push(stmt);
            caps.push(V::scalar_expr(c, bound));
        }
        let env: Vec<V> = caps.iter().chain(elems).cloned().collect();
        let saved_env = std::mem::replace(&mut self.env, env);
        // Scalar functions of the program only: the body is a scalar function.
        let scalar_callees: Vec<_> = self
            .callees
            .iter()
            .filter(|c| c.params.iter().all(|p| p.shape.is_empty()))
            .cloned()
            .collect();
        let saved_callees = std::mem::replace(&mut self.callees, scalar_callees);
        self.in_closure += 1;
        let body = if self.rng.chance(0.2) {
            self.closure_if(elems, caps.last(), depth)
        } else {
            let mut body = self.expr(depth);
            if is_literal(&body.code) {
                let code = format!("{} * {}", elems[0].atom(), body.code);
                body = V::scalar_expr(code, elems[0].bound * literal(&body.code));
            }
            if body.bound > LIMIT * 2.0 {
                body = self.squash(&body);
            }
            body
        };
        self.in_closure -= 1;
        self.env = saved_env;
        self.callees = saved_callees;
        body
    }

    /// `if x < c { a } else { b }` on a comparison of an element (or of a
    /// capture), as a closure's body.
    fn closure_if(&mut self, elems: &[V], cap: Option<&V>, depth: i32) -> V {
        let xs: Vec<V> = elems.iter().chain(cap).cloned().collect();
        let x = self.rng.pick(&xs).clone();
        let thr = self.rng.word(&["0.0371", "0.4629", "-0.5183"]);
        let mut a = self.expr(depth);
        let mut b = self.expr(depth);
        if a.bound > LIMIT * 2.0 {
            a = self.squash(&a);
        }
        if b.bound > LIMIT * 2.0 {
            b = self.squash(&b);
        }
        let cmp = self.rng.word(&["<", ">", "<=", ">="]);
        let code = format!(
            "{{\n        if {} {cmp} {thr} {{\n            {}\n        }} else {{\n            {}\n        }}\n    }}",
            x.atom(),
            a.code,
            b.code
        );
        V::scalar_expr(code, a.bound.max(b.bound))
    }
}
