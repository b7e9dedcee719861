//! A program as Rust: the attribute and signature, the body, and its test,
//! which
//!
//! * compares the forward value of `NAME_backward` with the original
//!   function's (bit for bit: the design says they are equal),
//! * checks every gradient has its parameter's shape,
//! * gradchecks `NAME_backward` at a deterministic random point, and
//! * checks forward mode against reverse mode: `NAME_jvp` along a random
//!   direction against the gradient dotted with it (`check_jvp`, to
//!   rounding), and `NAME_hvp` (of a scalar `f64` value) against central
//!   differences of the gradient (`hvpcheck`). Every program is
//!   `#[differentiable(jvp)]` or `(hvp)`.
//!
//! Now and then the user's names are those the generated code likes to use
//! itself (`d_out`, `grad`, `d_t1`, ...): the macro must not capture or
//! collide with them.

use super::plain::Kind;
use super::program::{Out, Param, Program, Style};
use super::value::{array_type, indent, numbered, replace_words, words};
use std::collections::BTreeMap;

impl Program<'_> {
    /// The function and its test.
    pub fn render(&mut self) -> String {
        let wrt: Vec<&str> = self
            .params
            .iter()
            .filter(|p| p.diff)
            .map(|p| p.name.as_str())
            .collect();
        let mut args = Vec::new();
        if self.has_modes() {
            args.push(if self.has_hvp() {
                "hvp".to_owned()
            } else {
                "jvp".to_owned()
            });
        }
        if self.uses_constant || self.uses_ws.is_some() {
            // A `&[f64]` is differentiable by default: `ws` is data.
            args.push(format!("wrt({})", wrt.join(", ")));
        }
        let mut out = Vec::new();
        let nargs = self.params.len()
            + usize::from(self.uses_labels.is_some())
            + 1
            + usize::from(self.uses_ws.is_some())
            + usize::from(self.uses_int.is_some());
        if nargs > 7 {
            out.push("#[allow(clippy::too_many_arguments)]".to_owned());
        }
        out.push(if args.is_empty() {
            "#[differentiable]".to_owned()
        } else {
            format!("#[differentiable({})]", args.join(", "))
        });
        out.push(format!("{} {{", self.signature()));
        if !self.stmts.is_empty() {
            out.push(indent(&self.stmts, "    "));
        }
        out.push(format!("    {}", self.final_expr));
        out.push("}".to_owned());
        if !self.fields.is_empty() {
            out = self.as_method(out);
        }
        out.push(String::new());
        out.push(self.render_test());
        // The program's own constants, after it.
        out.extend(self.items.iter().cloned());
        let text = out.join("\n");
        self.rename(&text)
    }

    /// The struct whose fields are the constant parameters of
    /// [`Program::fields`], and the function (`lines`, its attributes
    /// last) as its method in a `#[differentiable] impl` block, reading
    /// them as `self.q0`.
    fn as_method(&self, lines: Vec<String>) -> Vec<String> {
        let ty = self.self_type();
        let fields: Vec<String> = self
            .params
            .iter()
            .filter(|p| self.fields.contains(&p.name))
            .map(|p| match p.style {
                Style::Plain(kind) => {
                    format!("    {}: {},", p.name, self.plain_type(kind, &p.shape))
                }
                _ => format!("    {}: {},", p.name, self.ty),
            })
            .collect();
        let body = lines.join("\n");
        let mut body = replace_words(&body, |w| {
            self.fields
                .contains(&w.to_owned())
                .then(|| format!("self.{w}"))
        });
        // In every other program, a field of one axis read by element
        // through a method of the struct (`self.q0_at(i)`): a call the copy
        // over duals makes with the original's types.
        let mut helpers = Vec::new();
        let odd = self.name[1..].parse::<usize>().is_ok_and(|k| k % 2 == 1);
        for p in self
            .params
            .iter()
            .filter(|p| odd && self.fields.contains(&p.name))
        {
            if matches!(p.style, Style::Plain(kind) if kind != Kind::Nested) {
                let (new, used) = element_calls(&body, &p.name);
                if used {
                    body = new;
                    helpers.push(format!(
                        "    fn {0}_at(&self, i: usize) -> {1} {{\n        self.{0}[i]\n    }}\n",
                        p.name, self.ty
                    ));
                }
            }
        }
        let mut out = vec![format!("pub struct {ty} {{\n{}\n}}", fields.join("\n"))];
        out.push("#[differentiable]".to_owned());
        out.push(format!("impl {ty} {{"));
        out.extend(helpers);
        out.push(indent(
            &body.lines().map(str::to_owned).collect::<Vec<_>>(),
            "    ",
        ));
        out.push("}".to_owned());
        out
    }

    /// The struct of a method's `self` (`F0012Data`).
    fn self_type(&self) -> String {
        format!("F{}Data", &self.name[1..])
    }

    /// Forward mode is checked (`jvp`/`hvp` in the attribute).
    fn has_modes(&self) -> bool {
        self.opts.modes
    }

    /// `NAME_hvp` exists: a scalar `f64` value.
    fn has_hvp(&self) -> bool {
        self.ty == "f64" && matches!(&self.out, Out::Value(s) if s.is_empty())
    }

    fn param_type(&self, p: &Param) -> String {
        let ty = self.ty;
        match p.style {
            Style::Plain(kind) => self.plain_type(kind, &p.shape),
            _ if p.shape.is_empty() => ty.to_owned(),
            Style::Ref => format!("&{}", array_type(&p.shape, ty)),
            Style::Owned => array_type(&p.shape, ty),
            _ => format!("ArrayView{}<{ty}>", p.shape.len()),
        }
    }

    fn signature(&self) -> String {
        let mut ps: Vec<String> = self
            .params
            .iter()
            .filter(|p| !self.fields.contains(&p.name))
            .map(|p| format!("{}: {}", p.name, self.param_type(p)))
            .collect();
        if !self.fields.is_empty() {
            ps.insert(0, "&self".to_owned());
        }
        if self.uses_labels.is_some() {
            ps.push("labels: &[usize]".into());
        }
        if self.uses_ws.is_some() {
            ps.push(format!("ws: &[{}]", self.ty));
        }
        if self.uses_int.is_some() {
            ps.push("k0: usize".into());
        }
        let ret = match &self.out {
            Out::Tuple(cs) => {
                let tys: Vec<String> = cs.iter().map(|(s, _)| array_type(s, self.ty)).collect();
                format!("({})", tys.join(", "))
            }
            Out::Value(s) => array_type(s, self.ty),
            Out::Plain(kind, n) => self.plain_type(*kind, &[*n]),
        };
        format!("fn {}({}) -> {ret}", self.name, ps.join(", "))
    }

    /// Now and then, the names of the parameters and some locals replaced
    /// by those the generated code uses itself.
    fn rename(&mut self, text: &str) -> String {
        if self.rng.chance(0.8) {
            return text.to_owned();
        }
        let mut locals: Vec<&str> = words(text).filter(|w| numbered(w, 't')).collect();
        locals.sort_by_key(|w| w[1..].parse::<u64>().unwrap_or(0));
        locals.dedup();
        let mut ppool = vec![
            "d_out", "grad", "out", "d_t1", "x", "w", "d_p0", "y_1", "d_x",
        ];
        let mut lpool = vec![
            "d_out_1",
            "out",
            "x",
            "d_x",
            "x_from_out",
            "out_1",
            "unused",
            "grad_1",
            "d_out",
            "t1_from_t2",
            "d_d_x",
        ];
        if self.opts.raw_idents {
            ppool.extend(["r#type", "r#fn"]);
            lpool.push("r#loop");
        }
        self.rng.shuffle(&mut ppool);
        self.rng.shuffle(&mut lpool);
        let mut mapping: BTreeMap<String, String> = BTreeMap::new();
        for (p, new) in self.params.iter().zip(&ppool) {
            mapping.insert(p.name.clone(), (*new).to_owned());
        }
        lpool.retain(|n| !mapping.values().any(|v| v == n));
        for (name, new) in locals.iter().zip(&lpool) {
            if self.rng.chance(0.7) {
                mapping.insert((*name).to_owned(), (*new).to_owned());
            }
        }
        replace_words(text, |w| mapping.get(w).cloned())
    }

    /// `let NAME: ArrayN<f64> = random((..), &mut s);` (or a scalar).
    fn random_line(&self, name: &str, shape: &[usize]) -> String {
        let (ty, sfx) = (self.ty, if self.ty == "f32" { "32" } else { "" });
        match shape.len() {
            0 => format!("    let {name} = scalar{sfx}(&mut s);"),
            1 => format!(
                "    let {name}: Array1<{ty}> = random{sfx}({}, &mut s);",
                shape[0]
            ),
            _ => format!(
                "    let {name}: Array2<{ty}> = random{sfx}(({}, {}), &mut s);",
                shape[0], shape[1]
            ),
        }
    }

    /// Random values of `p`'s type, bound to `name`.
    fn param_line(&self, p: &Param, name: &str) -> String {
        match p.style {
            Style::Plain(kind) => self.plain_random_line(name, kind, &p.shape),
            _ => self.random_line(name, &p.shape),
        }
    }

    /// The arguments of a call in the test: in a closure over the
    /// differentiable parameters (`closure`), or of the test's own values.
    fn test_args(&self, closure: bool) -> Vec<String> {
        let mut args: Vec<String> = self
            .params
            .iter()
            .filter(|p| !self.fields.contains(&p.name))
            .map(|p| match p.style {
                Style::Plain(kind) => Self::plain_arg(&p.name, kind, closure && p.diff),
                _ if p.shape.is_empty() && closure && p.diff => format!("*{}", p.name),
                _ if p.shape.is_empty() => p.name.clone(),
                Style::Ref if closure && p.diff => p.name.clone(),
                Style::Ref => format!("&{}", p.name),
                Style::Owned => format!("{}.clone()", p.name),
                _ => format!("{}.view()", p.name),
            })
            .collect();
        if self.uses_labels.is_some() {
            args.push("labels".into());
        }
        if self.uses_ws.is_some() {
            args.push("ws".into());
        }
        if self.uses_int.is_some() {
            args.push("k0".into());
        }
        args
    }

    /// The test of the program.
    fn render_test(&mut self) -> String {
        let seed = self.rng.between(1, (1 << 31) - 1);
        let mut lines = vec![
            "#[test]".to_owned(),
            format!("fn {}_gradcheck() {{", self.name),
            format!("    let mut s = {seed}u64;"),
        ];
        for p in &self.params {
            lines.push(self.param_line(p, &p.name));
        }
        if let Some((rows, classes)) = self.uses_labels {
            let labels: Vec<String> = (0..rows)
                .map(|_| self.rng.below(classes).to_string())
                .collect();
            lines.push(format!(
                "    let labels: &[usize] = &[{}];",
                labels.join(", ")
            ));
        }
        if let Some(ws) = &self.uses_ws {
            let ws: Vec<String> = ws.iter().map(|w| format!("{w:?}")).collect();
            lines.push(format!(
                "    let ws: &[{}] = &[{}];",
                self.ty,
                ws.join(", ")
            ));
        }
        if let Some(k) = self.uses_int {
            lines.push(format!("    let k0: usize = {k};"));
        }
        // The inputs are opaque to the optimizer: in a release build, LLVM
        // would otherwise fold the original function's libm calls on these
        // constants (computing `f32` ones in `f64`), and its value would
        // differ in the last bit from what the same code computes at run
        // time.
        let names: Vec<&str> = self.params.iter().map(|p| p.name.as_str()).collect();
        lines.push(format!(
            "    let ({0},) = std::hint::black_box(({0},));",
            names.join(", ")
        ));
        let up = self.upstream(&mut lines);
        let name = &if self.fields.is_empty() {
            self.name.clone()
        } else {
            // A method: called on its struct, made of the data.
            let inits: Vec<String> = self
                .fields
                .iter()
                .map(|f| format!("{f}: {f}.clone()"))
                .collect();
            lines.push(format!(
                "    let this = {} {{ {} }};",
                self.self_type(),
                inits.join(", ")
            ));
            format!("this.{}", self.name)
        };
        let plain = self.test_args(false).join(", ");
        lines.push(format!(
            "    let (value, grads) = {name}_backward({plain}, {up});"
        ));
        lines.push(format!("    assert_eq!(value, {name}({plain}));"));
        for p in self.params.iter().filter(|p| p.diff && !p.shape.is_empty()) {
            // Every gradient has its parameter's shape (unbroadcast, zeros).
            let query = if matches!(p.style, Style::Plain(_)) {
                "len"
            } else {
                "shape"
            };
            lines.push(format!(
                "    assert_eq!(grads.{0}.{query}(), {0}.{query}());",
                p.name
            ));
        }
        let diff: Vec<&Param> = self.params.iter().filter(|p| p.diff).collect();
        let tup = tuple(diff.iter().map(|p| {
            if p.shape.is_empty() {
                p.name.clone()
            } else {
                format!("{}.clone()", p.name)
            }
        }));
        let pat = tuple(diff.iter().map(|p| p.name.clone()));
        let call = format!("{name}_backward({}, {up})", self.test_args(true).join(", "));
        let loose = self.ty == "f32";
        match &self.out {
            Out::Value(s) if s.is_empty() && !loose => {
                lines.push(format!(
                    "    gradcheck(&({tup}), |({pat})| {call}).unwrap();"
                ));
            }
            out => {
                lines.push("    GradCheck::new()".into());
                if loose {
                    // Central differences in single precision (eps 1e-3) are
                    // only accurate to a few percent on these compositions:
                    // the same programs pass the default tolerances in f64.
                    lines.push("        .rtol(0.1)".into());
                    lines.push("        .atol(1e-2)".into());
                }
                match out {
                    Out::Tuple(_) => lines.push(format!("        .upstream(&{up})")),
                    Out::Value(s) if s.is_empty() => {}
                    Out::Value(_) | Out::Plain(..) => lines.push("        .upstream(&up)".into()),
                }
                lines.push(format!("        .check(&({tup}), |({pat})| {call})"));
                lines.push("        .unwrap();".into());
            }
        }
        if self.has_modes() {
            self.render_modes(&mut lines, &tup, &pat, &up);
        }
        lines.push("}".into());
        lines.join("\n")
    }

    /// The upstream gradient of the test (declaring random arrays first):
    /// `1.0` for a scalar, `&up` for an array, one per component of a tuple
    /// (distinct scalars, random arrays).
    fn upstream(&self, lines: &mut Vec<String>) -> String {
        match &self.out {
            Out::Tuple(cs) => {
                let mut ups = Vec::new();
                for (k, (shape, _)) in cs.iter().enumerate() {
                    if shape.is_empty() {
                        ups.push(["1.0", "0.5", "-0.75"][k].to_owned());
                    } else {
                        lines.push(self.random_line(&format!("up{k}"), shape));
                        ups.push(format!("&up{k}"));
                    }
                }
                format!("({})", ups.join(", "))
            }
            Out::Value(s) if s.is_empty() => "1.0".into(),
            Out::Value(s) => {
                lines.push(self.random_line("up", s));
                "&up".into()
            }
            Out::Plain(kind, n) => {
                lines.push(self.plain_random_line("up", *kind, &[*n]));
                "&up".into()
            }
        }
    }

    /// Forward mode against reverse mode (`NAME_jvp` against the gradient
    /// dotted with a random direction), and `NAME_hvp` against central
    /// differences of the gradient.
    fn render_modes(&self, lines: &mut Vec<String>, tup: &str, pat: &str, up: &str) {
        let diff: Vec<&Param> = self.params.iter().filter(|p| p.diff).collect();
        for p in &diff {
            lines.push(self.param_line(p, &format!("v_{}", p.name)));
        }
        let dtup = tuple(diff.iter().map(|p| {
            if p.shape.is_empty() {
                format!("v_{}", p.name)
            } else {
                format!("v_{}.clone()", p.name)
            }
        }));
        let dpat = tuple(diff.iter().map(|p| format!("v_{}", p.name)));
        let targs = diff.iter().map(|p| match p.style {
            Style::Plain(kind) => Self::plain_arg(&format!("v_{}", p.name), kind, true),
            _ if p.shape.is_empty() => format!("*v_{}", p.name),
            Style::Ref => format!("v_{}", p.name),
            Style::Owned => format!("v_{}.clone()", p.name),
            _ => format!("v_{}.view()", p.name),
        });
        let closure_args = self.test_args(true);
        let call: Vec<String> = closure_args.iter().cloned().chain(targs).collect();
        let name = &if self.fields.is_empty() {
            self.name.clone()
        } else {
            format!("this.{}", self.name)
        };
        let (call, args) = (call.join(", "), closure_args.join(", "));
        let check = match &self.out {
            Out::Value(s) if s.is_empty() => "GradCheck::new()".to_owned(),
            _ => format!("GradCheck::new().upstream(&{up})"),
        };
        lines.push(format!(
            "    {check}.check_jvp(&({tup}), &({dtup}), |({pat})| {name}_backward({args}, {up}), |({pat}), ({dpat})| {name}_jvp({call})).unwrap();"
        ));
        if self.has_hvp() {
            lines.push(format!("    hvpcheck(&({tup}), &({dtup}), |({pat}), ({dpat})| {name}_hvp({call})).unwrap();"));
        }
    }
}

