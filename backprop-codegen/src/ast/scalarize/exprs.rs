//! The values of expressions: a nalgebra value's elements, or a float
//! expression with the nalgebra values in it written out.

use super::{bin, flat_index, sum, Mat, Scalarizer, Tail, Val};
use crate::ast::matrices::Shape;
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
            Expr::Closure(_) | Expr::Return(_) => self.closure_or_return(e),
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
            Expr::Tuple(_) | Expr::Array(_) => self.elements(e),
            _ if self.mentions(&quote::ToTokens::to_token_stream(e)) => {
                self.unsupported(e, "this expression")
            }
            _ => Some(Val::S(e.clone())),
        }
    }

    /// A closure (its body a float's expression, its parameters hiding
    /// nalgebra values) or a `return`.
    fn closure_or_return(&mut self, e: &Expr) -> Option<Val> {
        match e {
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
            _ => unreachable!("a closure or a return"),
        }
    }

    /// A tuple or an array of floats.
    fn elements(&mut self, e: &Expr) -> Option<Val> {
        match e {
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
            _ => unreachable!("a tuple or an array"),
        }
    }

    pub(super) fn scalar(&mut self, e: &Expr) -> Option<Expr> {
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

    pub(super) fn binary(&mut self, b: &syn::ExprBinary, whole: &Expr) -> Option<Val> {
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

    pub(super) fn mismatch<T>(&mut self, e: &Expr, l: &Mat, r: &Mat) -> Option<T> {
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

    pub(super) fn field(&mut self, m: Mat, member: &syn::Member, e: &Expr) -> Option<Val> {
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

    pub(super) fn index(&mut self, i: &syn::ExprIndex, e: &Expr) -> Option<Val> {
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

    /// An `if`, a `match` or a block: its blocks rewritten; where its value
    /// is a nalgebra value, each arm gives a tuple of the elements, bound
    /// by a tuple pattern.
    pub(super) fn branch(&mut self, e: &Expr) -> Option<Val> {
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

    pub(super) fn if_arms(&mut self, i: &mut syn::ExprIf, shape: &mut Option<Shape>) -> bool {
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
    pub(super) fn looped(&mut self, e: &Expr) -> Option<Expr> {
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

/// Replaces a closure parameter by the element it stands for.
pub(super) struct Substitute<'a> {
    pub(super) name: &'a syn::Ident,
    pub(super) by: &'a Expr,
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
