//! Programs over statically sized nalgebra values: vectors, matrices and
//! points of the sizes robotics code uses (`Vector2`..`Vector4`,
//! `SVector<f64, 3>`, `Matrix2`, `Matrix3`, `Matrix2x3`, `SMatrix<f64, 3,
//! 2>`, `Point3`), with floats beside them. Each program binds a few
//! locals, made by the operators (`+ - *`, matrix and scalar products),
//! nalgebra's methods (`dot`, `cross`, `norm`, `normalize`, `transpose`,
//! `component_mul`, `map`, `sum`, `determinant`, `column`, `scale`, fields
//! and indices), constructors, rotations from an axis-angle (`Rotation3`,
//! `UnitQuaternion`), loops carrying a vector, branches whose arms are
//! vectors and writes into a local's elements; its value is a float or a
//! vector. Its test compares the value with the original's bit for bit,
//! gradchecks the backward, and checks forward mode against reverse mode
//! and the `hvp` against differences of the gradient.
//!
//! Values are kept bounded (a `map(|x| x.tanh())` where a bound grows), and
//! a norm is taken of a vector moved away from zero (`v + Vector3::repeat(c)`
//! with `c` above the bound), so that every program is smooth where its
//! test evaluates it.

use super::rng::Rng;
use super::stats::Stats;

/// The kind of a value.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum K {
    S,
    /// A column vector of this length.
    V(usize),
    /// A matrix of rows and columns (not a vector).
    M(usize, usize),
    /// A 3-point.
    P,
}

impl K {
    fn ty(self, t: &str, rng: &mut Rng) -> String {
        match self {
            K::S => t.to_string(),
            K::V(3) if rng.chance(0.3) => format!("SVector<{t}, 3>"),
            K::V(n) => format!("Vector{n}<{t}>"),
            K::M(r, c) if r == c => format!("Matrix{r}<{t}>"),
            K::M(2, 3) => format!("Matrix2x3<{t}>"),
            K::M(r, c) => format!("SMatrix<{t}, {r}, {c}>"),
            K::P => format!("Point3<{t}>"),
        }
    }

    fn len(self) -> usize {
        match self {
            K::S => 1,
            K::V(n) => n,
            K::M(r, c) => r * c,
            K::P => 3,
        }
    }

    /// The constructor's name (`Vector3`), for `::new`, `::repeat`.
    fn ctor(self, t: &str) -> String {
        match self {
            K::V(n) => format!("Vector{n}"),
            K::M(r, c) if r == c => format!("Matrix{r}"),
            K::M(2, 3) => "Matrix2x3".to_string(),
            K::M(r, c) => format!("SMatrix::<{t}, {r}, {c}>"),
            K::P => "Point3".to_string(),
            K::S => unreachable!("a float has no constructor"),
        }
    }
}

/// A value: its code (a name, or an expression) and a bound on the
/// magnitude of its elements.
#[derive(Clone, Debug)]
struct Val {
    code: String,
    k: K,
    bound: f64,
}

/// A parameter: its name, kind, and whether it is differentiated.
struct Param {
    name: String,
    k: K,
    diff: bool,
    ty: String,
}

struct Gen<'a> {
    rng: &'a mut Rng,
    t: &'static str,
    /// A differentiable function of a vector of this length and a float
    /// the program may call (written before it), by name.
    helper: Option<(String, usize)>,
    /// The parameters outside `wrt(..)`, by their code (`(*p1)`).
    constants: Vec<String>,
    stmts: Vec<String>,
    env: Vec<Val>,
    next: usize,
    counts: &'a mut Stats,
}

