//! A closure mapped over arrays (`z.mapv(|v| ..)`,
//! `Zip::from(&a).and(&b).map_collect(|&x, &y| ..)`,
//! `a.iter().map(|x| ..).sum::<f64>()`,
//! `a.iter().zip(b.iter()).map(|(x, y)| ..).sum::<f64>()`), in one pass
//! forward and one pass back.
//!
//! The macro differentiates the closure's body as a scalar function of its
//! elements and of the differentiable scalars it captures, and hands the
//! forward walk `f(elements..)`, which returns the body's value and its
//! gradients for an upstream gradient of 1: the partial derivatives with
//! respect to each element (`[F; N]`) and to each captured scalar
//! (`[F; K]`). The walk keeps those local derivatives (a [`Local`]); the
//! reverse multiplies them by the upstream gradient, element by element, and
//! sums the captured scalars' over the elements (each element uses them
//! once: the fork rule). A scalar function's gradient is linear in its
//! upstream gradient, so this is its reverse, with each element's value and
//! derivatives computed once.

use crate::value::{Cot, Float};
use ndarray::{Array, ArrayBase, Data, Dimension, Zip};

/// What a walk keeps for its reverse: the local derivatives of each
/// element's value with respect to the element of each of the `N` arrays
/// (`d`), and to each of the `K` captured scalars, per element (`C`: an
/// array of `[F; K]`, or their sums `[F; K]` where the values are summed
/// and every element's upstream gradient is the sum's).
#[derive(Clone, Debug)]
pub struct Local<F, D: Dimension, C, const N: usize> {
    d: [Array<F, D>; N],
    captured: C,
}

/// The elements' derivatives with respect to the captured scalars, each
/// element's own.
type PerElement<F, D, const K: usize> = Array<[F; K], D>;

/// An array of `a`'s shape, laid out as `a.mapv(..)` lays out its value.
fn like<F: Float, S: Data<Elem = F>, D: Dimension, T: Clone>(
    a: &ArrayBase<S, D>,
    t: T,
) -> Array<T, D> {
    a.map(|_| t.clone())
}

/// The forward of `a.mapv(f)`: its value, and the local derivatives.
///
/// ```
/// use backprop_runtime::closures::{closure_map, closure_map_back};
/// use ndarray::array;
/// // `|v| v * v * s` at s = 3: the value, ∂v = 2 v s, ∂s = v².
/// let s = 3.0;
/// let (y, local) = closure_map(&array![1.0, 2.0], |v| (v * v * s, [2.0 * v * s], [v * v]));
/// assert_eq!(y, array![3.0, 12.0]);
/// let (d_a, [d_s]) = closure_map_back(array![1.0, 0.5], local);
/// assert_eq!(d_a, array![6.0, 6.0]);
/// assert_eq!(d_s, 1.0 + 0.5 * 4.0);
/// ```
#[allow(
    clippy::type_complexity,
    reason = "the value and what the reverse keeps"
)]
pub fn closure_map<F, S, D, const K: usize>(
    a: &ArrayBase<S, D>,
    f: impl Fn(F) -> (F, [F; 1], [F; K]),
) -> (Array<F, D>, Local<F, D, PerElement<F, D, K>, 1>)
where
    F: Float,
    S: Data<Elem = F>,
    D: Dimension,
{
    let zero = F::zero();
    let (mut y, mut d, mut c) = (like(a, zero), like(a, zero), like(a, [zero; K]));
    Zip::from(&mut y)
        .and(&mut d)
        .and(&mut c)
        .and(a)
        .for_each(|y, d, c, &x| {
            let (v, [dx], dc) = f(x);
            (*y, *d, *c) = (v, dx, dc);
        });
    (
        y,
        Local {
            d: [d],
            captured: c,
        },
    )
}

/// The reverse of [`closure_map`]: `∂a = g ⊙ ∂f/∂a` (in the kept buffer), and each
/// captured scalar's `Σ g ⊙ ∂f/∂s`.
pub fn closure_map_back<F, D, const K: usize>(
    g: impl Cot<Array<F, D>>,
    local: Local<F, D, PerElement<F, D, K>, 1>,
) -> (Array<F, D>, [F; K])
where
    F: Float,
    D: Dimension,
{
    let Local {
        d: [mut d],
        captured,
    } = local;
    let mut sums = [F::zero(); K];
    Zip::from(&mut d)
        .and(g.get())
        .and(&captured)
        .for_each(|d, &g, c| {
            *d = g * *d;
            add_scaled(&mut sums, g, c);
        });
    (d, sums)
}

