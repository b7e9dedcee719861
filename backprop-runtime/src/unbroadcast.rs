//! Summing a gradient back to the shape of an operand that was broadcast.
//!
//! When `c = a ⊕ b` broadcasts `b` (say `(3, 1)` against `a`'s `(3, 3)`), every
//! element of `b` was used once per copy, so by the fork rule its gradient is
//! the sum of the gradients of its copies: sum over the leading axes that
//! broadcasting added, then over the axes where `b` has length 1.

use crate::value::{Cot, Float, Tensor, Value};
use ndarray::{Array, ArrayBase, Axis, Data, Dimension};

/// A gradient that can be summed back to the shape of a `T`.
pub trait SumTo<T: Value>: Tensor {
    /// Sums `g` (of the broadcast shape) back to `target`'s shape.
    fn sum_to(g: impl Cot<Self>, target: &T) -> T::Owned;
}

macro_rules! scalar_sum_to {
    ($($f:ty),*) => {$(
        impl SumTo<$f> for $f {
            #[inline]
            fn sum_to(g: impl Cot<$f>, _: &$f) -> $f {
                g.into_owned()
            }
        }

        impl<E: Dimension> SumTo<$f> for Array<$f, E> {
            #[inline]
            fn sum_to(g: impl Cot<Self>, _: &$f) -> $f {
                g.get().sum()
            }
        }
    )*};
}
scalar_sum_to!(f32, f64);

impl<F: Float, S: Data<Elem = F>, D: Dimension, E: Dimension> SumTo<ArrayBase<S, D>>
    for Array<F, E>
{
    fn sum_to(g: impl Cot<Self>, target: &ArrayBase<S, D>) -> Array<F, D> {
        let target_shape = target.shape();
        if g.get().shape() == target_shape {
            // Not broadcast: the gradient passes through (free when owned).
            return g
                .into_owned()
                .into_dimensionality::<D>()
                .expect("unbroadcast: same shape, same dimension");
        }
        let gv = g.get().view().into_dyn();
        let lead = gv.ndim() - target_shape.len();
        let mut acc = if lead > 0 {
            let mut acc = gv.sum_axis(Axis(0));
            for _ in 1..lead {
                acc = acc.sum_axis(Axis(0));
            }
            acc
        } else {
            gv.to_owned()
        };
        for (k, &len) in target_shape.iter().enumerate() {
            if len == 1 && acc.shape()[k] != 1 {
                acc = acc.sum_axis(Axis(k)).insert_axis(Axis(k));
            }
        }
        acc.into_dimensionality::<D>()
            .expect("unbroadcast: the sum has the operand's dimension")
    }
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
