//! Neural-network ops: row-wise `softmax`, `log_softmax`, `logsumexp`, and the
//! losses `softmax_cross_entropy` and `mse`.
//!
//! "Row-wise" means along the last axis: every row of a matrix, the whole of a
//! vector; a scalar is a row of one element. Each row is shifted by its
//! maximum before `exp`, so large inputs (`1000.0`) neither overflow nor give
//! NaN. A NaN in a row makes that row's values and gradients NaN.

use crate::value::{Cot, ElemOf, Float, Operand, OwnedOf, Tensor, Value};
use ndarray::{
    Array, Array1, Array2, ArrayBase, ArrayView, ArrayView1, ArrayViewMut1, Axis, Data, Dimension,
    Ix1, Ix2, Zip,
};
use num_traits::{Float as _, Zero as _};

/// `n` as a float.
#[inline]
fn count<F: Float>(n: usize) -> F {
    <F as num_traits::NumCast>::from(n).expect("a count is a float")
}

/// The shift that keeps `exp` of a row in range: the row's maximum, or 0 when
/// that is infinite (an all `-inf` row, or one holding `+inf`), so that
/// `x - shift` is never `inf - inf`.
#[inline]
fn shift<F: Float>(row: &ArrayView1<'_, F>) -> F {
    let m = row.fold(F::neg_infinity(), |m, &v| m.max(v));
    if m.is_finite() {
        m
    } else {
        F::zero()
    }
}

/// `Σ exp(v - shift)` over a row.
#[inline]
fn sum_exp<F: Float>(row: &ArrayView1<'_, F>, shift: F) -> F {
    row.fold(F::zero(), |s, &v| s + (v - shift).exp())
}

/// `ln Σ exp(v)` over a row, stably.
#[inline]
fn logsumexp_row<F: Float>(row: &ArrayView1<'_, F>) -> F {
    let m = shift(row);
    m + sum_exp(row, m).ln()
}