/// One program named `name` and its test (the generator's `Rng` decides
/// everything); the counts of its constructs go into `counts`.
pub fn program(rng: &mut Rng, name: &str, counts: &mut Stats) -> String {
    let t = if rng.chance(0.1) { "f32" } else { "f64" };
    let helper = rng
        .chance(0.3)
        .then(|| (format!("{name}_helper"), *rng.pick(&[2, 3, 4])));
    let mut g = Gen {
        rng,
        t,
        helper: helper.clone(),
        constants: Vec::new(),
        stmts: Vec::new(),
        env: Vec::new(),
        next: 0,
        counts,
    };
    g.count("nalgebra_programs");
    let kinds = [
        K::V(2),
        K::V(3),
        K::V(3),
        K::V(4),
        K::M(2, 2),
        K::M(3, 3),
        K::M(2, 3),
        K::M(3, 2),
        K::P,
    ];
    let mut params = Vec::new();
    for i in 0..g.rng.between(1, 3) {
        let k = *g.rng.pick(&kinds);
        let ty = k.ty(t, g.rng);
        params.push(Param {
            name: format!("p{i}"),
            k,
            diff: true,
            ty,
        });
    }
    if g.rng.chance(0.5) {
        let i = params.len();
        params.push(Param {
            name: format!("p{i}"),
            k: K::S,
            diff: true,
            ty: t.to_string(),
        });
    }
    let constant = params.len() >= 2 && g.rng.chance(0.2);
    if constant {
        let k = g.rng.below(params.len());
        params[k].diff = false;
        g.count("nalgebra_constant");
    }
    for p in &params {
        // A nalgebra parameter is a reference: `*p0` is the value.
        let code = if p.k == K::S {
            p.name.clone()
        } else {
            format!("(*{})", p.name)
        };
        if !p.diff {
            g.constants.push(code.clone());
        }
        g.env.push(Val {
            code,
            k: p.k,
            bound: 1.0,
        });
    }
    for _ in 0..g.rng.between(1, 5) {
        g.statement();
    }
    let vector_out = g.rng.chance(0.2);
    let (out_k, tail) = if vector_out {
        let k = *g.rng.pick(&[K::V(2), K::V(3)]);
        let v = g.expr(k, 2);
        (k, v.code)
    } else {
        let a = g.expr(K::S, 2);
        let b = g.expr(K::S, 1);
        (K::S, format!("{} + {}", a.code, b.code))
    };
    let text = g.render(name, &params, out_k, &tail);
    match helper {
        Some((h, n)) => {
            g.count("nalgebra_call");
            format!(
                "#[differentiable(hvp)]\nfn {h}(a: &Vector{n}<{t}>, s: {t}) -> {t} {{\n    let u = a.map(|x| x.tanh());\n    (u.dot(&u) * s).sin() + u.x\n}}\n\n{text}"
            )
        }
        None => text,
    }
}

