//! Structure: joining arrays, reading rows, columns, elements, slices and
//! lanes, reshaping, copying.
//!
//! These ops move values without changing them, so their adjoints move the
//! gradient back: `concat` and `stack` split it, `row`, `column`, `index`
//! and `slice` put it into a zero of the operand's shape, `select` adds it
//! into the lanes it read, `reshape` and `permuted_axes` put it back in the
//! operand's shape, `broadcast` sums it back, `copy` passes it through.

use super::places::{AxisSlice, Lane, Placed, PlacedAt, Sliced};
use crate::contrib::Contribution;
use crate::fixed::FixedGrad;
use crate::unbroadcast::SumTo;
use crate::value::{Cot, Float, Value};
use ndarray::{
    Array, Array1, ArrayBase, ArrayView, ArrayView1, Axis, CowArray, Data, Dimension,
    IntoDimension, Ix2, NdIndex, Order, RemoveAxis, ShapeArg, Slice, SliceArg,
};

/// The arrays joined along `axis`: ndarray's `concatenate`.
///
/// Adjoint: `∂arrays[k] = g[.., o_k .. o_k + n_k, ..]`, the piece of `g` that
/// `arrays[k]` filled (`o_k` the sum of the lengths before it along `axis`).
///
/// # Panics
///
/// If `arrays` is empty, `axis` is out of bounds, or the arrays differ in
/// shape on another axis; the message names the shapes.
///
/// ```
/// use backprop_runtime::ops::concat;
/// use ndarray::{array, Axis};
/// let a = array![[1.0], [2.0]];
/// let b = array![[3.0, 4.0], [5.0, 6.0]];
/// assert_eq!(concat(Axis(1), &[&a, &b]), array![[1.0, 3.0, 4.0], [2.0, 5.0, 6.0]]);
/// ```
pub fn concat<F: Float, S: Data<Elem = F>, D: RemoveAxis>(
    axis: Axis,
    arrays: &[&ArrayBase<S, D>],
) -> Array<F, D> {
    let views: Vec<ArrayView<'_, F, D>> = arrays.iter().map(|a| a.view()).collect();
    ndarray::concatenate(axis, &views).unwrap_or_else(|e| {
        let shapes: Vec<&[usize]> = arrays.iter().map(|a| a.shape()).collect();
        panic!(
            "concat: cannot join arrays of shapes {shapes:?} along axis {}: {e}",
            axis.index()
        )
    })
}

/// A vector of floats, in order: what a body's `[a, b, c]`, `vec![a, b]` or
/// `array![a, b]` of differentiable floats is in the generated code.
///
/// Adjoint: `∂items[k] = g[k]` ([`pack_vjp`]).
#[doc(hidden)]
pub fn pack<F: Float>(items: &[&F]) -> Array1<F> {
    items.iter().map(|x| **x).collect()
}

/// Adjoint of [`pack`] with respect to `items[k]`: the `k`-th element of `g`.
#[doc(hidden)]
pub fn pack_vjp<F: Float>(g: impl Cot<Array1<F>>, _items: &[&F], k: usize) -> F {
    g.get()[k]
}

/// [`pack`] where the floats are the function's value, a container of a
/// fixed size (`-> [f64; 3]`, `-> Vector3<f64>`): on the stack.
///
/// Adjoint: `∂items[k] = g[k]` ([`pack_fixed_vjp`]).
#[doc(hidden)]
#[inline]
pub fn pack_fixed<F: Float, const N: usize>(items: &[&F; N]) -> FixedGrad<F, N> {
    FixedGrad::from_elems(items.map(|x| *x))
}

/// Adjoint of [`pack_fixed`] with respect to `items[k]`.
#[doc(hidden)]
#[inline]
pub fn pack_fixed_vjp<F: Float, const N: usize>(
    g: impl Cot<FixedGrad<F, N>>,
    _items: &[&F; N],
    k: usize,
) -> F {
    g.get().elems()[k]
}

