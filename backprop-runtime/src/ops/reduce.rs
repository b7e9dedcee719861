//! Reductions: the sum, mean, variance, standard deviation and product of
//! all elements, or along one axis, and the maximum and minimum along an
//! axis.
//!
//! The forward functions call ndarray's own `sum()` and `sum_axis`, so values
//! are bit for bit those of the user's code. The adjoint of a reduction copies
//! the upstream gradient back to every element that was reduced.

use crate::value::{Cot, ElemOf, Float, Operand, OwnedOf, Tensor, Value};
use ndarray::{
    Array, Array1, ArrayBase, ArrayView1, ArrayViewMut1, Axis, Data, Dimension, RemoveAxis, Zip,
};
use num_traits::FromPrimitive;

/// `n` as a float, as ndarray's `mean` converts it (`n as F`).
#[inline]
fn count<F: Float>(n: usize) -> F {
    <F as num_traits::NumCast>::from(n).expect("a count is a float")
}

/// The sum of all elements: ndarray's `sum()` for an array, the value itself
/// for a scalar.
///
/// Adjoint: `∂x = g · 1` (the scalar `g` copied to every element).
///
/// ```
/// use backprop_runtime::ops::sum;
/// use ndarray::array;
/// let a = array![[1.0, 2.0], [3.0, 4.0]];
/// assert_eq!(sum(&a), a.sum());
/// assert_eq!(sum(2.5_f64), 2.5);
/// ```
#[inline]
pub fn sum<X: Operand>(x: X) -> ElemOf<X> {
    x.value().sum_elems()
}

/// Adjoint of [`sum`]: `g` in every element of `x`'s shape.
#[inline]
#[doc(hidden)]
pub fn sum_vjp<V: Value>(g: impl Cot<V::Elem>, x: &V) -> V::Owned {
    <V::Owned as Tensor>::filled(x.view().raw_dim(), *g.get())
}

/// `sum(square(x))` without the array of squares: `Σ x²`, added in the
/// order in which ndarray's `sum()` adds the elements of `square(x)` (eight
/// running sums over the memory order, or over the logical order when `x` is
/// not contiguous, as `square` lays its result out), so the value is the
/// same bit for bit.
///
/// Adjoint: `∂x = 2g·x`.
///
/// ```
/// use backprop_runtime::ops::{square, sum, sum_square};
/// use ndarray::Array;
/// let a = Array::linspace(-1.0_f64, 2.0, 37);
/// assert_eq!(sum_square(&a).to_bits(), sum(&square(&a)).to_bits());
/// assert_eq!(sum_square(3.0_f64), 9.0);
/// ```
#[inline]
#[doc(hidden)]
pub fn sum_square<X: Operand>(x: X) -> ElemOf<X> {
    let v = x.value().view();
    match v.as_slice_memory_order() {
        Some(s) => sum_squares_of_slice(s),
        None => sum_squares_of(v.iter().copied()),
    }
}

/// [`sum_squares_of`] over a slice, eight lanes at a time (the compiler
/// vectorizes the lanes: each is its own running sum, as in ndarray's loop).
#[inline]
fn sum_squares_of_slice<F: Float>(xs: &[F]) -> F {
    let zero = F::zero();
    let mut p = [zero; 8];
    let chunks = xs.chunks_exact(8);
    let rest = chunks.remainder();
    for c in chunks {
        for k in 0..8 {
            p[k] += c[k] * c[k];
        }
    }
    finish(p, rest.iter().map(|&r| r * r))
}

/// ndarray's eightfold unrolled sum (`numeric_util::unrolled_fold`) of the
/// squares of `xs`.
#[inline]
fn sum_squares_of<F: Float>(xs: impl Iterator<Item = F>) -> F {
    let zero = F::zero();
    let mut p = [zero; 8];
    let mut rest = [zero; 8];
    let mut n = 0;
    for x in xs {
        rest[n] = x * x;
        n += 1;
        if n == 8 {
            for k in 0..8 {
                p[k] += rest[k];
            }
            n = 0;
        }
    }
    finish(p, rest[..n].iter().copied())
}

