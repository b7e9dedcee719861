//! Functions of one value: the elementwise functions of the table (each
//! with its guard, see `vocab.rs`), `powi`, unary `-`, `clamp`, the binary
//! float methods of scalars (`powf max min hypot log atan2 mul_add`) and
//! the row-wise `softmax` and `log_softmax`.

use super::program::Program;
use super::value::{is_literal, literal, Shape, EXP_LIMIT, LIMIT, V};
use super::vocab::{Group, Grows, Guard};

/// One choice of [`Program::unary`].
#[derive(Clone, Copy, Debug)]
enum Unary {
    /// A common function of the table, by name.
    Core(&'static str),
    /// One of the later float methods (together one choice).
    Method,
    /// One of the piecewise constant methods (together one choice).
    Step,
    Powi,
    Neg,
    Clamp,
    HypotLog,
    Powf,
    MaxMin(&'static str),
    Atan2MulAdd,
    Softmax,
    LogSoftmax,
}

impl Program<'_> {
    /// A function of one value.
    pub fn unary(&mut self, depth: i32) -> V {
        let a = self.expr(depth - 1);
        let vocab = self.vocab;
        let has = |name: &str| vocab.has(name);
        let mut fs: Vec<Unary> = vocab
            .group(Group::Core)
            .iter()
            .map(|f| Unary::Core(f.name))
            .collect();
        fs.extend([Unary::Method, Unary::Step, Unary::Neg]);
        let specials = [
            (has("powi"), Unary::Powi),
            (has("clamp"), Unary::Clamp),
            (has("hypot") || has("log"), Unary::HypotLog),
        ];
        fs.extend(specials.iter().filter(|s| s.0).map(|s| s.1));
        if a.scalar() {
            let scalars = [
                (has("powf"), Unary::Powf),
                (has("max"), Unary::MaxMin("max")),
                (has("min"), Unary::MaxMin("min")),
                (has("atan2") || has("mul_add"), Unary::Atan2MulAdd),
            ];
            fs.extend(scalars.iter().filter(|s| s.0).map(|s| s.1));
        }
        if matches!(a.shape.len(), 1 | 2) {
            fs.extend([Unary::Softmax, Unary::LogSoftmax, Unary::Softmax]);
        }
        match *self.rng.pick(&fs) {
            Unary::Core(f) => self.guarded(f, a),
            Unary::Method => self.of_group(Group::Method, a),
            Unary::Step => self.of_group(Group::Step, a),
            Unary::Powi => self.powi(a),
            Unary::Neg => {
                let code = format!(
                    "-{}",
                    if a.scalar() {
                        a.atom()
                    } else {
                        self.operand(&a)
                    }
                );
                V::new(code, a.shape, a.bound)
            }
            Unary::Clamp => self.clamp(a),
            Unary::HypotLog => self.hypot_or_log(a),
            Unary::Powf => self.powf(a),
            Unary::MaxMin(f) => {
                let b = self.leaf(|v| v.scalar() && v.code != a.code);
                let b = b.unwrap_or_else(|| V::scalar_expr(self.lit(), 3.0));
                V::scalar_expr(
                    format!("{}.{f}({})", a.recv(), b.code),
                    a.bound.max(b.bound),
                )
            }
            Unary::Atan2MulAdd => self.atan2_or_mul_add(a),
            Unary::Softmax => V::new(format!("softmax({})", a.as_ref()), a.shape.clone(), 1.0),
            Unary::LogSoftmax => {
                let mut a = a;
                let mut bound = 2.0 * a.bound + 2.0;
                if bound > LIMIT {
                    a = self.squash(&a);
                    bound = 4.0;
                }
                V::new(format!("log_softmax({})", a.as_ref()), a.shape, bound)
            }
        }
    }

    /// One function of a group of the table, of `a`.
    fn of_group(&mut self, group: Group, a: V) -> V {
        let names: Vec<&'static str> = self.vocab.group(group).iter().map(|f| f.name).collect();
        let names = if names.is_empty() {
            vec!["tanh"]
        } else {
            names
        };
        let f = self.rng.word(&names);
        self.guarded(f, a)
    }

    /// The function `f` of the table of `a`, its operand kept in its domain
    /// and away from its poles as its guard says.
    pub fn guarded(&mut self, f: &'static str, a: V) -> V {
        let guard = self
            .vocab
            .func(f)
            .map_or(Guard::Constant(1.0), |func| func.guard);
        let b = a.bound;
        match guard {
            Guard::Same => self.apply_fn(f, &a, b),
            Guard::Constant(c) => self.apply_fn(f, &a, c),
            Guard::AtMost(c) => self.apply_fn(f, &a, b.min(c)),
            Guard::Plus(c) => self.apply_fn(f, &a, b + c),
            Guard::Scale(c) => self.apply_fn(f, &a, b * c),
            Guard::Exponential => {
                let a = if b > EXP_LIMIT { self.squash(&a) } else { a };
                let bound = a.bound.exp();
                self.apply_fn(f, &a, bound)
            }
            Guard::Square => {
                let a = if b * b > LIMIT { self.squash(&a) } else { a };
                let bound = a.bound * a.bound;
                self.apply_fn(f, &a, bound)
            }
            Guard::Positive(cs, grows) => {
                let c = self.rng.word(cs);
                let g = self.guard(&a, c);
                let bound = match grows {
                    Grows::Log(c) => g.bound.max(c),
                    Grows::Sqrt => g.bound.sqrt() + 1.0,
                    Grows::Recip => 1.0,
                };
                self.apply_fn(f, &g, bound)
            }
            Guard::Unit => {
                let t = self.apply_fn("tanh", &a, 1.0);
                let inner = V::new(
                    format!("{} * 0.75", self.operand(&t)),
                    t.shape.clone(),
                    0.75,
                );
                self.apply_fn(f, &inner, 3.2)
            }
            Guard::Tan => {
                let s = self.apply_fn("tanh", &a, 1.0);
                self.apply_fn(f, &s, 1.6)
            }
            Guard::Step { grows } => {
                let shifted = if a.scalar() {
                    a.atom()
                } else {
                    self.operand(&a)
                };
                let shifted = V::new(format!("{shifted} + 0.0371"), a.shape.clone(), b + 0.0371);
                let bound = if grows { b + 1.0 } else { 1.0 };
                self.apply_fn(f, &shifted, bound)
            }
            Guard::Degrees => {
                let d = self.apply_fn(f, &a, b * 57.3);
                V::new(format!("{} * 0.01", self.operand(&d)), a.shape, b * 0.58)
            }
        }
    }

    /// `x.powi(n)` or `powi(x, n)` for an `i32` literal `n`.
    fn powi(&mut self, a: V) -> V {
        let n = *self.rng.pick(&[1, 2, 3, 2]);
        let a = if a.bound.powi(n) > LIMIT {
            self.squash(&a)
        } else {
            a
        };
        let bound = a.bound.max(a.bound.powi(n));
        if a.scalar() && self.rng.chance(0.6) {
            return V::scalar_expr(format!("{}.powi({n})", a.recv()), bound);
        }
        V::new(format!("powi({}, {n})", a.arg()), a.shape, bound)
    }

    /// `clamp` with literal bounds, in its three spellings.
    fn clamp(&mut self, a: V) -> V {
        let lo = self.rng.word(&["-0.5", "-1.0", "-2.0"]);
        let hi = self.rng.word(&["0.5", "1.0", "3.0"]);
        let bound = (-literal(lo)).max(literal(hi));
        if is_literal(&a.code) || self.rng.chance(0.3) {
            return V::new(format!("clamp({}, {lo}, {hi})", a.arg()), a.shape, bound);
        }
        if a.scalar() && self.rng.chance(0.3) {
            return V::scalar_expr(format!("{}::clamp({}, {lo}, {hi})", self.ty, a.code), bound);
        }
        V::new(format!("{}.clamp({lo}, {hi})", a.recv()), a.shape, bound)
    }

    /// `base.powf(e)`: the base `square(a) + 0.5`, the exponent a literal or
    /// a bounded function of a scalar.
    fn powf(&mut self, a: V) -> V {
        let mut base = self.guard(&a, "0.5");
        if base.bound > LIMIT {
            let s = self.squash(&a);
            base = V::scalar_expr(format!("1.5 + {}", s.atom()), 2.5);
        }
        let e = self.leaf(|v| v.scalar());
        let ex = match e {
            Some(e) if !self.rng.chance(0.3) => {
                let f = self.rng.word(&["sin", "tanh", "cos"]);
                self.apply_fn(f, &e, 1.0)
            }
            _ => V::scalar_expr(self.rng.word(&["0.5", "1.5", "0.25", "2.0"]), 2.0),
        };
        let bound = (base.bound * base.bound).max(1.0);
        V::scalar_expr(format!("{}.powf({})", base.atom(), ex.code), bound)
    }

    /// A scalar operand of the program, or one of the literals `lits`.
    fn scalar_operand(&mut self, lits: &[&'static str]) -> V {
        let b = self.leaf(|v| v.scalar());
        match b {
            Some(b) if !self.rng.chance(0.3) => b,
            _ => V::scalar_expr(self.rng.word(lits), 2.0),
        }
    }

    /// `a.hypot(b)` or `a.log(b)` for a scalar `b` (arrays have both with a
    /// scalar argument): `b` away from 0 for `hypot` (its kink is at the
    /// origin), a base of at least 1.5 (or a literal) for `log`, whose
    /// argument is positive.
    fn hypot_or_log(&mut self, a: V) -> V {
        let ty = self.ty;
        let hypot = self.vocab.has("hypot") && (!self.vocab.has("log") || self.rng.chance(0.5));
        if hypot {
            let s = self.scalar_operand(&["0.5", "-1.5"]);
            let b = self.guard(&s, "0.5");
            let a = if a.bound > LIMIT { self.squash(&a) } else { a };
            let bound = a.bound + b.bound;
            if a.scalar() && self.rng.chance(0.3) {
                return V::scalar_expr(format!("{ty}::hypot({}, {})", a.code, b.code), bound);
            }
            return V::new(format!("{}.hypot({})", a.recv(), b.code), a.shape, bound);
        }
        let c = self.rng.word(&["0.5", "1.0"]);
        let g = self.guard(&a, c);
        let base = if self.rng.chance(0.4) {
            V::scalar_expr(self.rng.word(&["2.0", "10.0", "0.5"]), 1.0)
        } else {
            let s = self.scalar_operand(&["3.0"]);
            self.guard(&s, "1.5")
        };
        let bound = 2.5 * g.bound + 2.0;
        if g.scalar() && self.rng.chance(0.3) {
            return V::scalar_expr(format!("{ty}::log({}, {})", g.code, base.code), bound);
        }
        let shape: Shape = g.shape.clone();
        V::new(format!("{}.log({})", g.atom(), base.code), shape, bound)
    }

    /// `a.atan2(x)` with `x ≥ 0.5` (away from the origin), or
    /// `a.mul_add(b, c)`, of scalars (`a` is an expression of the program,
    /// never a bare literal, so it may be a receiver).
    fn atan2_or_mul_add(&mut self, a: V) -> V {
        let ty = self.ty;
        let atan2 = self.vocab.has("atan2") && (!self.vocab.has("mul_add") || self.rng.chance(0.5));
        if atan2 {
            let s = self.scalar_operand(&["1.0", "-2.0"]);
            let x = self.guard(&s, "0.5");
            if self.rng.chance(0.3) {
                return V::scalar_expr(format!("{ty}::atan2({}, {})", a.code, x.code), 1.6);
            }
            return V::scalar_expr(format!("{}.atan2({})", a.atom(), x.code), 1.6);
        }
        let a = if a.bound > 3.0 { self.squash(&a) } else { a };
        let b = self.scalar_operand(&["0.5", "-1.5", "2.0"]);
        let c = self.scalar_operand(&["0.25", "-1.0"]);
        let b = if b.bound > 3.0 { self.squash(&b) } else { b };
        let bound = a.bound * b.bound + c.bound;
        if self.rng.chance(0.3) {
            return V::scalar_expr(
                format!("{ty}::mul_add({}, {}, {})", a.code, b.code, c.code),
                bound,
            );
        }
        V::scalar_expr(
            format!("{}.mul_add({}, {})", a.atom(), b.code, c.code),
            bound,
        )
    }
}
