//! Writes into an array the body made (`y[i] = e`, `h.row_mut(t).assign(&v)`),
//! as the functional updates they are: each makes the array's new value
//! from the old one (in the old one's buffer when nothing reads it any
//! more, else in a copy: the save of a value the reverse needs), and the
//! adjoint of the written region is the new value's, the old value's
//! there zero.

use crate::unbroadcast::SumTo;
use crate::value::{Cot, ElemOf, Float, Operand, OwnedOf, Tensor, Value};
use ndarray::{
    Array, Array1, Array2, ArrayBase, ArrayView1, Axis, Data, IntoDimension, Ix1, Ix2, NdIndex,
    SliceArg,
};
use num_traits::Zero;

/// The index in `y` of element `j` of its row `t`: what `r[j]` of a named
/// view `let mut r = y.row_mut(t);` reads and writes, `y[[t, j]]`.
///
/// ```
/// use backprop_runtime::ops::row_element;
/// assert_eq!(row_element(2, 5), [2, 5]);
/// assert_eq!(row_element(2, [5]), [2, 5]);
/// ```
#[inline]
pub fn row_element(t: usize, j: impl IntoDimension<Dim = Ix1>) -> [usize; 2] {
    [t, j.into_dimension()[0]]
}

/// The index in `y` of element `i` of its column `t`: what `c[i]` of a
/// named view `let mut c = y.column_mut(t);` reads and writes, `y[[i, t]]`.
///
/// ```
/// use backprop_runtime::ops::column_element;
/// assert_eq!(column_element(2, 5), [5, 2]);
/// ```
#[inline]
pub fn column_element(t: usize, i: impl IntoDimension<Dim = Ix1>) -> [usize; 2] {
    [i.into_dimension()[0], t]
}

/// `y[index] = e`: `y` with one element set, in `y`'s buffer when it is
/// passed by value.
///
/// Adjoint: `∂y = g` with `g[index] = 0`; `∂e = g[index]`.
///
/// ```
/// use backprop_runtime::ops::set_index;
/// use ndarray::array;
/// assert_eq!(set_index(array![1.0, 2.0], &5.0, 1), array![1.0, 5.0]);
/// ```
#[inline]
pub fn set_index<X, I>(y: X, e: &ElemOf<X>, index: I) -> OwnedOf<X>
where
    X: Operand,
    I: NdIndex<<X::Value as Value>::Dim>,
{
    let mut a = match y.owned() {
        Ok(owned) => owned.into_array(),
        Err(y) => y.value().to_owned_value().into_array(),
    };
    a[index] = *e;
    Tensor::from_array(a)
}

/// Adjoint of [`set_index`] for `y`: `g` with `g[index] = 0`.
#[inline]
#[doc(hidden)]
pub fn set_index_vjp_lhs<T: Tensor, I: NdIndex<T::Dim>>(g: impl Cot<T>, index: I) -> T {
    let mut a = g.into_owned().into_array();
    a[index] = T::Elem::zero();
    T::from_array(a)
}

/// Adjoint of [`set_index`] for `e`: `g[index]`.
#[inline]
#[doc(hidden)]
pub fn set_index_vjp_rhs<T: Tensor, I: NdIndex<T::Dim>>(g: impl Cot<T>, index: I) -> T::Elem {
    g.get().view()[index]
}

/// `y.row_mut(i).assign(&v)`: `y` with row `i` set to `v` (broadcast as
/// `assign` broadcasts), in `y`'s buffer when it is passed by value.
///
/// Adjoint: `∂y = g` with row `i` zero; `∂v = g.row(i)`, summed back to
/// `v`'s shape.
///
/// ```
/// use backprop_runtime::ops::set_row;
/// use ndarray::array;
/// assert_eq!(set_row(array![[1.0, 2.0], [3.0, 4.0]], &array![5.0, 6.0], 0), array![[5.0, 6.0], [3.0, 4.0]]);
/// ```
#[inline]
pub fn set_row<X, V>(y: X, v: &V, i: usize) -> Array2<ElemOf<X>>
where
    X: Operand,
    X::Value: Value<Dim = Ix2, Owned = Array2<ElemOf<X>>>,
    V: Value<Elem = ElemOf<X>>,
{
    set_lane(y, v, Axis(0), i)
}