/// The forward of `Zip::from(a).and(b).map_collect(f)`.
///
/// ```
/// use backprop_runtime::closures::{closure_zip, closure_zip_back};
/// use ndarray::array;
/// // |x, y| x * y: ∂x = y, ∂y = x.
/// let (v, local) = closure_zip(&array![1.0, 2.0], &array![3.0, 4.0], |x, y| (x * y, [y, x], []));
/// assert_eq!(v, array![3.0, 8.0]);
/// let (d_a, d_b, []) = closure_zip_back(array![1.0, 1.0], local);
/// assert_eq!(d_a, array![3.0, 4.0]);
/// assert_eq!(d_b, array![1.0, 2.0]);
/// ```
#[allow(
    clippy::type_complexity,
    reason = "the value and what the reverse keeps"
)]
pub fn closure_zip<F, S, T, D, const K: usize>(
    a: &ArrayBase<S, D>,
    b: &ArrayBase<T, D>,
    f: impl Fn(F, F) -> (F, [F; 2], [F; K]),
) -> (Array<F, D>, Local<F, D, PerElement<F, D, K>, 2>)
where
    F: Float,
    S: Data<Elem = F>,
    T: Data<Elem = F>,
    D: Dimension,
{
    let zero = F::zero();
    let mut y = Zip::from(a).and(b).map_collect(|_, _| zero);
    let (mut da, mut db, mut c) = (like(&y, zero), like(&y, zero), like(&y, [zero; K]));
    Zip::from(&mut y)
        .and(&mut da)
        .and(&mut db)
        .and(&mut c)
        .and(a)
        .and(b)
        .for_each(|y, da, db, c, &x, &z| {
            let (v, [dx, dz], dc) = f(x, z);
            (*y, *da, *db, *c) = (v, dx, dz, dc);
        });
    (
        y,
        Local {
            d: [da, db],
            captured: c,
        },
    )
}

/// The reverse of [`closure_zip`].
pub fn closure_zip_back<F, D, const K: usize>(
    g: impl Cot<Array<F, D>>,
    local: Local<F, D, PerElement<F, D, K>, 2>,
) -> (Array<F, D>, Array<F, D>, [F; K])
where
    F: Float,
    D: Dimension,
{
    let Local {
        d: [mut da, mut db],
        captured,
    } = local;
    let mut sums = [F::zero(); K];
    Zip::from(&mut da)
        .and(&mut db)
        .and(g.get())
        .and(&captured)
        .for_each(|da, db, &g, c| {
            *da = g * *da;
            *db = g * *db;
            add_scaled(&mut sums, g, c);
        });
    (da, db, sums)
}

/// `$r` in the place of `$_t`: repeats a type once per array of a walk.
macro_rules! each_array {
    ($_t:tt, $($r:tt)*) => {
        $($r)*
    };
}

