//! The rules of the reads that take part of an array (`a.row(i)`,
//! `a.column(j)`, `a[idx]`, `a.slice(s![..])`, `a.slice_axis(..)`,
//! `a.index_axis(..)`): their gradient goes back to the place the value was
//! read from, and is zero elsewhere.
//!
//! Each rule returns a [`Contribution`](crate::contrib::Contribution) that
//! knows the place and the operand's shape, not its values: as a new value
//! it is a zero of that shape with `g` in the place; added into a gradient
//! (a loop's accumulator, the sum of a fork) it adds `g` into the place
//! only, so a loop that reads `x[i]` every iteration costs one element per
//! iteration in its reverse sweep, not a whole array.

use crate::contrib::Kind;
use crate::value::{Cot, Float, Tensor};
use ndarray::{Array, ArrayViewMut, Axis, Dimension, NdIndex, RemoveAxis, Slice, SliceArg};

/// A part of an array of dimension `D`, of dimension `Out`.
pub trait Place<D: Dimension> {
    /// The dimension of the part.
    type Out: Dimension;
    /// The part of `a`.
    fn region<'a, F>(self, a: ArrayViewMut<'a, F, D>) -> ArrayViewMut<'a, F, Self::Out>;
}

/// Index `i` of `axis`: a row (`Axis(0)`), a column (`Axis(1)`), a lane.
#[derive(Clone, Copy, Debug)]
pub struct Lane {
    pub(crate) axis: Axis,
    pub(crate) i: usize,
}

impl<D: RemoveAxis> Place<D> for Lane {
    type Out = D::Smaller;
    #[inline]
    fn region<'a, F>(self, a: ArrayViewMut<'a, F, D>) -> ArrayViewMut<'a, F, D::Smaller> {
        a.index_axis_move(self.axis, self.i)
    }
}

/// A slice, `s![..]`.
#[derive(Clone, Copy, Debug)]
pub struct Sliced<I>(pub(crate) I);

impl<D: Dimension, I: SliceArg<D>> Place<D> for Sliced<I> {
    type Out = I::OutDim;
    #[inline]
    fn region<'a, F>(self, a: ArrayViewMut<'a, F, D>) -> ArrayViewMut<'a, F, I::OutDim> {
        a.slice_move(self.0)
    }
}

/// A slice of one axis.
#[derive(Clone, Copy, Debug)]
pub struct AxisSlice {
    pub(crate) axis: Axis,
    pub(crate) slice: Slice,
}

impl<D: Dimension> Place<D> for AxisSlice {
    type Out = D;
    #[inline]
    fn region<'a, F>(self, mut a: ArrayViewMut<'a, F, D>) -> ArrayViewMut<'a, F, D> {
        a.slice_axis_inplace(self.axis, self.slice);
        a
    }
}

/// The gradient `g` of a part of an array of shape `dim`, at `place`.
pub struct Placed<G, D, P> {
    pub(crate) g: G,
    pub(crate) dim: D,
    pub(crate) place: P,
}

impl<F, D, P, G> Kind<Array<F, D>> for Placed<G, D, P>
where
    F: Float,
    D: Dimension,
    P: Place<D>,
    G: Cot<Array<F, P::Out>>,
    Array<F, D>: Tensor<Elem = F>,
    Array<F, P::Out>: Tensor<Elem = F>,
{
    #[inline]
    fn value(self) -> Array<F, D> {
        let mut d = Array::zeros(self.dim);
        self.place.region(d.view_mut()).assign(self.g.get());
        d
    }
    #[inline]
    fn add_to(self, acc: &mut Array<F, D>) {
        self.place
            .region(acc.view_mut())
            .zip_mut_with(self.g.get(), |a, &g| *a += g);
    }
}

/// The gradient `g` of one element of an array of shape `dim`, at `idx`.
pub struct PlacedAt<G, D, I> {
    pub(crate) g: G,
    pub(crate) dim: D,
    pub(crate) idx: I,
}

impl<F, D, I, G> Kind<Array<F, D>> for PlacedAt<G, D, I>
where
    F: Float + Tensor<Elem = F>,
    D: Dimension,
    I: NdIndex<D>,
    G: Cot<F>,
    Array<F, D>: Tensor<Elem = F>,
{
    #[inline]
    fn value(self) -> Array<F, D> {
        let mut d = Array::zeros(self.dim);
        d[self.idx] = *self.g.get();
        d
    }
    #[inline]
    fn add_to(self, acc: &mut Array<F, D>) {
        let a = &mut acc[self.idx];
        *a += *self.g.get();
    }
}