/// Adjoint of [`concat()`] with respect to `arrays[k]`: the `k`-th piece of `g`.
#[doc(hidden)]
pub fn concat_vjp<F: Float, S: Data<Elem = F>, D: RemoveAxis>(
    g: impl Cot<Array<F, D>>,
    axis: Axis,
    arrays: &[&ArrayBase<S, D>],
    k: usize,
) -> Array<F, D> {
    let start: usize = arrays[..k].iter().map(|a| a.len_of(axis)).sum();
    let end = start + arrays[k].len_of(axis);
    g.get().slice_axis(axis, Slice::from(start..end)).to_owned()
}

/// Row `i` of a matrix: ndarray's `row`, a view.
///
/// Adjoint: `∂a = 0` except row `i`, which is `g`.
///
/// # Panics
///
/// If `i` is out of bounds.
///
/// ```
/// use backprop_runtime::ops::row;
/// use ndarray::array;
/// let a = array![[1.0, 2.0], [3.0, 4.0]];
/// assert_eq!(row(&a, 1), array![3.0, 4.0]);
/// ```
#[inline]
#[doc(hidden)]
pub fn row<F: Float, S: Data<Elem = F>>(a: &ArrayBase<S, Ix2>, i: usize) -> ArrayView1<'_, F> {
    a.row(i)
}

/// Adjoint of [`row`]: `g` in row `i` of a zero of `a`'s shape (only
/// `a`'s shape is read).
#[inline]
#[doc(hidden)]
pub fn row_vjp<F: Float, S: Data<Elem = F>, G: Cot<Array1<F>>>(
    g: G,
    a: &ArrayBase<S, Ix2>,
    i: usize,
) -> Contribution<Placed<G, Ix2, Lane>> {
    placed(g, a, Lane { axis: Axis(0), i })
}

/// Column `j` of a matrix: ndarray's `column`, a view.
///
/// Adjoint: `∂a = 0` except column `j`, which is `g`.
///
/// # Panics
///
/// If `j` is out of bounds.
///
/// ```
/// use backprop_runtime::ops::column;
/// use ndarray::array;
/// let a = array![[1.0, 2.0], [3.0, 4.0]];
/// assert_eq!(column(&a, 1), array![2.0, 4.0]);
/// ```
#[inline]
#[doc(hidden)]
pub fn column<F: Float, S: Data<Elem = F>>(a: &ArrayBase<S, Ix2>, j: usize) -> ArrayView1<'_, F> {
    a.column(j)
}

/// Adjoint of [`column()`]: `g` in column `j` of a zero of `a`'s shape.
#[inline]
#[doc(hidden)]
pub fn column_vjp<F: Float, S: Data<Elem = F>, G: Cot<Array1<F>>>(
    g: G,
    a: &ArrayBase<S, Ix2>,
    j: usize,
) -> Contribution<Placed<G, Ix2, Lane>> {
    placed(
        g,
        a,
        Lane {
            axis: Axis(1),
            i: j,
        },
    )
}

/// One element, `a[idx]`: `index(&v, i)` is `v[i]`, `index(&m, [i, j])` is
/// `m[[i, j]]`.
///
/// Adjoint: `∂a = 0` except at `idx`, which is `g`.
///
/// # Panics
///
/// If `idx` is out of bounds (ndarray's message).
///
/// ```
/// use backprop_runtime::ops::index;
/// use ndarray::array;
/// let v = array![1.0, 2.0, 3.0];
/// let m = array![[1.0, 2.0], [3.0, 4.0]];
/// assert_eq!(index(&v, 2), 3.0);
/// assert_eq!(index(&m, [1, 0]), 3.0);
/// ```
#[inline]
#[doc(hidden)]
pub fn index<F: Float, S: Data<Elem = F>, D: Dimension, I: NdIndex<D>>(
    a: &ArrayBase<S, D>,
    idx: I,
) -> F {
    a[idx]
}