impl Gen<'_> {
    /// A vector parameter of the helper's length, if the program has one.
    fn helper_param(&self) -> Option<String> {
        let (_, n) = self.helper.as_ref()?;
        self.env
            .iter()
            .find(|v| {
                v.k == K::V(*n) && v.code.starts_with("(*p") && !self.constants.contains(&v.code)
            })
            .map(|v| v.code.clone())
    }

    fn count(&mut self, key: &str) {
        self.counts.add(key, 1);
    }

    fn fresh(&mut self) -> String {
        self.next += 1;
        format!("t{}", self.next)
    }

    /// A literal in [-1, 1] of the program's float type (`0.35_f64`): a
    /// value made of literals alone must have a type where a method reads it.
    fn number(&mut self) -> String {
        let x = (self.rng.float() * 2.0 - 1.0) * 0.9;
        format!("{:.2}_{}", if x.abs() < 0.05 { 0.35 } else { x }, self.t)
    }

    /// A literal of the test's data (its type is the parameter's).
    fn datum(&mut self) -> String {
        let x = (self.rng.float() * 2.0 - 1.0) * 0.9;
        format!("{:.2}", if x.abs() < 0.05 { 0.35 } else { x })
    }

    /// A value of kind `k` (bounded by 4), in parentheses unless it is a
    /// name or a literal, so that it may be an operand or a receiver.
    fn expr(&mut self, k: K, depth: usize) -> Val {
        let mut v = self.raw(k, depth);
        v.code = paren(&v.code);
        if v.bound > 4.0 {
            self.count("nalgebra_squash");
            return match k {
                K::S => Val {
                    code: format!("({}).tanh()", v.code),
                    k,
                    bound: 1.0,
                },
                _ => Val {
                    code: format!("({}).map(|x| x.tanh())", v.code),
                    k,
                    bound: 1.0,
                },
            };
        }
        v
    }

    /// A name in scope of kind `k`, if any.
    fn named(&mut self, k: K) -> Option<Val> {
        let found: Vec<Val> = self.env.iter().filter(|v| v.k == k).cloned().collect();
        (!found.is_empty()).then(|| self.rng.pick(&found).clone())
    }

    fn raw(&mut self, k: K, depth: usize) -> Val {
        if depth == 0 || self.rng.chance(0.3) {
            if let Some(v) = self.named(k) {
                return v;
            }
        }
        if depth == 0 {
            return self.leaf(k);
        }
        let d = depth - 1;
        match k {
            K::S => self.scalar(d),
            K::V(n) => self.vector(n, d),
            K::M(r, c) => self.matrix(r, c, d),
            K::P => {
                let v = self.expr(K::V(3), d);
                self.count("nalgebra_point");
                Val {
                    code: format!("Point3::from({})", v.code),
                    k,
                    bound: v.bound,
                }
            }
        }
    }

    /// A value made of literals and the floats in scope.
    fn leaf(&mut self, k: K) -> Val {
        let s = match self.named(K::S) {
            Some(v) if self.rng.chance(0.5) => v.code,
            _ => self.number(),
        };
        match k {
            K::S => Val {
                code: s,
                k,
                bound: 1.0,
            },
            K::V(n) if self.rng.chance(0.5) => {
                let elems: Vec<String> = (0..n).map(|_| self.number()).collect();
                self.count("nalgebra_new");
                Val {
                    code: format!("Vector{n}::new({})", elems.join(", ")),
                    k,
                    bound: 1.0,
                }
            }
            K::M(r, c) if r == c && self.rng.chance(0.5) => {
                let ctor = k.ctor(self.t);
                Val {
                    code: format!("{ctor}::identity() * {s}"),
                    k,
                    bound: 1.0,
                }
            }
            K::P => Val {
                code: format!("Point3::<{}>::origin()", self.t),
                k,
                bound: 0.0,
            },
            _ => {
                let ctor = k.ctor(self.t);
                Val {
                    code: format!("{ctor}::from_element({s})"),
                    k,
                    bound: 1.0,
                }
            }
        }
    }

    /// A float that reduces a value: a dot product, a norm, a sum.
    fn reduction(&mut self, which: usize, d: usize) -> Val {
        let kinds = [
            K::V(2),
            K::V(3),
            K::V(4),
            K::M(2, 2),
            K::M(3, 3),
            K::M(2, 3),
        ];
        match which {
            0 => {
                let n = *self.rng.pick(&[2, 3, 4]);
                let (a, b) = (self.expr(K::V(n), d), self.expr(K::V(n), d));
                self.count("nalgebra_dot");
                Val {
                    code: format!("{}.dot(&{})", a.code, b.code),
                    k: K::S,
                    bound: n as f64 * a.bound * b.bound,
                }
            }
            1 => {
                let k = *self.rng.pick(&kinds);
                let a = self.expr(k, d);
                let c = a.bound + 1.0;
                let ctor = k.ctor(self.t);
                let norm = if self.rng.chance(0.5) {
                    "norm"
                } else {
                    "norm_squared"
                };
                self.count("nalgebra_norm");
                Val {
                    code: format!("({} + {ctor}::repeat({c:.1}_{})).{norm}()", a.code, self.t),
                    k: K::S,
                    bound: (k.len() as f64) * (2.0 * c) * (2.0 * c),
                }
            }
            _ => {
                let k = *self.rng.pick(&kinds);
                let a = self.expr(k, d);
                self.count("nalgebra_sum");
                Val {
                    code: format!("{}.sum()", a.code),
                    k: K::S,
                    bound: k.len() as f64 * a.bound,
                }
            }
        }
    }

    fn scalar(&mut self, d: usize) -> Val {
        match self.rng.below(9) {
            which @ 0..=2 => self.reduction(which, d),
            3 => {
                let k = *self.rng.pick(&[K::V(2), K::V(3), K::P]);
                let a = self.named(k).unwrap_or_else(|| self.expr(k, d));
                let f = *self.rng.pick(&["x", "y"]);
                self.count("nalgebra_field");
                Val {
                    code: format!("{}.{f}", a.code),
                    k: K::S,
                    bound: a.bound,
                }
            }
            4 => {
                let (r, c) = *self.rng.pick(&[(2, 2), (3, 3), (2, 3)]);
                let a = self
                    .named(K::M(r, c))
                    .unwrap_or_else(|| self.expr(K::M(r, c), d));
                let (i, j) = (self.rng.below(r), self.rng.below(c));
                self.count("nalgebra_index");
                Val {
                    code: format!("{}[({i}, {j})]", a.code),
                    k: K::S,
                    bound: a.bound,
                }
            }
            5 => {
                let n = *self.rng.pick(&[2, 3]);
                let a = self.expr(K::M(n, n), d);
                self.count("nalgebra_determinant");
                Val {
                    code: format!("{}.determinant()", a.code),
                    k: K::S,
                    bound: 6.0 * a.bound.powi(n as i32),
                }
            }
            6 => {
                let (a, b) = (self.expr(K::S, d), self.expr(K::S, d));
                let op = *self.rng.pick(&["+", "-", "*"]);
                let bound = if op == "*" {
                    a.bound * b.bound
                } else {
                    a.bound + b.bound
                };
                Val {
                    code: format!("({} {op} {})", a.code, b.code),
                    k: K::S,
                    bound,
                }
            }
            // The vector passed reads a parameter: a call whose arguments
            // are all constants, in a copy over duals, does not compile
            // (noted on issue 32).
            7 if self.helper_param().is_some() && self.rng.chance(0.5) => {
                let (h, n) = self.helper.clone().expect("a helper");
                let param = self.helper_param().expect("a parameter");
                let (v, s) = (self.expr(K::V(n), d), self.expr(K::S, d));
                let _ = n;
                Val {
                    code: format!("{h}(&({} + {param}), {})", v.code, s.code),
                    k: K::S,
                    bound: 2.0,
                }
            }
            7 => {
                let a = self.expr(K::S, d);
                let f = *self.rng.pick(&["tanh", "sin", "cos"]);
                Val {
                    code: format!("({}).{f}()", a.code),
                    k: K::S,
                    bound: 1.0,
                }
            }
            _ => {
                if let Some(v) = self.named(K::S) {
                    return v;
                }
                Val {
                    code: self.number(),
                    k: K::S,
                    bound: 1.0,
                }
            }
        }
    }

    /// A vector of a method: `map`, `cross`, a rotation, `normalize`.
    fn vector_method(&mut self, which: usize, n: usize, d: usize) -> Val {
        let k = K::V(n);
        match which {
            5 => {
                let a = self.expr(k, d);
                let f = *self.rng.pick(&[
                    "x.tanh()",
                    "x.sin()",
                    "x * x",
                    "(x * 0.5).cos()",
                    "x / (1.0 + x * x)",
                ]);
                self.count("nalgebra_map");
                Val {
                    code: format!("{}.map(|x| {f})", a.code),
                    k,
                    bound: a.bound.max(1.0).powi(2),
                }
            }
            6 if n == 3 => {
                let (a, b) = (self.expr(k, d), self.expr(k, d));
                self.count("nalgebra_cross");
                Val {
                    code: format!("{}.cross(&{})", a.code, b.code),
                    k,
                    bound: 2.0 * a.bound * b.bound,
                }
            }
            7 if n == 3 => {
                let (w, p) = (self.expr(k, d), self.expr(k, d));
                let rot = if self.rng.chance(0.5) {
                    "Rotation3"
                } else {
                    "UnitQuaternion"
                };
                self.count("nalgebra_rotation");
                Val {
                    code: format!("{rot}::from_scaled_axis({}) * {}", w.code, p.code),
                    k,
                    bound: 1.8 * p.bound,
                }
            }
            8 => {
                let a = self.expr(k, d);
                let c = a.bound + 1.0;
                self.count("nalgebra_normalize");
                Val {
                    code: format!(
                        "({} + Vector{n}::repeat({c:.1}_{})).normalize()",
                        a.code, self.t
                    ),
                    k,
                    bound: 1.0,
                }
            }
            _ => {
                let a = self.expr(k, d);
                Val {
                    code: format!("({}).map(|x| x.sin())", a.code),
                    k,
                    bound: 1.0,
                }
            }
        }
    }

    fn vector(&mut self, n: usize, d: usize) -> Val {
        let k = K::V(n);
        match self.rng.below(11) {
            0 | 1 => {
                let (a, b) = (self.expr(k, d), self.expr(k, d));
                let op = *self.rng.pick(&["+", "-"]);
                Val {
                    code: format!("({} {op} {})", a.code, b.code),
                    k,
                    bound: a.bound + b.bound,
                }
            }
            2 => {
                let (s, a) = (self.expr(K::S, d), self.expr(k, d));
                let code = if self.rng.chance(0.5) {
                    format!("{} * {}", a.code, paren(&s.code))
                } else {
                    format!("{}.scale({})", a.code, s.code)
                };
                self.count("nalgebra_scale");
                Val {
                    code,
                    k,
                    bound: s.bound * a.bound,
                }
            }
            3 => {
                let inner = *self.rng.pick(&[2, 3]);
                let (m, v) = (self.expr(K::M(n, inner), d), self.expr(K::V(inner), d));
                self.count("nalgebra_matmul");
                Val {
                    code: format!("{} * {}", m.code, v.code),
                    k,
                    bound: inner as f64 * m.bound * v.bound,
                }
            }
            4 => {
                let (a, b) = (self.expr(k, d), self.expr(k, d));
                self.count("nalgebra_component_mul");
                Val {
                    code: format!("{}.component_mul(&{})", a.code, b.code),
                    k,
                    bound: a.bound * b.bound,
                }
            }
            which @ 5..=8 => self.vector_method(which, n, d),
            9 => {
                let elems: Vec<Val> = (0..n).map(|_| self.expr(K::S, d)).collect();
                let bound = elems.iter().map(|e| e.bound).fold(1.0, f64::max);
                let codes: Vec<String> = elems.into_iter().map(|e| e.code).collect();
                self.count("nalgebra_new");
                Val {
                    code: format!("Vector{n}::new({})", codes.join(", ")),
                    k,
                    bound,
                }
            }
            _ => {
                let c = *self.rng.pick(&[2, 3]);
                let m = self.expr(K::M(n, c), d);
                let j = self.rng.below(c);
                self.count("nalgebra_column");
                Val {
                    code: format!("{}.column({j}).into_owned()", m.code),
                    k,
                    bound: m.bound,
                }
            }
        }
    }

    fn matrix(&mut self, r: usize, c: usize, d: usize) -> Val {
        let k = K::M(r, c);
        match self.rng.below(6) {
            0 => {
                let (a, b) = (self.expr(k, d), self.expr(k, d));
                let op = *self.rng.pick(&["+", "-"]);
                Val {
                    code: format!("({} {op} {})", a.code, b.code),
                    k,
                    bound: a.bound + b.bound,
                }
            }
            1 => {
                let inner = *self.rng.pick(&[2, 3]);
                let (a, b) = (self.expr(K::M(r, inner), d), self.expr(K::M(inner, c), d));
                self.count("nalgebra_matmul");
                Val {
                    code: format!("{} * {}", a.code, b.code),
                    k,
                    bound: inner as f64 * a.bound * b.bound,
                }
            }
            2 => {
                let a = self.expr(K::M(c, r), d);
                self.count("nalgebra_transpose");
                Val {
                    code: format!("{}.transpose()", a.code),
                    k,
                    bound: a.bound,
                }
            }
            3 => {
                let (u, v) = (self.expr(K::V(r), d), self.expr(K::V(c), d));
                self.count("nalgebra_outer");
                Val {
                    code: format!("{} * {}.transpose()", u.code, v.code),
                    k,
                    bound: u.bound * v.bound,
                }
            }
            4 if r == c => {
                let (s, a) = (self.expr(K::S, d), self.expr(k, d));
                let ctor = k.ctor(self.t);
                self.count("nalgebra_identity");
                Val {
                    code: format!("{ctor}::identity() * {} + {}", paren(&s.code), a.code),
                    k,
                    bound: s.bound + a.bound,
                }
            }
            _ => {
                let a = self.expr(k, d);
                Val {
                    code: format!("{}.map(|x| x.tanh())", a.code),
                    k,
                    bound: 1.0,
                }
            }
        }
    }

    /// A statement: a `let` of any kind, a loop carrying a vector, a branch
    /// whose arms are vectors, or writes into a local vector.
    fn statement(&mut self) {
        let name = self.fresh();
        match self.rng.below(8) {
            0 => {
                // let mut acc = zeros; for i in 0..n { acc += ..; acc = acc.map(tanh) }
                let n = *self.rng.pick(&[2, 3]);
                let k = K::V(n);
                let step = self.expr(k, 1);
                let iters = self.rng.between(1, 3);
                self.stmts.push(format!(
                    "let mut {name} = Vector{n}::zeros();\n    for i in 0..{iters} {{\n        {name} += {} * (i as {} + 1.0);\n        {name} = {name}.map(|x| x.tanh());\n    }}",
                    step.code, self.t
                ));
                self.count("nalgebra_loop");
                self.env.push(Val {
                    code: name,
                    k,
                    bound: 1.0,
                });
            }
            1 => {
                let n = *self.rng.pick(&[2, 3]);
                let k = K::V(n);
                let cond = self.expr(K::S, 1);
                let (a, b) = (self.expr(k, 1), self.expr(k, 1));
                self.stmts.push(format!(
                    "let {name} = if {} > 0.1 {{ {} }} else {{ {} }};",
                    cond.code, a.code, b.code
                ));
                self.count("nalgebra_branch");
                self.env.push(Val {
                    code: name,
                    k,
                    bound: a.bound.max(b.bound),
                });
            }
            2 => {
                let n = *self.rng.pick(&[2, 3]);
                let k = K::V(n);
                let a = self.expr(k, 1);
                let s = self.expr(K::S, 1);
                let i = self.rng.below(n);
                let f = ["x", "y", "z"][self.rng.below(n)];
                let op = *self.rng.pick(&["+=", "-=", "*="]);
                self.stmts.push(format!(
                    "let mut {name} = {};\n    {name}[{i}] = {};\n    {name}.{f} {op} 0.5;",
                    a.code, s.code
                ));
                self.count("nalgebra_write");
                self.env.push(Val {
                    code: name,
                    k,
                    bound: a.bound.max(s.bound) * 1.5 + 0.5,
                });
            }
            _ => {
                let k = *self.rng.pick(&[
                    K::S,
                    K::V(2),
                    K::V(3),
                    K::V(3),
                    K::M(2, 2),
                    K::M(3, 3),
                    K::M(2, 3),
                ]);
                let v = self.expr(k, 2);
                self.stmts.push(format!("let {name} = {};", v.code));
                self.env.push(Val {
                    code: name,
                    k,
                    bound: v.bound,
                });
            }
        }
    }
}

/// `s` in parentheses unless it is a name or a literal.
pub(super) fn paren(s: &str) -> String {
    let literal = s.starts_with('-') && s[1..].chars().all(|c| c.is_ascii_digit() || c == '.');
    if literal {
        format!("({s})")
    } else if s
        .chars()
        .all(|c| c.is_alphanumeric() || c == '_' || c == '.')
    {
        s.to_string()
    } else {
        format!("({s})")
    }
}

mod render;
