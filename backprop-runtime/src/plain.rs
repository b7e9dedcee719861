//! Plain Rust containers of floats (`&[f64]`, `Vec<f64>`, `[f64; N]`,
//! `[[f64; M]; N]`) as the generated code holds them: a parameter is read
//! as an ndarray view of its elements (no copy), and a gradient or a value
//! of the container's type is made back from an array.
//!
//! ```
//! use backprop_runtime::plain::{plain_from, plain_view};
//! use ndarray::{array, Array1};
//!
//! let x = vec![1.0, 2.0, 3.0];
//! assert_eq!(plain_view(&x), array![1.0, 2.0, 3.0]);
//! let m = [[1.0, 2.0], [3.0, 4.0]];
//! assert_eq!(plain_view(&m), array![[1.0, 2.0], [3.0, 4.0]]);
//! let back: [f64; 3] = plain_from(Array1::from(vec![0.5, 1.5, 2.5]));
//! assert_eq!(back, [0.5, 1.5, 2.5]);
//! ```

use crate::value::{Cot, Float};
use ndarray::{Array, Array1, ArrayView, ArrayView1, ArrayView2, Dimension, Ix1, Ix2};

/// A plain container of floats, seen as an ndarray array of its elements.
pub trait AsArray {
    /// The element type.
    type Elem;
    /// The dimension: `Ix1` for a slice, a `Vec` or an array, `Ix2` for an
    /// array of arrays.
    type Dim: Dimension;
    /// A view of the elements, in order (no copy).
    fn as_array(&self) -> ArrayView<'_, Self::Elem, Self::Dim>;
}

impl<F> AsArray for [F] {
    type Elem = F;
    type Dim = Ix1;
    #[inline]
    fn as_array(&self) -> ArrayView1<'_, F> {
        ArrayView1::from(self)
    }
}

impl<F> AsArray for Vec<F> {
    type Elem = F;
    type Dim = Ix1;
    #[inline]
    fn as_array(&self) -> ArrayView1<'_, F> {
        ArrayView1::from(self.as_slice())
    }
}

impl<F: Float, const N: usize> AsArray for [F; N] {
    type Elem = F;
    type Dim = Ix1;
    #[inline]
    fn as_array(&self) -> ArrayView1<'_, F> {
        ArrayView1::from(self)
    }
}

impl<F: Float, const M: usize, const N: usize> AsArray for [[F; N]; M] {
    type Elem = F;
    type Dim = Ix2;
    #[inline]
    fn as_array(&self) -> ArrayView2<'_, F> {
        ArrayView2::from(self)
    }
}

/// An ndarray array as the view of itself: the generated code reads a
/// constant that a closure walks (`self.xs.iter().zip(&self.ys).map(..)`,
/// a field that may be a `Vec` or an array) through [`plain_view`].
impl<S: ndarray::Data, D: Dimension> AsArray for ndarray::ArrayBase<S, D> {
    type Elem = S::Elem;
    type Dim = D;
    #[inline]
    fn as_array(&self) -> ArrayView<'_, S::Elem, D> {
        self.view()
    }
}

impl<T: AsArray + ?Sized> AsArray for &T {
    type Elem = T::Elem;
    type Dim = T::Dim;
    #[inline]
    fn as_array(&self) -> ArrayView<'_, Self::Elem, Self::Dim> {
        (**self).as_array()
    }
}

/// A view of a plain container's elements: how the generated code reads a
/// parameter `x: &[f64]` (`let x = bp::plain_view(&x);`).
#[inline]
pub fn plain_view<C: AsArray + ?Sized>(c: &C) -> ArrayView<'_, C::Elem, C::Dim> {
    c.as_array()
}