/// The index of the `k`-th element, in logical (row-major) order, of an
/// array of shape `dim`: the element `x.iter()` gives `k`-th, for
/// `for v in x.iter()` walked by index.
///
/// ```
/// use backprop_runtime::ops::unravel;
/// use ndarray::{Ix1, Ix2};
/// assert_eq!(unravel(Ix1(4), 3), Ix1(3));
/// assert_eq!(unravel(Ix2(2, 3), 4), Ix2(1, 1));
/// ```
#[inline]
#[doc(hidden)]
pub fn unravel<D: Dimension>(dim: D, k: usize) -> D {
    let mut idx = dim.clone();
    if D::NDIM == Some(1) {
        idx[0] = k;
        return idx;
    }
    let mut rest = k;
    for (i, &n) in idx.slice_mut().iter_mut().zip(dim.slice()).rev() {
        *i = rest % n;
        rest /= n;
    }
    idx
}

/// Adjoint of [`index`]: `g` at `idx` of a zero of `a`'s shape.
#[inline]
#[doc(hidden)]
pub fn index_vjp<F: Float, S: Data<Elem = F>, D: Dimension, I: NdIndex<D>, G: Cot<F>>(
    g: G,
    a: &ArrayBase<S, D>,
    idx: I,
) -> Contribution<PlacedAt<G, D, I>> {
    Contribution(PlacedAt {
        g,
        dim: a.raw_dim(),
        idx,
    })
}

/// An owned copy of a scalar or an array: what `.to_owned()` and `.clone()`
/// compute (ndarray's `to_owned` for an array).
///
/// Adjoint: `∂x = g` (passed through, free when owned).
///
/// ```
/// use backprop_runtime::ops::copy;
/// use ndarray::array;
/// let a = array![[1.0, 2.0], [3.0, 4.0]];
/// assert_eq!(copy(&a.view()), a);
/// assert_eq!(copy(&2.0_f64), 2.0);
/// ```
#[inline]
#[doc(hidden)]
pub fn copy<V: Value>(x: &V) -> V::Owned {
    x.to_owned_value()
}

/// A clone of a constant the generated code carries through a loop or a
/// branch unchanged (a `bool`, a count): not differentiated.
#[inline]
#[doc(hidden)]
pub fn copy_const<T: Clone>(x: &T) -> T {
    x.clone()
}

/// Adjoint of [`copy`]: `g`.
#[inline]
#[doc(hidden)]
pub fn copy_vjp<V: Value>(g: impl Cot<V::Owned>, _x: &V) -> V::Owned {
    g.into_owned()
}

/// A new axis of length 1 at `axis`: ndarray's `insert_axis`, a view (the
/// `keepdims` of a reduction: `x - &sum_axis(&x, Axis(1)).insert_axis(Axis(1))`).
///
/// Adjoint: `∂a = g` with that axis removed.
///
/// ```
/// use backprop_runtime::ops::insert_axis;
/// use ndarray::{array, Axis};
/// let v = array![1.0, 2.0];
/// assert_eq!(insert_axis(&v, Axis(1)), array![[1.0], [2.0]]);
/// ```
#[inline]
#[doc(hidden)]
pub fn insert_axis<F: Float, S: Data<Elem = F>, D: Dimension>(
    a: &ArrayBase<S, D>,
    axis: Axis,
) -> ArrayView<'_, F, D::Larger> {
    a.view().insert_axis(axis)
}

/// Adjoint of [`insert_axis`]: the gradient without the inserted axis (no copy
/// when the gradient is owned).
#[doc(hidden)]
pub fn insert_axis_vjp<F: Float, S: Data<Elem = F>, D: Dimension>(
    g: impl Cot<Array<F, D::Larger>>,
    a: &ArrayBase<S, D>,
    axis: Axis,
) -> Array<F, D> {
    let _ = a;
    g.into_owned()
        .index_axis_move(axis, 0)
        .into_dimensionality::<D>()
        .expect("insert_axis: removing the axis gives the operand's dimension")
}

/// A view of an array: what the generated code passes in a slice of views
/// (`concatenate(Axis(0), &[a.view(), b.view()])`), whatever the array's
/// kind.
#[inline]
#[doc(hidden)]
pub fn view<F: Float, S: Data<Elem = F>, D: Dimension>(a: &ArrayBase<S, D>) -> ArrayView<'_, F, D> {
    a.view()
}

