//! nalgebra's statically sized types as the signature names them:
//! `Vector3<f64>`, `RowVector2<f64>`, `Matrix2x3<f64>`, `SVector<f64, 4>`,
//! `SMatrix<f64, 2, 3>`, `Point3<f64>` (also by a path, `na::Vector3<f64>`),
//! each a shape the macro knows. The body's arithmetic on such values is
//! written on their elements (see [`super::scalarize`]).

use super::{strip_type, Args, Ctxt, Elem, Param};
use proc_macro2::TokenStream;
use quote::ToTokens;
use syn::{Expr, GenericArgument, PathArguments, Type};
use syn::{Ident, ItemFn};

/// The shape of a statically sized nalgebra value.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Shape {
    pub rows: usize,
    pub cols: usize,
    /// A `Point`: its arithmetic is a vector's, its type a point's.
    pub point: bool,
}

impl Shape {
    pub fn len(&self) -> usize {
        self.rows * self.cols
    }

    pub fn vector(rows: usize) -> Shape {
        Shape {
            rows,
            cols: 1,
            point: false,
        }
    }

    pub fn is_vector(&self) -> bool {
        self.cols == 1 || self.rows == 1
    }

    /// How the macro names the `k`th element (column-major) of a value of
    /// this shape: `x`, `y`, `z`, `w` for a short vector, its index for a
    /// longer one, its row and column for a matrix (`01` is row 0, column 1).
    pub fn suffix(&self, k: usize) -> String {
        if self.is_vector() && self.len() <= 4 {
            ["x", "y", "z", "w"][k].to_string()
        } else if self.is_vector() {
            k.to_string()
        } else {
            let (i, j) = (k % self.rows, k / self.rows);
            if self.rows < 10 && self.cols < 10 {
                format!("{i}{j}")
            } else {
                format!("{i}_{j}")
            }
        }
    }

    /// The type's name for messages: `3 × 1`.
    pub fn describe(&self) -> String {
        format!("{} × {}", self.rows, self.cols)
    }
}

/// The largest number of elements a value may have: its arithmetic is
/// written out element by element.
pub const MAX_ELEMS: usize = 64;

