//! Methods of nalgebra values: reductions (`dot`, `norm`, `sum`), shapes
//! (`transpose`, `column`, `fixed_rows`), elementwise (`component_mul`,
//! `map`, `abs`), and `determinant`.

use super::exprs::Substitute;
use super::{bin, cross, dot, lit_usize, sum, Mat, Scalarizer, Val};
use crate::ast::matrices::Shape;
use crate::ast::reads::strip_paren as strip;
use syn::visit_mut::VisitMut;
use syn::{parse_quote, Expr};

impl Scalarizer<'_> {
    pub(super) fn method(&mut self, mc: &syn::ExprMethodCall, e: &Expr) -> Option<Val> {
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
                Val::M(Mat {
                    shape,
                    c: cross(&a.c, &b.c),
                })
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
            ("transpose" | "column" | "row" | "fixed_rows" | "len" | "nrows" | "ncols", _) => {
                self.reshaped(m, mc, &name, &args, e)?
            }
            _ => return self.unsupported(&mc.method, &format!("`.{name}(..)`")),
        })
    }

    /// The methods that take elements apart or count them: `transpose`,
    /// `column`, `row`, `fixed_rows`, `len`, `nrows`, `ncols`.
    fn reshaped(
        &mut self,
        m: Mat,
        mc: &syn::ExprMethodCall,
        name: &str,
        args: &[&Expr],
        e: &Expr,
    ) -> Option<Val> {
        Some(match (name, args.len()) {
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
    pub(super) fn map(&mut self, m: Mat, f: &Expr, e: &Expr) -> Option<Val> {
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
    pub(super) fn determinant(&mut self, m: Mat, e: &Expr) -> Option<Expr> {
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