/// The end of ndarray's unrolled sum: the eight running sums added in
/// pairs, then the fewer than eight elements left over, in order.
#[inline]
fn finish<F: Float>(p: [F; 8], rest: impl Iterator<Item = F>) -> F {
    let mut acc = F::zero();
    for k in 0..4 {
        acc += p[k] + p[k + 4];
    }
    for r in rest {
        acc += r;
    }
    acc
}

/// Adjoint of [`sum_square`]: `2g·x`, written over `x` where it is passed
/// by value.
#[inline]
#[doc(hidden)]
pub fn sum_square_vjp<X: Operand>(g: impl Cot<ElemOf<X>>, x: X) -> OwnedOf<X> {
    let g = *g.get();
    match x.owned() {
        Ok(x) => x.map_owned(|x| (g + g) * x),
        Err(x) => x.value().map_elems(|x| (g + g) * x),
    }
}

/// The mean of all elements: `sum / n` as ndarray's `mean()` computes it,
/// the value itself for a scalar.
///
/// Adjoint: `∂x = g / n` in every element.
///
/// # Panics
///
/// If the array is empty (where ndarray's `mean()` returns `None`).
///
/// ```
/// use backprop_runtime::ops::mean;
/// use ndarray::array;
/// let a = array![[1.0, 2.0], [3.0, 6.0]];
/// assert_eq!(mean(&a), 3.0);
/// assert_eq!(mean(&a), a.mean().unwrap());
/// ```
#[inline]
pub fn mean<X: Operand>(x: X) -> ElemOf<X> {
    let x = x.value();
    let n = x.len_elems();
    assert!(n > 0, "mean: the array is empty (shape {:?})", x.shape());
    x.sum_elems() / count(n)
}

/// Adjoint of [`mean`]: `g / n` in every element of `x`'s shape.
#[inline]
#[doc(hidden)]
pub fn mean_vjp<V: Value>(g: impl Cot<V::Elem>, x: &V) -> V::Owned {
    let d = *g.get() / count::<V::Elem>(x.len_elems());
    <V::Owned as Tensor>::filled(x.view().raw_dim(), d)
}

/// The sum along `axis`: ndarray's `sum_axis`.
///
/// Adjoint: `∂x = g` broadcast back along `axis` (every lane gets the
/// upstream element of its position).
///
/// # Panics
///
/// If `axis` is out of bounds.
///
/// ```
/// use backprop_runtime::ops::sum_axis;
/// use ndarray::{array, Axis};
/// let a = array![[1.0, 2.0], [3.0, 4.0]];
/// assert_eq!(sum_axis(&a, Axis(0)), array![4.0, 6.0]);
/// assert_eq!(sum_axis(&a, Axis(1)), a.sum_axis(Axis(1)));
/// ```
#[inline]
pub fn sum_axis<F: Float, S: Data<Elem = F>, D: RemoveAxis>(
    x: &ArrayBase<S, D>,
    axis: Axis,
) -> Array<F, D::Smaller> {
    x.sum_axis(axis)
}

/// `x`'s shape filled with `v(g)` broadcast along `axis`.
fn spread<F: Float, S: Data<Elem = F>, D: RemoveAxis>(
    g: &Array<F, D::Smaller>,
    x: &ArrayBase<S, D>,
    axis: Axis,
    v: impl Fn(F) -> F,
) -> Array<F, D> {
    let mut d = Array::zeros(x.raw_dim());
    Zip::from(d.lanes_mut(axis))
        .and(g)
        .for_each(|mut lane, &g| lane.fill(v(g)));
    d
}

/// Adjoint of [`sum_axis`]: `g` broadcast back along `axis`.
#[inline]
#[doc(hidden)]
pub fn sum_axis_vjp<F: Float, S: Data<Elem = F>, D: RemoveAxis>(
    g: impl Cot<Array<F, D::Smaller>>,
    x: &ArrayBase<S, D>,
    axis: Axis,
) -> Array<F, D> {
    spread(g.get(), x, axis, |g| g)
}

