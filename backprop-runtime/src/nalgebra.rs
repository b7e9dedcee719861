//! Statically sized nalgebra values (`Vector3<f64>`, `SMatrix<f64, 2, 3>`,
//! `Point3<f64>`, ...) as the generated code holds them: `#[differentiable]`
//! writes a body over such values as the arithmetic on their elements, so
//! a parameter is read element by element (a [`Fixed`](crate::fixed::Fixed)
//! of its column-major elements, no copy) and its gradient is made back in
//! the parameter's own type. A value of a nalgebra type is made the same
//! way from the elements the generated code computed.
//!
//! ```
//! use backprop_runtime::fixed::{fixed_index, fixed_index_vjp, fixed_view};
//! use backprop_runtime::plain::plain_from;
//! use nalgebra::{Matrix2, Vector3};
//!
//! let m = Matrix2::new(1.0, 2.0, 3.0, 4.0);
//! let m = fixed_view::<_, 4>(&m);
//! // Column-major: the element (0, 1) is the third.
//! assert_eq!(fixed_index(&m, 2), 2.0);
//! let d: Matrix2<f64> = plain_from(fixed_index_vjp(0.5, &m, 2).value());
//! assert_eq!(d, Matrix2::new(0.0, 0.5, 0.0, 0.0));
//! let v: Vector3<f64> = plain_from(ndarray::array![1.0, 2.0, 3.0]);
//! assert_eq!(v, Vector3::new(1.0, 2.0, 3.0));
//! ```

use crate::dual::Dualize;
use crate::fixed::{AsFixed, FixedGrad};
use crate::model::{Differentiable, Path, Visitor, VisitorMut};
use crate::plain::{AsArray, FromArray, IntoPlain, PlainGrad};
use crate::value::Float;
use nalgebra::{Point, SMatrix, Scalar};
use ndarray::{
    Array, Array1, ArrayView1, ArrayView2, ArrayViewMut1, ArrayViewMut2, Ix1, ShapeBuilder,
};

/// The elements of a matrix whose storage is `N` numbers.
#[inline]
fn elems<F, const R: usize, const C: usize, const N: usize>(m: &SMatrix<F, R, C>) -> &[F; N]
where
    F: Scalar,
{
    const {
        assert!(
            R * C == N,
            "a nalgebra value read with another number of elements"
        )
    };
    m.as_slice()
        .try_into()
        .expect("a statically sized matrix stores its elements contiguously")
}

impl<F: Scalar, const R: usize, const C: usize, const N: usize> AsFixed<F, N> for SMatrix<F, R, C> {
    #[inline]
    fn as_fixed(&self) -> &[F; N] {
        elems(self)
    }
}

impl<F: Scalar, const D: usize, const N: usize> AsFixed<F, N> for Point<F, D> {
    #[inline]
    fn as_fixed(&self) -> &[F; N] {
        elems(&self.coords)
    }
}

/// The matrix of `N` column-major elements.
#[inline]
fn matrix<F: Scalar, const R: usize, const C: usize>(e: &[F]) -> SMatrix<F, R, C> {
    assert_eq!(
        e.len(),
        R * C,
        "{} elements for a {R} × {C} nalgebra matrix",
        e.len()
    );
    SMatrix::from_column_slice(e)
}

impl<F: Scalar, const R: usize, const C: usize, const N: usize> IntoPlain<SMatrix<F, R, C>>
    for FixedGrad<F, N>
{
    #[inline]
    fn into_plain(self) -> SMatrix<F, R, C> {
        let e: [F; N] = self.into_plain();
        matrix(&e)
    }
}

impl<F: Scalar, const D: usize, const N: usize> IntoPlain<Point<F, D>> for FixedGrad<F, N> {
    #[inline]
    fn into_plain(self) -> Point<F, D> {
        let e: [F; N] = self.into_plain();
        Point::from(matrix::<F, D, 1>(&e))
    }
}

impl<F: Float, const R: usize, const C: usize> FromArray<F, Ix1> for SMatrix<F, R, C> {
    #[inline]
    fn from_array(a: Array<F, Ix1>) -> Self {
        match a.as_slice() {
            Some(e) => matrix(e),
            None => matrix(&a.to_vec()),
        }
    }
}

