//! Calls: nalgebra's constructors (`Vector3::new`, `zeros`, `identity`),
//! rotations, and calls of functions, whose nalgebra arguments are made
//! again from their elements.

use super::{Mat, Scalarizer, Val};
use crate::ast::matrices::{nalgebra_type, Nalgebra, Shape};
use crate::ast::reads::strip_paren as strip;
use syn::{parse_quote, Expr, UnOp};

impl Scalarizer<'_> {
    pub(super) fn call(&mut self, c: &syn::ExprCall, e: &Expr) -> Option<Val> {
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
    pub(super) fn plain_call(&mut self, c: &syn::ExprCall) -> Option<Val> {
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
    pub(super) fn argument(&mut self, a: &Expr) -> Option<Expr> {
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
    pub(super) fn construct(
        &mut self,
        shape: Shape,
        ctor: &str,
        c: &syn::ExprCall,
        e: &Expr,
    ) -> Option<Val> {
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
    pub(super) fn typed(&self, e: Expr) -> Expr {
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
}