/// The views joined along `axis`: ndarray's `concatenate`, unwrapped.
///
/// Adjoint: `∂arrays[k] = g[.., o_k .. o_k + n_k, ..]`, as [`concat()`]'s.
///
/// # Panics
///
/// Where ndarray's `concatenate` returns an error; the message names the
/// shapes.
///
/// ```
/// use backprop_runtime::ops::concatenate;
/// use ndarray::{array, Axis};
/// let a = array![[1.0], [2.0]];
/// let b = array![[3.0], [4.0]];
/// assert_eq!(concatenate(Axis(0), &[a.view(), b.view()]), array![[1.0], [2.0], [3.0], [4.0]]);
/// ```
#[doc(hidden)]
pub fn concatenate<F: Float, D: RemoveAxis>(
    axis: Axis,
    arrays: &[ArrayView<'_, F, D>],
) -> Array<F, D> {
    ndarray::concatenate(axis, arrays).unwrap_or_else(|e| {
        let shapes: Vec<&[usize]> = arrays.iter().map(|a| a.shape()).collect();
        panic!(
            "concatenate: cannot join arrays of shapes {shapes:?} along axis {}: {e}",
            axis.index()
        )
    })
}

/// Adjoint of [`concatenate()`] with respect to `arrays[k]`: the `k`-th piece of `g`.
#[doc(hidden)]
pub fn concatenate_vjp<F: Float, D: RemoveAxis>(
    g: impl Cot<Array<F, D>>,
    axis: Axis,
    arrays: &[ArrayView<'_, F, D>],
    k: usize,
) -> Array<F, D> {
    let start: usize = arrays[..k].iter().map(|a| a.len_of(axis)).sum();
    let end = start + arrays[k].len_of(axis);
    g.get().slice_axis(axis, Slice::from(start..end)).to_owned()
}

/// The views stacked along a new axis `axis`: ndarray's `stack`, unwrapped.
///
/// Adjoint: `∂arrays[k] = g` at index `k` of `axis`.
///
/// # Panics
///
/// Where ndarray's `stack` returns an error; the message names the shapes.
///
/// ```
/// use backprop_runtime::ops::stack;
/// use ndarray::{array, Axis};
/// let a = array![1.0, 2.0];
/// let b = array![3.0, 4.0];
/// assert_eq!(stack(Axis(1), &[a.view(), b.view()]), array![[1.0, 3.0], [2.0, 4.0]]);
/// ```
#[doc(hidden)]
pub fn stack<F: Float, D: Dimension>(
    axis: Axis,
    arrays: &[ArrayView<'_, F, D>],
) -> Array<F, D::Larger> {
    ndarray::stack(axis, arrays).unwrap_or_else(|e| {
        let shapes: Vec<&[usize]> = arrays.iter().map(|a| a.shape()).collect();
        panic!(
            "stack: cannot stack arrays of shapes {shapes:?} along axis {}: {e}",
            axis.index()
        )
    })
}

/// Adjoint of [`stack()`] with respect to `arrays[k]`: `g` at index `k` of `axis`.
#[doc(hidden)]
pub fn stack_vjp<F: Float, D: Dimension>(
    g: impl Cot<Array<F, D::Larger>>,
    axis: Axis,
    arrays: &[ArrayView<'_, F, D>],
    k: usize,
) -> Array<F, D> {
    let _ = arrays;
    g.get()
        .index_axis(axis, k)
        .to_owned()
        .into_dimensionality::<D>()
        .expect("stack: removing the stacked axis gives the operand's dimension")
}

/// The rows (or the lanes along `axis`) of `indices`, in their order, with
/// repeats: ndarray's `select`, an embedding lookup.
///
/// Adjoint: `∂a[.., i, ..] = Σ_{k : indices[k] = i} g[.., k, ..]` (a
/// repeated index adds its gradients).
///
/// # Panics
///
/// If an index is out of bounds.
///
/// ```
/// use backprop_runtime::ops::select;
/// use ndarray::{array, Axis};
/// let table = array![[1.0, 2.0], [3.0, 4.0]];
/// assert_eq!(select(&table, Axis(0), &[1, 1, 0]), array![[3.0, 4.0], [3.0, 4.0], [1.0, 2.0]]);
/// ```
#[inline]
#[doc(hidden)]
pub fn select<F: Float, S: Data<Elem = F>, D: RemoveAxis>(
    a: &ArrayBase<S, D>,
    axis: Axis,
    indices: &[usize],
) -> Array<F, D> {
    a.select(axis, indices)
}

/// Adjoint of [`select`]: each lane of `g` added into the lane of `a` it came from.
#[doc(hidden)]
pub fn select_vjp<F: Float, S: Data<Elem = F>, D: RemoveAxis>(
    g: impl Cot<Array<F, D>>,
    a: &ArrayBase<S, D>,
    axis: Axis,
    indices: &[usize],
) -> Array<F, D> {
    let mut d = Array::zeros(a.raw_dim());
    for (k, &i) in indices.iter().enumerate() {
        let mut lane = d.index_axis_mut(axis, i);
        lane += &g.get().index_axis(axis, k);
    }
    d
}

/// A slice of an array: ndarray's `slice(info)`, a view (`info` is what
/// `s![..]` makes: ranges, steps, single indices, new axes).
///
/// Adjoint: `∂a = 0` except the sliced elements, which are `g`.
///
/// # Panics
///
/// If `info` does not fit `a`'s shape (ndarray's message).
///
/// ```
/// use backprop_runtime::ops::slice;
/// use ndarray::{array, s};
/// let a = array![[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]];
/// assert_eq!(slice(&a, s![.., 1..;2]), array![[2.0], [5.0]]);
/// assert_eq!(slice(&a, s![1, ..-1]), array![4.0, 5.0]);
/// ```
#[inline]
#[doc(hidden)]
pub fn slice<F: Float, S: Data<Elem = F>, D: Dimension, I: SliceArg<D>>(
    a: &ArrayBase<S, D>,
    info: I,
) -> ArrayView<'_, F, I::OutDim> {
    a.slice(info)
}

/// Adjoint of [`slice()`]: `g` in the slice of a zero of `a`'s shape.
#[inline]
#[doc(hidden)]
pub fn slice_vjp<F, S, D, I, G>(
    g: G,
    a: &ArrayBase<S, D>,
    info: I,
) -> Contribution<Placed<G, D, Sliced<I>>>
where
    F: Float,
    S: Data<Elem = F>,
    D: Dimension,
    I: SliceArg<D>,
    G: Cot<Array<F, I::OutDim>>,
{
    placed(g, a, Sliced(info))
}

/// A slice of one axis: ndarray's `slice_axis(axis, slice)`, a view.
///
/// Adjoint: `∂a = 0` except the slice, which is `g`.
///
/// # Panics
///
/// If `axis` is out of bounds or the slice does not fit it.
///
/// ```
/// use backprop_runtime::ops::slice_axis;
/// use ndarray::{array, Axis, Slice};
/// let a = array![[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]];
/// assert_eq!(slice_axis(&a, Axis(1), Slice::from(1..)), array![[2.0, 3.0], [5.0, 6.0]]);
/// ```
#[inline]
#[doc(hidden)]
pub fn slice_axis<F: Float, S: Data<Elem = F>, D: Dimension>(
    a: &ArrayBase<S, D>,
    axis: Axis,
    slice: Slice,
) -> ArrayView<'_, F, D> {
    a.slice_axis(axis, slice)
}

/// Adjoint of [`slice_axis()`]: `g` in the slice of a zero of `a`'s shape.
#[inline]
#[doc(hidden)]
pub fn slice_axis_vjp<F: Float, S: Data<Elem = F>, D: Dimension, G: Cot<Array<F, D>>>(
    g: G,
    a: &ArrayBase<S, D>,
    axis: Axis,
    slice: Slice,
) -> Contribution<Placed<G, D, AxisSlice>> {
    placed(g, a, AxisSlice { axis, slice })
}

/// The subview at index `i` of `axis`: ndarray's `index_axis`, with one
/// axis fewer.
///
/// Adjoint: `∂a = 0` except at index `i` of `axis`, which is `g`.
///
/// # Panics
///
/// If `axis` or `i` is out of bounds.
///
/// ```
/// use backprop_runtime::ops::index_axis;
/// use ndarray::{array, Axis};
/// let a = array![[1.0, 2.0], [3.0, 4.0]];
/// assert_eq!(index_axis(&a, Axis(1), 0), array![1.0, 3.0]);
/// ```
#[inline]
#[doc(hidden)]
pub fn index_axis<F: Float, S: Data<Elem = F>, D: RemoveAxis>(
    a: &ArrayBase<S, D>,
    axis: Axis,
    i: usize,
) -> ArrayView<'_, F, D::Smaller> {
    a.index_axis(axis, i)
}

/// Adjoint of [`index_axis`]: `g` at index `i` of `axis` of a zero of `a`'s shape.
#[inline]
#[doc(hidden)]
pub fn index_axis_vjp<F: Float, S: Data<Elem = F>, D: RemoveAxis, G: Cot<Array<F, D::Smaller>>>(
    g: G,
    a: &ArrayBase<S, D>,
    axis: Axis,
    i: usize,
) -> Contribution<Placed<G, D, Lane>> {
    placed(g, a, Lane { axis, i })
}

/// `axis` removed: ndarray's `remove_axis`, which is `index_axis(axis, 0)`
/// (an axis of length 1, as a rule).
///
/// Adjoint: `∂a = 0` except at index 0 of `axis`, which is `g`.
///
/// # Panics
///
/// If `axis` is out of bounds or has length 0.
///
/// ```
/// use backprop_runtime::ops::remove_axis;
/// use ndarray::{array, Axis};
/// let a = array![[1.0, 2.0]];
/// assert_eq!(remove_axis(&a, Axis(0)), array![1.0, 2.0]);
/// ```
#[inline]
#[doc(hidden)]
pub fn remove_axis<F: Float, S: Data<Elem = F>, D: RemoveAxis>(
    a: &ArrayBase<S, D>,
    axis: Axis,
) -> ArrayView<'_, F, D::Smaller> {
    a.view().remove_axis(axis)
}

