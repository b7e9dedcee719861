//! Structure: joining arrays, reading rows, columns and elements, copying.
//!
//! These ops move values without changing them, so their adjoints move the
//! gradient back: `concat` splits it, `row`, `column` and `index` put it into
//! a zero of the operand's shape, `copy` passes it through.

use crate::value::{Cot, Float, Value};
use ndarray::{
    Array, Array1, Array2, ArrayBase, ArrayView, ArrayView1, Axis, Data, Dimension, Ix2, NdIndex,
    RemoveAxis, Slice,
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

/// Adjoint of [`row`]: a zero of `a`'s shape with row `i` set to `g`.
#[doc(hidden)]
pub fn row_vjp<F: Float, S: Data<Elem = F>>(
    g: impl Cot<Array1<F>>,
    a: &ArrayBase<S, Ix2>,
    i: usize,
) -> Array2<F> {
    let mut d = Array2::zeros(a.raw_dim());
    d.row_mut(i).assign(g.get());
    d
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

/// Adjoint of [`column()`]: a zero of `a`'s shape with column `j` set to `g`.
#[doc(hidden)]
pub fn column_vjp<F: Float, S: Data<Elem = F>>(
    g: impl Cot<Array1<F>>,
    a: &ArrayBase<S, Ix2>,
    j: usize,
) -> Array2<F> {
    let mut d = Array2::zeros(a.raw_dim());
    d.column_mut(j).assign(g.get());
    d
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

/// Adjoint of [`index`]: a zero of `a`'s shape with `g` at `idx`.
#[doc(hidden)]
pub fn index_vjp<F: Float, S: Data<Elem = F>, D: Dimension, I: NdIndex<D>>(
    g: impl Cot<F>,
    a: &ArrayBase<S, D>,
    idx: I,
) -> Array<F, D> {
    let mut d = Array::zeros(a.raw_dim());
    d[idx] = *g.get();
    d
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