/// The mean along `axis`: ndarray's `mean_axis`, as an array (not an
/// `Option`).
///
/// Adjoint: `∂x = g / n` broadcast back along `axis`, where `n` is the length
/// of `axis`.
///
/// # Panics
///
/// If `axis` is out of bounds or has length 0.
///
/// ```
/// use backprop_runtime::ops::mean_axis;
/// use ndarray::{array, Axis};
/// let a = array![[1.0, 2.0], [3.0, 4.0]];
/// assert_eq!(mean_axis(&a, Axis(0)), array![2.0, 3.0]);
/// assert_eq!(mean_axis(&a, Axis(1)), a.mean_axis(Axis(1)).unwrap());
/// ```
#[inline]
pub fn mean_axis<F: Float, S: Data<Elem = F>, D: RemoveAxis>(
    x: &ArrayBase<S, D>,
    axis: Axis,
) -> Array<F, D::Smaller> {
    let n = x.len_of(axis);
    assert!(
        n > 0,
        "mean_axis: axis {} of an array of shape {:?} is empty",
        axis.index(),
        x.shape()
    );
    let n = count::<F>(n);
    // As ndarray's `mean_axis`: the sum along the axis divided by its length.
    x.sum_axis(axis).mapv_into(|s| s / n)
}

/// Adjoint of [`mean_axis`]: `g / n` broadcast back along `axis`.
#[inline]
#[doc(hidden)]
pub fn mean_axis_vjp<F: Float, S: Data<Elem = F>, D: RemoveAxis>(
    g: impl Cot<Array<F, D::Smaller>>,
    x: &ArrayBase<S, D>,
    axis: Axis,
) -> Array<F, D> {
    let n = count::<F>(x.len_of(axis));
    spread(g.get(), x, axis, |g| g / n)
}

/// The sum of all elements in iteration order, as `a.iter().sum()` adds
/// them: one running sum from the first element to the last (ndarray's
/// `sum()` adds in eight lanes, so the two may differ in the last bits).
///
/// Adjoint: `∂a = g · 1`, as [`sum`]'s ([`sum_vjp`]).
///
/// ```
/// use backprop_runtime::ops::iter_sum;
/// use ndarray::array;
/// let a = array![[1.0, 2.0], [3.0, 4.5]];
/// assert_eq!(iter_sum(&a), a.iter().sum::<f64>());
/// ```
#[inline]
#[doc(hidden)]
pub fn iter_sum<F: Float, S: Data<Elem = F>, D: Dimension>(a: &ArrayBase<S, D>) -> F {
    a.iter().copied().sum()
}

/// `ddof` as a check of ndarray's: `0 ≤ ddof ≤ n`.
fn check_ddof<F: Float>(op: &str, n: usize, ddof: F) {
    assert!(
        ddof >= F::zero() && ddof <= count(n),
        "{op}: ddof {ddof} must be between 0 and the number of elements reduced, {n}"
    );
}

/// The variance with `ddof` degrees of freedom removed: ndarray's
/// `var(ddof)`, `Σ (a_i − ā)² / (n − ddof)`.
///
/// Adjoint: `∂a_i = g · 2(a_i − ā) / (n − ddof)`.
///
/// # Panics
///
/// If `ddof` is negative or more than the number of elements (ndarray's
/// check).
///
/// ```
/// use backprop_runtime::ops::var;
/// use ndarray::array;
/// let a = array![[1.0_f64, 2.0], [3.0, 6.0]];
/// assert_eq!(var(&a, 0.0).to_bits(), a.var(0.0).to_bits());
/// assert_eq!(var(&a, 1.0), 14.0 / 3.0);
/// ```
#[inline]
#[doc(hidden)]
pub fn var<F: Float + FromPrimitive, S: Data<Elem = F>, D: Dimension>(
    a: &ArrayBase<S, D>,
    ddof: F,
) -> F {
    a.var(ddof)
}

