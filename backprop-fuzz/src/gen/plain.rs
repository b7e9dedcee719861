//! Plain Rust data and named constants.
//!
//! Containers: parameters `&[f64]`, `&Vec<f64>`, `Vec<f64>`, `[f64; N]`,
//! `&[f64; N]` and `[[f64; C]; R]` (now and then constant data outside
//! `wrt(..)`), and locals made in the body (`[a, b]`, `vec![a, b]`, `[0.0;
//! n]` or `vec![0.0; n]` written by index, in a loop too). They are read by
//! index (`x[1]`, `x[x.len() - 1]`, `m[i][j]`), and by the walks of a slice:
//! `iter().sum`, `iter().map(..).sum`, `zip`, `windows`, `chunks`,
//! `enumerate`, `fold`, `product`, sub-slices, and `for` loops over the
//! elements or the indices; a program may return one. Containers are kept
//! apart from the array operands ([`Program::plain`]): the rest of the
//! generator never sees them.
//!
//! Named constants: `PI`, `E`, `LN_2` and others imported, paths
//! (`std::f64::consts::SQRT_2`), the program's own `const` and `static`,
//! and `f64::EPSILON`, on either side of an operator and bound to a local
//! (`let c1: f64 = PI;`).

use super::program::{Out, Param, Program, Style};
use super::value::{indent, V};

/// How a container is spelled: a parameter's type, or a local's making.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Kind {
    /// `&[f64]`.
    Slice,
    /// `&Vec<f64>`.
    VecRef,
    /// `Vec<f64>`, by value.
    VecOwned,
    /// `[f64; N]`, by value.
    Fixed,
    /// `&[f64; N]`.
    FixedRef,
    /// `[[f64; C]; R]`, by value.
    Nested,
    /// A local `[f64; N]`.
    LocalFixed,
    /// A local `Vec<f64>`.
    LocalVec,
}

/// A container the program may read.
#[derive(Clone, Debug)]
pub struct Container {
    pub name: String,
    pub kind: Kind,
    /// The number of elements (of rows, for [`Kind::Nested`]).
    pub len: usize,
    /// The number of columns of [`Kind::Nested`].
    pub cols: usize,
    /// A bound on the magnitude of its elements.
    pub bound: f64,
    /// Data outside `wrt(..)`: read by Rust's other slice methods too.
    pub constant: bool,
}

impl Container {
    /// As the receiver of `.iter()`, `.windows(..)`, `[k]`, ...
    fn recv(&self) -> &str {
        &self.name
    }
}

/// The named constants of `f64` programs: code and value.
const NAMED_F64: &[(&str, f64)] = &[
    ("PI", std::f64::consts::PI),
    ("E", std::f64::consts::E),
    ("LN_2", std::f64::consts::LN_2),
    ("FRAC_PI_4", std::f64::consts::FRAC_PI_4),
    ("FRAC_1_SQRT_2", std::f64::consts::FRAC_1_SQRT_2),
    ("std::f64::consts::SQRT_2", std::f64::consts::SQRT_2),
    ("std::f64::consts::LN_10", std::f64::consts::LN_10),
];

/// Those of `f32` programs (the imports are `f64`'s: paths).
const NAMED_F32: &[(&str, f64)] = &[
    ("std::f32::consts::PI", std::f64::consts::PI),
    ("std::f32::consts::E", std::f64::consts::E),
    ("core::f32::consts::LN_2", std::f64::consts::LN_2),
];

/// The values of the program's own constants.
const OWN_VALUES: &[&str] = &["0.37", "1.25", "0.8", "2.5"];