/// The slice of a plain container of one axis as the generated code holds
/// it: how Rust code the macro passes through reads a constant container
/// (`xs.chunks(3)` of a parameter held as `let xs = bp::plain_view(&xs);`,
/// with the container's lifetime; `c[1..]` of a local `vec![0.0; n]` held
/// as an `Array1`).
///
/// # Panics
///
/// If a view is not contiguous (a view of a slice, a `Vec` or an array
/// always is).
///
/// ```
/// use backprop_runtime::plain::{plain_slice, plain_view};
/// let x = vec![1.0, 2.0, 3.0];
/// let v = plain_view(&x);
/// assert_eq!(plain_slice(&v)[1..], [2.0, 3.0]);
/// let c = ndarray::Array1::from_elem(2, 0.5);
/// assert_eq!(plain_slice(&c).chunks(1).count(), 2);
/// ```
#[inline]
pub fn plain_slice<'a, C: PlainSlice<'a>>(c: C) -> &'a [C::Elem] {
    c.plain_slice()
}

/// A container of one axis that is a slice of its elements (see
/// [`plain_slice`]).
pub trait PlainSlice<'a> {
    /// The element type.
    type Elem;
    /// The elements as a slice.
    fn plain_slice(self) -> &'a [Self::Elem];
}

impl<'a, F> PlainSlice<'a> for &ArrayView1<'a, F> {
    type Elem = F;
    #[inline]
    fn plain_slice(self) -> &'a [F] {
        self.to_slice().expect("a view of a slice is contiguous")
    }
}

impl<'a, F, const N: usize> PlainSlice<'a> for &crate::fixed::Fixed<'a, F, N> {
    type Elem = F;
    #[inline]
    fn plain_slice(self) -> &'a [F] {
        self.array()
    }
}

impl<'a, F> PlainSlice<'a> for &'a Array1<F> {
    type Elem = F;
    #[inline]
    fn plain_slice(self) -> &'a [F] {
        self.as_slice().expect("an owned vector is contiguous")
    }
}

impl<'a, F> PlainSlice<'a> for &'a [F] {
    type Elem = F;
    #[inline]
    fn plain_slice(self) -> &'a [F] {
        self
    }
}

impl<'a, F> PlainSlice<'a> for &'a Vec<F> {
    type Elem = F;
    #[inline]
    fn plain_slice(self) -> &'a [F] {
        self
    }
}

impl<'a, F, const N: usize> PlainSlice<'a> for &'a [F; N] {
    type Elem = F;
    #[inline]
    fn plain_slice(self) -> &'a [F] {
        self
    }
}

/// An owned copy of a plain container's elements as an array: an upstream
/// gradient of a function whose value is a container.
#[inline]
pub fn plain_owned<C: AsArray + ?Sized>(c: &C) -> Array<C::Elem, C::Dim>
where
    C::Elem: Clone,
{
    c.as_array().to_owned()
}

/// A plain container made from an array of its shape: the gradient of a
/// container parameter, or a value of a container type.
pub trait FromArray<F, D>: Sized {
    /// The container of `a`'s elements, in order.
    ///
    /// # Panics
    ///
    /// If `a` does not have the container's fixed length.
    fn from_array(a: Array<F, D>) -> Self;
}

impl<F: Float> FromArray<F, Ix1> for Vec<F> {
    #[inline]
    fn from_array(a: Array<F, Ix1>) -> Vec<F> {
        let n = a.len();
        if !a.is_standard_layout() {
            return a.iter().copied().collect();
        }
        // The buffer itself where it holds exactly the elements.
        let (mut v, offset) = a.into_raw_vec_and_offset();
        let start = offset.unwrap_or(0);
        if start == 0 && v.len() == n {
            v
        } else {
            v.drain(start..start + n).collect()
        }
    }
}

impl<F: Float, const N: usize> FromArray<F, Ix1> for [F; N] {
    #[inline]
    fn from_array(a: Array<F, Ix1>) -> [F; N] {
        assert_eq!(
            a.len(),
            N,
            "an array of {} elements where {N} are expected",
            a.len()
        );
        core::array::from_fn(|i| a[i])
    }
}