/// Calls `f` on every row (lane along the last axis) of `a`; a 0-d array is
/// one row of one element.
fn for_rows<F: Float, D: Dimension>(a: &mut Array<F, D>, mut f: impl FnMut(ArrayViewMut1<'_, F>)) {
    match a.ndim() {
        0 => a
            .iter_mut()
            .for_each(|x| f(ArrayViewMut1::from(core::slice::from_mut(x)))),
        n => a.lanes_mut(Axis(n - 1)).into_iter().for_each(f),
    }
}

/// Calls `f` on every row of `a` beside the same row of `b` (same shape).
fn for_rows2<F: Float, D: Dimension>(
    a: &mut Array<F, D>,
    b: &ArrayView<'_, F, D>,
    mut f: impl FnMut(ArrayViewMut1<'_, F>, ArrayView1<'_, F>),
) {
    match a.ndim() {
        0 => Zip::from(a).and(b).for_each(|x, y| {
            f(
                ArrayViewMut1::from(core::slice::from_mut(x)),
                ArrayView1::from(core::slice::from_ref(y)),
            )
        }),
        n => Zip::from(a.lanes_mut(Axis(n - 1)))
            .and(b.lanes(Axis(n - 1)))
            .for_each(f),
    }
}

/// `softmax(x)ᵢ = exp(xᵢ - m) / Σⱼ exp(xⱼ - m)` along the last axis, with `m`
/// the row maximum.
///
/// Adjoint: `∂x = out ⊙ (g − Σ_row(g ⊙ out))` (the forward output, reused).
///
/// ```
/// use backprop_runtime::ops::softmax;
/// use ndarray::array;
/// let p = softmax(&array![[0.0, 0.0], [1000.0, 1000.0]]);
/// assert_eq!(p, array![[0.5, 0.5], [0.5, 0.5]]);
/// ```
pub fn softmax<X: Operand>(x: X) -> OwnedOf<X> {
    let mut a = x.value().to_owned_value().into_array();
    for_rows(&mut a, |mut r| {
        let m = shift(&r.view());
        let mut s = ElemOf::<X>::zero();
        r.mapv_inplace(|v| {
            let e = (v - m).exp();
            s += e;
            e
        });
        r.mapv_inplace(|e| e / s);
    });
    Tensor::from_array(a)
}

/// Adjoint of [`softmax`]: `out ⊙ (g − Σ_row(g ⊙ out))`.
#[doc(hidden)]
pub fn softmax_vjp<V: Value>(
    g: impl Cot<V::Owned>,
    _x: &V,
    out: &impl Value<Elem = V::Elem, Dim = V::Dim>,
) -> V::Owned {
    let mut d = g.into_owned().into_array();
    for_rows2(&mut d, &out.view(), |mut g, o| {
        let dot = Zip::from(&g)
            .and(&o)
            .fold(V::Elem::zero(), |acc, &g, &o| acc + g * o);
        Zip::from(&mut g)
            .and(&o)
            .for_each(|g, &o| *g = o * (*g - dot));
    });
    Tensor::from_array(d)
}

/// `log_softmax(x)ᵢ = xᵢ − m − ln Σⱼ exp(xⱼ − m)` along the last axis, with `m`
/// the row maximum (stable; more accurate than `ln(softmax(x))`).
///
/// Adjoint: `∂x = g − softmax(x) · Σ_row g`, with `softmax(x) = exp(out)`.
///
/// ```
/// use backprop_runtime::ops::log_softmax;
/// use ndarray::array;
/// let l = log_softmax(&array![0.0, 0.0]);
/// assert_eq!(l, array![-std::f64::consts::LN_2, -std::f64::consts::LN_2]);
/// ```
pub fn log_softmax<X: Operand>(x: X) -> OwnedOf<X> {
    let mut a = x.value().to_owned_value().into_array();
    for_rows(&mut a, |mut r| {
        let m = shift(&r.view());
        let ln_s = sum_exp(&r.view(), m).ln();
        r.mapv_inplace(|v| v - m - ln_s);
    });
    Tensor::from_array(a)
}

/// Adjoint of [`log_softmax`]: `g − exp(out) · Σ_row g`.
#[doc(hidden)]
pub fn log_softmax_vjp<V: Value>(
    g: impl Cot<V::Owned>,
    _x: &V,
    out: &impl Value<Elem = V::Elem, Dim = V::Dim>,
) -> V::Owned {
    let mut d = g.into_owned().into_array();
    for_rows2(&mut d, &out.view(), |mut g, o| {
        let total = g.sum();
        Zip::from(&mut g)
            .and(&o)
            .for_each(|g, &o| *g -= o.exp() * total);
    });
    Tensor::from_array(d)
}

/// Values that have a row-wise `logsumexp`: a vector gives a scalar, a matrix
/// the vector of its rows' values, a scalar itself.
#[doc(hidden)]
pub trait LogSumExp: Value {
    /// The type of `logsumexp(x)`.
    type Output: Tensor<Elem = Self::Elem>;
    /// `ln Σ exp` along the last axis.
    fn logsumexp(&self) -> Self::Output;
    /// The gradient: `g` (per row) times `softmax(x)`.
    fn logsumexp_vjp(g: impl Cot<Self::Output>, x: &Self, out: &Self::Output) -> Self::Owned;
}

macro_rules! scalar_logsumexp {
    ($([$($g:tt)*] $f:ty),*) => {$(
        impl<$($g)*> LogSumExp for $f {
            type Output = $f;
            #[inline]
            fn logsumexp(&self) -> $f {
                logsumexp_row(&ndarray::aview1(core::slice::from_ref(self)))
            }
            #[inline]
            fn logsumexp_vjp(g: impl Cot<$f>, x: &$f, out: &$f) -> $f {
                *g.get() * (*x - *out).exp()
            }
        }
    )*};
}
scalar_logsumexp!([] f32, [] f64, [F: Float] crate::dual::Dual<F>);

impl<F: Float, S: Data<Elem = F>> LogSumExp for ArrayBase<S, Ix1> {
    type Output = F;
    #[inline]
    fn logsumexp(&self) -> F {
        logsumexp_row(&self.view())
    }
    fn logsumexp_vjp(g: impl Cot<F>, x: &Self, out: &F) -> Array1<F> {
        let (g, out) = (*g.get(), *out);
        x.mapv(|v| g * (v - out).exp())
    }
}

impl<F: Float, S: Data<Elem = F>> LogSumExp for ArrayBase<S, Ix2> {
    type Output = Array1<F>;
    fn logsumexp(&self) -> Array1<F> {
        self.rows().into_iter().map(|r| logsumexp_row(&r)).collect()
    }
    fn logsumexp_vjp(g: impl Cot<Array1<F>>, x: &Self, out: &Array1<F>) -> Array2<F> {
        let mut d = x.to_owned();
        Zip::from(d.rows_mut())
            .and(g.get())
            .and(out)
            .for_each(|mut r, &g, &o| r.mapv_inplace(|v| g * (v - o).exp()));
        d
    }
}

/// `ln Σ exp(x)` along the last axis, stably (`m + ln Σ exp(x − m)`, `m` the
/// row maximum): a scalar for a vector, one value per row for a matrix.
///
/// Adjoint: `∂x = g_row · exp(x − out_row) = g_row · softmax(x)`.
///
/// ```
/// use backprop_runtime::ops::logsumexp;
/// use ndarray::array;
/// assert_eq!(logsumexp(&array![1000.0, 1000.0]), 1000.0 + std::f64::consts::LN_2);
/// assert_eq!(logsumexp(&array![[0.0, 0.0], [1.0, 1.0]]).len(), 2);
/// ```
#[inline]
pub fn logsumexp<X: Operand>(x: X) -> <X::Value as LogSumExp>::Output
where
    X::Value: LogSumExp,
{
    x.value().logsumexp()
}

/// Adjoint of [`logsumexp`]: `g_row · exp(x − out_row)`.
#[inline]
#[doc(hidden)]
pub fn logsumexp_vjp<V: LogSumExp>(g: impl Cot<V::Output>, x: &V, out: &V::Output) -> V::Owned {
    V::logsumexp_vjp(g, x, out)
}

/// The mean softmax cross-entropy of rows of `logits` against class `labels`:
/// `(1/n) Σᵢ (logsumexp(xᵢ) − xᵢ[labels[i]])`.
///
/// Defined as `softmax_cross_entropy_fwd(logits, labels).0`; the generated
/// backward calls [`softmax_cross_entropy_fwd`] to keep the probabilities.
///
/// Adjoint: `∂logits = g · (P − onehot(labels)) / n`, `P = softmax(logits)`.
///
/// # Panics
///
/// If `labels.len()` is not the number of rows, or a label is not below the
/// number of columns. With no rows the value is NaN (`0 / 0`).
///
/// ```
/// use backprop_runtime::ops::softmax_cross_entropy;
/// use ndarray::array;
/// let logits = array![[0.0, 0.0], [0.0, 0.0]];
/// assert_eq!(softmax_cross_entropy(&logits, &[0, 1]), std::f64::consts::LN_2);
/// ```
#[inline]
pub fn softmax_cross_entropy<F: Float, S: Data<Elem = F>>(
    logits: &ArrayBase<S, Ix2>,
    labels: &[usize],
) -> F {
    softmax_cross_entropy_fwd(logits, labels).0
}

/// [`softmax_cross_entropy`] and the row-wise probabilities `softmax(logits)`
/// that its adjoint reuses.
///
/// # Panics
///
/// As [`softmax_cross_entropy`].
///
/// ```
/// use backprop_runtime::ops::softmax_cross_entropy_fwd;
/// use ndarray::array;
/// let (loss, p) = softmax_cross_entropy_fwd(&array![[0.0, 0.0]], &[1]);
/// assert_eq!(loss, std::f64::consts::LN_2);
/// assert_eq!(p, array![[0.5, 0.5]]);
/// ```
#[doc(hidden)]
pub fn softmax_cross_entropy_fwd<
    F: Float,
    S: Data<Elem = F>,
    L: Operand<Value = ArrayBase<S, Ix2>>,
>(
    logits: L,
    labels: &[usize],
) -> (F, Array2<F>) {
    let (n, classes) = logits.value().dim();
    check_labels(n, classes, labels);
    // The probabilities are written over the logits where they are passed
    // by value.
    let mut probs = match logits.owned() {
        Ok(l) => l,
        Err(l) => l.value().to_owned(),
    };
    let mut total = F::zero();
    for (mut r, &y) in probs.rows_mut().into_iter().zip(labels) {
        let m = shift(&r.view());
        let x_y = r[y];
        let mut s = F::zero();
        r.mapv_inplace(|v| {
            let e = (v - m).exp();
            s += e;
            e
        });
        // −ln p_y = ln Σ exp(x − m) − (x_y − m).
        total += s.ln() - (x_y - m);
        r.mapv_inplace(|e| e / s);
    }
    (total / count(n), probs)
}

/// Panics unless there is one label per row, each a valid class.
fn check_labels(rows: usize, classes: usize, labels: &[usize]) {
    assert!(
        labels.len() == rows,
        "softmax_cross_entropy: {} labels for {rows} rows of logits (shape [{rows}, {classes}])",
        labels.len()
    );
    if let Some((i, &y)) = labels.iter().enumerate().find(|&(_, &y)| y >= classes) {
        panic!("softmax_cross_entropy: label {y} of row {i} is out of range for {classes} classes");
    }
}

/// Adjoint of [`softmax_cross_entropy`]: `g · (P − onehot(labels)) / n`, with
/// `probs = P` as returned by [`softmax_cross_entropy_fwd`].
#[doc(hidden)]
pub fn softmax_cross_entropy_vjp<F: Float, S: Data<Elem = F>>(
    g: impl Cot<F>,
    logits: &ArrayBase<S, Ix2>,
    labels: &[usize],
    probs: impl Cot<Array2<F>>,
) -> Array2<F> {
    let (n, classes) = logits.dim();
    check_labels(n, classes, labels);
    let scale = *g.get() / count(n);
    // The saved probabilities become the gradient, in place when owned.
    let mut d = probs.into_owned();
    d.mapv_inplace(|p| p * scale);
    for (i, &y) in labels.iter().enumerate() {
        d[[i, y]] -= scale;
    }
    d
}

/// Panics unless `pred` and `target` have the same shape.
fn check_same_shape(op: &str, pred: &[usize], target: &[usize]) {
    assert!(
        pred == target,
        "{op}: pred has shape {pred:?} but target has shape {target:?}; they must be equal"
    );
}

/// The mean squared error `(1/n) Σ (pred − target)²` of two values of the same
/// shape (two scalars, or two arrays).
///
/// Adjoint: `∂pred = 2g (pred − target) / n`, `∂target = −2g (pred − target) / n`.
///
/// # Panics
///
/// If the shapes differ (the message names both). Empty arrays give NaN.
///
/// ```
/// use backprop_runtime::ops::mse;
/// use ndarray::array;
/// assert_eq!(mse(&array![1.0, 2.0], &array![1.0, 4.0]), 2.0);
/// assert_eq!(mse(3.0_f64, 1.0), 4.0);
/// ```
pub fn mse<P: Operand, T: Operand>(pred: P, target: T) -> ElemOf<P>
where
    T::Value: Value<Elem = ElemOf<P>>,
{
    let (p, t) = (pred.value(), target.value());
    check_same_shape("mse", p.shape(), t.shape());
    let add = |acc: ElemOf<P>, &p: &ElemOf<P>, &t: &ElemOf<P>| {
        let d = p - t;
        acc + d * d
    };
    let zero = ElemOf::<P>::zero();
    let (pv, tv) = (p.view(), t.view());
    let total = match (pv.as_slice(), tv.as_slice()) {
        // Both in the standard layout: the same sum, in the same order, as
        // the zip below, over two slices.
        (Some(ps), Some(ts)) => ps.iter().zip(ts).fold(zero, |acc, (p, t)| add(acc, p, t)),
        _ => Zip::from(&pv.into_dyn())
            .and(&tv.into_dyn())
            .fold(zero, add),
    };
    total / count(p.len_elems())
}

/// Adjoint of [`mse`] with respect to `pred`: `2g (pred − target) / n`,
/// written over `pred` where it is passed by value.
#[doc(hidden)]
pub fn mse_vjp_lhs<P: Operand, T: Value<Elem = ElemOf<P>>>(
    g: impl Cot<ElemOf<P>>,
    pred: P,
    target: &T,
) -> OwnedOf<P> {
    check_same_shape("mse_vjp_lhs", pred.value().shape(), target.shape());
    let g = *g.get();
    let k = (g + g) / count(pred.value().len_elems());
    let pred = match pred.owned() {
        Ok(p) => p,
        Err(p) => p.value().to_owned_value(),
    };
    pred.zip_with1(target, |p, t| k * (p - t))
}

/// Adjoint of [`mse`] with respect to `target`: `−2g (pred − target) / n`.
#[doc(hidden)]
pub fn mse_vjp_rhs<P: Value, T: Value<Elem = P::Elem>>(
    g: impl Cot<P::Elem>,
    pred: &P,
    target: &T,
) -> T::Owned {
    check_same_shape("mse_vjp_rhs", pred.shape(), target.shape());
    let g = *g.get();
    let k = (g + g) / count(pred.len_elems());
    target.to_owned_value().zip_with1(pred, |t, p| k * (t - p))
}