/// `g · 2(a_i − ā) / (n − ddof)` for every element of a lane `a`, into `d`.
fn var_lane<'d, 'a, F: Float>(
    d: impl IntoIterator<Item = &'d mut F>,
    a: impl IntoIterator<Item = &'a F> + Clone,
    g: F,
    ddof: F,
) {
    let (total, n) = a
        .clone()
        .into_iter()
        .fold((F::zero(), 0), |(s, n), &x| (s + x, n + 1));
    let mean = total / count(n);
    let scale = (g + g) / (count::<F>(n) - ddof);
    for (d, &x) in d.into_iter().zip(a) {
        *d = scale * (x - mean);
    }
}

/// Adjoint of [`var`]: `2g(a_i − ā) / (n − ddof)`.
#[doc(hidden)]
pub fn var_vjp<F: Float, S: Data<Elem = F>, D: Dimension>(
    g: impl Cot<F>,
    a: &ArrayBase<S, D>,
    ddof: F,
) -> Array<F, D> {
    check_ddof("var", a.len(), ddof);
    let mut d = Array::zeros(a.raw_dim());
    var_lane(d.iter_mut(), a.iter(), *g.get(), ddof);
    d
}

/// The standard deviation with `ddof` degrees of freedom removed: ndarray's
/// `std(ddof)`, `√var(a, ddof)`.
///
/// Adjoint: `∂a_i = g · (a_i − ā) / ((n − ddof) · std)`, the variance's
/// over `2 std`.
///
/// # Panics
///
/// As [`var`].
///
/// ```
/// use backprop_runtime::ops::std_dev;
/// use ndarray::array;
/// let a = array![1.0_f64, 3.0];
/// assert_eq!(std_dev(&a, 0.0), 1.0);
/// assert_eq!(std_dev(&a, 1.0).to_bits(), a.std(1.0).to_bits());
/// ```
#[inline]
#[doc(hidden)]
pub fn std_dev<F: Float + FromPrimitive, S: Data<Elem = F>, D: Dimension>(
    a: &ArrayBase<S, D>,
    ddof: F,
) -> F {
    a.std(ddof)
}

/// Adjoint of [`std_dev`]: `g(a_i − ā) / ((n − ddof) · std)`.
#[doc(hidden)]
pub fn std_dev_vjp<F: Float + FromPrimitive, S: Data<Elem = F>, D: Dimension>(
    g: impl Cot<F>,
    a: &ArrayBase<S, D>,
    ddof: F,
) -> Array<F, D> {
    let sd = a.std(ddof);
    let g = *g.get() / (sd + sd);
    var_vjp(g, a, ddof)
}

/// The variance along `axis`: ndarray's `var_axis(axis, ddof)`.
///
/// Adjoint: `∂a = g · 2(a − ā) / (n − ddof)`, lane by lane along `axis`
/// (`ā` the lane's mean, `n` the length of `axis`).
///
/// # Panics
///
/// As ndarray's: if `axis` is out of bounds or `ddof` is not between 0 and
/// the length of `axis`.
///
/// ```
/// use backprop_runtime::ops::var_axis;
/// use ndarray::{array, Axis};
/// let a = array![[1.0, 2.0], [3.0, 6.0]];
/// assert_eq!(var_axis(&a, Axis(1), 0.0), array![0.25, 2.25]);
/// assert_eq!(var_axis(&a, Axis(0), 1.0), a.var_axis(Axis(0), 1.0));
/// ```
#[inline]
#[doc(hidden)]
pub fn var_axis<F: Float + FromPrimitive, S: Data<Elem = F>, D: RemoveAxis>(
    a: &ArrayBase<S, D>,
    axis: Axis,
    ddof: F,
) -> Array<F, D::Smaller> {
    a.var_axis(axis, ddof)
}