impl<F: Float, const D: usize> FromArray<F, Ix1> for Point<F, D> {
    #[inline]
    fn from_array(a: Array<F, Ix1>) -> Self {
        Point::from(SMatrix::<F, D, 1>::from_array(a))
    }
}

impl<F: Scalar, const R: usize, const C: usize> AsArray for SMatrix<F, R, C> {
    type Elem = F;
    type Dim = Ix1;
    #[inline]
    fn as_array(&self) -> ArrayView1<'_, F> {
        ArrayView1::from(self.as_slice())
    }
}

impl<F: Scalar, const D: usize> AsArray for Point<F, D> {
    type Elem = F;
    type Dim = Ix1;
    #[inline]
    fn as_array(&self) -> ArrayView1<'_, F> {
        self.coords.as_array()
    }
}

impl<F: Float, const R: usize, const C: usize> PlainGrad for SMatrix<F, R, C> {
    type Grad = SMatrix<F, R, C>;
    #[inline]
    fn grad_from(a: Array1<F>) -> Self::Grad {
        Self::from_array(a)
    }
}

impl<F: Float, const D: usize> PlainGrad for Point<F, D> {
    type Grad = Point<F, D>;
    #[inline]
    fn grad_from(a: Array1<F>) -> Self::Grad {
        Self::from_array(a)
    }
}

impl<M, const R: usize, const C: usize> Dualize for SMatrix<M, R, C>
where
    M: Dualize + Scalar,
    M::Dual: Scalar,
{
    type Dual = SMatrix<M::Dual, R, C>;
    fn with_tangent(&self, direction: &Self) -> Self::Dual {
        self.zip_map(direction, |x, t| x.with_tangent(&t))
    }
    fn constant(&self) -> Self::Dual {
        self.map(|x| x.constant())
    }
    fn value_of(d: &Self::Dual) -> Self {
        d.map(|x| M::value_of(&x))
    }
    fn tangent_of(d: &Self::Dual) -> Self {
        d.map(|x| M::tangent_of(&x))
    }
}

impl<M, const D: usize> Dualize for Point<M, D>
where
    M: Dualize + Scalar,
    M::Dual: Scalar,
{
    type Dual = Point<M::Dual, D>;
    fn with_tangent(&self, direction: &Self) -> Self::Dual {
        Point::from(self.coords.with_tangent(&direction.coords))
    }
    fn constant(&self) -> Self::Dual {
        Point::from(self.coords.constant())
    }
    fn value_of(d: &Self::Dual) -> Self {
        Point::from(SMatrix::value_of(&d.coords))
    }
    fn tangent_of(d: &Self::Dual) -> Self {
        Point::from(SMatrix::tangent_of(&d.coords))
    }
}

/// A vector is a 1-d leaf of its elements, a matrix a 2-d one (its element
/// `(i, j)` at `[[i, j]]`), so optimisers, `gradcheck` and models (a field
/// of a nalgebra type) take them as they take arrays.
impl<F: Float + Scalar, const R: usize, const C: usize> Differentiable for SMatrix<F, R, C> {
    #[inline]
    fn add_assign(&mut self, other: &Self) {
        for (a, &b) in self.iter_mut().zip(other.iter()) {
            *a += b;
        }
    }
    fn visit<'a>(&'a self, path: &mut Path, visitor: &mut dyn Visitor<'a>) {
        let view = if C == 1 {
            ArrayView1::from(self.as_slice()).into_dyn()
        } else {
            ArrayView2::from_shape((R, C).f(), self.as_slice())
                .expect("a statically sized matrix stores its elements column by column")
                .into_dyn()
        };
        F::visit_leaves(view, path, visitor);
    }
    fn visit_mut<'a>(&'a mut self, path: &mut Path, visitor: &mut dyn VisitorMut<'a>) {
        let view = if C == 1 {
            ArrayViewMut1::from(self.as_mut_slice()).into_dyn()
        } else {
            ArrayViewMut2::from_shape((R, C).f(), self.as_mut_slice())
                .expect("a statically sized matrix stores its elements column by column")
                .into_dyn()
        };
        F::visit_leaves_mut(view, path, visitor);
    }
}

