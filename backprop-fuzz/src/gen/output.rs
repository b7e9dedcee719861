//! The output of a program: a scalar of some values (the last locals, or
//! all of them, or an operand), an array (a local returned by name, or a
//! function of a value; a VJP with an upstream gradient), or a tuple of two
//! or three components, scalars and arrays (one upstream per component).

use super::program::{Out, Program};
use super::value::{Form, EXP_LIMIT, V};

impl Program<'_> {
    /// The final expression of the body; sets the output's shape and bound.
    pub fn output(&mut self) -> String {
        if let Some(code) = self.plain_output() {
            return code;
        }
        if !self.has_return && self.rng.chance(0.12) {
            return self.tuple_output();
        }
        if !self.has_return && self.rng.chance(0.1) {
            let cands: Vec<V> = self
                .env
                .iter()
                .filter(|v| !v.scalar() && v.shape.len() <= 2)
                .cloned()
                .collect();
            if !cands.is_empty() {
                let v = self.rng.pick(&cands).clone();
                self.out = Out::Value(v.shape.clone());
                if self.returnable(&v) {
                    self.out_bound = v.bound;
                    return v.code;
                }
                let mut f = self.rng.word(&["tanh", "sigmoid", "exp", "sin"]);
                if f == "exp" && v.bound > EXP_LIMIT {
                    f = "tanh";
                }
                self.out_bound = if f == "exp" { v.bound.exp() } else { 1.0 };
                return format!("{f}({})", v.as_ref());
            }
        }
        self.out = Out::Value(Vec::new());
        let locals: Vec<V> = self
            .env
            .iter()
            .filter(|v| v.code.starts_with('t'))
            .cloned()
            .collect();
        let mut picks: Vec<V> = locals[locals.len().saturating_sub(2)..].to_vec();
        if self.rng.chance(0.4) {
            picks = locals;
        }
        if picks.is_empty() || self.rng.chance(0.3) {
            picks.push(self.rng.pick(&self.env).clone());
        }
        let mut terms = Vec::new();
        self.out_bound = 0.0;
        for v in &picks {
            let (code, bound) = self.scalarize(v);
            terms.push(code);
            self.out_bound += bound;
        }
        self.out_bound = self.out_bound.max(self.ret_bound);
        terms.join(" + ")
    }

    /// Whether the array `v` may be returned by name: an owned local, not
    /// one an `if` without `else` assigns (see `Options::region_bugs`).
    fn returnable(&self, v: &V) -> bool {
        v.form == Form::Name
            && v.code.starts_with('t')
            && !v.is_view
            && (self.opts.region_bugs || !self.if_no_else.contains(&v.code))
    }

    /// `(a, b)` or `(a, b, c)`: each component a scalar of a value, or an
    /// array (an elementwise function of one, a clone of a local, or a
    /// local itself in the last place, where nothing reads it after it is
    /// moved).
    fn tuple_output(&mut self) -> String {
        let n = *self.rng.pick(&[2, 2, 3]);
        let mut codes = Vec::new();
        let mut components = Vec::new();
        for k in 0..n {
            let v = self.rng.pick(&self.env).clone();
            if v.scalar() || v.shape.len() > 2 || self.rng.chance(0.5) {
                let (code, bound) = self.scalarize(&v);
                codes.push(code);
                components.push((Vec::new(), bound));
                continue;
            }
            let named = self.returnable(&v);
            let (code, bound) = if named && k == n - 1 && self.rng.chance(0.5) {
                (v.code.clone(), v.bound)
            } else if named && self.rng.chance(0.3) {
                (format!("{}.clone()", v.code), v.bound)
            } else {
                let f = self.rng.word(&["tanh", "sigmoid", "sin"]);
                (format!("{f}({})", v.as_ref()), 1.0)
            };
            codes.push(code);
            components.push((v.shape.clone(), bound));
        }
        self.out_bound = components.iter().map(|c| c.1).fold(0.0, f64::max);
        self.out = Out::Tuple(components);
        self.count("tuple_output");
        format!("({})", codes.join(", "))
    }
}