/// [`var_lane`] on every lane along `axis`, each with the upstream element
/// of its position.
fn var_lanes<F: Float, S: Data<Elem = F>, D: RemoveAxis>(
    g: &Array<F, D::Smaller>,
    a: &ArrayBase<S, D>,
    axis: Axis,
    ddof: F,
) -> Array<F, D> {
    check_ddof("var_axis", a.len_of(axis), ddof);
    let mut d = Array::zeros(a.raw_dim());
    Zip::from(d.lanes_mut(axis))
        .and(a.lanes(axis))
        .and(g)
        .for_each(|mut d, a, &g| var_lane(d.iter_mut(), a.iter(), g, ddof));
    d
}

/// Adjoint of [`var_axis`]: `2g(a − ā) / (n − ddof)` lane by lane.
#[doc(hidden)]
pub fn var_axis_vjp<F: Float, S: Data<Elem = F>, D: RemoveAxis>(
    g: impl Cot<Array<F, D::Smaller>>,
    a: &ArrayBase<S, D>,
    axis: Axis,
    ddof: F,
) -> Array<F, D> {
    var_lanes(g.get(), a, axis, ddof)
}

/// The standard deviation along `axis`: ndarray's `std_axis(axis, ddof)`.
///
/// Adjoint: `∂a = g · (a − ā) / ((n − ddof) · std)`, lane by lane.
///
/// # Panics
///
/// As [`var_axis`].
///
/// ```
/// use backprop_runtime::ops::std_dev_axis;
/// use ndarray::{array, Axis};
/// let a = array![[1.0, 3.0], [3.0, 7.0]];
/// assert_eq!(std_dev_axis(&a, Axis(1), 0.0), array![1.0, 2.0]);
/// assert_eq!(std_dev_axis(&a, Axis(0), 1.0), a.std_axis(Axis(0), 1.0));
/// ```
#[inline]
#[doc(hidden)]
pub fn std_dev_axis<F: Float + FromPrimitive, S: Data<Elem = F>, D: RemoveAxis>(
    a: &ArrayBase<S, D>,
    axis: Axis,
    ddof: F,
) -> Array<F, D::Smaller> {
    a.std_axis(axis, ddof)
}

/// Adjoint of [`std_dev_axis`]: `g(a − ā) / ((n − ddof) · std)` lane by lane.
#[doc(hidden)]
pub fn std_dev_axis_vjp<F: Float + FromPrimitive, S: Data<Elem = F>, D: RemoveAxis>(
    g: impl Cot<Array<F, D::Smaller>>,
    a: &ArrayBase<S, D>,
    axis: Axis,
    ddof: F,
) -> Array<F, D> {
    let sd = a.std_axis(axis, ddof);
    let g = Zip::from(g.get())
        .and(&sd)
        .map_collect(|&g, &sd| g / (sd + sd));
    var_lanes(&g, a, axis, ddof)
}

/// The product of all elements: ndarray's `product()`.
///
/// Adjoint: `∂a_i = g · Π_{j≠i} a_j`, from the products before and after
/// each element (no division, so a zero element gives exact gradients).
///
/// ```
/// use backprop_runtime::ops::product;
/// use ndarray::array;
/// let a = array![[1.0, 2.0], [3.0, 4.0]];
/// assert_eq!(product(&a), 24.0);
/// ```
#[inline]
#[doc(hidden)]
pub fn product<F: Float, S: Data<Elem = F>, D: Dimension>(a: &ArrayBase<S, D>) -> F {
    a.product()
}

/// Adjoint of [`product`] and [`iter_product`]: `g` times the product of
/// every other element, in the logical order of `a`.
#[doc(hidden)]
pub fn product_vjp<F: Float, S: Data<Elem = F>, D: Dimension>(
    g: impl Cot<F>,
    a: &ArrayBase<S, D>,
) -> Array<F, D> {
    let xs: Array1<F> = a.iter().copied().collect();
    let mut d = Array1::zeros(xs.len());
    others_product(d.view_mut(), xs.view(), *g.get());
    d.into_shape_with_order(a.raw_dim())
        .expect("one gradient per element, in logical order")
}