/// The forward and reverse of `Zip::from(a).and(b).and(c)..map_collect(f)`
/// over three to five arrays (ndarray's `map_collect` takes up to five):
/// the body's value and derivatives per element, collected in the layout
/// the user's `Zip` gives its value, then split into the value and one
/// array of derivatives per array.
macro_rules! closure_zips {
    ($($n:literal $forward:ident $back:ident
        [$a0:ident $s0:ident $x0:ident, $($a:ident $s:ident $x:ident),+]
        $example:literal;)*) => {$(
        #[doc = concat!("The forward of `Zip::from(a).and(b)..map_collect(f)` over ", stringify!($n), " arrays.")]
        ///
        /// ```
        #[doc = $example]
        /// ```
        #[allow(
            clippy::type_complexity,
            clippy::too_many_arguments,
            reason = "the value and what the reverse keeps, one array each"
        )]
        pub fn $forward<F, $s0, $($s,)+ D, const K: usize>(
            $a0: &ArrayBase<$s0, D>,
            $($a: &ArrayBase<$s, D>,)+
            f: impl Fn(F, $(each_array!($a, F),)+) -> (F, [F; $n], [F; K]),
        ) -> (Array<F, D>, Local<F, D, PerElement<F, D, K>, $n>)
        where
            F: Float,
            $s0: Data<Elem = F>,
            $($s: Data<Elem = F>,)+
            D: Dimension,
        {
            let all = Zip::from($a0)
                $(.and($a))+
                .map_collect(|&$x0, $(&$x),+| f($x0, $($x),+));
            let d = std::array::from_fn(|k| all.map(|t| t.1[k]));
            (
                all.map(|t| t.0),
                Local {
                    d,
                    captured: all.map(|t| t.2),
                },
            )
        }

        #[doc = concat!("The reverse of [`", stringify!($forward), "`]: `∂a = g ⊙ ∂f/∂a` for each array (in the kept buffers), and each captured scalar's `Σ g ⊙ ∂f/∂s`.")]
        pub fn $back<F, D, const K: usize>(
            g: impl Cot<Array<F, D>>,
            local: Local<F, D, PerElement<F, D, K>, $n>,
        ) -> (Array<F, D>, $(each_array!($a, Array<F, D>),)+ [F; K])
        where
            F: Float,
            D: Dimension,
        {
            let Local { d, captured } = local;
            let g = g.get();
            let [mut $a0, $(mut $a),+] = d;
            for d in [&mut $a0, $(&mut $a),+] {
                Zip::from(d).and(g).for_each(|d, &g| *d = g * *d);
            }
            let mut sums = [F::zero(); K];
            Zip::from(g)
                .and(&captured)
                .for_each(|&g, c| add_scaled(&mut sums, g, c));
            ($a0, $($a,)+ sums)
        }
    )*};
}

closure_zips! {
    3 closure_zip3 closure_zip3_back [a S x, b T y, c U z]
    "use backprop_runtime::closures::{closure_zip3, closure_zip3_back};
use ndarray::array;
// |x, y, z| x * y + z: ∂x = y, ∂y = x, ∂z = 1.
let (a, b, c) = (array![1.0, 2.0], array![3.0, 4.0], array![5.0, 6.0]);
let (v, local) = closure_zip3(&a, &b, &c, |x, y, z| (x * y + z, [y, x, 1.0], []));
assert_eq!(v, array![8.0, 14.0]);
let (d_a, d_b, d_c, []) = closure_zip3_back(array![1.0, 0.5], local);
assert_eq!((d_a, d_b, d_c), (array![3.0, 2.0], array![1.0, 1.0], array![1.0, 0.5]));";
    4 closure_zip4 closure_zip4_back [a S x, b T y, c U z, e V w]
    "use backprop_runtime::closures::{closure_zip4, closure_zip4_back};
use ndarray::array;
// |x, y, z, w| x * y + z * w * s at s = 2: ∂s = z w.
let (a, b) = (array![1.0, 2.0], array![3.0, 4.0]);
let (v, local) = closure_zip4(&a, &b, &a, &b, |x, y, z, w| {
    (x * y + z * w * 2.0, [y, x, w * 2.0, z * 2.0], [z * w])
});
assert_eq!(v, array![9.0, 24.0]);
let (d_a, _, _, d_b, [d_s]) = closure_zip4_back(array![1.0, 1.0], local);
assert_eq!((d_a, d_b, d_s), (array![3.0, 4.0], array![2.0, 4.0], 11.0));";
    5 closure_zip5 closure_zip5_back [a S x, b T y, c U z, e V w, h W u]
    "use backprop_runtime::closures::{closure_zip5, closure_zip5_back};
use ndarray::array;
// The sum of five elements.
let a = array![[1.0, 2.0], [3.0, 4.0]];
let (v, local) = closure_zip5(&a, &a, &a, &a, &a.t(), |x, y, z, w, u| {
    (x + y + z + w + u, [1.0; 5], [])
});
assert_eq!(v, array![[5.0, 11.0], [14.0, 20.0]]);
let (.., d_e, []) = closure_zip5_back(array![[1.0, 2.0], [3.0, 4.0]], local);
assert_eq!(d_e, array![[1.0, 2.0], [3.0, 4.0]]);";
}

