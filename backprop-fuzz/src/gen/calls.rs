//! Calls of earlier generated functions of the same file: in an
//! expression, and (those that return a tuple) bound by a tuple pattern
//! with some components `_` (`let (t3, _) = f0029(t1);`): where they
//! stand, in a `for` loop that accumulates a scalar of the components (and
//! may pass the accumulator to the call), and in one arm of an `if` whose
//! value is a scalar of them. A callee was generated for parameters in
//! `[-1, 1]`: larger arguments are squashed first.

use super::program::{Out, Program, Style, Summary};
use super::value::{Form, LIMIT, V};
use std::rc::Rc;

impl Program<'_> {
    /// A call of an earlier function, with arguments of its parameters'
    /// shapes and spellings.
    pub fn call(&mut self, depth: i32) -> Option<V> {
        for _ in 0..4 {
            let callee = self.recent(false);
            let Out::Value(shape) = &callee.out else {
                continue;
            };
            if let Some(args) = self.call_args(&callee, depth) {
                let v = V::new(
                    format!("{}({})", callee.name, args.join(", ")),
                    shape.clone(),
                    callee.out_bound,
                );
                if v.bound > LIMIT * 2.0 {
                    return Some(self.squash_any(&v));
                }
                return Some(v);
            }
        }
        None
    }

    /// One of the last 40 callees (of a tuple, or not).
    fn recent(&mut self, tuple: bool) -> Rc<Summary> {
        let list = if tuple {
            &self.tuple_callees
        } else {
            &self.callees
        };
        let start = list.len().saturating_sub(40);
        let recent = list[start..].to_vec();
        self.rng.pick(&recent).clone()
    }

    /// Arguments of the shapes and spellings of `callee`'s parameters
    /// (`None` if some cannot be found).
    pub fn call_args(&mut self, callee: &Summary, depth: i32) -> Option<Vec<String>> {
        let mut args = Vec::new();
        for p in &callee.params {
            if p.shape.is_empty() {
                let v = if self.rng.chance(0.4) {
                    Some(self.expr(depth - 1))
                } else {
                    self.leaf(|v| v.scalar())
                };
                let v = v.filter(V::scalar)?;
                let v = if v.bound > 1.0 { self.squash(&v) } else { v };
                args.push(v.code);
                continue;
            }
            let alias_calls = self.opts.alias_calls;
            let v = self.leaf(|v| v.shape == p.shape && (alias_calls || !v.borrowed))?;
            let v = if v.bound > 1.0 {
                self.squash_array(&v)
            } else {
                v
            };
            args.push(match p.style {
                Style::Ref if !Self::owned_array(&v) => return None,
                Style::Ref => v.as_ref(),
                Style::Owned if v.form != Form::Expr || v.is_view => {
                    format!("{}.to_owned()", v.recv())
                }
                Style::Owned => v.code,
                _ => format!("{}.view()", v.recv()),
            });
        }
        Some(args)
    }

    /// `let (tA, _, tB) = fNNNN(args);` of a callee that returns a tuple:
    /// the statement and the values it binds (`None` if no arguments fit).
    /// Some components are `_`, never all.
    fn tuple_pattern(&mut self, callee: &Summary, depth: i32) -> Option<(String, Vec<V>)> {
        let args = self.call_args(callee, depth)?;
        let Out::Tuple(components) = &callee.out else {
            return None;
        };
        let mut names = Vec::new();
        let mut values = Vec::new();
        for (shape, bound) in components {
            if self.rng.chance(0.3) {
                names.push("_".to_owned());
                continue;
            }
            let name = self.fresh();
            names.push(name.clone());
            self.unknown_ty.insert(name.clone());
            let form = if shape.is_empty() {
                Form::Expr
            } else {
                Form::Name
            };
            values.push(V::new(name, shape.clone(), *bound).form(form));
        }
        if values.is_empty() {
            return None;
        }
        let stmt = format!(
            "let ({}) = {}({});",
            names.join(", "),
            callee.name,
            args.join(", ")
        );
        Some((stmt, values))
    }

    /// A call of a function that returns a tuple, bound by a tuple pattern:
    /// where it stands (its components join the operands), in a loop, or in
    /// a branch.
    pub fn tuple_call(&mut self, depth: i32) -> bool {
        // A callee whose arguments can be found (in the enclosing code).
        let mut found = None;
        for _ in 0..4 {
            let callee = self.recent(true);
            if self.call_args(&callee, 0).is_some() {
                found = Some(callee);
                break;
            }
        }
        let Some(callee) = found else { return false };
        match self.rng.word(&["here", "here", "loop", "branch"]) {
            "here" => {
                let Some((stmt, values)) = self.tuple_pattern(&callee, depth) else {
                    return false;
                };
                self.stmts.push(stmt);
                self.env.extend(values);
                self.count("tuple_call");
                true
            }
            "loop" => {
                self.tuple_call_in_loop(&callee, depth);
                true
            }
            _ => self.tuple_call_in_branch(&callee, depth),
        }
    }

    /// `for i in 0..k { let (..) = f(..); acc += <scalar of them>; }`.
    fn tuple_call_in_loop(&mut self, callee: &Summary, depth: i32) {
        let mut acc = self.accumulator(depth);
        let k = self.rng.between(1, 3);
        let inner = (depth - 1).max(1);
        let bound = self.in_region(|p| {
            let bound = p.with_extra(std::slice::from_ref(&acc), |p| {
                p.tuple_pattern(callee, inner)
            });
            let (stmt, values) = bound?;
            Some((stmt, p.scalar_of(inner, &values)))
        });
        let Some((stmt, e)) = bound else {
            self.env.push(acc);
            return;
        };
        let upd = if self.rng.chance(0.5) {
            acc.bound += 2.0 * e.bound;
            format!("{0} = {0} * 0.5 + {1};", acc.code, e.atom())
        } else {
            let op = self.rng.word(&["+=", "-="]);
            acc.bound += k as f64 * e.bound;
            format!("{} {op} {};", acc.code, e.atom())
        };
        self.stmts.push(format!(
            "for i in 0..{k} {{\n        {stmt}\n        {upd}\n    }}"
        ));
        self.env.push(acc);
        self.count("tuple_call_in_loop");
    }

    /// `let tN = if c { let (..) = f(..); <scalar of them> } else { .. };`.
    fn tuple_call_in_branch(&mut self, callee: &Summary, depth: i32) -> bool {
        let mut cond = self.condition();
        let inner = (depth - 1).max(1);
        let arms = self.in_region(|p| {
            let (stmt, values) = p.tuple_pattern(callee, inner)?;
            let a = p.scalar_of(inner, &values);
            let b = p.scalar_of(inner, &[]);
            Some((stmt, a, b))
        });
        let Some((stmt, a, b)) = arms else {
            return false;
        };
        let mut arms = [
            format!("{{\n        {stmt}\n        {}\n    }}", a.code),
            format!("{{\n        {}\n    }}", b.code),
        ];
        if self.rng.chance(0.5) {
            arms.reverse();
            cond = format!("!({cond})");
        }
        let name = self.fresh();
        self.let_(
            &name,
            &format!("if {cond} {} else {}", arms[0], arms[1]),
            None,
        );
        self.unknown_ty.insert(name.clone());
        self.env.push(V::scalar_expr(name, a.bound.max(b.bound)));
        self.count("tuple_call_in_branch");
        true
    }
}