/// A point is the vector of its coordinates.
impl<F: Float + Scalar, const D: usize> Differentiable for Point<F, D> {
    #[inline]
    fn add_assign(&mut self, other: &Self) {
        self.coords.add_assign(&other.coords);
    }
    fn visit<'a>(&'a self, path: &mut Path, visitor: &mut dyn Visitor<'a>) {
        self.coords.visit(path, visitor);
    }
    fn visit_mut<'a>(&'a mut self, path: &mut Path, visitor: &mut dyn VisitorMut<'a>) {
        self.coords.visit_mut(path, visitor);
    }
}

/// A value of constants the generated code holds as an array literal.
impl<F: Scalar, const R: usize, const C: usize, const N: usize> IntoPlain<SMatrix<F, R, C>>
    for [F; N]
{
    #[inline]
    fn into_plain(self) -> SMatrix<F, R, C> {
        matrix(&self)
    }
}

impl<F: Scalar, const D: usize, const N: usize> IntoPlain<Point<F, D>> for [F; N] {
    #[inline]
    fn into_plain(self) -> Point<F, D> {
        Point::from(matrix::<F, D, 1>(&self))
    }
}

/// A statically sized nalgebra value made from its `N` elements in
/// column-major order.
pub trait FromElems<const N: usize> {
    /// The element type.
    type Elem;
    /// The value of the elements.
    fn from_elems(elems: [Self::Elem; N]) -> Self;
}

impl<F: Scalar, const R: usize, const C: usize, const N: usize> FromElems<N> for SMatrix<F, R, C> {
    type Elem = F;
    #[inline]
    fn from_elems(elems: [F; N]) -> Self {
        matrix(&elems)
    }
}

impl<F: Scalar, const D: usize, const N: usize> FromElems<N> for Point<F, D> {
    type Elem = F;
    #[inline]
    fn from_elems(elems: [F; N]) -> Self {
        Point::from(matrix::<F, D, 1>(&elems))
    }
}

/// The elements of a statically sized nalgebra value, owned or borrowed.
pub trait Elems<F> {
    /// Element `k`, column-major.
    fn elem(&self, k: usize) -> F;
}

impl<F: Scalar + Copy, const R: usize, const C: usize> Elems<F> for SMatrix<F, R, C> {
    #[inline]
    fn elem(&self, k: usize) -> F {
        self[k]
    }
}

impl<F: Scalar + Copy, const D: usize> Elems<F> for Point<F, D> {
    #[inline]
    fn elem(&self, k: usize) -> F {
        self.coords[k]
    }
}

/// A callee's gradient of a plain container comes back as the array of its
/// elements (see `NAME_vjp`).
impl<F: Copy, S: ndarray::Data<Elem = F>> Elems<F> for ndarray::ArrayBase<S, Ix1> {
    #[inline]
    fn elem(&self, k: usize) -> F {
        self[k]
    }
}

impl<F, T: Elems<F>> Elems<F> for &T {
    #[inline]
    fn elem(&self, k: usize) -> F {
        (**self).elem(k)
    }
}

/// A nalgebra value of floats the generated code computed, as the
/// argument of a call (`helper(&v)` with `v` a `Vector3<f64>` written on
/// its elements): the type is the callee's parameter's.
///
/// Adjoint: `∂items[k]` is element `k` of the callee's gradient
/// ([`pack_matrix_vjp`]).
#[doc(hidden)]
#[inline]
pub fn pack_matrix<T: FromElems<N>, const N: usize>(items: &[&T::Elem; N]) -> T
where
    T::Elem: Copy,
{
    T::from_elems(items.map(|x| *x))
}

/// Adjoint of [`pack_matrix`] with respect to `items[k]`.
#[doc(hidden)]
#[inline]
pub fn pack_matrix_vjp<F: Float, const N: usize>(
    g: impl Elems<F>,
    _items: &[&F; N],
    k: usize,
) -> F {
    g.elem(k)
}
