//! The rules of a closure mapped over arrays (`z.mapv(|v| ..)`,
//! `Zip::from(&a).and(&b).map_collect(|&x, &y| ..)`,
//! `a.iter().zip(b.iter()).map(|(x, y)| ..).sum::<f64>()`).
//!
//! The macro differentiates the closure's body as a scalar function of its
//! elements and of the differentiable scalars it captures, and hands the
//! reverse of that function to these walks as `f(elements.., g)`, which
//! returns the gradient of each element and of each captured scalar. A walk
//! writes the elements' gradients in arrays of the operands' shapes and sums
//! the captured scalars' over all elements (each element uses them once: the
//! fork rule).

use crate::value::{Cot, Float};
use ndarray::{Array, ArrayBase, Data, Dimension, Zip};

/// The rule of `a.mapv(f)`: `∂a_i = f'(a_i) g_i`, and the captured scalars'
/// gradients summed over the elements. `g` has `a`'s shape; its buffer
/// becomes `∂a`.
///
/// ```
/// use backprop_runtime::closures::map_rule;
/// use ndarray::array;
/// let a = array![1.0, 2.0];
/// // The closure `|v| v * v * s` at s = 3: ∂v = 2 v s g, ∂s = v² g.
/// let s = 3.0;
/// let (d_a, [d_s]) = map_rule(array![1.0, 1.0], &a, |v, g| (2.0 * v * s * g, [v * v * g]));
/// assert_eq!(d_a, array![6.0, 12.0]);
/// assert_eq!(d_s, 5.0);
/// ```
pub fn map_rule<F, S, D, const K: usize>(
    g: impl Cot<Array<F, D>>,
    a: &ArrayBase<S, D>,
    f: impl Fn(F, F) -> (F, [F; K]),
) -> (Array<F, D>, [F; K])
where
    F: Float,
    S: Data<Elem = F>,
    D: Dimension,
{
    let mut d = g.into_owned();
    let mut captured = [F::zero(); K];
    Zip::from(&mut d).and(a).for_each(|d, &x| {
        let (dx, dc) = f(x, *d);
        *d = dx;
        add(&mut captured, dc);
    });
    (d, captured)
}

/// The rule of `Zip::from(&a).and(&b).map_collect(f)`: each operand's
/// gradient in an array of its shape, the captured scalars' summed. `g`'s
/// buffer becomes `∂a`.
///
/// ```
/// use backprop_runtime::closures::zip_rule;
/// use ndarray::array;
/// // |x, y| x * y: ∂x = y g, ∂y = x g.
/// let (d_a, d_b, []) = zip_rule(array![1.0, 1.0], &array![1.0, 2.0], &array![3.0, 4.0], |x, y, g| (y * g, x * g, []));
/// assert_eq!(d_a, array![3.0, 4.0]);
/// assert_eq!(d_b, array![1.0, 2.0]);
/// ```
pub fn zip_rule<F, S, T, D, const K: usize>(
    g: impl Cot<Array<F, D>>,
    a: &ArrayBase<S, D>,
    b: &ArrayBase<T, D>,
    f: impl Fn(F, F, F) -> (F, F, [F; K]),
) -> (Array<F, D>, Array<F, D>, [F; K])
where
    F: Float,
    S: Data<Elem = F>,
    T: Data<Elem = F>,
    D: Dimension,
{
    let mut d_a = g.into_owned();
    let mut d_b = Array::zeros(b.raw_dim());
    let mut captured = [F::zero(); K];
    Zip::from(&mut d_a)
        .and(&mut d_b)
        .and(a)
        .and(b)
        .for_each(|da, db, &x, &y| {
            let (dx, dy, dc) = f(x, y, *da);
            *da = dx;
            *db = dy;
            add(&mut captured, dc);
        });
    (d_a, d_b, captured)
}

/// The rule of `a.iter().map(f).sum()`: every element's upstream gradient
/// is the sum's, `g`.
///
/// ```
/// use backprop_runtime::closures::sum_map_rule;
/// use ndarray::array;
/// // Σ v²: ∂v = 2 v g.
/// let (d_a, []) = sum_map_rule(0.5, &array![1.0, -2.0], |v, g| (2.0 * v * g, []));
/// assert_eq!(d_a, array![1.0, -2.0]);
/// ```
pub fn sum_map_rule<F, S, D, const K: usize>(
    g: F,
    a: &ArrayBase<S, D>,
    f: impl Fn(F, F) -> (F, [F; K]),
) -> (Array<F, D>, [F; K])
where
    F: Float,
    S: Data<Elem = F>,
    D: Dimension,
{
    let mut captured = [F::zero(); K];
    let d = a.map(|&x| {
        let (dx, dc) = f(x, g);
        add(&mut captured, dc);
        dx
    });
    (d, captured)
}

/// The rule of `a.iter().zip(b.iter()).map(f).sum()`: as iterators zip,
/// only the first `min(len a, len b)` elements (in logical order) are
/// used; the others' gradients are zero.
///
/// ```
/// use backprop_runtime::closures::sum_zip_rule;
/// use ndarray::array;
/// // Σ (x - y)² over the two elements both have.
/// let (d_a, d_b, []) = sum_zip_rule(1.0, &array![3.0, 1.0, 9.0], &array![1.0, 2.0], |x, y, g| {
///     (2.0 * (x - y) * g, -2.0 * (x - y) * g, [])
/// });
/// assert_eq!(d_a, array![4.0, -2.0, 0.0]);
/// assert_eq!(d_b, array![-4.0, 2.0]);
/// ```
pub fn sum_zip_rule<F, S, T, D, E, const K: usize>(
    g: F,
    a: &ArrayBase<S, D>,
    b: &ArrayBase<T, E>,
    f: impl Fn(F, F, F) -> (F, F, [F; K]),
) -> (Array<F, D>, Array<F, E>, [F; K])
where
    F: Float,
    S: Data<Elem = F>,
    T: Data<Elem = F>,
    D: Dimension,
    E: Dimension,
{
    let mut d_a = Array::zeros(a.raw_dim());
    let mut d_b = Array::zeros(b.raw_dim());
    let mut captured = [F::zero(); K];
    let grads = d_a.iter_mut().zip(d_b.iter_mut());
    for ((da, db), (&x, &y)) in grads.zip(a.iter().zip(b.iter())) {
        let (dx, dy, dc) = f(x, y, g);
        *da = dx;
        *db = dy;
        add(&mut captured, dc);
    }
    (d_a, d_b, captured)
}

/// `acc += c`, component by component.
#[inline]
fn add<F: Float, const K: usize>(acc: &mut [F; K], c: [F; K]) {
    for (a, c) in acc.iter_mut().zip(c) {
        *a += c;
    }
}
