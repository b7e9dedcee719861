//! The body of a program: its parameters, then a few statements, each a
//! `let` (plain, shadowing, a block, a dead one), an assignment, or one of
//! the constructs of the other modules; then the output.

use super::program::{Param, Program, Style, SHAPES};
use super::value::{broadcast, mentions, Form, LIMIT, V};

/// The compound assignments `assign_stmt` draws from by default (`+=`
/// twice as often).
pub const ASSIGN_OPS: &[&str] = &["+=", "-=", "*=", "/=", "=", "+="];

impl Program<'_> {
    /// Generates the whole program.
    pub fn generate(&mut self) {
        self.parameters();
        for _ in 0..self.rng.between(1, 7) {
            self.statement();
        }
        self.final_expr = self.output();
    }

    /// The parameters: one to four, scalars and arrays of the shapes of
    /// `SHAPES`, passed by reference, by value or as views; some not
    /// differentiated (`wrt` names the others), a constant `c0` now and then.
    fn parameters(&mut self) {
        // Single precision now and then.
        if self.rng.chance(0.1) {
            self.ty = "f32";
        }
        let ty = self.ty;
        self.callees.retain(|c| c.ty == ty);
        self.tuple_callees.retain(|c| c.ty == ty);
        let nparams = self.rng.between(1, 4);
        for i in 0..nparams {
            let (shape, style) = if self.rng.chance(0.3) {
                (Vec::new(), Style::Val)
            } else {
                let shape = self.rng.pick(SHAPES).to_vec();
                let style =
                    [Style::Ref, Style::Owned, Style::View][self.rng.weighted(&[8.0, 1.0, 1.0])];
                (shape, style)
            };
            let name = format!("p{i}");
            let form = match style {
                Style::Ref => Form::Ref,
                _ if shape.is_empty() => Form::Expr,
                _ => Form::Name,
            };
            let mut v = V::new(name.clone(), shape.clone(), 1.0).form(form);
            v.is_view = style == Style::View;
            self.env.push(v);
            self.params.push(Param {
                name,
                shape,
                style,
                diff: true,
            });
        }
        if nparams >= 2 && self.rng.chance(0.1) {
            let mut order: Vec<usize> = (0..nparams).collect();
            self.rng.shuffle(&mut order);
            for &k in &order[..self.rng.between(1, nparams - 1)] {
                self.params[k].diff = false;
            }
            self.uses_constant = true;
        }
        if self.rng.chance(0.25) {
            self.plain_params();
        }
        if !self.fields.is_empty() {
            // A method calls no other program: in its copy over duals, a
            // call over values made of `self`'s data alone does not compile
            // yet (noted on issue 31).
            self.callees.clear();
            self.tuple_callees.clear();
        }
        if self.rng.chance(0.15) {
            let shape = self.rng.pick(SHAPES).to_vec();
            self.env
                .push(V::new("c0", shape.clone(), 1.0).form(Form::Ref));
            self.params.push(Param {
                name: "c0".into(),
                shape,
                style: Style::Ref,
                diff: false,
            });
            self.uses_constant = true;
        }
    }

    /// One statement of the body.
    fn statement(&mut self) {
        let r = self.rng.float();
        let depth = self.rng.between(1, 3) as i32;
        let has_olds = self.env.iter().any(|v| v.code.starts_with('t'));
        if r < 0.1 && has_olds {
            return self.shadow(depth);
        }
        if r < 0.2 {
            return self.block(depth);
        }
        let carried = self.opts.carried;
        let done = (0.27..0.42).contains(&r) && self.assign(depth)
            || (0.42..0.48).contains(&r) && self.for_loop(depth)
            || (0.48..0.53).contains(&r) && self.branch_stmt(depth)
            || (0.58..0.68).contains(&r) && self.control(depth)
            || (0.68..0.78).contains(&r)
                && !self.tuple_callees.is_empty()
                && self.tuple_call(depth)
            || (0.78..0.78 + carried).contains(&r) && self.carried(depth)
            || (0.88..0.95).contains(&r) && self.plain_stmt(depth)
            || (0.53..0.58).contains(&r) && self.branch_value(depth);
        if done {
            return;
        }
        if r < 0.27 {
            // A dead let (does not reach the output) is allowed.
            let e = self.expr(depth);
            let e = self.unmoved(e);
            let name = self.fresh();
            self.stmts.push(format!("let _{name} = {};", e.code));
            return;
        }
        self.plain_let(depth);
    }

    /// `let tN = e;`.
    fn plain_let(&mut self, depth: i32) {
        let e = self.expr(depth);
        if matches!(e.form, Form::View | Form::TView) {
            let name = self.fresh();
            let v = V::new(name.clone(), e.shape.clone(), e.bound)
                .form(Form::Name)
                .view();
            self.let_(&name, &e.code, Some(&v));
            self.env.push(v);
            return;
        }
        // (`let t = p0;` of a reference parameter is an alias: a fork of p0.)
        let mut e = self.unmoved(e);
        if e.bound > LIMIT * 4.0 {
            e = self.squash_any(&e);
        }
        let (name, v) = self.bind(&e, None);
        self.let_(&name, &e.code, Some(&v));
        self.env.push(v);
    }

    /// `if c { a } else { b }` bound to a name.
    fn branch_value(&mut self, depth: i32) -> bool {
        let e = self.branch_expr(depth);
        if e.bound > LIMIT * 4.0 {
            return false;
        }
        let (name, v) = self.bind(&e, None);
        self.let_(&name, &e.code, Some(&v));
        self.env.push(v);
        true
    }

    /// Shadowing: an existing local name bound again.
    fn shadow(&mut self, depth: i32) {
        let olds: Vec<String> = self
            .env
            .iter()
            .filter(|v| v.code.starts_with('t'))
            .map(|v| v.code.clone())
            .collect();
        let old = self.rng.pick(&olds).clone();
        let e = self.expr(depth);
        let e = self.unmoved(e);
        let (name, v) = self.bind(&e, Some(old));
        self.let_(&name, &e.code, Some(&v));
        self.env.retain(|x| x.code != name);
        self.env.push(v);
    }

    /// A block with a local of its own: `let tB = { let tA = ..; .. };`.
    fn block(&mut self, depth: i32) {
        let mut inner = self.expr(depth);
        if matches!(inner.form, Form::Name | Form::View | Form::TView) && !inner.scalar() {
            inner = self.squash_array(&inner);
        }
        let fresh = self.fresh();
        let (iname, iv) = self.bind(&inner, Some(fresh));
        self.mark_ty(&iname, &inner.code);
        self.env.push(iv.clone());
        let mut e = self.expr(depth);
        self.env.pop();
        if matches!(e.form, Form::Name | Form::View | Form::TView) && !e.scalar() && e.code != iname
        {
            e = self.squash_array(&e);
        }
        let (name, v) = self.bind(&e, None);
        if matches!(e.form, Form::View | Form::TView | Form::Ref) {
            // A view of the block's local cannot leave the block.
            self.env.push(iv.clone());
            self.let_(&iname, &inner.code, Some(&iv));
            self.let_(&name, &e.code, Some(&v));
        } else {
            let code = format!(
                "{{\n        let {iname} = {};\n        {}\n    }}",
                inner.code, e.code
            );
            self.let_(&name, &code, Some(&v));
        }
        self.env.push(v);
    }

    /// `t op= e;` or `t = e;` on a local, which becomes `let mut`.
    pub fn assign(&mut self, depth: i32) -> bool {
        match self.assign_stmt(depth, ASSIGN_OPS, 1) {
            Some(stmt) => {
                self.stmts.push(stmt);
                true
            }
            None => false,
        }
    }

    /// The statement `t op= e;` (or `None`), its target made `let mut`;
    /// `times`: how often it runs (in a loop), for the bound.
    pub fn assign_stmt(&mut self, depth: i32, ops: &[&'static str], times: u32) -> Option<String> {
        let targets: Vec<usize> = (0..self.env.len())
            .filter(|&i| {
                let v = &self.env[i];
                self.let_index.contains_key(&v.code)
                    && !self.pinned.contains(&v.code)
                    && !v.is_view
                    && matches!(v.form, Form::Name | Form::Expr)
            })
            .collect();
        if targets.is_empty() {
            return None;
        }
        let t = self.env[*self.rng.pick(&targets)].clone();
        let mut op = self.rng.word(ops);
        let mut rhs = None;
        for _ in 0..6 {
            let e = if self.rng.chance(0.7) {
                self.expr(depth)
            } else {
                self.any_leaf()
            };
            let borrows = !matches!(e.form, Form::Expr) && mentions(&e.code, &t.code);
            if borrows || e.code == t.code {
                continue;
            }
            let fits = if op == "=" {
                e.shape == t.shape && (t.scalar() || e.form == Form::Expr)
            } else {
                e.scalar() || broadcast(&t.shape, &e.shape).as_ref() == Some(&t.shape)
            };
            if fits {
                rhs = Some(e);
                break;
            }
        }
        let mut rhs = match rhs {
            Some(e) => e,
            None => {
                op = self.rng.word(&["+=", "-="]);
                V::scalar_expr(self.lit(), 3.0)
            }
        };
        let n = times as i32;
        if op == "*=" && (t.bound * rhs.bound).powi(n) > LIMIT {
            op = "+=";
        }
        if op == "/=" {
            let c = self.rng.word(&["1.0", "0.5"]);
            rhs = self.guard(&rhs, c);
        }
        if op == "=" && rhs.bound > LIMIT * 4.0 {
            return None;
        }
        if op == "=" && times > 1 && rhs.bound > t.bound && mentions(&rhs.code, &t.code) {
            // `t = exp(&t)` run k times grows as a tower, past any bound
            // taken once.
            return None;
        }
        if times > 1 && rhs.bound > (2.0 * t.bound).max(1.0) && mentions(&rhs.code, &t.code) {
            // So does `t += (p * t + t).powi(2)` (the Python generator's
            // seed 20261208, f0003): a right side that grows faster than
            // its target compounds.
            return None;
        }
        let bound = match op {
            "+=" | "-=" => t.bound + f64::from(times) * rhs.bound,
            "*=" => t.bound * rhs.bound.powi(n),
            "/=" => t.bound * 2f64.powi(n),
            _ => rhs.bound.max(t.bound),
        };
        if bound > LIMIT * 4.0 {
            return None;
        }
        let code = if rhs.scalar() || op == "=" {
            rhs.code.clone()
        } else {
            rhs.as_ref()
        };
        if !self.known_ty(&code) {
            self.unknown_ty.insert(t.code.clone());
        }
        let k = self.let_index[&t.code];
        let prefix = format!("let {} = ", t.code);
        if let Some(rest) = self.stmts[k].strip_prefix(&prefix) {
            self.stmts[k] = format!("let mut {} = {rest}", t.code);
        }
        debug_assert!(
            self.stmts[k].starts_with(&format!("let mut {} = ", t.code)),
            "{}",
            self.stmts[k]
        );
        if let Some(v) = self.env.iter_mut().rev().find(|v| v.code == t.code) {
            v.bound = bound;
        }
        Some(format!("{} {op} {code};", t.code))
    }

    /// A literal of the program's float type, as Rust infers it.
    pub fn lit(&mut self) -> &'static str {
        self.rng
            .word(&["0.5", "1.5", "2.0", "0.25", "3.0", "0.75", "1.25", "0.1"])
    }
}