/// Adjoint of [`set_row`] for `y`: `g` with row `i` zero.
#[inline]
#[doc(hidden)]
pub fn set_row_vjp_lhs<F: Float, V: Value<Elem = F>>(
    g: impl Cot<Array2<F>>,
    _v: &V,
    i: usize,
) -> Array2<F> {
    lane_cleared(g, Axis(0), i)
}

/// Adjoint of [`set_row`] for `v`: row `i` of `g`, summed to `v`'s shape.
#[inline]
#[doc(hidden)]
pub fn set_row_vjp_rhs<F: Float, V: Value<Elem = F>>(
    g: impl Cot<Array2<F>>,
    v: &V,
    i: usize,
) -> V::Owned
where
    Array1<F>: SumTo<V>,
{
    lane_summed(g, v, Axis(0), i)
}

/// Row `i` of `y` read back as the value `like` that [`set_row`] wrote
/// there, where nothing wrote over it since: a view of its first
/// `like.len()` elements (the whole row, or the one element a value of
/// length one was broadcast to). A loop's reverse sweep reads a value it
/// wrote into a row of a buffer this way, instead of keeping it.
///
/// ```
/// use backprop_runtime::ops::{set_row, written_row};
/// use ndarray::array;
/// let y = set_row(array![[0.0, 0.0], [0.0, 0.0]], &array![5.0], 1);
/// assert_eq!(written_row(&y, 1, &array![5.0]), array![5.0]);
/// assert_eq!(written_row(&y, 1, &array![5.0, 5.0]), array![5.0, 5.0]);
/// ```
#[inline]
#[doc(hidden)]
pub fn written_row<'a, F: Float, S: Data<Elem = F>, V: Value<Elem = F, Dim = Ix1>>(
    y: &'a ArrayBase<S, Ix2>,
    i: usize,
    like: &V,
) -> ArrayView1<'a, F> {
    y.row(i).slice_move(ndarray::s![..like.view().len()])
}

/// The column form of [`set_row`]: `y.column_mut(j).assign(&v)`.
///
/// ```
/// use backprop_runtime::ops::set_column;
/// use ndarray::array;
/// assert_eq!(set_column(array![[1.0, 2.0], [3.0, 4.0]], &0.0, 1), array![[1.0, 0.0], [3.0, 0.0]]);
/// ```
#[inline]
pub fn set_column<X, V>(y: X, v: &V, j: usize) -> Array2<ElemOf<X>>
where
    X: Operand,
    X::Value: Value<Dim = Ix2, Owned = Array2<ElemOf<X>>>,
    V: Value<Elem = ElemOf<X>>,
{
    set_lane(y, v, Axis(1), j)
}

/// Adjoint of [`set_column`] for `y`: `g` with column `j` zero.
#[inline]
#[doc(hidden)]
pub fn set_column_vjp_lhs<F: Float, V: Value<Elem = F>>(
    g: impl Cot<Array2<F>>,
    _v: &V,
    j: usize,
) -> Array2<F> {
    lane_cleared(g, Axis(1), j)
}

/// Adjoint of [`set_column`] for `v`: column `j` of `g`, summed to `v`'s shape.
#[inline]
#[doc(hidden)]
pub fn set_column_vjp_rhs<F: Float, V: Value<Elem = F>>(
    g: impl Cot<Array2<F>>,
    v: &V,
    j: usize,
) -> V::Owned
where
    Array1<F>: SumTo<V>,
{
    lane_summed(g, v, Axis(1), j)
}

/// `y` with lane `i` along `axis` set to `v`.
#[inline]
fn set_lane<X, V>(y: X, v: &V, axis: Axis, i: usize) -> Array2<ElemOf<X>>
where
    X: Operand,
    X::Value: Value<Dim = Ix2, Owned = Array2<ElemOf<X>>>,
    V: Value<Elem = ElemOf<X>>,
{
    let mut a = match y.owned() {
        Ok(owned) => owned,
        Err(y) => y.value().to_owned_value(),
    };
    a.index_axis_mut(axis, i).assign(&v.view());
    a
}

/// `g` with lane `i` along `axis` zero.
#[inline]
fn lane_cleared<F: Float>(g: impl Cot<Array2<F>>, axis: Axis, i: usize) -> Array2<F> {
    let mut a = g.into_owned();
    a.index_axis_mut(axis, i).fill(F::zero());
    a
}

