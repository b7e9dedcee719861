//! The values of expressions: a nalgebra value's elements, or a float
//! expression with the nalgebra values in it written out.

use super::{bin, dot, flat_index, lit_usize, sum, Mat, Scalarizer, Tail, Val};
use crate::ast::matrices::{nalgebra_type, Nalgebra, Shape};
use syn::visit_mut::VisitMut;
use syn::{parse_quote, Expr, UnOp};

impl Scalarizer<'_> {
    /// The value of `e`; `None` after an error.
    pub(super) fn value(&mut self, e: &Expr) -> Option<Val> {
        match e {
            Expr::Paren(p) => self.value(&p.expr),
            Expr::Group(g) => self.value(&g.expr),
            Expr::Reference(r) if r.mutability.is_none() => match self.value(&r.expr)? {
                Val::M(m) => Some(Val::M(m)),
                Val::R(rot) => Some(Val::R(rot)),
                Val::S(inner) => Some(Val::S(Expr::Reference(syn::ExprReference {
                    expr: Box::new(inner),
                    ..r.clone()
                }))),
            },
            Expr::Path(p) if p.qself.is_none() => {
                let found = p.path.get_ident().and_then(|i| self.bound(&i.to_string()));
                Some(match found {
                    Some(super::Bind::Mat(m)) => Val::M(m.clone()),
                    Some(super::Bind::Rot(r)) => Val::R(r.clone()),
                    _ => Val::S(e.clone()),
                })
            }
            Expr::Binary(b) => self.binary(b, e),
            // `*v` of a reference to a nalgebra value is the value.
            Expr::Unary(u) if matches!(u.op, UnOp::Deref(_)) => match self.value(&u.expr)? {
                Val::S(inner) => Some(Val::S(Expr::Unary(syn::ExprUnary {
                    expr: Box::new(inner),
                    ..u.clone()
                }))),
                v => Some(v),
            },
            Expr::Unary(u) if matches!(u.op, UnOp::Neg(_)) => match self.value(&u.expr)? {
                Val::M(m) => Some(Val::M(Mat {
                    shape: m.shape,
                    c: m.c.into_iter().map(|c| neg(&c)).collect(),
                })),
                Val::S(s) => Some(Val::S(neg(&s))),
                Val::R(_) => self.unsupported(e, "`-` of a rotation"),
            },
            Expr::MethodCall(m) => self.method(m, e),
            Expr::Call(c) => self.call(c, e),
            Expr::Field(f) => match self.value(&f.base)? {
                Val::M(m) => self.field(m, &f.member, e),
                Val::S(base) => Some(Val::S(Expr::Field(syn::ExprField {
                    base: Box::new(base),
                    ..f.clone()
                }))),
                Val::R(_) => self.unsupported(e, "a field of a rotation"),
            },
            Expr::Index(i) => self.index(i, e),
            Expr::If(_) | Expr::Block(_) | Expr::Match(_) => self.branch(e),
            Expr::ForLoop(_) | Expr::While(_) | Expr::Loop(_) => self.looped(e).map(Val::S),
            Expr::Closure(c) => {
                let mut c = c.clone();
                self.scopes.push(Default::default());
                for p in &c.inputs {
                    self.hide_pattern(p);
                }
                let body = self.value(&c.body);
                self.scopes.pop();
                match body? {
                    Val::S(b) => {
                        *c.body = b;
                        Some(Val::S(Expr::Closure(c)))
                    }
                    Val::M(_) | Val::R(_) => {
                        self.unsupported(e, "a closure whose value is a nalgebra value")
                    }
                }
            }
            Expr::Return(r) => {
                let Some(v) = &r.expr else {
                    return Some(Val::S(e.clone()));
                };
                match (self.value(v)?, self.output) {
                    (Val::M(m), Some(_)) => {
                        let c = &m.c;
                        Some(Val::S(parse_quote!(return [#(#c),*])))
                    }
                    (Val::S(v), _) => Some(Val::S(parse_quote!(return #v))),
                    (Val::M(_), None) | (Val::R(_), _) => self.unsupported(
                        e,
                        "a nalgebra value returned from a function whose value is not one",
                    ),
                }
            }
            Expr::Macro(m) if self.mentions(&m.mac.tokens) => {
                self.unsupported(e, "a macro reading a nalgebra value")
            }
            Expr::Cast(c) => match self.value(&c.expr)? {
                Val::S(inner) => Some(Val::S(Expr::Cast(syn::ExprCast {
                    expr: Box::new(inner),
                    ..c.clone()
                }))),
                Val::M(_) | Val::R(_) => self.unsupported(e, "a cast"),
            },
            Expr::Tuple(t) => {
                let mut t = t.clone();
                for el in t.elems.iter_mut() {
                    match self.value(el)? {
                        Val::S(s) => *el = s,
                        Val::M(_) | Val::R(_) => {
                            return self.unsupported(el, "a nalgebra value in a tuple")
                        }
                    }
                }
                Some(Val::S(Expr::Tuple(t)))
            }
            Expr::Array(a) => {
                let mut a = a.clone();
                for el in a.elems.iter_mut() {
                    match self.value(el)? {
                        Val::S(s) => *el = s,
                        Val::M(_) | Val::R(_) => {
                            return self.unsupported(el, "a nalgebra value in an array")
                        }
                    }
                }
                Some(Val::S(Expr::Array(a)))
            }
            _ if self.mentions(&quote::ToTokens::to_token_stream(e)) => {
                self.unsupported(e, "this expression")
            }
            _ => Some(Val::S(e.clone())),
        }
    }

    fn scalar(&mut self, e: &Expr) -> Option<Expr> {
        match self.value(e)? {
            Val::S(s) => Some(s),
            Val::M(_) | Val::R(_) => {
                self.unsupported(e, "a nalgebra value where a float is expected")
            }
        }
    }

    pub(super) fn mat(&mut self, e: &Expr) -> Option<Mat> {
        match self.value(e)? {
            Val::M(m) => Some(m),
            Val::S(_) | Val::R(_) => {
                self.fail(
                    e,
                    "a nalgebra value is expected here (a parameter or a local of a nalgebra type)",
                );
                None
            }
        }
    }

    fn binary(&mut self, b: &syn::ExprBinary, whole: &Expr) -> Option<Val> {
        let op = match b.op {
            syn::BinOp::Add(_) => "+",
            syn::BinOp::Sub(_) => "-",
            syn::BinOp::Mul(_) => "*",
            syn::BinOp::Div(_) => "/",
            _ => {
                let (l, r) = (self.scalar(&b.left)?, self.scalar(&b.right)?);
                return Some(Val::S(Expr::Binary(syn::ExprBinary {
                    left: Box::new(l),
                    right: Box::new(r),
                    ..b.clone()
                })));
            }
        };
        let (l, r) = (self.value(&b.left)?, self.value(&b.right)?);
        Some(match (l, r) {
            (Val::R(rot), Val::M(x)) if op == "*" => Val::M(self.rotate(&rot, x, whole)?),
            (Val::R(_), _) | (_, Val::R(_)) => {
                return self.unsupported(whole, "this operator on a rotation (a rotation applies to a 3-vector or a 3-point: `r * p`)")
            }
            (Val::S(l), Val::S(r)) => Val::S(Expr::Binary(syn::ExprBinary {
                left: Box::new(l),
                right: Box::new(r),
                ..b.clone()
            })),
            (Val::M(l), Val::M(r)) if op == "+" || op == "-" => {
                if l.shape.len() != r.shape.len() || l.shape.rows != r.shape.rows {
                    return self.mismatch(whole, &l, &r);
                }
                // A point minus a point is a vector; a point plus a vector a point.
                let point = (l.shape.point != r.shape.point) && op == "+"
                    || l.shape.point && r.shape.point && op == "+";
                let shape = Shape { point, ..l.shape };
                let c = l.c.iter().zip(&r.c).map(|(a, b)| bin(a, op, b)).collect();
                Val::M(Mat { shape, c })
            }
            (Val::M(l), Val::M(r)) if op == "*" => Val::M(self.matmul(l, r, whole)?),
            (Val::M(m), Val::S(s)) if op == "*" || op == "/" => {
                let s = self.atom(s, if op == "*" { "factor" } else { "divisor" });
                let c = m.c.iter().map(|c| bin(c, op, &s)).collect();
                Val::M(Mat { shape: m.shape, c })
            }
            (Val::S(s), Val::M(m)) if op == "*" => {
                let s = self.atom(s, "factor");
                let c = m.c.iter().map(|c| bin(&s, "*", c)).collect();
                Val::M(Mat { shape: m.shape, c })
            }
            _ => {
                return self
                    .unsupported(whole, "this operator between a float and a nalgebra value")
            }
        })
    }

    fn mismatch<T>(&mut self, e: &Expr, l: &Mat, r: &Mat) -> Option<T> {
        self.fail(
            e,
            format!(
                "nalgebra values of shapes {} and {} do not match here",
                l.shape.describe(),
                r.shape.describe()
            ),
        );
        None
    }

    /// The matrix product, in nalgebra's order (each element a sum over
    /// the inner dimension, in order).
    pub(super) fn matmul(&mut self, a: Mat, b: Mat, whole: &Expr) -> Option<Mat> {
        if a.shape.cols != b.shape.rows {
            return self.mismatch(whole, &a, &b);
        }
        let (a, b) = (self.atoms(a, "lhs"), self.atoms(b, "rhs"));
        let (n, k, m) = (a.shape.rows, a.shape.cols, b.shape.cols);
        let mut c = Vec::with_capacity(n * m);
        for j in 0..m {
            for i in 0..n {
                let terms = (0..k)
                    .map(|l| bin(&a.c[i + n * l], "*", &b.c[l + k * j]))
                    .collect();
                c.push(sum(terms));
            }
        }
        Some(Mat {
            shape: Shape {
                rows: n,
                cols: m,
                point: false,
            },
            c,
        })
    }

    fn field(&mut self, m: Mat, member: &syn::Member, e: &Expr) -> Option<Val> {
        if let syn::Member::Named(n) = member {
            if n == "coords" && m.shape.point {
                return Some(Val::M(Mat {
                    shape: Shape {
                        point: false,
                        ..m.shape
                    },
                    c: m.c,
                }));
            }
        }
        match super::field_index(member).and_then(|k| flat_index(m.shape, k)) {
            Some(k) if m.shape.is_vector() => Some(Val::S(m.c[k].clone())),
            _ => self.unsupported(e, "this field"),
        }
    }

    fn index(&mut self, i: &syn::ExprIndex, e: &Expr) -> Option<Val> {
        let base = self.value(&i.expr)?;
        let m = match base {
            Val::M(m) => m,
            Val::R(_) => {
                return self.unsupported(e, "an index of a rotation (index its `matrix()`)")
            }
            Val::S(b) => {
                let idx = self.scalar(&i.index)?;
                return Some(Val::S(Expr::Index(syn::ExprIndex {
                    expr: Box::new(b),
                    index: Box::new(idx),
                    ..i.clone()
                })));
            }
        };
        if let Some(k) = self
            .literal_index(&i.index)
            .and_then(|k| flat_index(m.shape, k))
        {
            return Some(Val::S(m.c[k].clone()));
        }
        // A parameter read at a computed index: its element, by index.
        let is_param = m.c.iter().all(|c| matches!(c, Expr::Index(_)));
        if is_param && !matches!(&*i.index, Expr::Tuple(_)) {
            let idx = self.scalar(&i.index)?;
            let base = &i.expr;
            return Some(Val::S(parse_quote!(#base[#idx])));
        }
        self.unsupported(
            e,
            "an index other than a literal (`v[0]`, `m[(0, 1)]`) of a local, or out of bounds,",
        )
    }

    fn method(&mut self, mc: &syn::ExprMethodCall, e: &Expr) -> Option<Val> {
        let recv = self.value(&mc.receiver)?;
        let m = match recv {
            Val::M(m) => m,
            Val::R(rot) => return self.rot_method(rot, mc, e),
            Val::S(r) => {
                let mut mc = mc.clone();
                *mc.receiver = r;
                for a in mc.args.iter_mut() {
                    *a = self.argument(a)?;
                }
                return Some(Val::S(Expr::MethodCall(mc)));
            }
        };
        let name = mc.method.to_string();
        let args: Vec<&Expr> = mc.args.iter().collect();
        let other = |s: &mut Self| -> Option<Mat> { s.mat(args.first().copied()?) };
        let same = |s: &mut Self, o: &Mat| -> bool {
            if o.shape.rows != m.shape.rows || o.shape.cols != m.shape.cols {
                s.mismatch::<()>(e, &m, o);
                false
            } else {
                true
            }
        };
        Some(match (name.as_str(), args.len()) {
            ("clone" | "into_owned" | "clone_owned" | "to_owned", 0) => Val::M(m),
            ("dot", 1) => {
                let o = other(self)?;
                if o.shape.len() != m.shape.len() {
                    return self.mismatch(e, &m, &o);
                }
                Val::S(dot(m.shape, &m.c, &o.c))
            }
            ("norm_squared", 0) => {
                let m = self.atoms(m, "elem");
                Val::S(dot(m.shape, &m.c, &m.c))
            }
            ("norm", 0) => {
                let m = self.atoms(m, "elem");
                let sq = dot(m.shape, &m.c, &m.c);
                Val::S(parse_quote!((#sq).sqrt()))
            }
            ("normalize", 0) => {
                let m = self.atoms(m, "elem");
                let sq = dot(m.shape, &m.c, &m.c);
                let n = self.atom(parse_quote!((#sq).sqrt()), "norm");
                let c = m.c.iter().map(|c| bin(c, "/", &n)).collect();
                Val::M(Mat { shape: m.shape, c })
            }
            ("sum", 0) => Val::S(sum(m.c)),
            ("transpose", 0) => {
                let (r, cols) = (m.shape.rows, m.shape.cols);
                let c = (0..r * cols)
                    .map(|k| {
                        // Element (i, j) of the transpose is (j, i) of `m`.
                        let (i, j) = (k % cols, k / cols);
                        m.c[j + r * i].clone()
                    })
                    .collect();
                Val::M(Mat {
                    shape: Shape {
                        rows: cols,
                        cols: r,
                        point: false,
                    },
                    c,
                })
            }
            ("cross", 1) => {
                let o = other(self)?;
                if m.shape.len() != 3 || !same(self, &o) {
                    return self.unsupported(e, "`cross` of other than two 3-vectors");
                }
                let shape = Shape {
                    point: false,
                    ..m.shape
                };
                let (a, b) = (self.atoms(m, "lhs"), self.atoms(o, "rhs"));
                let (a, b) = (&a.c, &b.c);
                let term = |i: usize, j: usize, k: usize, l: usize| {
                    bin(&bin(&a[i], "*", &b[j]), "-", &bin(&a[k], "*", &b[l]))
                };
                let c = vec![term(1, 2, 2, 1), term(2, 0, 0, 2), term(0, 1, 1, 0)];
                Val::M(Mat { shape, c })
            }
            ("component_mul" | "component_div", 1) => {
                let o = other(self)?;
                if !same(self, &o) {
                    return None;
                }
                let op = if name == "component_mul" { "*" } else { "/" };
                let c = m.c.iter().zip(&o.c).map(|(a, b)| bin(a, op, b)).collect();
                Val::M(Mat { shape: m.shape, c })
            }
            ("scale" | "unscale", 1) => {
                let s = self.scalar(args[0])?;
                let s = self.atom(s, "factor");
                let op = if name == "scale" { "*" } else { "/" };
                let c = m.c.iter().map(|c| bin(c, op, &s)).collect();
                Val::M(Mat { shape: m.shape, c })
            }
            ("abs", 0) => {
                let c =
                    m.c.iter()
                        .map(|c| {
                            let c = super::operand(c.clone());
                            parse_quote!(#c.abs())
                        })
                        .collect();
                Val::M(Mat { shape: m.shape, c })
            }
            ("map", 1) => self.map(m, args[0], e)?,
            ("determinant", 0) => Val::S(self.determinant(m, e)?),
            ("column" | "row", 1) => {
                let Some(k) = lit_usize(args[0]) else {
                    return self.unsupported(e, "a column or row at a computed index");
                };
                let (r, cols) = (m.shape.rows, m.shape.cols);
                let (shape, c): (Shape, Vec<Expr>) = if name == "column" && k < cols {
                    (Shape::vector(r), m.c[r * k..r * (k + 1)].to_vec())
                } else if name == "row" && k < r {
                    (
                        Shape {
                            rows: 1,
                            cols,
                            point: false,
                        },
                        (0..cols).map(|j| m.c[k + r * j].clone()).collect(),
                    )
                } else {
                    return self.unsupported(e, "a column or row out of bounds");
                };
                Val::M(Mat { shape, c })
            }
            ("fixed_rows", 1) => {
                let n = turbofish(mc);
                let (Some(n), Some(k)) = (n, lit_usize(args[0])) else {
                    return self.unsupported(
                        e,
                        "`fixed_rows` without literal sizes (`v.fixed_rows::<2>(0)`)",
                    );
                };
                let (r, cols) = (m.shape.rows, m.shape.cols);
                if k + n > r {
                    return self.unsupported(e, "rows out of bounds");
                }
                let c = (0..cols)
                    .flat_map(|j| (k..k + n).map(move |i| i + r * j))
                    .map(|p| m.c[p].clone())
                    .collect();
                Val::M(Mat {
                    shape: Shape {
                        rows: n,
                        cols,
                        point: false,
                    },
                    c,
                })
            }
            ("len", 0) => {
                let n = m.shape.len();
                Val::S(parse_quote!(#n))
            }
            ("nrows", 0) => {
                let n = m.shape.rows;
                Val::S(parse_quote!(#n))
            }
            ("ncols", 0) => {
                let n = m.shape.cols;
                Val::S(parse_quote!(#n))
            }
            _ => return self.unsupported(&mc.method, &format!("`.{name}(..)`")),
        })
    }

    /// `m.map(|v| body)`: the body once per element, its parameter that element.
    fn map(&mut self, m: Mat, f: &Expr, e: &Expr) -> Option<Val> {
        let Expr::Closure(c) = strip(f) else {
            return self.unsupported(e, "`map` of other than a closure");
        };
        let param = match c.inputs.first() {
            Some(syn::Pat::Ident(p)) if c.inputs.len() == 1 => p.ident.clone(),
            Some(syn::Pat::Type(t)) if c.inputs.len() == 1 => match &*t.pat {
                syn::Pat::Ident(p) => p.ident.clone(),
                _ => return self.unsupported(e, "`map` with a pattern"),
            },
            _ => return self.unsupported(e, "`map` with a pattern"),
        };
        let m = self.atoms(m, "elem");
        let mut c_out = Vec::new();
        for el in &m.c {
            let mut body = (*c.body).clone();
            Substitute {
                name: &param,
                by: el,
            }
            .visit_expr_mut(&mut body);
            self.scopes.push(Default::default());
            self.bind(&param.to_string(), super::Bind::Other);
            let v = self.scalar(&body);
            self.scopes.pop();
            c_out.push(v?);
        }
        Some(Val::M(Mat {
            shape: m.shape,
            c: c_out,
        }))
    }

    /// nalgebra's determinant of a matrix up to 3 × 3 (its formulas, its order).
    fn determinant(&mut self, m: Mat, e: &Expr) -> Option<Expr> {
        if m.shape.rows != m.shape.cols || m.shape.rows > 3 {
            return self.unsupported(e, "`determinant` of other than a square matrix up to 3 × 3");
        }
        let m = self.atoms(m, "elem");
        let n = m.shape.rows;
        let at = |i: usize, j: usize| m.c[i + n * j].clone();
        Some(match n {
            1 => at(0, 0),
            2 => bin(
                &bin(&at(0, 0), "*", &at(1, 1)),
                "-",
                &bin(&at(1, 0), "*", &at(0, 1)),
            ),
            _ => {
                let minor =
                    |a: (usize, usize), b: (usize, usize), c: (usize, usize), d: (usize, usize)| {
                        bin(
                            &bin(&at(a.0, a.1), "*", &at(b.0, b.1)),
                            "-",
                            &bin(&at(c.0, c.1), "*", &at(d.0, d.1)),
                        )
                    };
                let m12_23 = self.atom(minor((1, 1), (2, 2), (2, 1), (1, 2)), "minor");
                let m11_23 = self.atom(minor((1, 0), (2, 2), (2, 0), (1, 2)), "minor");
                let m11_22 = self.atom(minor((1, 0), (2, 1), (2, 0), (1, 1)), "minor");
                bin(
                    &bin(
                        &bin(&at(0, 0), "*", &m12_23),
                        "-",
                        &bin(&at(0, 1), "*", &m11_23),
                    ),
                    "+",
                    &bin(&at(0, 2), "*", &m11_22),
                )
            }
        })
    }

    fn call(&mut self, c: &syn::ExprCall, e: &Expr) -> Option<Val> {
        if let Expr::Path(p) = &*c.func {
            let segs: Vec<_> = p.path.segments.iter().collect();
            if segs.len() >= 2 {
                let ty_seg = segs[segs.len() - 2];
                let (ident, args) = (&ty_seg.ident, &ty_seg.arguments);
                // `Vector3::new` names no element type, `SMatrix::<_, 3, 2>`
                // leaves it to inference: the shape is what matters here.
                let ty = match args {
                    syn::PathArguments::None => syn::parse2(quote::quote!(#ident<f64>)),
                    args => syn::parse2(quote::quote!(#ident #args)),
                };
                // A segment that is no type (`super::f(..)`) is no constructor.
                let Ok(mut ty): syn::Result<syn::Type> = ty else {
                    return self.plain_call(c);
                };
                if let syn::Type::Path(tp) = &mut ty {
                    if let Some(syn::PathArguments::AngleBracketed(a)) =
                        tp.path.segments.last_mut().map(|s| &mut s.arguments)
                    {
                        if let Some(syn::GenericArgument::Type(t @ syn::Type::Infer(_))) =
                            a.args.first_mut()
                        {
                            *t = parse_quote!(f64);
                        }
                    }
                }
                let ctor = segs[segs.len() - 1].ident.to_string();
                if let Some(v) = self.rotation(&ident.to_string(), &ctor, c, e) {
                    return v;
                }
                if let Some(Nalgebra::Static(shape, _)) = nalgebra_type(&ty) {
                    return self.construct(shape, &ctor, c, e);
                }
            }
        }
        self.plain_call(c)
    }

    /// A call of a function: its arguments rewritten.
    fn plain_call(&mut self, c: &syn::ExprCall) -> Option<Val> {
        let mut c = c.clone();
        for a in c.args.iter_mut() {
            *a = self.argument(a)?;
        }
        Some(Val::S(Expr::Call(c)))
    }

    /// An argument of a call: a nalgebra value is made again from its
    /// elements, of the type of the callee's parameter
    /// (`helper(&pack_matrix(&[&v_x, &v_y, &v_z]))`), borrowed as the user
    /// passed it.
    fn argument(&mut self, a: &Expr) -> Option<Expr> {
        match self.value(a)? {
            Val::S(s) => Some(s),
            Val::M(m) => {
                let m = self.atoms(m, "arg");
                let c = &m.c;
                let krate = &self.krate;
                let made: Expr = parse_quote!(#krate::__private::pack_matrix(&[#(&#c),*]));
                let by_ref = match strip(a) {
                    Expr::Reference(_) => true,
                    // A parameter that is a reference, passed on bare.
                    Expr::Path(p) => p.path.get_ident().is_some_and(|i| {
                        self.by_ref.contains(&i.to_string())
                            && self
                                .lookup(&i.to_string())
                                .is_some_and(|m| m.c.iter().all(|c| matches!(c, Expr::Index(_))))
                    }),
                    _ => false,
                };
                Some(if by_ref { parse_quote!(&#made) } else { made })
            }
            Val::R(_) => {
                self.unsupported(a, "a rotation passed to a function (pass its axis-angle)")
            }
        }
    }

    /// `Vector3::new(a, b, c)`, `Matrix2::new(..)` (row by row), `zeros()`,
    /// `identity()`, `from_element(v)`, `origin()`.
    fn construct(&mut self, shape: Shape, ctor: &str, c: &syn::ExprCall, e: &Expr) -> Option<Val> {
        let n = shape.len();
        let zero = self.typed(parse_quote!(0.0));
        let c_out: Vec<Expr> = match (ctor, c.args.len()) {
            ("new", k) if k == n => {
                let args: Vec<Expr> = c
                    .args
                    .iter()
                    .map(|a| self.scalar(a).map(|a| self.typed(a)))
                    .collect::<Option<_>>()?;
                // Written row by row; held column by column.
                (0..n)
                    .map(|p| {
                        let (i, j) = (p % shape.rows, p / shape.rows);
                        args[i * shape.cols + j].clone()
                    })
                    .collect()
            }
            ("zeros" | "origin", 0) => vec![zero; n],
            // The unit vectors `Vector3::x()`, ..
            ("x" | "y" | "z" | "w", 0) if shape.is_vector() => {
                let k = ["x", "y", "z", "w"]
                    .iter()
                    .position(|a| *a == ctor)
                    .unwrap_or(0);
                if k >= n {
                    return self.unsupported(e, &format!("`{ctor}()` of a vector of {n} elements"));
                }
                let one = self.typed(parse_quote!(1.0));
                (0..n)
                    .map(|p| if p == k { one.clone() } else { zero.clone() })
                    .collect()
            }
            // `Point3::from(v)`, `Vector3::from(p)`: the same elements.
            ("from", 1) => {
                let m = self.mat(&c.args[0])?;
                if m.shape.len() != n {
                    return self.unsupported(e, "`from` of a value of another size");
                }
                m.c
            }
            ("identity", 0) => (0..n)
                .map(|p| {
                    if p % shape.rows == p / shape.rows {
                        self.typed(parse_quote!(1.0))
                    } else {
                        zero.clone()
                    }
                })
                .collect(),
            ("from_element" | "repeat", 1) => {
                let v = self.scalar(&c.args[0])?;
                let v = self.typed(v);
                let v = self.atom(v, "elem");
                vec![v; n]
            }
            _ => return self.unsupported(e, &format!("`{ctor}` with these arguments")),
        };
        Some(Val::M(Mat { shape, c: c_out }))
    }

    /// A float literal with the function's float type (`0.5_f64`): an
    /// element written out must have a type where a method reads it
    /// (`(0.5_f64 * 0.5_f64).sqrt()`), as nalgebra's generic value gave
    /// it. Any other expression as it is.
    fn typed(&self, e: Expr) -> Expr {
        let suffix = match &self.float {
            syn::Type::Path(p) if p.path.is_ident("f64") || p.path.is_ident("f32") => {
                p.path.get_ident().map(|i| i.to_string())
            }
            _ => None,
        };
        let Some(suffix) = suffix else {
            return e;
        };
        let lit = |l: &syn::Lit| -> Option<syn::Lit> {
            let digits = match l {
                syn::Lit::Float(f) if f.suffix().is_empty() => f.base10_digits().to_string(),
                syn::Lit::Int(i) if i.suffix().is_empty() => format!("{}.0", i.base10_digits()),
                _ => return None,
            };
            Some(syn::Lit::Float(syn::LitFloat::new(
                &format!("{digits}_{suffix}"),
                l.span(),
            )))
        };
        match &e {
            Expr::Lit(l) => match lit(&l.lit) {
                Some(t) => parse_quote!(#t),
                None => e,
            },
            Expr::Unary(u) if matches!(u.op, UnOp::Neg(_)) => match &*u.expr {
                Expr::Lit(l) => match lit(&l.lit) {
                    Some(t) => parse_quote!(-#t),
                    None => e,
                },
                _ => e,
            },
            _ => e,
        }
    }

    /// An `if`, a `match` or a block: its blocks rewritten; where its value
    /// is a nalgebra value, each arm gives a tuple of the elements, bound
    /// by a tuple pattern.
    fn branch(&mut self, e: &Expr) -> Option<Val> {
        let mut shape = None;
        let mut out = e.clone();
        let ok = match &mut out {
            Expr::If(i) => self.if_arms(i, &mut shape),
            Expr::Block(b) => {
                let (nb, s) = self.block(&b.block, Some(Tail::Tuple));
                b.block = nb;
                shape = s;
                true
            }
            Expr::Match(m) => {
                let Val::S(scrutinee) = self.value(&m.expr)? else {
                    return self.unsupported(&m.expr, "a `match` on a nalgebra value");
                };
                *m.expr = scrutinee;
                let mut ok = true;
                for arm in m.arms.iter_mut() {
                    self.scopes.push(Default::default());
                    self.hide_pattern(&arm.pat);
                    let arm_body = &arm.body;
                    let block: syn::Block = parse_quote!({ #arm_body });
                    let (nb, s) = self.block(&block, Some(Tail::Tuple));
                    self.scopes.pop();
                    ok &= agree(&mut shape, s);
                    *arm.body = Expr::Block(syn::ExprBlock {
                        attrs: Vec::new(),
                        label: None,
                        block: nb,
                    });
                }
                ok
            }
            _ => unreachable!("a branch"),
        };
        if !ok {
            return self.unsupported(
                e,
                "arms of different shapes (or a nalgebra value in one arm only)",
            );
        }
        let Some(shape) = shape else {
            return Some(Val::S(out));
        };
        let names: Vec<syn::Ident> = (0..shape.len())
            .map(|k| self.fresh(&format!("{}_{}", self.ctx, shape.suffix(k))))
            .collect();
        let tys = names.iter().map(|_| &self.float);
        self.stmts
            .push(parse_quote!(let (#(#names),*): (#(#tys),*) = #out;));
        Some(Val::M(Mat {
            shape,
            c: names.iter().map(|n| parse_quote!(#n)).collect(),
        }))
    }

    fn if_arms(&mut self, i: &mut syn::ExprIf, shape: &mut Option<Shape>) -> bool {
        let Some(cond) = self.scalar(&i.cond) else {
            return true;
        };
        *i.cond = cond;
        let (then, s) = self.block(&i.then_branch, Some(Tail::Tuple));
        i.then_branch = then;
        let mut ok = agree(shape, s);
        match i.else_branch.as_mut().map(|(_, e)| &mut **e) {
            Some(Expr::If(inner)) => ok &= self.if_arms(inner, shape),
            Some(Expr::Block(b)) => {
                let (nb, s) = self.block(&b.block, Some(Tail::Tuple));
                b.block = nb;
                ok &= agree(shape, s);
            }
            Some(_) => {}
            None => ok &= shape.is_none(),
        }
        ok
    }

    /// A loop: its body rewritten (its value is `()` or a float of `break`).
    fn looped(&mut self, e: &Expr) -> Option<Expr> {
        let mut out = e.clone();
        match &mut out {
            Expr::ForLoop(f) => {
                let Val::S(it) = self.value(&f.expr)? else {
                    return self.unsupported(&f.expr, "a `for` loop over a nalgebra value (read its elements by index: `for i in 0..3 { v[i] }`)");
                };
                *f.expr = it;
                self.scopes.push(Default::default());
                self.hide_pattern(&f.pat);
                let (b, _) = self.block(&f.body, None);
                self.scopes.pop();
                f.body = b;
            }
            Expr::While(w) => {
                *w.cond = self.scalar(&w.cond)?;
                let (b, _) = self.block(&w.body, None);
                w.body = b;
            }
            Expr::Loop(l) => {
                let (b, _) = self.block(&l.body, None);
                l.body = b;
            }
            _ => unreachable!("a loop"),
        }
        Some(out)
    }
}

/// Whether the shapes of two arms agree, recording the first.
fn agree(shape: &mut Option<Shape>, s: Option<Shape>) -> bool {
    match (*shape, s) {
        (None, s) => {
            *shape = s;
            true
        }
        (Some(a), Some(b)) => a.rows == b.rows && a.cols == b.cols,
        (Some(_), None) => false,
    }
}

fn neg(e: &Expr) -> Expr {
    let e = super::operand(e.clone());
    parse_quote!(-#e)
}

fn strip(e: &Expr) -> &Expr {
    match e {
        Expr::Paren(p) => strip(&p.expr),
        Expr::Group(g) => strip(&g.expr),
        other => other,
    }
}

/// The `2` of `fixed_rows::<2>`.
fn turbofish(mc: &syn::ExprMethodCall) -> Option<usize> {
    let t = mc.turbofish.as_ref()?;
    match t.args.first()? {
        syn::GenericArgument::Const(e) => lit_usize(e),
        syn::GenericArgument::Type(syn::Type::Path(p)) => {
            p.path.get_ident()?.to_string().parse().ok()
        }
        _ => None,
    }
}

/// Replaces a closure parameter by the element it stands for.
struct Substitute<'a> {
    name: &'a syn::Ident,
    by: &'a Expr,
}

impl VisitMut for Substitute<'_> {
    fn visit_expr_mut(&mut self, e: &mut Expr) {
        if let Expr::Path(p) = e {
            if p.qself.is_none() && p.path.is_ident(self.name) {
                *e = super::operand(self.by.clone());
                return;
            }
        }
        if let Expr::Closure(_) = e {
            return;
        }
        syn::visit_mut::visit_expr_mut(self, e);
    }
}
