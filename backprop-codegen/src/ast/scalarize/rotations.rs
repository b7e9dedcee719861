//! Rotations from an axis-angle vector, as bundle adjustment writes them:
//! `Rotation3::from_scaled_axis(w)` (or `Rotation3::new(w)`) and
//! `UnitQuaternion::from_scaled_axis(w)` (or `UnitQuaternion::new(w)`),
//! applied to a vector or a point (`r * p`, `r.transform_vector(&p)`,
//! `r.inverse_transform_point(&p)`, `r.inverse() * p`), and a rotation's
//! matrix (`r.matrix()`).
//!
//! Each is nalgebra's arithmetic on the elements: the rotation matrix of
//! `from_axis_angle` (Rodrigues' formula), or the quaternion
//! `exp((0, w / 2))` and its action `t = 2 q_v × p; p + q_w t + q_v × t`.
//! nalgebra takes the identity where the angle is zero (for a quaternion,
//! below the float's epsilon), whose derivatives are a constant's. Where
//! the squared angle is at most the float's epsilon (an angle below
//! 1.5e-8 for `f64`, as Ceres Solver's `AngleAxisRotatePoint` does) the
//! macro writes the rotation's Taylor expansion to second order
//! (`I + [w]× + ½ [w]×²`, the identity at zero, off by less than `θ³/6`
//! elsewhere): the gradient and the Hessian at and near a zero rotation
//! are the rotation's, and the exact formula, whose derivatives divide by
//! the angle, is used only where that loses at most `ε / θ²` ≈ 1e-8 of
//! relative precision. The value there agrees with nalgebra's to rounding
//! rather than bit for bit.

use super::{bin, cross, dot, sum, Mat, Scalarizer, Val};
use crate::ast::matrices::Shape;
use syn::{parse_quote, Expr, Ident};

/// A rotation: its 3 × 3 matrix, or its unit quaternion.
#[derive(Clone)]
pub(super) enum Rot {
    /// The elements of the matrix, column major.
    Matrix(Vec<Expr>),
    /// `w`, `x`, `y`, `z`.
    Quaternion(Vec<Expr>),
}

