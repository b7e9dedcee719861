//! `carried`: variables a loop carries, reassigned in the ways that decide
//! activity per definition (issue 29): reset to a constant (a literal, a
//! scalar parameter outside `wrt(..)`, a constant array), to themselves, to
//! each other, swapped through a temporary; an alias (`let mut tB = tA;`)
//! read before and after its reassignment; the reads in an expression, a
//! closure or a shadowing `let`; the resets in a branch or a `match` arm of
//! the body; in a `for` or a `while` loop, nested in an outer loop that sets
//! a value at the top of each of its iterations, with a `break`; a loop that
//! may run no iteration (its bound `k0 % 2` of a constant `k0: usize` that
//! may be even). Both values reach the output (they join the operands).

use super::program::{Param, Program, Style};
use super::value::{indent, Form, V};

/// The two carried variables of one `carried` loop.
struct Pair {
    a: String,
    b: String,
    array: bool,
    /// The macro knows they are floats: a closure may capture `b`.
    known: bool,
    /// What `b` is reset to.
    constant: String,
}

impl Program<'_> {
    /// A loop whose carried variables are reassigned.
    pub fn carried(&mut self, depth: i32) -> bool {
        let (pair, shape, b_init) = self.carried_pair(depth);
        let (a, b, array, alias) = (
            pair.a.clone(),
            pair.b.clone(),
            pair.array,
            b_init.starts_with("{A}"),
        );
        let known = pair.known;
        let kind = self.rng.word(&["for", "for", "zero", "while"]);
        let bound = if kind == "zero" {
            if self.uses_int.is_none() {
                self.uses_int = Some(self.rng.below(5));
            }
            self.count("carried_maybe_empty");
            "(k0 % 2)".to_owned()
        } else {
            self.rng.between(1, 3).to_string()
        };
        let index = kind != "while";
        let mut body = vec![self.carried_read(&pair), self.carried_reset(&pair, index)];
        if self.rng.chance(0.5) {
            body.push(self.carried_read(&pair));
        }
        if self.rng.chance(0.2) {
            let at = self.rng.between(0, body.len());
            let cond = self.condition();
            body.insert(at, format!("if {cond} {{\n            break;\n        }}"));
            self.count("carried_break");
        }
        let mut code = if kind == "while" {
            let n = self.int_name();
            body.push(format!("{n} += 1;"));
            format!(
                "let mut {n} = 0;\n    while {n} < {bound} {{\n{}\n    }}",
                indent(&body, "        ")
            )
        } else {
            format!(
                "for i in 0..{bound} {{\n{}\n    }}",
                indent(&body, "        ")
            )
        };
        if self.rng.chance(0.3) {
            // An outer loop sets `b` at the top of each of its iterations.
            let value = match (alias, array) {
                (false, _) => b_init.clone(),
                (true, true) => format!("{a}.clone()"),
                (true, false) => a.clone(),
            };
            code = format!(
                "for _ in 0..2 {{\n        {b} = {value};\n        {}\n    }}",
                code.replace('\n', "\n    ")
            );
            self.count("carried_nested");
        }
        self.stmts.push(code);
        let (bound, form) = if array {
            (2.0, Form::Name)
        } else {
            (8.0, Form::Expr)
        };
        for name in [&a, &b] {
            self.env
                .push(V::new(name.clone(), shape.clone(), bound).form(form));
        }
        if array || !known {
            self.unknown_ty.extend([a, b]);
        }
        true
    }

    /// The two carried variables, bound (`let mut tA = ..; let mut tB =
    /// tA;` or another value), and the constant `tB` is reset to; the
    /// shape and the initial value of `tB` (`{A}` standing for `tA`).
    fn carried_pair(&mut self, depth: i32) -> (Pair, Vec<usize>, String) {
        let arrays: Vec<V> = self
            .env
            .iter()
            .filter(|v| v.code.starts_with('p') && !v.scalar() && !v.is_view && v.named())
            .filter(|v| matches!(v.shape.len(), 1 | 2))
            .cloned()
            .collect();
        let array = !arrays.is_empty() && self.rng.chance(0.3);
        let (shape, a_code, b_init, reset) = self.in_region(|p| {
            if array {
                let src = p.rng.pick(&arrays).clone();
                let reset = p.const_array(&src.shape, false);
                let b_init = if p.rng.chance(0.6) {
                    "{A}.clone()".to_owned()
                } else {
                    format!("sigmoid({})", src.as_ref())
                };
                (
                    src.shape.clone(),
                    format!("tanh({})", src.as_ref()),
                    b_init,
                    Some(reset),
                )
            } else {
                let s = p.scalar_of(depth, &[]);
                let a_code = p.squash(&s).code;
                let b_init = if p.rng.chance(0.6) {
                    "{A}".to_owned()
                } else {
                    let s = p.scalar_of(depth, &[]);
                    p.squash(&s).code
                };
                (Vec::new(), a_code, b_init, None)
            }
        });
        let (a, b) = (self.fresh(), self.fresh());
        let known = self.known_ty(&a_code) && self.known_ty(&b_init.replace("{A}", "0.0"));
        let alias = b_init.starts_with("{A}");
        self.stmts.push(format!("let mut {a} = {a_code};"));
        self.stmts
            .push(format!("let mut {b} = {};", b_init.replace("{A}", &a)));
        self.count(if alias { "carried_alias" } else { "carried" });
        let constant = match reset {
            Some(reset) => format!("{}.clone()", reset.code),
            None if self.rng.chance(0.35) => {
                // A parameter outside `wrt(..)`.
                if !self.is_param("c1") {
                    self.params.push(Param {
                        name: "c1".into(),
                        shape: Vec::new(),
                        style: Style::Val,
                        diff: false,
                    });
                    self.uses_constant = true;
                }
                self.count("carried_wrt_constant");
                "c1".to_owned()
            }
            None => self.rng.word(&["2.0", "0.5", "-1.5", "0.25"]).to_owned(),
        };
        let pair = Pair {
            a,
            b,
            array,
            known,
            constant,
        };
        (pair, shape, b_init)
    }

    /// `a` takes a contribution of `b`, contracting.
    fn carried_read(&mut self, p: &Pair) -> String {
        let (a, b) = (&p.a, &p.b);
        let r = self.rng.float();
        if p.array {
            return if r < 0.5 {
                format!("{a} = &{a} * 0.5 + &{b};")
            } else {
                format!("{a} = tanh(&(&{a} + &{b}));")
            };
        }
        if r < 0.25 {
            return format!("{a} = {a} * 0.5 + {b};");
        }
        if r < 0.45 {
            return format!("{a} -= 0.5 * {b};");
        }
        if r < 0.6 {
            return format!("{a} += {b}.sin();");
        }
        if r < 0.75 && p.known {
            let vecs: Vec<V> = self
                .env
                .iter()
                .filter(|v| v.code.starts_with('p') && !v.scalar() && v.named())
                .cloned()
                .collect();
            if !vecs.is_empty() {
                let x = self.rng.pick(&vecs).recv();
                self.count("carried_closure");
                return format!("{a} += {x}.mapv(|v| (v * {b}).tanh()).sum() * 0.1;");
            }
        }
        if r < 0.9 {
            // A shadowing `let` in the body reads it.
            self.int_counter += 1;
            let tmp = format!("s{}", self.int_counter);
            return format!("let {tmp} = {b} * 0.5;\n        {a} = {a}.tanh() + {tmp};");
        }
        format!("{a} = ({a} + {b}).tanh();")
    }

    /// `b` reset: to the constant (where it stands, in a branch or a
    /// `match` arm on the index), to `a`, to itself, or swapped with `a`.
    fn carried_reset(&mut self, p: &Pair, index: bool) -> String {
        let (a, b, c) = (&p.a, &p.b, &p.constant);
        let r = self.rng.float();
        if r < 0.45 {
            self.count("carried_reset");
            return format!("{b} = {c};");
        }
        if r < 0.6 && index {
            self.count("carried_reset_branch");
            return format!("if i == 0 {{\n            {b} = {c};\n        }}");
        }
        if r < 0.7 && index {
            self.count("carried_reset_match");
            return format!(
                "match i % 2 {{\n            0 => {{\n                {b} = {c};\n            }}\n            _ => {{}}\n        }}"
            );
        }
        if r < 0.8 {
            self.count("carried_to_each_other");
            return if p.array {
                format!("{b} = {a}.clone();")
            } else {
                format!("{b} = {a};")
            };
        }
        if r < 0.87 {
            self.count("carried_itself");
            return format!("{b} = {b};");
        }
        self.count("carried_swap");
        self.int_counter += 1;
        let tmp = format!("s{}", self.int_counter);
        format!("let {tmp} = {a}.clone();\n        {a} = {b}.clone();\n        {b} = {tmp};")
    }
}
