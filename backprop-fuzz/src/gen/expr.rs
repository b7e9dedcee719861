//! Expressions: the choice among the families, arithmetic with broadcasting
//! operands, and the helpers that keep a value in a domain (`guard`) or
//! small (`squash`).

use super::program::Program;
use super::value::{broadcast, is_literal, literal, Form, LIMIT, V};
use super::vocab::Group;

impl Program<'_> {
    /// A random expression of any shape.
    pub fn expr(&mut self, depth: i32) -> V {
        if !self.plain.is_empty() && self.in_closure == 0 && self.rng.chance(0.1) {
            if let Some(v) = self.plain_read(depth) {
                return v;
            }
        }
        if depth <= 0 || self.rng.chance(0.25) {
            return self.any_leaf();
        }
        let choice = self.rng.float();
        if !self.callees.is_empty() && self.rng.chance(0.06) {
            if let Some(c) = self.call(depth) {
                return c;
            }
        }
        if self.in_closure == 0 && self.rng.chance(0.18) {
            return self.extended(depth);
        }
        if choice < 0.35 {
            self.binary(depth)
        } else if choice < 0.65 {
            self.unary(depth)
        } else if choice < 0.85 {
            self.reduce_or_structure(depth)
        } else {
            self.linalg(depth)
        }
    }

    /// `a op b` for two values of broadcast-compatible shapes, or a value
    /// and a literal on either side.
    pub fn binary(&mut self, depth: i32) -> V {
        let a = self.expr(depth - 1);
        if self.rng.chance(0.2) {
            return self.with_literal(a);
        }
        let mut b = None;
        for _ in 0..6 {
            let cand = if self.rng.chance(0.5) {
                self.expr(depth - 1)
            } else {
                self.any_leaf()
            };
            if broadcast(&a.shape, &cand.shape).is_some() {
                b = Some(cand);
                break;
            }
        }
        let b = b.or_else(|| {
            let shape = a.shape.clone();
            self.leaf(|v| broadcast(&shape, &v.shape).is_some())
        });
        let mut b = match b {
            Some(b) => b,
            None => V::scalar_expr(self.lit(), 3.0),
        };
        let shape = broadcast(&a.shape, &b.shape).expect("broadcast");
        let mut op = self.rng.word(&["+", "-", "*", "/", "*"]);
        if op == "*" && a.bound * b.bound > LIMIT {
            op = self.rng.word(&["+", "-"]);
        }
        let bound = match op {
            "/" => {
                let c = self.rng.word(&["1.0", "0.5", "2.0"]);
                b = self.guard(&b, c);
                a.bound / 0.5
            }
            "*" => a.bound * b.bound,
            _ => a.bound + b.bound,
        };
        let code = format!("{} {op} {}", self.operand(&a), self.operand(&b));
        V::new(code, shape, bound)
    }

    /// `a op c` or `c op a` for a literal `c`; `c / guarded(a)`.
    fn with_literal(&mut self, a: V) -> V {
        let op = self.rng.word(&["+", "-", "*", "/"]);
        let (c, cb) = self.lit_or_named(matches!(op, "+" | "-"));
        if op == "/" && self.rng.chance(0.5) {
            let den = self.guard(&a, "1.0");
            return V::new(format!("{c} / {}", den.atom()), a.shape, cb);
        }
        let lhs_lit = self.rng.chance(0.4) && op != "/";
        let x = self.operand(&a);
        let bound = match op {
            "+" | "-" => a.bound + cb,
            "*" => a.bound * cb,
            _ => a.bound / cb,
        };
        let code = if lhs_lit {
            format!("{c} {op} {x}")
        } else {
            format!("{x} {op} {c}")
        };
        V::new(code, a.shape, bound)
    }

    /// A value as an operand of `+ - * /`: a scalar as itself, an array by
    /// reference (an owned temporary now and then moved into the operator).
    pub fn operand(&mut self, v: &V) -> String {
        if v.scalar() {
            return v.atom();
        }
        if v.form == Form::Expr && self.rng.chance(0.3) {
            return v.atom();
        }
        v.as_ref()
    }

    /// `square(v) + c`, positive: for `ln`, `sqrt`, divisors, `recip`,
    /// `powf` and the logarithms.
    pub fn guard(&mut self, v: &V, c: &str) -> V {
        let cb = literal(c);
        if is_literal(&v.code) {
            // `(1.5).powi(2)` would not compile: the literal has no type yet.
            let x = literal(&v.code);
            return V::scalar_expr(format!("{0} * {0} + {c}", v.code), x * x + cb);
        }
        let bound = v.bound * v.bound + cb;
        if v.scalar() {
            let code = match self.rng.below(3) {
                0 => format!("{}.powi(2)", v.atom()),
                // Only for names: a compound expression would be computed twice.
                1 if v.form != Form::Expr => format!("{0} * {0}", v.atom()),
                _ => format!("square({})", v.code),
            };
            return V::scalar_expr(format!("{code} + {c}"), bound);
        }
        let code = if v.named() && self.rng.chance(0.4) {
            let r = v.as_ref();
            format!("{r} * {r} + {c}")
        } else {
            format!("square({}) + {c}", v.as_ref())
        };
        V::new(code, v.shape.clone(), bound)
    }

    /// A bounded function of a scalar `v` (a saturating one when `v` may
    /// be large: `sin` of a large value would be steep, not flat).
    pub fn squash(&mut self, v: &V) -> V {
        let f = self.squasher(v.bound);
        self.apply_fn(f, v, 1.0)
    }

    /// The same of an array, as a function call (`tanh(&t)`).
    pub fn squash_array(&mut self, v: &V) -> V {
        let f = self.squasher(v.bound);
        let code = match v.form {
            Form::View | Form::TView => format!("{f}(&{})", v.code),
            _ => format!("{f}({})", v.as_ref()),
        };
        V::new(code, v.shape.clone(), 1.0)
    }

    /// [`Self::squash`] or [`Self::squash_array`], by the shape.
    pub fn squash_any(&mut self, v: &V) -> V {
        if v.scalar() {
            self.squash(v)
        } else {
            self.squash_array(v)
        }
    }

    fn squasher(&mut self, bound: f64) -> &'static str {
        if bound <= 3.0 {
            self.rng.word(&["tanh", "sigmoid", "sin", "cos"])
        } else {
            self.rng.word(&["tanh", "sigmoid"])
        }
    }

    /// `f` of `v`, in one of the spellings the table gives it: the later
    /// float methods and the steps mostly `x.f()` and `f64::f(x)`; the
    /// common functions mostly `f(x)`, a scalar's now and then `x.f()` or
    /// `f64::f(x)`; now and then `backprop::ops::f(x)`.
    pub fn apply_fn(&mut self, f: &str, v: &V, bound: f64) -> V {
        let (group, method, function, float_path) = match self.vocab.func(f) {
            Some(func) => (func.group, func.method, func.function, func.float_path),
            None => (Group::Core, false, true, false),
        };
        let ty = self.ty;
        // A bare literal has no type yet: it is no receiver (`(0.5).exp()`).
        let literal = is_literal(&v.code);
        if group != Group::Core && !literal {
            let spelling = self.rng.float();
            if method && (spelling < 0.4 || !function) {
                return V::new(format!("{}.{f}()", v.recv()), v.shape.clone(), bound);
            }
            if v.scalar() && float_path && spelling < 0.6 {
                return V::scalar_expr(format!("{ty}::{f}({})", v.code), bound);
            }
        }
        if v.scalar() && method && !literal && group == Group::Core && self.rng.chance(0.5) {
            return V::scalar_expr(format!("{}.{f}()", v.recv()), bound);
        }
        if v.scalar() && float_path && group == Group::Core && self.rng.chance(0.1) {
            return V::scalar_expr(format!("{ty}::{f}({})", v.code), bound);
        }
        if self.rng.chance(0.05) {
            return V::new(
                format!("backprop::ops::{f}({})", v.arg()),
                v.shape.clone(),
                bound,
            );
        }
        V::new(format!("{f}({})", v.arg()), v.shape.clone(), bound)
    }
}