impl<F: Float, const M: usize, const N: usize> FromArray<F, Ix2> for [[F; N]; M] {
    #[inline]
    fn from_array(a: Array<F, Ix2>) -> [[F; N]; M] {
        assert_eq!(
            a.dim(),
            (M, N),
            "a {:?} array where {M} × {N} is expected",
            a.dim()
        );
        core::array::from_fn(|i| core::array::from_fn(|j| a[[i, j]]))
    }
}

/// A value the generated code holds, as the container the function
/// returns: an array it computed ([`FromArray`]), or a constant the user
/// wrote (a `vec![c]` of constants is held as the literal `[c]`).
pub trait IntoPlain<C> {
    /// The container.
    fn into_plain(self) -> C;
}

impl<C: FromArray<F, D>, F, D> IntoPlain<C> for Array<F, D> {
    #[inline]
    fn into_plain(self) -> C {
        C::from_array(self)
    }
}

impl<F> IntoPlain<Vec<F>> for Vec<F> {
    #[inline]
    fn into_plain(self) -> Vec<F> {
        self
    }
}

impl<F, const N: usize> IntoPlain<Vec<F>> for [F; N] {
    #[inline]
    fn into_plain(self) -> Vec<F> {
        self.into()
    }
}

impl<F, const N: usize> IntoPlain<[F; N]> for [F; N] {
    #[inline]
    fn into_plain(self) -> [F; N] {
        self
    }
}

/// The container of a value (see [`IntoPlain`]).
#[inline]
pub fn plain_from<C, A: IntoPlain<C>>(a: A) -> C {
    a.into_plain()
}

/// What [`plain_view_vjp`] gives back for a value read through
/// [`plain_view`]: the gradient in the value's own type (a `Vec` for a
/// `Vec`, an array for an array).
pub trait PlainGrad: AsArray {
    /// The gradient's type.
    type Grad;
    /// The gradient from the array of the view's shape.
    fn grad_from(a: Array<Self::Elem, Self::Dim>) -> Self::Grad;
}

impl<F: Float> PlainGrad for Vec<F> {
    type Grad = Vec<F>;
    #[inline]
    fn grad_from(a: Array<F, Ix1>) -> Vec<F> {
        plain_from(a)
    }
}

impl<F: Float, const N: usize> PlainGrad for [F; N] {
    type Grad = [F; N];
    #[inline]
    fn grad_from(a: Array<F, Ix1>) -> [F; N] {
        plain_from(a)
    }
}

impl<F: Float, const M: usize, const N: usize> PlainGrad for [[F; N]; M] {
    type Grad = [[F; N]; M];
    #[inline]
    fn grad_from(a: Array<F, Ix2>) -> [[F; N]; M] {
        plain_from(a)
    }
}

impl<S: ndarray::Data, D: Dimension> PlainGrad for ndarray::ArrayBase<S, D> {
    type Grad = Array<S::Elem, D>;
    #[inline]
    fn grad_from(a: Array<S::Elem, D>) -> Array<S::Elem, D> {
        a
    }
}

impl<T: PlainGrad + ?Sized> PlainGrad for &T {
    type Grad = T::Grad;
    #[inline]
    fn grad_from(a: Array<T::Elem, T::Dim>) -> T::Grad {
        T::grad_from(a)
    }
}

/// Adjoint of [`plain_view`]: the array gradient `g` in the type of `x`
/// (a model's `Vec` field gets a `Vec`).
///
/// ```
/// use backprop_runtime::plain::plain_view_vjp;
/// use ndarray::array;
/// let field = vec![1.0, 2.0];
/// let g: Vec<f64> = plain_view_vjp(array![0.5, -1.0], &field);
/// assert_eq!(g, vec![0.5, -1.0]);
/// ```
#[inline]
pub fn plain_view_vjp<C: PlainGrad + ?Sized>(g: impl Cot<Array<C::Elem, C::Dim>>, _x: &C) -> C::Grad
where
    Array<C::Elem, C::Dim>: crate::value::Tensor,
{
    C::grad_from(g.into_owned())
}