/// Adjoint of [`remove_axis`]: a zero of `a`'s shape with index 0 of `axis` set to `g`.
#[doc(hidden)]
pub fn remove_axis_vjp<F: Float, S: Data<Elem = F>, D: RemoveAxis>(
    g: impl Cot<Array<F, D::Smaller>>,
    a: &ArrayBase<S, D>,
    axis: Axis,
) -> Array<F, D> {
    index_axis_vjp(g, a, axis, 0).value()
}

/// The elements in a new shape, read and written in the order `shape`
/// says (row-major unless it names one): what ndarray's
/// `into_shape_with_order(shape)` and `to_shape(shape)` compute, unwrapped;
/// a view where the layout allows, else a copy.
///
/// Adjoint: `∂a = g` in `a`'s shape, in the same order.
///
/// # Panics
///
/// If the number of elements differs (ndarray's error).
///
/// ```
/// use backprop_runtime::ops::reshape;
/// use ndarray::{array, Order};
/// let a = array![[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]];
/// assert_eq!(reshape(&a, (3, 2)), array![[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]);
/// assert_eq!(reshape(&a, ((3, 2), Order::ColumnMajor)), array![[1.0, 5.0], [4.0, 3.0], [2.0, 6.0]]);
/// ```
#[inline]
#[doc(hidden)]
pub fn reshape<F: Float, S: Data<Elem = F>, D: Dimension, E: ShapeArg>(
    a: &ArrayBase<S, D>,
    shape: E,
) -> CowArray<'_, F, E::Dim> {
    let from = a.raw_dim();
    a.to_shape(shape)
        .unwrap_or_else(|e| panic!("reshape: cannot reshape an array of shape {from:?}: {e}"))
}

