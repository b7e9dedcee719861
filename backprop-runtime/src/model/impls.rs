//! [`Differentiable`] for the leaves (`f32`, `f64`, `Array<F, D>`) and the
//! containers (`Vec<T>`, `[T; N]`, `Box<T>`, `Option<T>`).

use super::{Differentiable, Path, Visitor, VisitorMut};
use crate::value::Float;
use ndarray::{aview0, aview_mut1, Array, Axis, Dimension};

/// A float is a 0-d leaf.
macro_rules! scalar_leaf {
    ($([$($g:tt)*] $f:ty),*) => {$(
        impl<$($g)*> Differentiable for $f {
            // Added directly, not through a visit: what a model's field
            // read adds into its gradient, per iteration of a loop.
            #[inline]
            fn add_assign(&mut self, other: &Self) {
                *self += *other;
            }
            fn visit<'a>(&'a self, path: &mut Path, visitor: &mut dyn Visitor<'a>) {
                <$f as Float>::visit_leaves(aview0(self).into_dyn(), path, visitor);
            }
            fn visit_mut<'a>(&'a mut self, path: &mut Path, visitor: &mut dyn VisitorMut<'a>) {
                let view = aview_mut1(core::slice::from_mut(self)).index_axis_move(Axis(0), 0);
                <$f as Float>::visit_leaves_mut(view.into_dyn(), path, visitor);
            }
        }
    )*};
}
scalar_leaf!([] f32, [] f64, [F: Float] crate::dual::Dual<F>);

/// An owned float array of any dimension is one leaf.
impl<F: Float, D: Dimension> Differentiable for Array<F, D> {
    /// Element by element (the shapes must be equal).
    #[inline]
    fn add_assign(&mut self, other: &Self) {
        assert_eq!(
            self.shape(),
            other.shape(),
            "add_assign: arrays of shapes {:?} and {:?}",
            self.shape(),
            other.shape()
        );
        self.zip_mut_with(other, |a, &b| *a += b);
    }
    fn visit<'a>(&'a self, path: &mut Path, visitor: &mut dyn Visitor<'a>) {
        F::visit_leaves(self.view().into_dyn(), path, visitor);
    }
    fn visit_mut<'a>(&'a mut self, path: &mut Path, visitor: &mut dyn VisitorMut<'a>) {
        F::visit_leaves_mut(self.view_mut().into_dyn(), path, visitor);
    }
}

/// The elements in order, `[i]` each, after the length (which a zip checks).
impl<T: Differentiable> Differentiable for Vec<T> {
    fn visit<'a>(&'a self, path: &mut Path, visitor: &mut dyn Visitor<'a>) {
        visitor.sequence(path, self.len());
        for (i, x) in self.iter().enumerate() {
            path.push_index(i);
            x.visit(path, visitor);
            path.pop();
        }
    }
    fn visit_mut<'a>(&'a mut self, path: &mut Path, visitor: &mut dyn VisitorMut<'a>) {
        visitor.sequence(path, self.len());
        for (i, x) in self.iter_mut().enumerate() {
            path.push_index(i);
            x.visit_mut(path, visitor);
            path.pop();
        }
    }
}

/// The elements in order, `[i]` each (the length is the type's).
impl<T: Differentiable, const N: usize> Differentiable for [T; N] {
    fn visit<'a>(&'a self, path: &mut Path, visitor: &mut dyn Visitor<'a>) {
        for (i, x) in self.iter().enumerate() {
            path.push_index(i);
            x.visit(path, visitor);
            path.pop();
        }
    }
    fn visit_mut<'a>(&'a mut self, path: &mut Path, visitor: &mut dyn VisitorMut<'a>) {
        for (i, x) in self.iter_mut().enumerate() {
            path.push_index(i);
            x.visit_mut(path, visitor);
            path.pop();
        }
    }
}

/// The boxed value, at the same path.
impl<T: Differentiable> Differentiable for Box<T> {
    fn visit<'a>(&'a self, path: &mut Path, visitor: &mut dyn Visitor<'a>) {
        (**self).visit(path, visitor);
    }
    fn visit_mut<'a>(&'a mut self, path: &mut Path, visitor: &mut dyn VisitorMut<'a>) {
        (**self).visit_mut(path, visitor);
    }
}

/// A sequence of 0 or 1 (so that a zip of `None` with `Some` is caught), the
/// value at the same path.
impl<T: Differentiable> Differentiable for Option<T> {
    fn visit<'a>(&'a self, path: &mut Path, visitor: &mut dyn Visitor<'a>) {
        visitor.sequence(path, usize::from(self.is_some()));
        if let Some(x) = self {
            x.visit(path, visitor);
        }
    }
    fn visit_mut<'a>(&'a mut self, path: &mut Path, visitor: &mut dyn VisitorMut<'a>) {
        visitor.sequence(path, usize::from(self.is_some()));
        if let Some(x) = self {
            x.visit_mut(path, visitor);
        }
    }
}