/// What a type is to the macro, if it is one of nalgebra's.
pub enum Nalgebra {
    /// A statically sized value of this shape and element type.
    Static(Shape, Elem),
    /// A nalgebra type the macro does not differentiate yet, with why.
    Unsupported(&'static str),
}

/// The nalgebra type `ty` names, if it names one (by its last segment).
pub fn nalgebra_type(ty: &Type) -> Option<Nalgebra> {
    let Type::Path(p) = ty else {
        return None;
    };
    if p.qself.is_some() {
        return None;
    }
    let last = p.path.segments.last()?;
    let name = last.ident.to_string();
    let args: Vec<&GenericArgument> = match &last.arguments {
        PathArguments::AngleBracketed(a) => a.args.iter().collect(),
        _ => Vec::new(),
    };
    let elem = match args.first() {
        Some(GenericArgument::Type(t)) => Elem::from_type(t),
        _ => None,
    };
    let sized = |n: &str, prefix: &str| -> Option<usize> {
        n.strip_prefix(prefix)?
            .parse::<usize>()
            .ok()
            .filter(|d| (1..=6).contains(d))
    };
    let shape = if let Some(n) = sized(&name, "Vector") {
        Shape::vector(n)
    } else if let Some(n) = sized(&name, "RowVector") {
        Shape {
            rows: 1,
            cols: n,
            point: false,
        }
    } else if let Some(n) = sized(&name, "Point") {
        Shape {
            rows: n,
            cols: 1,
            point: true,
        }
    } else if let Some(n) = sized(&name, "Matrix") {
        Shape {
            rows: n,
            cols: n,
            point: false,
        }
    } else if let Some((r, c)) = name
        .strip_prefix("Matrix")
        .and_then(|rc| rc.split_once('x'))
        .and_then(|(r, c)| Some((sized(r, "")?, sized(c, "")?)))
    {
        Shape {
            rows: r,
            cols: c,
            point: false,
        }
    } else if name == "SVector" || name == "SMatrix" {
        let dims: Option<Vec<usize>> = args
            .get(1..)
            .unwrap_or_default()
            .iter()
            .map(|a| literal_size(a))
            .collect();
        return Some(match (dims.as_deref(), name.as_str()) {
            (Some(&[n]), "SVector") => static_or(Shape::vector(n), elem),
            (Some(&[r, c]), "SMatrix") => static_or(
                Shape {
                    rows: r,
                    cols: c,
                    point: false,
                },
                elem,
            ),
            _ => Nalgebra::Unsupported(
                "a nalgebra size the macro reads is an integer literal (`SVector<f64, 3>`, `SMatrix<f64, 2, 3>`); a const generic size is not supported yet",
            ),
        });
    } else {
        return match name.as_str() {
            "DVector" | "DMatrix" | "RowDVector" => Some(Nalgebra::Unsupported(
                "dynamically sized nalgebra values are not differentiable yet: use an ndarray array (`Array1<f64>`), a slice or a `Vec<f64>`, or a statically sized `SVector`/`SMatrix`",
            )),
            "UnitQuaternion" | "Quaternion" | "Rotation3" | "Rotation2" | "Isometry3"
            | "Isometry2" | "UnitComplex" | "Unit" | "Similarity3" | "Translation3" => {
                Some(Nalgebra::Unsupported(
                    "a nalgebra rotation or transformation is not differentiable as a parameter yet: pass its parameters (an axis-angle `Vector3<f64>`, a translation `Vector3<f64>`)",
                ))
            }
            _ => None,
        };
    };
    Some(static_or(shape, elem))
}

fn static_or(shape: Shape, elem: Option<Elem>) -> Nalgebra {
    match elem {
        _ if shape.len() == 0 => Nalgebra::Unsupported(
            "a nalgebra value of no elements is not differentiable",
        ),
        _ if shape.len() > MAX_ELEMS => Nalgebra::Unsupported(
            "a statically sized nalgebra value of more than 64 elements is not supported: its arithmetic is written element by element; use an ndarray array",
        ),
        Some(e) => Nalgebra::Static(shape, e),
        None => Nalgebra::Unsupported(
            "a nalgebra value of floats (`f64`, `f32` or the function's float type) is differentiable; this one's element type is not a float",
        ),
    }
}

/// `3` in `SVector<f64, 3>` (also `{ 3 }`).
fn literal_size(a: &GenericArgument) -> Option<usize> {
    match a {
        GenericArgument::Const(Expr::Block(b)) if b.block.stmts.len() == 1 => {
            match &b.block.stmts[0] {
                syn::Stmt::Expr(e, None) => literal_size(&GenericArgument::Const(e.clone())),
                _ => None,
            }
        }
        GenericArgument::Const(e) => lit_usize(e),
        _ => None,
    }
}

/// An integer literal's value (`3`, an index `v[3]`).
pub(crate) fn lit_usize(e: &Expr) -> Option<usize> {
    match e {
        Expr::Lit(l) => match &l.lit {
            syn::Lit::Int(i) => i.base10_parse().ok(),
            _ => None,
        },
        _ => None,
    }
}

/// The shape of a statically sized nalgebra type, behind a reference or not.
pub(crate) fn matrix_shape(ty: &Type) -> Option<Shape> {
    let ty = match strip_type(ty) {
        Type::Reference(r) if r.mutability.is_none() => strip_type(&r.elem),
        other => other,
    };
    match nalgebra_type(ty)? {
        Nalgebra::Static(shape, _) => Some(shape),
        Nalgebra::Unsupported(_) => None,
    }
}

/// Errors for parameters of nalgebra types the macro does not
/// differentiate yet (where they would be differentiable), and the body
/// written on the elements of the others.
pub(crate) fn scalarized(
    item: &mut ItemFn,
    params: &[Param],
    args: &Args,
    output: Option<Shape>,
    krate: &TokenStream,
    cx: &mut Ctxt,
) -> Option<Box<syn::Block>> {
    for p in params {
        let ty = match strip_type(&p.ty) {
            Type::Reference(r) => strip_type(&r.elem),
            other => other,
        };
        let named = args.wrt.as_ref().is_none_or(|w| w.contains(&p.ident));
        if let (Some(Nalgebra::Unsupported(why)), true) = (nalgebra_type(ty), named) {
            cx.error_at(
                &p.ty,
                format!("{why}; a parameter of this type may be constant data where `wrt(..)` names the differentiable ones"),
            );
        }
    }
    let matrices: Vec<(Ident, Shape, bool)> = params
        .iter()
        .filter_map(|p| {
            let by_ref = matches!(strip_type(&p.ty), Type::Reference(_));
            Some((p.ident.clone(), p.matrix?, by_ref))
        })
        .collect();
    let mut taken = std::collections::HashSet::new();
    crate::names::idents(item.to_token_stream(), &mut taken);
    // The element type, for the float's epsilon.
    let elem = params
        .iter()
        .filter(|p| p.matrix.is_some())
        .find_map(|p| p.kind.elem())
        .unwrap_or(Elem::F64);
    let block =
        super::scalarize::scalarize(&item.block, &matrices, output, &elem, krate, taken, cx)?;
    Some(std::mem::replace(&mut item.block, Box::new(block)))
}