/// Adjoint of [`reshape()`]: `g` back in `a`'s shape, in the same order.
#[doc(hidden)]
pub fn reshape_vjp<F: Float, S: Data<Elem = F>, D: Dimension, E: ShapeArg>(
    g: impl Cot<Array<F, E::Dim>>,
    a: &ArrayBase<S, D>,
    shape: E,
) -> Array<F, D> {
    let order = shape.into_shape_and_order().1.unwrap_or(Order::RowMajor);
    g.get()
        .to_shape((a.raw_dim(), order))
        .expect("reshape: the gradient has as many elements as the operand")
        .into_owned()
}

/// The axes in a new order: ndarray's `permuted_axes`, a view (axis `k`
/// of the result is axis `axes[k]` of `a`).
///
/// Adjoint: `∂a = g` with the inverse permutation.
///
/// # Panics
///
/// If `axes` is not a permutation of `a`'s axes.
///
/// ```
/// use backprop_runtime::ops::permuted_axes;
/// use ndarray::Array;
/// let a = Array::<f64, _>::zeros((2, 3, 4));
/// assert_eq!(permuted_axes(&a, [2, 0, 1]).shape(), &[4, 2, 3]);
/// ```
#[inline]
#[doc(hidden)]
pub fn permuted_axes<F: Float, S: Data<Elem = F>, D: Dimension, T: IntoDimension<Dim = D>>(
    a: &ArrayBase<S, D>,
    axes: T,
) -> ArrayView<'_, F, D> {
    a.view().permuted_axes(axes)
}

