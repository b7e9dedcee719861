//! Summing a gradient back to the shape of an operand that was broadcast.
//!
//! When `c = a ⊕ b` broadcasts `b` (say `(3, 1)` against `a`'s `(3, 3)`), every
//! element of `b` was used once per copy, so by the fork rule its gradient is
//! the sum of the gradients of its copies: sum over the leading axes that
//! broadcasting added, then over the axes where `b` has length 1.

use crate::value::{Cot, Float, Tensor, Value};
use ndarray::{
    Array, Array1, ArrayBase, ArrayD, ArrayView2, ArrayViewD, Axis, Data, Dimension, Ix2,
};

/// A gradient that can be summed back to the shape of a `T`.
pub trait SumTo<T: Value>: Tensor {
    /// Sums `g` (of the broadcast shape) back to `target`'s shape.
    fn sum_to(g: impl Cot<Self>, target: &T) -> T::Owned;
}

impl<F: Float> SumTo<F> for F {
    #[inline]
    fn sum_to(g: impl Cot<F>, _: &F) -> F {
        g.into_owned()
    }
}

impl<F: Float, E: Dimension> SumTo<F> for Array<F, E> {
    #[inline]
    fn sum_to(g: impl Cot<Self>, _: &F) -> F {
        g.get().sum()
    }
}

impl<F: Float, S: Data<Elem = F>, D: Dimension, E: Dimension> SumTo<ArrayBase<S, D>>
    for Array<F, E>
{
    #[inline]
    fn sum_to(g: impl Cot<Self>, target: &ArrayBase<S, D>) -> Array<F, D> {
        let target_shape = target.shape();
        if g.get().shape() == target_shape {
            // Not broadcast: the gradient passes through (free when owned).
            return g
                .into_owned()
                .into_dimensionality::<D>()
                .expect("unbroadcast: same shape, same dimension");
        }
        sum_broadcast(g.get(), target_shape)
    }
}

/// The gradient of a broadcast operand, summed back to its shape.
fn sum_broadcast<F: Float, E: Dimension, D: Dimension>(
    g: &Array<F, E>,
    target_shape: &[usize],
) -> Array<F, D> {
    if let Some(summed) = sum_2d(g, target_shape) {
        return summed;
    }
    sum_general(g.view().into_dyn(), target_shape)
        .into_dimensionality::<D>()
        .expect("unbroadcast: the sum has the operand's dimension")
}

/// The common cases of a 2-d gradient, summed with ndarray's fixed-dimension
/// `sum_axis` (as a hand-written backward would): a bias `(n, m) -> (m,)`, a
/// row `(n, m) -> (1, m)`, a column `(n, m) -> (n, 1)`. No dynamic-dimension
/// array is made on the way.
fn sum_2d<F: Float, E: Dimension, D: Dimension>(
    g: &Array<F, E>,
    target: &[usize],
) -> Option<Array<F, D>> {
    if g.ndim() != 2 {
        return None;
    }
    let g = g.view().into_dimensionality::<Ix2>().ok()?;
    let (n, m) = g.dim();
    match *target {
        [len] if len == m => sum_rows(&g).into_dimensionality().ok(),
        [1, len] if len == m => sum_rows(&g).insert_axis(Axis(0)).into_dimensionality().ok(),
        [len, 1] if len == n => g
            .sum_axis(Axis(1))
            .insert_axis(Axis(1))
            .into_dimensionality()
            .ok(),
        _ => None,
    }
}

/// `g.sum_axis(Axis(0))`, bit for bit. For a matrix in the standard layout
/// ndarray adds the rows one after the other into zeros, one array addition
/// per row (about 180 instructions for a row of 64); this loop adds them the
/// same way, in the same order, over slices, which the compiler vectorizes.
fn sum_rows<F: Float>(g: &ArrayView2<'_, F>) -> Array1<F> {
    let (Some(all), m) = (g.as_slice(), g.ncols()) else {
        return g.sum_axis(Axis(0));
    };
    let mut acc = vec![F::zero(); m];
    if m > 0 {
        for row in all.chunks_exact(m) {
            for (a, &x) in acc.iter_mut().zip(row) {
                *a += x;
            }
        }
    }
    Array1::from_vec(acc)
}

/// Any broadcast: the leading axes, then the axes of length 1, each summed
/// once, starting from the view (the gradient is not copied first).
fn sum_general<F: Float>(g: ArrayViewD<'_, F>, target: &[usize]) -> ArrayD<F> {
    let lead = g.ndim() - target.len();
    let mut acc: Option<ArrayD<F>> = None;
    for _ in 0..lead {
        acc = Some(match acc {
            None => g.sum_axis(Axis(0)),
            Some(a) => a.sum_axis(Axis(0)),
        });
    }
    for (k, &len) in target.iter().enumerate() {
        let current = acc
            .as_ref()
            .map_or_else(|| g.shape()[lead + k], |a| a.shape()[k]);
        if len == 1 && current != 1 {
            acc = Some(match acc {
                None => g.sum_axis(Axis(lead + k)).insert_axis(Axis(lead + k)),
                Some(a) => a.sum_axis(Axis(k)).insert_axis(Axis(k)),
            });
        }
    }
    acc.unwrap_or_else(|| g.to_owned())
}

/// Sums the gradient `g` of a broadcast result back to the shape of `target`.
///
/// Rule: `∂L/∂b = Σ over broadcast copies of ∂L/∂c`. The result always has
/// `target`'s shape and dimension type.
///
/// ```
/// use backprop_runtime::unbroadcast;
/// use ndarray::array;
/// let g = array![[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]];
/// let b = array![[0.0], [0.0]];
/// assert_eq!(unbroadcast(&g, &b), array![[6.0], [15.0]]);
/// assert_eq!(unbroadcast(&g, &0.0_f64), 21.0);
/// ```
#[inline]
pub fn unbroadcast<G: SumTo<T>, T: Value>(g: impl Cot<G>, target: &T) -> T::Owned {
    G::sum_to(g, target)
}
