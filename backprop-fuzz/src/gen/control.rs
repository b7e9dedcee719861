//! Control flow: `for` loops carrying values (ranges `0..k`,
//! `(0..k).rev()`, `(0..k).step_by(2)`, a shape query as the bound, inside
//! an outer labelled loop left by `break 'oN`/`continue 'oN`), `if c {
//! break; }`, `if c { continue; }`, `if c { return e; }` and `match i % 3`
//! in their bodies; `while n < K && ..` and `loop { ..; if .. { break; } }`
//! (a counter bounds every loop), `let v = loop { .. break e; }`; `match`
//! as a value (on a constant `k0: usize`, `k0 % 3`, `x.len() % 3`, or
//! `()` with guards); early `return`; `if`/`else if`/`else` as statements
//! and as values.

use super::program::Program;
use super::value::{indent, LIMIT, V};

/// The thresholds of comparisons: no round numbers. Some scalars the
/// generator writes are constant in exact arithmetic (`logsumexp` of a
/// `log_softmax` is 0, the mean of a softmax row of n is 1/n), and a
/// comparison with exactly that constant would take either branch as
/// rounding falls, so that central differences straddle the jump.
pub const THRESHOLDS: &[&str] = &["0.0371", "0.4629", "-0.5183"];

impl Program<'_> {
    /// `for i in 0..k { assignments }`: carried values; `i` indexes a
    /// parameter's rows.
    pub fn for_loop(&mut self, depth: i32) -> bool {
        let mut k = self.rng.between(1, 3);
        let mut extra = Vec::new();
        let rows: Vec<V> = self
            .env
            .iter()
            .filter(|v| {
                v.form == super::value::Form::Ref
                    && v.shape.len() == 2
                    && v.shape[0] >= k
                    && v.code.starts_with('p')
            })
            .cloned()
            .collect();
        let vecs: Vec<V> = self
            .env
            .iter()
            .filter(|v| {
                v.form == super::value::Form::Ref
                    && v.shape.len() == 1
                    && v.shape[0] >= 2
                    && v.code.starts_with('p')
            })
            .cloned()
            .collect();
        let mut bound = k.to_string();
        if !vecs.is_empty() && self.rng.chance(0.25) {
            // Integer arithmetic on a shape query as the loop's bound, and
            // as an index (`x[i + 1] - x[i]`).
            let x = self.rng.pick(&vecs).clone();
            k = x.shape[0] - 1;
            bound = self.int_name();
            self.stmts
                .push(format!("let {bound} = {}.len() - 1;", x.code));
            extra.push(V::scalar_expr(format!("{0}[i + 1] - {0}[i]", x.code), 2.0));
        } else if !rows.is_empty() && self.rng.chance(0.7) {
            let m = self.rng.pick(&rows).clone();
            if self.rng.chance(0.5) {
                let j = self.rng.below(m.shape[1]);
                extra.push(V::scalar_expr(format!("{}[[i, {j}]]", m.code), m.bound));
            } else {
                let row = V::new(format!("{}.row(i)", m.code), vec![m.shape[1]], m.bound);
                extra.push(row.form(super::value::Form::View).view());
            }
        }
        // Sometimes inside an outer labelled loop that the inner one leaves
        // with `break 'oN` or `continue 'oN` (the body runs up to twice as
        // often).
        let wrap = self.rng.chance(0.3);
        let times = if wrap { 2 * k } else { k } as u32;
        let body = self.with_extra(&extra, |p| {
            p.in_region(|p| {
                let mut body = Vec::new();
                for _ in 0..p.rng.between(1, 2) {
                    if let Some(st) =
                        p.assign_stmt((depth - 1).max(1), &["+=", "-=", "=", "+="], times)
                    {
                        body.push(st);
                    }
                }
                if !body.is_empty() && p.rng.chance(0.5) {
                    p.loop_extras(&mut body, depth, times);
                }
                let mut label = None;
                if !body.is_empty() && wrap {
                    p.int_counter += 1;
                    let l = format!("'o{}", p.int_counter);
                    let exit = p.rng.word(&["break", "continue"]);
                    let at = p.rng.between(0, body.len());
                    let cond = p.condition();
                    body.insert(
                        at,
                        format!("if {cond} {{\n            {exit} {l};\n        }}"),
                    );
                    p.count(&format!("labelled_{exit}"));
                    label = Some(l);
                }
                (body, label)
            })
        });
        let (body, label) = body;
        if body.is_empty() {
            return false;
        }
        let r = self.rng.float();
        let range = if r < 0.15 {
            format!("(0..{bound}).rev()")
        } else if r < 0.25 {
            format!("(0..{bound}).step_by(2)")
        } else {
            format!("0..{bound}")
        };
        let mut inner = format!("for i in {range} {{\n{}\n    }}", indent(&body, "        "));
        if let Some(label) = label {
            inner = format!(
                "{label}: for _ in 0..2 {{\n    {}\n    }}",
                inner.replace('\n', "\n    ")
            );
        }
        self.stmts.push(inner);
        true
    }

    /// Adds an exit or a `match i % 3` to the body of a `for` loop.
    fn loop_extras(&mut self, body: &mut Vec<String>, depth: i32, times: u32) {
        let r = self.rng.float();
        let pos = self.rng.between(0, body.len());
        if r < 0.3 {
            let cond = self.condition();
            body.insert(pos, format!("if {cond} {{\n            break;\n        }}"));
            self.count("break");
        } else if r < 0.55 {
            let cond = self.condition();
            body.insert(
                pos,
                format!("if {cond} {{\n            continue;\n        }}"),
            );
            self.count("continue");
        } else if r < 0.7 {
            let e = self.ret_value(depth);
            let cond = self.condition();
            body.insert(
                pos,
                format!("if {cond} {{\n            return {e};\n        }}"),
            );
            self.count("return_in_loop");
        } else {
            let inner = (depth - 1).max(1);
            let a = self.assign_stmt(inner, &["+=", "-=", "+="], times);
            let b = self.assign_stmt(inner, &["+=", "-=", "+="], times);
            let (Some(a), Some(b)) = (a, b) else { return };
            body.push(format!(
                "match i % 3 {{\n            0 => {},\n            1 | 2 => {{\n                {b}\n            }}\n            _ => {{}}\n        }}",
                a.trim_end_matches(';')
            ));
            self.count("match_stmt");
        }
    }

    /// A scalar to `return` early; the output becomes a scalar.
    pub fn ret_value(&mut self, depth: i32) -> String {
        let e = self.expr((depth - 1).max(1));
        let (mut code, mut bound) = self.scalarize(&e);
        if bound > LIMIT * 2.0 {
            code = self.squash(&V::scalar_expr(code, bound)).code;
            bound = 1.0;
        }
        self.has_return = true;
        self.ret_bound = self.ret_bound.max(bound);
        code
    }

    /// A scalar expression (over `extra` too), bounded.
    pub fn scalar_of(&mut self, depth: i32, extra: &[V]) -> V {
        let e = self.with_extra(extra, |p| p.expr(depth));
        let (code, bound) = self.scalarize(&e);
        if bound > LIMIT {
            let v = self.squash(&V::scalar_expr(code, bound));
            return V::scalar_expr(v.code, 1.0);
        }
        V::scalar_expr(code, bound)
    }

    /// `let mut tN = <scalar>;`, a carried scalar for a loop.
    pub fn accumulator(&mut self, depth: i32) -> V {
        let e = self.scalar_of(depth, &[]);
        let name = self.fresh();
        self.let_(&name, &e.code, None);
        self.last_mut();
        V::scalar_expr(name, e.bound)
    }

    /// A comparison of differentiable values (the branch taken is a
    /// constant of the gradient), against one of [`THRESHOLDS`].
    pub fn condition(&mut self) -> String {
        let region_bugs = self.opts.region_bugs;
        let v = self
            .leaf(|v| region_bugs || !v.borrowed)
            .expect("an operand");
        let (code, _) = self.scalarize(&v);
        let cmp = self.rng.word(&["<", ">", "<=", ">="]);
        let mut c = format!("{code} {cmp} {}", self.rng.word(THRESHOLDS));
        if self.rng.chance(0.15) {
            if let Some(w) = self.leaf(|x| x.scalar()) {
                c = format!("{c} {} {} > 0.0", self.rng.word(&["&&", "||"]), w.atom());
            }
        }
        c
    }

    /// `if c { assignment } else { assignment }` (or no `else`, or `else if`).
    pub fn branch_stmt(&mut self, depth: i32) -> bool {
        let cond = self.condition();
        let (a, b) = self.in_region(|p| {
            let a = p.assign_stmt((depth - 1).max(1), super::statements::ASSIGN_OPS, 1);
            let b = if a.is_some() {
                p.assign_stmt((depth - 1).max(1), super::statements::ASSIGN_OPS, 1)
            } else {
                None
            };
            (a, b)
        });
        let Some(a) = a else { return false };
        let target = |s: &str| s.split_whitespace().next().unwrap_or_default().to_owned();
        let r = self.rng.float();
        match b {
            Some(b) if (0.3..0.45).contains(&r) => {
                let cond2 = self.condition();
                self.stmts.push(format!(
                    "if {cond} {{\n        {a}\n    }} else if {cond2} {{\n        {b}\n    }}"
                ));
                self.if_no_else.extend([target(&a), target(&b)]);
            }
            Some(b) if r >= 0.45 => {
                self.stmts.push(format!(
                    "if {cond} {{\n        {a}\n    }} else {{\n        {b}\n    }}"
                ));
                if target(&a) != target(&b) {
                    // Each is assigned in one arm only.
                    self.if_no_else.extend([target(&a), target(&b)]);
                }
            }
            _ => {
                self.stmts
                    .push(format!("if {cond} {{\n        {a}\n    }}"));
                self.if_no_else.insert(target(&a));
            }
        }
        true
    }

    /// `v` as an owned value, for an arm of an `if` or a `match`.
    pub fn owned_arm(v: &V) -> String {
        if v.scalar() || v.form == super::value::Form::Expr {
            v.code.clone()
        } else {
            format!("{}.to_owned()", v.recv())
        }
    }

    /// Two or three expressions of one shape, for the arms of a branch.
    fn arms(&mut self, depth: i32, n: usize) -> Vec<V> {
        self.in_region(|p| {
            let a = p.expr(depth);
            let mut arms = vec![a.clone()];
            for _ in 1..n {
                let mut b = None;
                for _ in 0..6 {
                    let e = p.expr(depth);
                    if e.shape == a.shape {
                        b = Some(e);
                        break;
                    }
                }
                let b = match b {
                    Some(b) => b,
                    None => p.squash_any(&a),
                };
                arms.push(b);
            }
            arms
        })
    }

    /// `if c { a } else { b }` as a value, both arms of one shape.
    pub fn branch_expr(&mut self, depth: i32) -> V {
        let cond = self.condition();
        let arms = self.arms(depth, 2);
        let code = format!(
            "if {cond} {{\n        {}\n    }} else {{\n        {}\n    }}",
            Self::owned_arm(&arms[0]),
            Self::owned_arm(&arms[1])
        );
        V::new(
            code,
            arms[0].shape.clone(),
            arms[0].bound.max(arms[1].bound),
        )
    }

    /// One of the newer control-flow constructs.
    pub fn control(&mut self, depth: i32) -> bool {
        let kinds = [
            "while",
            "loop",
            "match_value",
            "match_guard",
            "return",
            "write",
            "iter",
            "nested_write",
            "nested_write",
            "nested_write",
        ];
        match self.rng.word(&kinds) {
            kind @ ("while" | "loop") => self.counted_loop(kind, depth),
            kind @ ("match_value" | "match_guard") => self.match_value(kind, depth),
            "return" => {
                let cond = self.condition();
                let e = self.in_region(|p| p.ret_value(depth));
                self.stmts
                    .push(format!("if {cond} {{\n        return {e};\n    }}"));
                self.count("return");
                true
            }
            "write" => self.write(depth),
            "nested_write" => self.nested_write(depth),
            _ => self.iter_loop(depth),
        }
    }

    /// `while n < K && .. { .. n += 1; }` or `loop { ..; n += 1; if n >= K
    /// || .. { break; } }` (or `let v = loop { .. break e; };`) carrying a
    /// scalar.
    fn counted_loop(&mut self, kind: &str, depth: i32) -> bool {
        let mut acc = self.accumulator(depth);
        let k = self.rng.between(1, 4);
        let n = self.int_name();
        let inner = (depth - 1).max(1);
        let (e, e2) = self.in_region(|p| {
            let e = p.scalar_of(inner, &[]);
            // The accumulator among the operands: the assignment may be to
            // it (and then raises its bound).
            p.env.push(acc.clone());
            let e2 = if p.rng.chance(0.4) {
                p.assign_stmt(inner, &["+=", "-=", "+="], k as u32)
            } else {
                None
            };
            acc = p.env.pop().expect("the accumulator");
            (e, e2)
        });
        let thr = self.rng.word(&["0.0371", "0.4629", "0.5183"]);
        let upd = if self.rng.chance(0.5) {
            acc.bound += 2.0 * e.bound;
            format!("{0} = {0} * 0.5 + {1};", acc.code, e.atom())
        } else {
            let op = self.rng.word(&["+=", "-="]);
            acc.bound += k as f64 * e.bound;
            format!("{} {op} {};", acc.code, e.atom())
        };
        let mut body: Vec<String> = std::iter::once(upd).chain(e2).collect();
        self.rng.shuffle(&mut body);
        self.stmts.push(format!("let mut {n} = 0;"));
        body.push(format!("{n} += 1;"));
        let a = acc.code.clone();
        if kind == "while" {
            let mut cond = format!("{n} < {k}");
            if self.rng.chance(0.7) {
                cond += &format!(" && {a}.abs() {} {thr}", self.rng.word(&[">", "<"]));
            }
            self.stmts.push(format!(
                "while {cond} {{\n{}\n    }}",
                indent(&body, "        ")
            ));
        } else {
            let mut cond = format!("{n} >= {k}");
            if self.rng.chance(0.7) {
                cond += &format!(" || {a}.abs() {} {thr}", self.rng.word(&[">", "<"]));
            }
            if self.rng.chance(0.5) {
                // `break v`: the loop's value, a new scalar.
                body.push(format!(
                    "if {cond} {{\n            break {a} * 0.5;\n        }}"
                ));
                let value = V::scalar_expr(self.fresh(), acc.bound * 0.5);
                if !self.known_ty(&a) {
                    // The loop's value is of its accumulator's type.
                    self.unknown_ty.insert(value.code.clone());
                }
                self.stmts.push(format!(
                    "let {} = loop {{\n{}\n    }};",
                    value.code,
                    indent(&body, "        ")
                ));
                self.env.push(value);
                self.count("break_value");
            } else {
                body.push(format!("if {cond} {{\n            break;\n        }}"));
                self.stmts
                    .push(format!("loop {{\n{}\n    }}", indent(&body, "        ")));
            }
        }
        self.env.push(acc);
        self.count(kind);
        true
    }

    /// `match` as a value: on a constant `k0: usize` parameter (or `k0 %
    /// 3`), on `x.len() % 3`, or `match () { _ if c => .., .. }` with guards
    /// on differentiable values.
    fn match_value(&mut self, kind: &str, depth: i32) -> bool {
        let arms = self.arms(depth, 3);
        let bound = arms.iter().map(|x| x.bound).fold(0.0, f64::max);
        if bound > LIMIT * 4.0 {
            return false;
        }
        let codes: Vec<String> = arms.iter().map(Self::owned_arm).collect();
        let code = if kind == "match_value" {
            if self.uses_int.is_none() && self.rng.chance(0.5) {
                self.uses_int = Some(self.rng.below(5));
            }
            let scrut = if self.uses_int.is_some() && self.rng.chance(0.7) {
                self.rng.word(&["k0 % 3", "k0"]).to_owned()
            } else {
                let arrays: Vec<V> = self
                    .env
                    .iter()
                    .filter(|v| v.code.starts_with('p') && !v.scalar())
                    .cloned()
                    .collect();
                if arrays.is_empty() {
                    return false;
                }
                let x = self.rng.pick(&arrays).recv();
                if self.rng.chance(0.5) {
                    format!("{x}.len() % 3")
                } else {
                    format!("{x}.len()")
                }
            };
            format!(
                "match {scrut} {{\n        0 => {},\n        1 | 2 => {},\n        _ => {},\n    }}",
                codes[0], codes[1], codes[2]
            )
        } else {
            let (c1, c2) = (self.condition(), self.condition());
            format!(
                "match () {{\n        _ if {c1} => {},\n        _ if {c2} => {},\n        _ => {},\n    }}",
                codes[0], codes[1], codes[2]
            )
        };
        let v = V::new(code.clone(), arms[0].shape.clone(), bound);
        let (name, nv) = self.bind(&v, None);
        self.let_(&name, &code, Some(&nv));
        self.env.push(nv);
        self.count(kind);
        true
    }
}