/// Adjoint of [`permuted_axes`]: `g`'s axes put back, by the inverse permutation.
#[doc(hidden)]
pub fn permuted_axes_vjp<F: Float, S: Data<Elem = F>, D: Dimension, T: IntoDimension<Dim = D>>(
    g: impl Cot<Array<F, D>>,
    a: &ArrayBase<S, D>,
    axes: T,
) -> Array<F, D> {
    let axes = axes.into_dimension();
    let mut inverse = a.raw_dim();
    for (k, &from) in axes.slice().iter().enumerate() {
        inverse[from] = k;
    }
    g.into_owned().permuted_axes(inverse)
}

/// The array broadcast to `shape`: ndarray's `broadcast(shape)`, unwrapped,
/// a view.
///
/// Adjoint: `∂a = g` summed back to `a`'s shape ([`unbroadcast`](crate::unbroadcast())).
///
/// # Panics
///
/// If `a` cannot be broadcast to `shape`.
///
/// ```
/// use backprop_runtime::ops::broadcast;
/// use ndarray::array;
/// let v = array![1.0, 2.0];
/// assert_eq!(broadcast(&v, (2, 2)), array![[1.0, 2.0], [1.0, 2.0]]);
/// ```
#[inline]
#[doc(hidden)]
pub fn broadcast<F: Float, S: Data<Elem = F>, D: Dimension, E: IntoDimension>(
    a: &ArrayBase<S, D>,
    shape: E,
) -> ArrayView<'_, F, E::Dim> {
    let to = shape.into_dimension();
    a.broadcast(to.clone()).unwrap_or_else(|| {
        panic!(
            "broadcast: cannot broadcast an array of shape {:?} to {:?}",
            a.shape(),
            to.slice()
        )
    })
}

/// Adjoint of [`broadcast()`]: `g` summed back to `a`'s shape.
#[doc(hidden)]
pub fn broadcast_vjp<F: Float, S: Data<Elem = F>, D: Dimension, E: IntoDimension>(
    g: impl Cot<Array<F, E::Dim>>,
    a: &ArrayBase<S, D>,
    shape: E,
) -> Array<F, D> {
    let _ = shape;
    <Array<F, E::Dim> as SumTo<ArrayBase<S, D>>>::sum_to(g, a)
}

/// The contribution of `g` at `place` of an array of `a`'s shape.
#[inline]
fn placed<G, S: ndarray::RawData, D: Dimension, P>(
    g: G,
    a: &ArrayBase<S, D>,
    place: P,
) -> Contribution<Placed<G, D, P>> {
    Contribution(Placed {
        g,
        dim: a.raw_dim(),
        place,
    })
}