/// The forward of `a.iter().map(f).sum()`: the sum as the iterator adds
/// (in `a`'s logical order, by `Iterator::sum`), and the local derivatives
/// (the captured scalars' summed over the elements).
///
/// ```
/// use backprop_runtime::closures::{closure_sum_map, closure_sum_back};
/// use ndarray::array;
/// // Σ v²: ∂v = 2 v.
/// let (s, local) = closure_sum_map(&array![1.0, -2.0], |v| (v * v, [2.0 * v], []));
/// assert_eq!(s, 5.0);
/// let (d_a, []) = closure_sum_back(0.5, local);
/// assert_eq!(d_a, array![1.0, -2.0]);
/// ```
pub fn closure_sum_map<F, S, D, const K: usize>(
    a: &ArrayBase<S, D>,
    f: impl Fn(F) -> (F, [F; 1], [F; K]),
) -> (F, Local<F, D, [F; K], 1>)
where
    F: Float + std::iter::Sum,
    S: Data<Elem = F>,
    D: Dimension,
{
    let mut d = Array::zeros(a.raw_dim());
    let mut captured = [F::zero(); K];
    let value = a
        .iter()
        .zip(d.iter_mut())
        .map(|(&x, d)| {
            let (v, [dx], dc) = f(x);
            *d = dx;
            add_scaled(&mut captured, F::one(), &dc);
            v
        })
        .sum();
    (value, Local { d: [d], captured })
}

/// The reverse of [`closure_sum_map`]: every element's upstream gradient is `g`.
pub fn closure_sum_back<F, D, const K: usize>(
    g: F,
    local: Local<F, D, [F; K], 1>,
) -> (Array<F, D>, [F; K])
where
    F: Float,
    D: Dimension,
{
    let Local {
        d: [mut d],
        captured,
    } = local;
    d.mapv_inplace(|d| g * d);
    (d, captured.map(|c| g * c))
}

/// The forward of `a.iter().zip(b.iter()).map(f).sum()`: as iterators zip,
/// only the first `min(len a, len b)` elements (in logical order) are
/// used; the others' derivatives are zero.
///
/// ```
/// use backprop_runtime::closures::{closure_sum_zip, closure_sum_zip_back};
/// use ndarray::array;
/// // Σ (x - y)² over the two elements both have.
/// let (s, local) = closure_sum_zip(&array![3.0, 1.0, 9.0], &array![1.0, 2.0], |x, y| {
///     ((x - y) * (x - y), [2.0 * (x - y), -2.0 * (x - y)], [])
/// });
/// assert_eq!(s, 5.0);
/// let (d_a, d_b, []) = closure_sum_zip_back(1.0, local);
/// assert_eq!(d_a, array![4.0, -2.0, 0.0]);
/// assert_eq!(d_b, array![-4.0, 2.0]);
/// ```
pub fn closure_sum_zip<F, S, T, D, const K: usize>(
    a: &ArrayBase<S, D>,
    b: &ArrayBase<T, D>,
    f: impl Fn(F, F) -> (F, [F; 2], [F; K]),
) -> (F, Local<F, D, [F; K], 2>)
where
    F: Float + std::iter::Sum,
    S: Data<Elem = F>,
    T: Data<Elem = F>,
    D: Dimension,
{
    let mut da = Array::zeros(a.raw_dim());
    let mut db = Array::zeros(b.raw_dim());
    let mut captured = [F::zero(); K];
    let grads = da.iter_mut().zip(db.iter_mut());
    let value = a
        .iter()
        .zip(b.iter())
        .zip(grads)
        .map(|((&x, &z), (da, db))| {
            let (v, [dx, dz], dc) = f(x, z);
            (*da, *db) = (dx, dz);
            add_scaled(&mut captured, F::one(), &dc);
            v
        })
        .sum();
    (
        value,
        Local {
            d: [da, db],
            captured,
        },
    )
}

/// The reverse of [`closure_sum_zip`].
pub fn closure_sum_zip_back<F, D, const K: usize>(
    g: F,
    local: Local<F, D, [F; K], 2>,
) -> (Array<F, D>, Array<F, D>, [F; K])
where
    F: Float,
    D: Dimension,
{
    let Local {
        d: [mut da, mut db],
        captured,
    } = local;
    da.mapv_inplace(|d| g * d);
    db.mapv_inplace(|d| g * d);
    (da, db, captured.map(|c| g * c))
}

/// `acc += g · c`, component by component.
#[inline]
fn add_scaled<F: Float, const K: usize>(acc: &mut [F; K], g: F, c: &[F; K]) {
    for (a, &c) in acc.iter_mut().zip(c) {
        *a += g * c;
    }
}