/// `d_i = g · Π_{j≠i} x_j` along one lane: the running product before each
/// element, then times the running product after it (no division, so a
/// zero element gives exact gradients).
fn others_product<F: Float>(mut d: ArrayViewMut1<'_, F>, x: ArrayView1<'_, F>, g: F) {
    let mut before = g;
    for (d, &x) in d.iter_mut().zip(&x) {
        *d = before;
        before *= x;
    }
    let mut after = F::one();
    for (d, &x) in d.iter_mut().zip(&x).rev() {
        *d *= after;
        after *= x;
    }
}

/// The product along `axis`: ndarray's `product_axis`.
///
/// Adjoint: `∂a_i = g · Π_{j≠i} a_j` over the other elements of `a_i`'s
/// lane, as [`product`]'s.
///
/// # Panics
///
/// If `axis` is out of bounds.
///
/// ```
/// use backprop_runtime::ops::product_axis;
/// use ndarray::{array, Axis};
/// let a = array![[1.0, 2.0], [3.0, 4.0]];
/// assert_eq!(product_axis(&a, Axis(0)), array![3.0, 8.0]);
/// assert_eq!(product_axis(&a, Axis(1)), a.product_axis(Axis(1)));
/// ```
#[inline]
#[doc(hidden)]
pub fn product_axis<F: Float, S: Data<Elem = F>, D: RemoveAxis>(
    a: &ArrayBase<S, D>,
    axis: Axis,
) -> Array<F, D::Smaller> {
    a.product_axis(axis)
}

/// Adjoint of [`product_axis`]: lane by lane, `g` times the product of the
/// lane's other elements.
#[doc(hidden)]
pub fn product_axis_vjp<F: Float, S: Data<Elem = F>, D: RemoveAxis>(
    g: impl Cot<Array<F, D::Smaller>>,
    a: &ArrayBase<S, D>,
    axis: Axis,
) -> Array<F, D> {
    let mut d = Array::zeros(a.raw_dim());
    Zip::from(d.lanes_mut(axis))
        .and(a.lanes(axis))
        .and(g.get())
        .for_each(|d, a, &g| others_product(d, a, g));
    d
}

/// The product of all elements in iteration order, as `a.iter().product()`
/// multiplies them: one running product from the first element to the last
/// (ndarray's `product()` multiplies in lanes, so the two may differ in the
/// last bits).
///
/// Adjoint: [`product_vjp`].
///
/// ```
/// use backprop_runtime::ops::iter_product;
/// use ndarray::array;
/// let a = array![[1.5, 2.0], [3.0, 0.25]];
/// assert_eq!(iter_product(&a), a.iter().product::<f64>());
/// ```
#[inline]
#[doc(hidden)]
pub fn iter_product<F: Float, S: Data<Elem = F>, D: Dimension>(a: &ArrayBase<S, D>) -> F {
    a.iter().fold(F::one(), |p, &x| p * x)
}

/// The maximum along `axis`, folded from `init`: ndarray's
/// `a.fold_axis(axis, init, |m, &v| m.max(v))`, the value bit for bit (each
/// lane is folded in its order, with `f64::max`, which ignores NaN), but for
/// the sign of a zero maximum where a lane holds both `0.0` and `-0.0`: Rust
/// leaves that to the build (`v.max(m)` may differ from `m.max(v)` there).
///
/// Adjoint: `∂a_i = g` at the first element of each lane equal to its
/// maximum, 0 elsewhere (a lane where `init` is greater than every
/// element gets no gradient).
///
/// # Panics
///
/// If `axis` is out of bounds.
///
/// ```
/// use backprop_runtime::ops::max_axis;
/// use ndarray::{array, Axis};
/// let a = array![[1.0, 5.0], [3.0, f64::NAN]];
/// let m = max_axis(&a, Axis(1), f64::NEG_INFINITY);
/// assert_eq!(m, array![5.0, 3.0]);
/// assert_eq!(m, a.fold_axis(Axis(1), f64::NEG_INFINITY, |m, &v| m.max(v)));
/// assert_eq!(max_axis(&a, Axis(0), 4.0), array![4.0, 5.0]);
/// ```
#[inline]
#[doc(hidden)]
pub fn max_axis<F: Float, S: Data<Elem = F>, D: RemoveAxis>(
    a: &ArrayBase<S, D>,
    axis: Axis,
    init: F,
) -> Array<F, D::Smaller> {
    a.fold_axis(axis, init, |&m, &v| F::max(m, v))
}