/// The items joined by `, `, with a trailing comma for one (a 1-tuple).
fn tuple(items: impl Iterator<Item = String>) -> String {
    let items: Vec<String> = items.collect();
    let mut s = items.join(", ");
    if items.len() == 1 {
        s.push(',');
    }
    s
}

/// `self.{field}[e]` read as `self.{field}_at(e)` where `e` is an index
/// (not a range, not followed by a second index); and whether any was.
fn element_calls(text: &str, field: &str) -> (String, bool) {
    let head = format!("self.{field}[");
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    let mut used = false;
    while let Some(at) = rest.find(&head) {
        out.push_str(&rest[..at]);
        let inner = &rest[at + head.len()..];
        // The `]` that closes this index.
        let mut depth = 0;
        let close = inner.char_indices().find_map(|(k, c)| match c {
            '[' => {
                depth += 1;
                None
            }
            ']' if depth == 0 => Some(k),
            ']' => {
                depth -= 1;
                None
            }
            _ => None,
        });
        match close {
            Some(k) if !inner[..k].contains("..") && !inner[k + 1..].starts_with('[') => {
                out.push_str(&format!("self.{field}_at({})", &inner[..k]));
                rest = &inner[k + 1..];
                used = true;
            }
            _ => {
                out.push_str(&head);
                rest = inner;
            }
        }
    }
    out.push_str(rest);
    (out, used)
}