impl Program<'_> {
    /// One or two container parameters, now and then constant data.
    pub fn plain_params(&mut self) {
        for k in 0..self.rng.between(1, 2) {
            let kind = [
                Kind::Slice,
                Kind::VecRef,
                Kind::VecOwned,
                Kind::Fixed,
                Kind::FixedRef,
                Kind::Nested,
            ][self.rng.weighted(&[4.0, 1.0, 1.0, 3.0, 1.0, 1.0])];
            let name = format!("q{k}");
            let (len, cols) = if kind == Kind::Nested {
                (self.rng.between(1, 3), self.rng.between(1, 3))
            } else {
                (self.rng.between(1, 4), 0)
            };
            // Data outside `wrt(..)`: not a whole matrix (rejected under
            // second order as `&[[f64; N]]` is).
            let diff = kind == Kind::Nested || self.rng.chance(0.75);
            let mut kind = kind;
            if !diff {
                self.uses_constant = true;
                if self.rng.chance(0.5) {
                    // A field of `self`, owned: the program is a method.
                    kind = if matches!(kind, Kind::Fixed | Kind::FixedRef) {
                        Kind::Fixed
                    } else {
                        Kind::VecOwned
                    };
                    self.fields.push(name.clone());
                    self.count("plain_field");
                }
            }
            let shape = if cols > 0 { vec![len, cols] } else { vec![len] };
            self.params.push(Param {
                name: name.clone(),
                shape,
                style: Style::Plain(kind),
                diff,
            });
            self.plain.push(Container {
                name,
                kind,
                len,
                cols,
                bound: 1.0,
                constant: !diff,
            });
            self.count(&format!("plain_param_{kind:?}"));
        }
    }

    /// A parameter's type, for a container.
    pub fn plain_type(&self, kind: Kind, shape: &[usize]) -> String {
        let ty = self.ty;
        match kind {
            Kind::Slice => format!("&[{ty}]"),
            Kind::VecRef => format!("&Vec<{ty}>"),
            Kind::VecOwned | Kind::LocalVec => format!("Vec<{ty}>"),
            Kind::Fixed | Kind::LocalFixed => format!("[{ty}; {}]", shape[0]),
            Kind::FixedRef => format!("&[{ty}; {}]", shape[0]),
            Kind::Nested => format!("[[{ty}; {}]; {}]", shape[1], shape[0]),
        }
    }

    /// `let NAME: T = ..;` of random elements, in the test.
    pub fn plain_random_line(&self, name: &str, kind: Kind, shape: &[usize]) -> String {
        let (ty, sfx) = (self.ty, if self.ty == "f32" { "32" } else { "" });
        match kind {
            Kind::Slice | Kind::VecRef | Kind::VecOwned | Kind::LocalVec => format!(
                "    let {name}: Vec<{ty}> = (0..{}).map(|_| scalar{sfx}(&mut s)).collect();",
                shape[0]
            ),
            Kind::Fixed | Kind::FixedRef | Kind::LocalFixed => format!(
                "    let {name}: [{ty}; {}] = std::array::from_fn(|_| scalar{sfx}(&mut s));",
                shape[0]
            ),
            Kind::Nested => format!(
                "    let {name}: [[{ty}; {}]; {}] = \
                 std::array::from_fn(|_| std::array::from_fn(|_| scalar{sfx}(&mut s)));",
                shape[1], shape[0]
            ),
        }
    }

    /// A container argument in the test: of the test's own value, or in a
    /// closure whose pattern binds a reference to it (`by_ref`).
    pub fn plain_arg(name: &str, kind: Kind, by_ref: bool) -> String {
        match kind {
            Kind::Slice | Kind::VecRef | Kind::FixedRef if by_ref => name.to_owned(),
            Kind::Slice | Kind::VecRef | Kind::FixedRef => format!("&{name}"),
            Kind::VecOwned | Kind::LocalVec => format!("{name}.clone()"),
            _ if by_ref => format!("*{name}"),
            _ => name.to_owned(),
        }
    }

    // ---------- named constants

    /// A literal, or now and then a named constant: its code and value.
    /// `additive`: the operator is `+` or `-` (`f64::EPSILON` only there).
    pub fn lit_or_named(&mut self, additive: bool) -> (String, f64) {
        if !self.rng.chance(0.15) {
            let c = self.lit();
            return (c.to_owned(), super::value::literal(c));
        }
        self.count("named_const");
        let r = self.rng.float();
        if additive && r < 0.1 {
            return (format!("{}::EPSILON", self.ty), 0.0);
        }
        if r < 0.35 {
            return self.own_const();
        }
        let table = if self.ty == "f32" {
            NAMED_F32
        } else {
            NAMED_F64
        };
        let (code, value) = *self.rng.pick(table);
        (code.to_owned(), value)
    }

    /// A `const` or `static` of the program's own (an item before it).
    fn own_const(&mut self) -> (String, f64) {
        let text = self.rng.word(OWN_VALUES);
        let (word, tag) = if self.rng.chance(0.7) {
            ("const", "K")
        } else {
            ("static", "S")
        };
        let name = format!("{}_{tag}{}", self.name.to_uppercase(), self.items.len());
        self.items
            .push(format!("{word} {name}: {} = {text};", self.ty));
        (name, super::value::literal(text))
    }

    // ---------- reads

    /// A scalar read of a container (`None` when there is none, or inside
    /// a closure's body).
    pub fn plain_read(&mut self, depth: i32) -> Option<V> {
        if self.plain.is_empty() || self.in_closure > 0 {
            return None;
        }
        let c = self.rng.pick(&self.plain).clone();
        let (ty, x, n, b) = (self.ty, c.recv().to_owned(), c.len, c.bound);
        let nf = n as f64;
        if c.kind == Kind::Nested {
            self.count("plain_read_nested");
            let (i, j) = (self.rng.below(c.len), self.rng.below(c.cols));
            return Some(V::scalar_expr(format!("{x}[{i}][{j}]"), b));
        }
        let iter = self.iter_of(&c);
        let mut forms = vec![
            "index",
            "last",
            "sum",
            "map",
            "map",
            "zip",
            "windows",
            "chunks",
            "fold",
            "enumerate",
            "len",
        ];
        if n >= 2 {
            forms.push("sub");
        }
        if b <= 1.5 {
            forms.push("product");
        }
        if c.constant {
            forms.extend(["first", "to_vec", "chunks_exact"]);
        }
        let form = self.rng.word(&forms);
        self.count(&format!("plain_read_{form}"));
        let v = match form {
            "index" => V::scalar_expr(format!("{x}[{}]", self.rng.below(n)), b),
            "last" => V::scalar_expr(format!("{x}[{x}.len() - 1]"), b),
            "sum" => V::scalar_expr(format!("{iter}.sum::<{ty}>()"), b * nf),
            "map" => {
                let (pat, e) = if self.rng.chance(0.5) {
                    ("&v", "v")
                } else {
                    ("v", "*v")
                };
                let body = self.closure_body(&[V::scalar_expr(e, b)], depth);
                V::scalar_expr(
                    format!("{iter}.map(|{pat}| {}).sum::<{ty}>()", body.code),
                    body.bound * nf,
                )
            }
            "zip" => {
                let other = self.rng.pick(&self.plain).clone();
                if other.kind == Kind::Nested {
                    return Some(V::scalar_expr(format!("{x}[0]"), b));
                }
                let partner = self.zip_arg(&other);
                let (pat, ea, eb) = if self.rng.chance(0.5) {
                    ("(&a, &b)", "a", "b")
                } else {
                    ("(a, b)", "*a", "*b")
                };
                let body = self.closure_body(
                    &[V::scalar_expr(ea, b), V::scalar_expr(eb, other.bound)],
                    depth,
                );
                V::scalar_expr(
                    format!(
                        "{iter}.zip({partner}).map(|{pat}| {}).sum::<{ty}>()",
                        body.code
                    ),
                    body.bound * nf.min(other.len as f64),
                )
            }
            "windows" => {
                if self.rng.chance(0.5) {
                    V::scalar_expr(
                        format!("{x}.windows(2).map(|win| win[1] - win[0]).sum::<{ty}>()"),
                        2.0 * b * nf,
                    )
                } else {
                    V::scalar_expr(
                        format!("{x}.windows(2).map(|win| win[0] * win[1]).sum::<{ty}>()"),
                        b * b * nf,
                    )
                }
            }
            "chunks" => {
                let k = self.rng.between(1, 3);
                let last = if self.rng.chance(0.5) {
                    "ch[0]"
                } else {
                    "ch[ch.len() - 1]"
                };
                V::scalar_expr(
                    format!("{x}.chunks({k}).map(|ch| {last} * 0.5).sum::<{ty}>()"),
                    b * nf,
                )
            }
            "fold" => {
                let init = match self.leaf(|v| v.scalar()) {
                    Some(s) if s.bound <= 3.0 && self.rng.chance(0.5) => s,
                    _ => V::scalar_expr(self.float_lit("0.0"), 0.0),
                };
                let body = self.closure_body(&[V::scalar_expr("v", b)], depth);
                V::scalar_expr(
                    format!(
                        "{iter}.fold({}, |acc, &v| acc * 0.5 + {})",
                        init.code,
                        body.atom()
                    ),
                    init.bound + 2.0 * body.bound,
                )
            }
            "enumerate" => V::scalar_expr(
                format!("{iter}.enumerate().map(|(i, &v)| v * (i as {ty} + 1.0)).sum::<{ty}>()"),
                b * nf * (nf + 1.0) / 2.0,
            ),
            "product" => V::scalar_expr(format!("{iter}.product::<{ty}>()"), b.powi(n as i32)),
            "first" => V::scalar_expr(
                format!("({x}.first().unwrap() + {x}.last().unwrap())"),
                2.0 * b,
            ),
            "to_vec" => V::scalar_expr(format!("{x}.to_vec().iter().sum::<{ty}>()"), b * nf),
            "chunks_exact" => V::scalar_expr(
                format!("{x}.chunks_exact(1).map(|ch| ch[0] * 0.5).sum::<{ty}>()"),
                b * nf,
            ),
            "sub" => V::scalar_expr(format!("{x}[1..].iter().sum::<{ty}>()"), b * (nf - 1.0)),
            _ => V::scalar_expr(format!("({x}.len() as {ty})"), nf),
        };
        Some(v)
    }

    /// `x.iter()` (or, for a slice, the slice itself in a `for`).
    fn iter_of(&mut self, c: &Container) -> String {
        format!("{}.iter()", c.recv())
    }

    /// The argument of `zip`, or what a `for` walks: anything that iterates
    /// over `&f64` (`&x` of an owned container, a reference as it is).
    fn zip_arg(&mut self, c: &Container) -> String {
        let x = c.recv();
        let by_ref = matches!(c.kind, Kind::Slice | Kind::VecRef | Kind::FixedRef);
        match by_ref {
            true if self.rng.chance(0.5) => x.to_owned(),
            false if self.rng.chance(0.3) => format!("&{x}"),
            _ => format!("{x}.iter()"),
        }
    }

    // ---------- statements

    /// A statement over containers: a loop accumulating their elements, or
    /// a local container (made of scalars, or of zeros written by index).
    pub fn plain_stmt(&mut self, depth: i32) -> bool {
        if self.region > 0 || self.in_closure > 0 {
            return false;
        }
        if !self.plain.is_empty() && self.rng.chance(0.45) {
            return self.plain_loop(depth);
        }
        if self.rng.chance(0.5) {
            self.plain_local(depth)
        } else {
            self.plain_written(depth)
        }
    }

    /// `let mut tN = 0.0; for &v in x { tN += ..; }`, over the elements or
    /// the indices (`x[i]`, and `y[i]` of another as long).
    fn plain_loop(&mut self, depth: i32) -> bool {
        let flat: Vec<Container> = self
            .plain
            .iter()
            .filter(|c| c.kind != Kind::Nested)
            .cloned()
            .collect();
        if flat.is_empty() {
            return false;
        }
        let c = self.rng.pick(&flat).clone();
        let (ty, x) = (self.ty, c.recv().to_owned());
        let r = self.rng.float();
        let (head, mut extra) = if r < 0.4 {
            let src = self.zip_arg(&c);
            self.count("plain_for_elements");
            (
                format!("for &el in {src}"),
                vec![V::scalar_expr("el", c.bound)],
            )
        } else if r < 0.55 {
            // Pairs: a sum through nested loops.
            self.count("plain_for_pairs");
            (
                format!("for i in 0..{x}.len() {{\n    for j in i..{x}.len()"),
                vec![
                    V::scalar_expr(format!("{x}[i]"), c.bound),
                    V::scalar_expr(format!("{x}[j]"), c.bound),
                ],
            )
        } else if r < 0.62 {
            // A `while` loop whose condition reads the sum, never false.
            self.count("plain_while");
            (
                format!("let mut i = 0;\nwhile i < {x}.len() && {{name_slot}}.abs() < 1e30"),
                vec![V::scalar_expr(format!("{x}[i]"), c.bound)],
            )
        } else if r < 0.75 {
            self.count("plain_for_indices");
            (
                format!("for i in 0..{x}.len()"),
                vec![V::scalar_expr(format!("{x}[i]"), c.bound)],
            )
        } else {
            self.count("plain_for_enumerate");
            (
                format!("for (i, v) in {x}.iter().enumerate()"),
                vec![V::scalar_expr(
                    format!("*v * (i as {ty} * 0.5 + 1.0)"),
                    c.bound * (c.len as f64 * 0.5 + 1.0),
                )],
            )
        };
        let pairs = head.contains("for j");
        let counted = head.contains("while");
        if head.starts_with("for i") && !pairs {
            // Another container at least as long, read at the same index.
            let others: Vec<Container> = flat
                .iter()
                .filter(|o| o.len >= c.len && o.name != c.name)
                .cloned()
                .collect();
            if let Some(o) = others.first() {
                extra.push(V::scalar_expr(format!("{}[i]", o.recv()), o.bound));
            }
        }
        let name = self.fresh();
        let head = head.replace("{name_slot}", &name);
        let body = self.in_region(|p| p.scalar_of((depth - 1).max(1), &extra));
        let op = self.rng.word(&["+=", "+=", "-="]);
        let body_code = if body.code.contains('\n') {
            body.code.replace('\n', "\n    ")
        } else {
            body.code.clone()
        };
        let mut step = vec![format!("{name} {op} {body_code};")];
        if counted {
            step.push("i += 1;".to_owned());
        }
        let (close, terms) = if pairs {
            ("\n    }", c.len * (c.len + 1) / 2)
        } else {
            ("", c.len)
        };
        let pad = if pairs { "        " } else { "    " };
        // `let mut tN = ` first: assignments find their local's `let` so.
        self.stmts.push(format!(
            "let mut {name} = {};\n{head} {{\n{}{close}\n}}",
            self.float_lit("0.0"),
            indent(&step, pad)
        ));
        self.let_index.insert(name.clone(), self.stmts.len() - 1);
        self.env
            .push(V::scalar_expr(name, body.bound * terms as f64));
        true
    }

    /// `let tN = [a, b];` or `vec![a, b, c]` of scalar expressions.
    fn plain_local(&mut self, depth: i32) -> bool {
        let n = self.rng.between(1, 3);
        let mut elems = Vec::new();
        let mut bound: f64 = 0.0;
        for _ in 0..n {
            let e = self.scalar_of(depth, &[]);
            bound = bound.max(e.bound);
            elems.push(self.typed_element(e.code));
        }
        let vec = self.rng.chance(0.4);
        let name = self.fresh();
        let code = if vec {
            format!("vec![{}]", elems.join(", "))
        } else {
            format!("[{}]", elems.join(", "))
        };
        self.stmts.push(format!("let {name} = {code};"));
        self.count(if vec {
            "plain_local_vec"
        } else {
            "plain_local_array"
        });
        self.plain.push(Container {
            name,
            kind: if vec {
                Kind::LocalVec
            } else {
                Kind::LocalFixed
            },
            len: n,
            cols: 0,
            bound,
            constant: false,
        });
        true
    }

    /// `let mut tN = [0.0; n];` (or `vec![0.0; n]`), elements written by
    /// index: one by one, or in a loop.
    fn plain_written(&mut self, depth: i32) -> bool {
        let n = self.rng.between(1, 4);
        let vec = self.rng.chance(0.4);
        let (ty, name) = (self.ty, self.fresh());
        let make = match (vec, self.rng.chance(0.5)) {
            (true, true) => format!("let mut {name}: Vec<{ty}> = vec![0.0; {n}];"),
            (true, false) => format!("let mut {name} = vec![0.0; {n}];"),
            (false, true) => format!("let mut {name}: [{ty}; {n}] = [0.0; {n}];"),
            (false, false) => format!("let mut {name} = [{}; {n}];", self.float_lit("0.0")),
        };
        let mut lines = vec![make];
        let mut bound: f64 = 0.0;
        if self.rng.chance(0.4) {
            // In a loop, each element from the index and a scalar.
            let long: Vec<Container> = self
                .plain
                .iter()
                .filter(|c| c.kind != Kind::Nested && c.len >= n)
                .cloned()
                .collect();
            let mut extra = Vec::new();
            if let Some(c) = long.first() {
                extra.push(V::scalar_expr(format!("{}[i]", c.recv()), c.bound));
            }
            let e = self.in_region(|p| p.scalar_of((depth - 1).max(1), &extra));
            let e_code = e.code.replace('\n', "\n    ");
            lines.push(format!(
                "for i in 0..{n} {{\n    {name}[i] = {} * (i as {ty} + 1.0);\n}}",
                V::scalar_expr(e_code, e.bound).atom()
            ));
            bound = e.bound * n as f64;
            self.count("plain_written_loop");
        } else {
            for _ in 0..self.rng.between(1, 3) {
                let i = self.rng.below(n);
                let e = self.scalar_of(depth, &[]);
                let op = self.rng.word(&["=", "+=", "*="]);
                bound = match op {
                    "=" => bound.max(e.bound),
                    "+=" => bound + e.bound,
                    _ => bound * e.bound,
                };
                lines.push(format!("{name}[{i}] {op} {};", e.code));
            }
            self.count("plain_written");
        }
        self.stmts.push(lines.join("\n"));
        self.plain.push(Container {
            name,
            kind: if vec {
                Kind::LocalVec
            } else {
                Kind::LocalFixed
            },
            len: n,
            cols: 0,
            bound: bound.max(1e-3),
            constant: false,
        });
        true
    }

    /// An element of a container literal as code the macro knows to be a
    /// float: a scalar parameter, or bound first with its type (`let t4:
    /// f64 = t2.dot(&t2);`, as the macro's error message asks where it does
    /// not know).
    fn typed_element(&mut self, code: String) -> String {
        if self
            .params
            .iter()
            .any(|p| p.name == code && p.style == Style::Val)
        {
            return code;
        }
        let name = self.fresh();
        self.stmts
            .push(format!("let {name}: {} = {code};", self.ty));
        name
    }

    // ---------- output

    /// Now and then the output is a container: a local returned by name,
    /// or one made of scalars (`vec![a, b]`, `[a, b]`).
    pub fn plain_output(&mut self) -> Option<String> {
        if self.has_return || !self.rng.chance(0.12) {
            return None;
        }
        let locals: Vec<Container> = self
            .plain
            .iter()
            .filter(|c| matches!(c.kind, Kind::LocalFixed | Kind::LocalVec))
            .cloned()
            .collect();
        if !locals.is_empty() && self.rng.chance(0.5) {
            let c = self.rng.pick(&locals).clone();
            if c.bound <= super::value::LIMIT * 4.0 {
                self.out = Out::Plain(c.kind, c.len);
                self.out_bound = c.bound;
                self.count("plain_output_local");
                return Some(c.name);
            }
        }
        let n = self.rng.between(1, 3);
        let mut elems = Vec::new();
        let mut bound: f64 = 0.0;
        for _ in 0..n {
            let v = self.rng.pick(&self.env).clone();
            let (code, b) = self.scalarize(&v);
            elems.push(self.typed_element(code));
            bound = bound.max(b);
        }
        let vec = self.rng.chance(0.5);
        self.out = Out::Plain(
            if vec {
                Kind::LocalVec
            } else {
                Kind::LocalFixed
            },
            n,
        );
        self.out_bound = bound;
        self.count("plain_output_made");
        Some(if vec {
            format!("vec![{}]", elems.join(", "))
        } else {
            format!("[{}]", elems.join(", "))
        })
    }
}