fn name(i: &Ident) -> Expr {
    parse_quote!(#i)
}

impl Scalarizer<'_> {
    /// `Rotation3::from_scaled_axis(w)`, `UnitQuaternion::new(w)`: `None`
    /// where `ty::ctor` is no such constructor.
    pub(super) fn rotation(
        &mut self,
        ty: &str,
        ctor: &str,
        c: &syn::ExprCall,
        e: &Expr,
    ) -> Option<Option<Val>> {
        let quaternion = match (ty, ctor) {
            ("Rotation3", "from_scaled_axis" | "new") => false,
            ("UnitQuaternion", "from_scaled_axis" | "new") => true,
            ("Rotation3" | "UnitQuaternion" | "Quaternion" | "Rotation2" | "UnitComplex", _) => {
                return Some(self.unsupported(e, &format!("`{ty}::{ctor}`")));
            }
            _ => return None,
        };
        let [arg] = &c.args.iter().collect::<Vec<_>>()[..] else {
            return Some(self.unsupported(e, &format!("`{ty}::{ctor}` with these arguments")));
        };
        let w = self.mat(arg)?;
        if w.shape.len() != 3 || !w.shape.is_vector() {
            return Some(self.unsupported(arg, "a rotation from other than a 3-vector"));
        }
        let w = self.atoms(w, "axis");
        Some(Some(Val::R(if quaternion {
            self.quaternion(&w.c)
        } else {
            self.rodrigues(&w.c)
        })))
    }

    /// nalgebra's `Rotation3::new(w)`: the norm, the unit axis, and
    /// `from_axis_angle`'s matrix; where `|w|²` is at most the epsilon,
    /// `I + [w]× + ½ [w]×²`.
    fn rodrigues(&mut self, w: &[Expr]) -> Rot {
        let ctx = self.ctx.clone();
        let eps = self.eps.clone();
        // nalgebra's test is `angle != 0`; see the module for the band
        // below the epsilon. The square root is taken only where it is
        // differentiable.
        let (angle, sq) = (
            self.fresh(&format!("{ctx}_angle")),
            self.fresh(&format!("{ctx}_sq")),
        );
        let dot = dot(Shape::vector(3), w, w);
        let ty = &self.float;
        self.stmts.push(parse_quote!(let #sq: #ty = #dot;));
        let names: Vec<Ident> = (0..9)
            .map(|k| {
                let (i, j) = (k % 3, k / 3);
                self.fresh(&format!("{ctx}_{i}{j}"))
            })
            .collect();
        let [ux, uy, uz, sqx, sqy, sqz, sin, cos, omc] =
            ["ux", "uy", "uz", "sqx", "sqy", "sqz", "sin", "cos", "omc"]
                .map(|n| self.fresh(&format!("{ctx}_{n}")));
        let (wx, wy, wz) = (&w[0], &w[1], &w[2]);
        let (a, b, c) = (name(&ux), name(&uy), name(&uz));
        let s = name(&sin);
        let o = name(&omc);
        let pair = |p: &Expr, q: &Expr| bin(&bin(p, "*", q), "*", &o);
        let diag = |sq: &Ident, cos: &Ident| -> Expr { parse_quote!(#sq + (1.0 - #sq) * #cos) };
        // Written row by row by nalgebra; held column by column.
        let rows: [Expr; 9] = [
            diag(&sqx, &cos),
            bin(&pair(&a, &b), "-", &bin(&c, "*", &s)),
            bin(&pair(&a, &c), "+", &bin(&b, "*", &s)),
            bin(&pair(&a, &b), "+", &bin(&c, "*", &s)),
            diag(&sqy, &cos),
            bin(&pair(&b, &c), "-", &bin(&a, "*", &s)),
            bin(&pair(&a, &c), "-", &bin(&b, "*", &s)),
            bin(&pair(&b, &c), "+", &bin(&a, "*", &s)),
            diag(&sqz, &cos),
        ];
        let exact: Vec<&Expr> = (0..9).map(|k| &rows[(k % 3) * 3 + k / 3]).collect();
        // `I + [w]× + ½ (w wᵀ − |w|² I)`, column by column.
        let cross = |i: usize, j: usize| -> Option<(&Expr, bool)> {
            match (i, j) {
                (1, 0) => Some((wz, true)),
                (0, 1) => Some((wz, false)),
                (2, 0) => Some((wy, false)),
                (0, 2) => Some((wy, true)),
                (2, 1) => Some((wx, true)),
                (1, 2) => Some((wx, false)),
                _ => None,
            }
        };
        let taylor: Vec<Expr> = (0..9)
            .map(|k| {
                let (i, j) = (k % 3, k / 3);
                if i == j {
                    let (p, q) = (&w[(i + 1) % 3], &w[(i + 2) % 3]);
                    parse_quote!(1.0 - 0.5 * (#p * #p + #q * #q))
                } else {
                    let half: Expr = bin(&bin(&parse_quote!(0.5), "*", &w[i]), "*", &w[j]);
                    let (v, plus) = cross(i, j).expect("an element off the diagonal");
                    bin(&half, if plus { "+" } else { "-" }, v)
                }
            })
            .collect();
        // One float a `let`, each element's branch on its own (the exact
        // formula's parts are made whatever the branch, from an angle of 1
        // where the square root is not taken).
        let ty = &self.float;
        self.stmts
            .push(parse_quote!(let #angle: #ty = if #sq > #eps { #sq.sqrt() } else { 1.0 };));
        for (u, wi) in [(&ux, wx), (&uy, wy), (&uz, wz)] {
            self.stmts.push(parse_quote!(let #u: #ty = #wi / #angle;));
        }
        for (q, u) in [(&sqx, &ux), (&sqy, &uy), (&sqz, &uz)] {
            self.stmts.push(parse_quote!(let #q: #ty = #u * #u;));
        }
        self.stmts.push(parse_quote!(let #sin: #ty = #angle.sin();));
        self.stmts.push(parse_quote!(let #cos: #ty = #angle.cos();));
        self.stmts.push(parse_quote!(let #omc: #ty = 1.0 - #cos;));
        for ((n, e), t) in names.iter().zip(exact).zip(&taylor) {
            self.stmts
                .push(parse_quote!(let #n: #ty = if #sq > #eps { #e } else { #t };));
        }
        Rot::Matrix(names.iter().map(name).collect())
    }

    /// nalgebra's `UnitQuaternion::new(w)`: `exp` of `(0, w / 2)`; where
    /// `|v|²` is at most the epsilon, `(1 − |v|²/2, v (1 − |v|²/6))` with
    /// `v = w / 2`.
    fn quaternion(&mut self, w: &[Expr]) -> Rot {
        let ctx = self.ctx.clone();
        let v: Vec<Ident> = ["vx", "vy", "vz"]
            .iter()
            .map(|n| self.fresh(&format!("{ctx}_{n}")))
            .collect();
        for (vi, wi) in v.iter().zip(w) {
            let wi = super::operand(wi.clone());
            let ty = &self.float;
            self.stmts.push(parse_quote!(let #vi: #ty = #wi / 2.0;));
        }
        let ve: Vec<Expr> = v.iter().map(name).collect();
        let nn = self.fresh(&format!("{ctx}_nn"));
        let sq = dot(Shape::vector(3), &ve, &ve);
        let ty = &self.float;
        self.stmts.push(parse_quote!(let #nn: #ty = #sq;));
        let names: Vec<Ident> = ["qw", "qx", "qy", "qz"]
            .iter()
            .map(|n| self.fresh(&format!("{ctx}_{n}")))
            .collect();
        let [n, s] = ["n", "s"].map(|x| self.fresh(&format!("{ctx}_{x}")));
        let eps = self.eps.clone();
        let ty = self.float.clone();
        // One float a `let`, each element's branch on its own (see `rodrigues`).
        self.stmts
            .push(parse_quote!(let #n: #ty = if #nn <= #eps { 1.0 } else { #nn.sqrt() };));
        self.stmts.push(parse_quote!(let #s: #ty = #n.sin() / #n;));
        let qw = &names[0];
        self.stmts.push(
            parse_quote!(let #qw: #ty = if #nn <= #eps { 1.0 - #nn / 2.0 } else { #n.cos() };),
        );
        for (q, x) in names[1..].iter().zip(&ve) {
            let scaled = bin(x, "*", &name(&s));
            self.stmts.push(parse_quote!(
                let #q: #ty = if #nn <= #eps { #x * (1.0 - #nn / 6.0) } else { #scaled };
            ));
        }
        Rot::Quaternion(names.iter().map(name).collect())
    }

    /// The rotation of the 3-vector `x` (its elements).
    pub(super) fn rotate(&mut self, r: &Rot, x: Mat, e: &Expr) -> Option<Mat> {
        if x.shape.len() != 3 || !x.shape.is_vector() {
            return self.unsupported(e, "a rotation of other than a 3-vector or a 3-point");
        }
        let point = x.shape.point;
        let x = self.atoms(x, "rotated");
        let c = match r {
            Rot::Matrix(m) => {
                let m = Mat {
                    shape: Shape {
                        rows: 3,
                        cols: 3,
                        point: false,
                    },
                    c: m.clone(),
                };
                self.matmul(m, x, e)?.c
            }
            Rot::Quaternion(q) => {
                // t = 2 (q_v × x); x + q_w t + q_v × t, in nalgebra's order.
                let qv = &q[1..];
                let t: Vec<Expr> = cross(qv, &x.c)
                    .into_iter()
                    .map(|c| bin(&c, "*", &parse_quote!(2.0)))
                    .collect();
                let t = self.atoms(
                    Mat {
                        shape: Shape::vector(3),
                        c: t,
                    },
                    "t",
                );
                let across = cross(qv, &t.c);
                (0..3)
                    .map(|i| {
                        sum(vec![
                            bin(&t.c[i], "*", &q[0]),
                            across[i].clone(),
                            x.c[i].clone(),
                        ])
                    })
                    .collect()
            }
        };
        Some(Mat {
            shape: Shape {
                point,
                ..Shape::vector(3)
            },
            c,
        })
    }

    /// The inverse rotation: the transpose, or the conjugate.
    pub(super) fn inverse(r: &Rot) -> Rot {
        match r {
            Rot::Matrix(m) => Rot::Matrix((0..9).map(|k| m[(k % 3) * 3 + k / 3].clone()).collect()),
            Rot::Quaternion(q) => Rot::Quaternion(
                std::iter::once(q[0].clone())
                    .chain(q[1..].iter().map(|c| parse_quote!(-#c)))
                    .collect(),
            ),
        }
    }

    /// A method of a rotation.
    pub(super) fn rot_method(&mut self, r: Rot, mc: &syn::ExprMethodCall, e: &Expr) -> Option<Val> {
        let name = mc.method.to_string();
        let arg = mc.args.first();
        Some(match (name.as_str(), arg) {
            ("clone", None) => Val::R(r),
            ("inverse" | "transpose", None) => Val::R(Self::inverse(&r)),
            ("transform_vector" | "transform_point", Some(a)) => {
                let x = self.mat(a)?;
                Val::M(self.rotate(&r, x, e)?)
            }
            ("inverse_transform_vector" | "inverse_transform_point", Some(a)) => {
                let x = self.mat(a)?;
                Val::M(self.rotate(&Self::inverse(&r), x, e)?)
            }
            ("matrix" | "into_inner", None) if matches!(r, Rot::Matrix(_)) => {
                let Rot::Matrix(c) = r else { unreachable!() };
                Val::M(Mat {
                    shape: Shape {
                        rows: 3,
                        cols: 3,
                        point: false,
                    },
                    c,
                })
            }
            _ => return self.unsupported(&mc.method, &format!("`.{name}(..)` of a rotation")),
        })
    }
}