/// Lane `i` along `axis` of `g`, summed to `v`'s shape.
#[inline]
fn lane_summed<F: Float, V: Value<Elem = F>>(
    g: impl Cot<Array2<F>>,
    v: &V,
    axis: Axis,
    i: usize,
) -> V::Owned
where
    Array1<F>: SumTo<V>,
{
    <Array1<F> as SumTo<V>>::sum_to(g.get().index_axis(axis, i).to_owned(), v)
}

/// `y.slice_mut(s![..]).assign(&v)`: `y` with the slice set to `v`
/// (broadcast as `assign` broadcasts), in `y`'s buffer when it is passed by
/// value.
///
/// Adjoint: `∂y = g` with the slice zero; `∂v = g`'s slice, summed back
/// to `v`'s shape.
///
/// ```
/// use backprop_runtime::ops::set_slice;
/// use ndarray::{array, s};
/// assert_eq!(set_slice(array![1.0, 2.0, 3.0], &array![7.0, 8.0], s![1..]), array![1.0, 7.0, 8.0]);
/// ```
#[inline]
pub fn set_slice<X, V, I>(y: X, v: &V, info: I) -> OwnedOf<X>
where
    X: Operand,
    V: Value<Elem = ElemOf<X>>,
    I: SliceArg<<X::Value as Value>::Dim>,
{
    let mut a = match y.owned() {
        Ok(owned) => owned.into_array(),
        Err(y) => y.value().to_owned_value().into_array(),
    };
    a.slice_mut(info).assign(&v.view());
    Tensor::from_array(a)
}

/// Adjoint of [`set_slice`] for `y`: `g` with the slice zero.
#[inline]
#[doc(hidden)]
pub fn set_slice_vjp_lhs<T: Tensor, V: Value<Elem = T::Elem>, I: SliceArg<T::Dim>>(
    g: impl Cot<T>,
    _v: &V,
    info: I,
) -> T {
    let mut a = g.into_owned().into_array();
    a.slice_mut(info).fill(T::Elem::zero());
    T::from_array(a)
}

/// Adjoint of [`set_slice`] for `v`: `g`'s slice, summed to `v`'s shape.
#[inline]
#[doc(hidden)]
pub fn set_slice_vjp_rhs<T: Tensor, V: Value<Elem = T::Elem>, I: SliceArg<T::Dim>>(
    g: impl Cot<T>,
    v: &V,
    info: I,
) -> V::Owned
where
    Array<T::Elem, I::OutDim>: SumTo<V>,
{
    <Array<T::Elem, I::OutDim> as SumTo<V>>::sum_to(g.get().view().slice(info).to_owned(), v)
}

/// `y.assign(&v)` and `y.fill(e)`: every element of `y` set to `v`
/// (broadcast as `assign` broadcasts), in `y`'s buffer when it is passed by
/// value.
///
/// Adjoint: `∂y = 0` (every old value is overwritten); `∂v = g` summed back
/// to `v`'s shape.
///
/// ```
/// use backprop_runtime::ops::set_all;
/// use ndarray::array;
/// assert_eq!(set_all(array![[1.0, 2.0], [3.0, 4.0]], &array![7.0, 8.0]), array![[7.0, 8.0], [7.0, 8.0]]);
/// assert_eq!(set_all(array![1.0, 2.0], &0.5), array![0.5, 0.5]);
/// ```
#[inline]
pub fn set_all<X, V>(y: X, v: &V) -> OwnedOf<X>
where
    X: Operand,
    V: Value<Elem = ElemOf<X>>,
{
    let mut a = match y.owned() {
        Ok(owned) => owned.into_array(),
        Err(y) => y.value().to_owned_value().into_array(),
    };
    a.assign(&v.view());
    Tensor::from_array(a)
}

/// Adjoint of [`set_all`] for `y`: a zero of `g`'s shape (in `g`'s buffer
/// when it is passed by value).
#[inline]
#[doc(hidden)]
pub fn set_all_vjp_lhs<T: Tensor, V: Value<Elem = T::Elem>>(g: impl Cot<T>, _v: &V) -> T {
    let mut a = g.into_owned().into_array();
    a.fill(T::Elem::zero());
    T::from_array(a)
}

/// Adjoint of [`set_all`] for `v`: `g` summed to `v`'s shape.
#[inline]
#[doc(hidden)]
pub fn set_all_vjp_rhs<T, V>(g: impl Cot<T>, v: &V) -> V::Owned
where
    T: Tensor + SumTo<V>,
    V: Value<Elem = T::Elem>,
{
    <T as SumTo<V>>::sum_to(g.into_owned(), v)
}