/// The minimum along `axis`, folded from `init`: ndarray's
/// `a.fold_axis(axis, init, |m, &v| m.min(v))`, the value bit for bit (but
/// for the sign of a zero minimum, as [`max_axis`]).
///
/// Adjoint: `∂a_i = g` at the first element of each lane equal to its
/// minimum, 0 elsewhere (a lane where `init` is less than every element
/// gets no gradient).
///
/// # Panics
///
/// If `axis` is out of bounds.
///
/// ```
/// use backprop_runtime::ops::min_axis;
/// use ndarray::{array, Axis};
/// let a = array![[1.0, 5.0], [3.0, -2.0]];
/// assert_eq!(min_axis(&a, Axis(0), f64::INFINITY), array![1.0, -2.0]);
/// assert_eq!(
///     min_axis(&a, Axis(1), 0.0),
///     a.fold_axis(Axis(1), 0.0_f64, |m, &v| m.min(v))
/// );
/// ```
#[inline]
#[doc(hidden)]
pub fn min_axis<F: Float, S: Data<Elem = F>, D: RemoveAxis>(
    a: &ArrayBase<S, D>,
    axis: Axis,
    init: F,
) -> Array<F, D::Smaller> {
    a.fold_axis(axis, init, |&m, &v| F::min(m, v))
}

/// `g` at the first element of each lane along `axis` equal to the lane's
/// folded value `out`, zeros elsewhere: the rule of a maximum or a minimum.
fn to_first_equal<F: Float, S: Data<Elem = F>, T: Data<Elem = F>, D: RemoveAxis>(
    g: &Array<F, D::Smaller>,
    a: &ArrayBase<S, D>,
    axis: Axis,
    out: &ArrayBase<T, D::Smaller>,
) -> Array<F, D> {
    let mut d = Array::zeros(a.raw_dim());
    Zip::from(d.lanes_mut(axis))
        .and(a.lanes(axis))
        .and(g)
        .and(out)
        .for_each(|mut d, a, &g, &out| {
            if let Some(k) = a.iter().position(|&x| x == out) {
                d[k] = g;
            }
        });
    d
}

/// Adjoint of [`max_axis`]: `g` at the first maximum of each lane.
#[doc(hidden)]
pub fn max_axis_vjp<F: Float, S: Data<Elem = F>, T: Data<Elem = F>, D: RemoveAxis>(
    g: impl Cot<Array<F, D::Smaller>>,
    a: &ArrayBase<S, D>,
    axis: Axis,
    _init: F,
    out: &ArrayBase<T, D::Smaller>,
) -> Array<F, D> {
    to_first_equal(g.get(), a, axis, out)
}

/// Adjoint of [`min_axis`]: `g` at the first minimum of each lane.
#[doc(hidden)]
pub fn min_axis_vjp<F: Float, S: Data<Elem = F>, T: Data<Elem = F>, D: RemoveAxis>(
    g: impl Cot<Array<F, D::Smaller>>,
    a: &ArrayBase<S, D>,
    axis: Axis,
    _init: F,
    out: &ArrayBase<T, D::Smaller>,
) -> Array<F, D> {
    to_first_equal(g.get(), a, axis, out)
}
