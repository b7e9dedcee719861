//! Linear algebra: `a.dot(&b)` (matrix and vector products) and `a.t()`.
//!
//! The forward functions call ndarray's `dot` and `t`, so values are bit for
//! bit those of the user's code; the adjoints are products too.

use crate::contrib::{Contribution, Kind};
use crate::ops::arith::{Arith, Lhs, Out, Rhs};
use crate::outers::Slot;
#[doc(hidden)]
pub use crate::outers::{add_outers, outer_term, rows_in, Outers};
use crate::steps::Spare;
use crate::value::{Cot, Float, Reusable, Tensor, Value};
use core::marker::PhantomData;
use ndarray::linalg::general_mat_vec_mul;
use ndarray::{
    Array, Array1, Array2, ArrayBase, ArrayView, ArrayView1, ArrayView2, Axis, Data, DataMut,
    Dimension, Ix1, Ix2,
};

/// The products `a.dot(&b)` that ndarray defines, with their two adjoints.
///
/// Implemented for matrix-matrix (`Ix2 · Ix2 → Array2`), matrix-vector
/// (`Ix2 · Ix1 → Array1`), vector-matrix (`Ix1 · Ix2 → Array1`) and
/// vector-vector (`Ix1 · Ix1 → F`), any storage on both sides.
#[doc(hidden)]
pub trait Dot2<B: Value>: Value {
    /// The type of `a.dot(&b)`.
    type Output: Tensor<Elem = Self::Elem>;
    /// `a.dot(&b)`, by ndarray.
    fn dot2(&self, b: &B) -> Self::Output;
    /// The gradient with respect to `a`.
    fn dot2_vjp_lhs(g: impl Cot<Self::Output>, a: &Self, b: &B) -> Self::Owned;
    /// The gradient with respect to `b`.
    fn dot2_vjp_rhs(g: impl Cot<Self::Output>, a: &Self, b: &B) -> B::Owned;
    /// `acc += ∂a`, written into `acc` (no array for `∂a`).
    fn dot2_vjp_lhs_acc(acc: &mut Self::Owned, g: &Self::Output, a: &Self, b: &B);
    /// `acc += ∂b`, written into `acc`.
    fn dot2_vjp_rhs_acc(acc: &mut B::Owned, g: &Self::Output, a: &Self, b: &B);
    /// `acc += ∂a`, or, where `∂a` is an outer product, kept in `slot` to
    /// be added into `acc` after the loop by one matrix product.
    fn dot2_vjp_lhs_defer<const N: usize>(
        slot: Slot<'_, '_, Self::Elem, N>,
        acc: &mut Self::Owned,
        g: &Self::Output,
        a: &Self,
        b: &B,
    ) {
        let _ = slot;
        Self::dot2_vjp_lhs_acc(acc, g, a, b)
    }
    /// `acc += ∂b`, or, where `∂b` is an outer product, kept in `slot` (see
    /// [`Dot2::dot2_vjp_lhs_defer`]).
    fn dot2_vjp_rhs_defer<const N: usize>(
        slot: Slot<'_, '_, Self::Elem, N>,
        acc: &mut B::Owned,
        g: &Self::Output,
        a: &Self,
        b: &B,
    ) {
        let _ = slot;
        Self::dot2_vjp_rhs_acc(acc, g, a, b)
    }
    /// `acc += a.dot(&b)` in place, where that gives the bits of
    /// `acc + a.dot(&b)`: for a matrix-vector and a vector-matrix product,
    /// whose `dot` is ndarray's `general_mat_vec_mul` with β = 0 (so with
    /// β = 1 each element is `acc + dot`, added last). False, and `acc`
    /// untouched, for the other products or when `acc` is not a vector of the
    /// product's length.
    fn dot2_add_to<D: Dimension>(&self, b: &B, acc: &mut Array<Self::Elem, D>) -> bool {
        let _ = (b, acc);
        false
    }
    /// `a.dot(&b)` written into the buffer `spare` holds, where that gives
    /// the bits of `a.dot(&b)`: for a matrix-vector and a vector-matrix
    /// product (ndarray's `general_mat_vec_mul` with β = 0, which writes
    /// every element without reading it) and a buffer of the product's
    /// length. Otherwise a new array, as [`Dot2::dot2`].
    fn dot2_reuse(&self, b: &B, spare: &mut Spare<Self::Elem>) -> Self::Output {
        let _ = spare;
        self.dot2(b)
    }
}

/// The dot product of two slices of one length, summed as ndarray's `dot`
/// sums two contiguous vectors (its `unrolled_dot`): eight running sums over
/// blocks of eight, joined into the total as `(0 + 4)`, `(1 + 5)`, `(2 + 6)`,
/// `(3 + 7)`, then the rest added one at a time. The same order, so the same
/// bits.
#[inline]
fn dot_slices<F: Float>(x: &[F], y: &[F]) -> F {
    let blocks = x.len().min(y.len()) / 8 * 8;
    let mut p = [F::zero(); 8];
    for (bx, by) in x[..blocks].chunks_exact(8).zip(y[..blocks].chunks_exact(8)) {
        for k in 0..8 {
            p[k] += bx[k] * by[k];
        }
    }
    let mut sum = F::zero();
    for k in 0..4 {
        sum += p[k] + p[k + 4];
    }
    for (&a, &b) in x[blocks..].iter().zip(&y[blocks..]) {
        sum += a * b;
    }
    sum
}

/// `y = α·m·x + β·y` with the bits of ndarray's `general_mat_vec_mul`
/// (without BLAS), which computes each element as the dot product of a row
/// of `m` with `x` (`d·α`, or `y·β + d·α` where β is not zero): contiguous
/// rows and `x` summed as [`dot_slices`], strided rows one term after the
/// other. ndarray builds a row view per element, about 50 instructions each
/// (as many as the multiply-adds of a row of 16); here a matrix in either
/// standard layout is read as slices. Other layouts go to ndarray.
fn mat_vec<F: Float>(
    alpha: F,
    m: &ArrayView2<'_, F>,
    x: &ArrayBase<impl Data<Elem = F>, Ix1>,
    beta: F,
    y: &mut ArrayBase<impl DataMut<Elem = F>, Ix1>,
) {
    let (rows, k) = m.dim();
    assert!(
        k == x.len() && rows == y.len(),
        "mat_vec: a {rows} × {k} matrix, a vector of {} and a result of {}",
        x.len(),
        y.len()
    );
    let put = |y: &mut F, d: F| {
        *y = if beta.is_zero() {
            d * alpha
        } else {
            *y * beta + d * alpha
        }
    };
    if let (Some(xs), Some(ys)) = (x.as_slice(), y.as_slice_mut()) {
        if let Some(all) = m.as_slice() {
            // Rows in the standard layout: each a slice.
            for (i, yi) in ys.iter_mut().enumerate() {
                put(yi, dot_slices(&all[i * k..(i + 1) * k], xs));
            }
            return;
        }
        if let (Some(cols), true) = (m.t().as_slice(), rows <= SMALL && k > 1) {
            // The transpose of a matrix in the standard layout: each row
            // is strided, and ndarray sums its terms one after the
            // other, which is the sum of the columns scaled by `x`,
            // added one column after the other.
            let mut acc = [F::zero(); SMALL];
            let acc = &mut acc[..rows];
            for (j, &xj) in xs.iter().enumerate() {
                for (a, &c) in acc.iter_mut().zip(&cols[j * rows..(j + 1) * rows]) {
                    *a += c * xj;
                }
            }
            for (yi, &d) in ys.iter_mut().zip(acc.iter()) {
                put(yi, d);
            }
            return;
        }
    }
    general_mat_vec_mul(alpha, m, x, beta, y);
}

/// `acc += m · x` (`general_mat_vec_mul` with β = 1) when `acc` is a vector
/// of `m`'s rows and `x` has `m`'s columns; else false, `acc` untouched.
fn add_mat_vec<F: Float, D: Dimension>(
    m: &ArrayView2<'_, F>,
    x: &ArrayBase<impl Data<Elem = F>, Ix1>,
    acc: &mut Array<F, D>,
) -> bool {
    let Ok(mut y) = acc.view_mut().into_dimensionality::<Ix1>() else {
        return false;
    };
    if y.len() != m.nrows() || m.ncols() != x.len() {
        return false;
    }
    mat_vec(F::one(), m, x, F::one(), &mut y);
    true
}

/// `m · x` written into `spare`'s buffer when it has `m`'s rows and `x` has
/// `m`'s columns; else `None`. A shape mismatch leaves `spare` untouched
/// (and is left to `dot`, which panics with ndarray's message); a buffer of
/// another length is dropped (see [`Spare::take`]).
#[inline]
fn mat_vec_into<F: Float>(
    m: &ArrayView2<'_, F>,
    x: &ArrayBase<impl Data<Elem = F>, Ix1>,
    spare: &mut Spare<F>,
) -> Option<Array1<F>> {
    if m.ncols() != x.len() {
        return None;
    }
    let mut y = Array1::from_vec(spare.take(m.nrows())?);
    mat_vec(F::one(), m, x, F::zero(), &mut y);
    Some(y)
}

/// The longest vector [`square_t_dot_into`] copies to the stack.
const SMALL: usize = 64;

/// `aᵀ · g` written over `g` (`a` square, of side at most [`SMALL`]): `g` is
/// copied to the stack and the product written into its buffer, so the
/// gradient costs no allocation. The product is ndarray's matrix-vector
/// product with β = 0, as `a.t().dot(&g)` computes it, so the bits are the same.
#[inline]
fn square_t_dot_into<F: Float>(a: &ArrayView2<'_, F>, mut g: Array1<F>) -> Array1<F> {
    let n = g.len();
    debug_assert!(n <= SMALL && a.dim() == (n, n));
    let mut copy = [F::zero(); SMALL];
    match g.as_slice() {
        Some(g) => copy[..n].copy_from_slice(g),
        None => copy.iter_mut().zip(&g).for_each(|(c, &x)| *c = x),
    }
    let x = ArrayView1::from(&copy[..n]);
    mat_vec(F::one(), &a.t(), &x, F::zero(), &mut g);
    g
}

/// `acc += u ⊗ v`, one row at a time.
pub(crate) fn add_outer<F: Float>(
    acc: &mut Array2<F>,
    u: &ArrayBase<impl Data<Elem = F>, Ix1>,
    v: &ArrayBase<impl Data<Elem = F>, Ix1>,
) {
    if let (Some(rows), Some(v)) = (acc.as_slice_mut(), v.as_slice()) {
        // Row-major and contiguous: one tight loop per row, which the
        // compiler vectorizes (a call per row costs more than the row).
        if !v.is_empty() {
            for (row, &ui) in rows.chunks_exact_mut(v.len()).zip(u) {
                for (a, &vj) in row.iter_mut().zip(v) {
                    *a += ui * vj;
                }
            }
        }
        return;
    }
    for (mut row, &ui) in acc.rows_mut().into_iter().zip(u) {
        row.scaled_add(ui, v);
    }
}

/// The outer product `u ⊗ v`: `(u ⊗ v)[i, j] = u[i] · v[j]`.
fn outer<F: Float>(
    u: &ArrayBase<impl Data<Elem = F>, Ix1>,
    v: &ArrayBase<impl Data<Elem = F>, Ix1>,
) -> Array2<F> {
    &u.view().insert_axis(Axis(1)) * &v.view().insert_axis(Axis(0))
}

impl<F: Float, S: Data<Elem = F>, S2: Data<Elem = F>> Dot2<ArrayBase<S2, Ix2>>
    for ArrayBase<S, Ix2>
{
    type Output = Array2<F>;
    #[inline]
    fn dot2(&self, b: &ArrayBase<S2, Ix2>) -> Array2<F> {
        F::matmul(&self.view(), &b.view())
    }
    /// `∂A = G · Bᵀ`.
    #[inline]
    fn dot2_vjp_lhs(g: impl Cot<Array2<F>>, _a: &Self, b: &ArrayBase<S2, Ix2>) -> Array2<F> {
        product(&g.get().view(), &b.t())
    }
    /// `∂B = Aᵀ · G`.
    #[inline]
    fn dot2_vjp_rhs(g: impl Cot<Array2<F>>, a: &Self, _b: &ArrayBase<S2, Ix2>) -> Array2<F> {
        product(&a.t(), &g.get().view())
    }
    #[inline]
    fn dot2_vjp_lhs_acc(acc: &mut Array2<F>, g: &Array2<F>, _a: &Self, b: &ArrayBase<S2, Ix2>) {
        add_product(acc, &g.view(), &b.t());
    }
    #[inline]
    fn dot2_vjp_rhs_acc(acc: &mut Array2<F>, g: &Array2<F>, a: &Self, _b: &ArrayBase<S2, Ix2>) {
        add_product(acc, &a.t(), &g.view());
    }
}

/// The largest matrix product, in multiply-adds (`m·k·n`), that
/// [`add_product`] writes as plain loops.
const SMALL_PRODUCT: usize = 64;

/// `acc += x · y`. A product of at most [`SMALL_PRODUCT`] multiply-adds
/// (the gradients of a network at batch 1) is three plain loops: ndarray's
/// matrix product (matrixmultiply) packs its operands into a buffer it
/// allocates, which costs far more than a 2 × 2 product. Larger ones, and
/// shapes that do not fit (ndarray's panic), go to `general_mat_mul` with
/// β = 1. The sums are the same up to rounding; only gradients take this
/// path, never a forward value.
fn add_product<F: Float>(acc: &mut Array2<F>, x: &ArrayView2<'_, F>, y: &ArrayView2<'_, F>) {
    let ((m, k), (k2, n)) = (x.dim(), y.dim());
    if k == k2 && acc.dim() == (m, n) && m * k * n <= SMALL_PRODUCT {
        for i in 0..m {
            for j in 0..n {
                // The whole dot product first, then added, as the matrix
                // product with β = 1 does: a fork sum `acc + x·y` is then the
                // sum of the two gradients computed apart, bit for bit.
                let mut dot = F::zero();
                for l in 0..k {
                    dot += x[[i, l]] * y[[l, j]];
                }
                acc[[i, j]] += dot;
            }
        }
        return;
    }
    F::gemm(F::one(), x, y, F::one(), &mut acc.view_mut());
}

/// `x · y` as a new array: [`add_product`] into zeros when it is small,
/// ndarray's `dot` otherwise.
fn product<F: Float>(x: &ArrayView2<'_, F>, y: &ArrayView2<'_, F>) -> Array2<F> {
    let ((m, k), (k2, n)) = (x.dim(), y.dim());
    if k == k2 && m * k * n <= SMALL_PRODUCT {
        let mut out = Array2::zeros((m, n));
        add_product(&mut out, x, y);
        return out;
    }
    F::matmul(x, y)
}

impl<F: Float, S: Data<Elem = F>, S2: Data<Elem = F>> Dot2<ArrayBase<S2, Ix1>>
    for ArrayBase<S, Ix2>
{
    type Output = Array1<F>;
    #[inline]
    fn dot2(&self, b: &ArrayBase<S2, Ix1>) -> Array1<F> {
        if self.ncols() != b.len() {
            return self.dot(b); // ndarray's panic message
        }
        let mut y = Array1::zeros(self.nrows());
        mat_vec(F::one(), &self.view(), b, F::zero(), &mut y);
        y
    }
    /// `∂A = g ⊗ b`.
    #[inline]
    fn dot2_vjp_lhs(g: impl Cot<Array1<F>>, _a: &Self, b: &ArrayBase<S2, Ix1>) -> Array2<F> {
        outer(g.get(), b)
    }
    /// `∂b = Aᵀ · g`; for a small square `A` (a recurrent weight), written
    /// into `g`'s buffer (see `square_t_dot_into`).
    #[inline]
    fn dot2_vjp_rhs(g: impl Cot<Array1<F>>, a: &Self, _b: &ArrayBase<S2, Ix1>) -> Array1<F> {
        if a.nrows() == a.ncols() && a.nrows() <= SMALL {
            return square_t_dot_into(&a.view(), g.into_owned());
        }
        a.t().dot(g.get())
    }
    #[inline]
    fn dot2_vjp_lhs_acc(acc: &mut Array2<F>, g: &Array1<F>, _a: &Self, b: &ArrayBase<S2, Ix1>) {
        add_outer(acc, g, b);
    }
    #[inline(always)]
    fn dot2_vjp_lhs_defer<const N: usize>(
        slot: Slot<'_, '_, F, N>,
        acc: &mut Array2<F>,
        g: &Array1<F>,
        _a: &Self,
        b: &ArrayBase<S2, Ix1>,
    ) {
        slot.add(acc, g, b);
    }
    #[inline]
    fn dot2_vjp_rhs_acc(acc: &mut Array1<F>, g: &Array1<F>, a: &Self, _b: &ArrayBase<S2, Ix1>) {
        mat_vec(F::one(), &a.t(), g, F::one(), acc);
    }
    fn dot2_add_to<D: Dimension>(&self, b: &ArrayBase<S2, Ix1>, acc: &mut Array<F, D>) -> bool {
        add_mat_vec(&self.view(), b, acc)
    }
    fn dot2_reuse(&self, b: &ArrayBase<S2, Ix1>, spare: &mut Spare<F>) -> Array1<F> {
        mat_vec_into(&self.view(), b, spare).unwrap_or_else(|| self.dot(b))
    }
}

impl<F: Float, S: Data<Elem = F>, S2: Data<Elem = F>> Dot2<ArrayBase<S2, Ix2>>
    for ArrayBase<S, Ix1>
{
    type Output = Array1<F>;
    /// ndarray's `v.dot(&m)` is `m.t().dot(&v)`.
    #[inline]
    fn dot2(&self, b: &ArrayBase<S2, Ix2>) -> Array1<F> {
        if self.len() != b.nrows() {
            return self.dot(b); // ndarray's panic message
        }
        let mut y = Array1::zeros(b.ncols());
        mat_vec(F::one(), &b.t(), self, F::zero(), &mut y);
        y
    }
    /// `∂a = B · g`.
    #[inline]
    fn dot2_vjp_lhs(g: impl Cot<Array1<F>>, _a: &Self, b: &ArrayBase<S2, Ix2>) -> Array1<F> {
        b.dot(g.get())
    }
    /// `∂B = a ⊗ g`.
    #[inline]
    fn dot2_vjp_rhs(g: impl Cot<Array1<F>>, a: &Self, _b: &ArrayBase<S2, Ix2>) -> Array2<F> {
        outer(a, g.get())
    }
    #[inline]
    fn dot2_vjp_lhs_acc(acc: &mut Array1<F>, g: &Array1<F>, _a: &Self, b: &ArrayBase<S2, Ix2>) {
        mat_vec(F::one(), &b.view(), g, F::one(), acc);
    }
    #[inline]
    fn dot2_vjp_rhs_acc(acc: &mut Array2<F>, g: &Array1<F>, a: &Self, _b: &ArrayBase<S2, Ix2>) {
        add_outer(acc, a, g);
    }
    #[inline(always)]
    fn dot2_vjp_rhs_defer<const N: usize>(
        slot: Slot<'_, '_, F, N>,
        acc: &mut Array2<F>,
        g: &Array1<F>,
        a: &Self,
        _b: &ArrayBase<S2, Ix2>,
    ) {
        slot.add(acc, a, g);
    }
    /// ndarray's `v.dot(&m)` is `m.t().dot(&v)`.
    fn dot2_add_to<D: Dimension>(&self, b: &ArrayBase<S2, Ix2>, acc: &mut Array<F, D>) -> bool {
        add_mat_vec(&b.t(), self, acc)
    }
    fn dot2_reuse(&self, b: &ArrayBase<S2, Ix2>, spare: &mut Spare<F>) -> Array1<F> {
        mat_vec_into(&b.t(), self, spare).unwrap_or_else(|| self.dot(b))
    }
}

impl<F: Float, S: Data<Elem = F>, S2: Data<Elem = F>> Dot2<ArrayBase<S2, Ix1>>
    for ArrayBase<S, Ix1>
{
    type Output = F;
    #[inline]
    fn dot2(&self, b: &ArrayBase<S2, Ix1>) -> F {
        self.dot(b)
    }
    /// `∂a = g · b`.
    #[inline]
    fn dot2_vjp_lhs(g: impl Cot<F>, _a: &Self, b: &ArrayBase<S2, Ix1>) -> Array1<F> {
        let g = *g.get();
        b.mapv(|y| g * y)
    }
    /// `∂b = g · a`.
    #[inline]
    fn dot2_vjp_rhs(g: impl Cot<F>, a: &Self, _b: &ArrayBase<S2, Ix1>) -> Array1<F> {
        let g = *g.get();
        a.mapv(|x| g * x)
    }
    #[inline]
    fn dot2_vjp_lhs_acc(acc: &mut Array1<F>, g: &F, _a: &Self, b: &ArrayBase<S2, Ix1>) {
        acc.scaled_add(*g, b);
    }
    #[inline]
    fn dot2_vjp_rhs_acc(acc: &mut Array1<F>, g: &F, a: &Self, _b: &ArrayBase<S2, Ix1>) {
        acc.scaled_add(*g, a);
    }
}

/// The type of `a.dot(&b)`.
#[doc(hidden)]
pub type DotOut<A, B> = <A as Dot2<B>>::Output;

/// What is kept of a value whose buffer was reused (see [`Reusable`]).
#[doc(hidden)]
pub type ShapeOf<T> = <T as Reusable>::Shape;

/// What [`add_dot`] returns: the sum, and the kept shape of the product.
#[doc(hidden)]
pub type AddDot<A, M, V> = (Out<A, DotOut<M, V>>, ShapeOf<DotOut<M, V>>);

/// `a.dot(&b)`: matrix-matrix, matrix-vector, vector-matrix or vector-vector,
/// by ndarray's `dot`.
///
/// Adjoint: matrix-matrix `∂A = G·Bᵀ`, `∂B = Aᵀ·G`; matrix-vector
/// `∂A = g ⊗ b`, `∂b = Aᵀ g`; vector-matrix `∂a = B g`, `∂B = a ⊗ g`;
/// vector-vector `∂a = g b`, `∂b = g a`.
///
/// # Panics
///
/// If the shapes are incompatible (ndarray's message).
///
/// ```
/// use backprop_runtime::ops::dot;
/// use ndarray::array;
/// let a = array![[1.0, 2.0], [3.0, 4.0]];
/// let v = array![1.0, -1.0];
/// assert_eq!(dot(&a, &a), a.dot(&a));
/// assert_eq!(dot(&a, &v), array![-1.0, -1.0]);
/// assert_eq!(dot(&v, &a), array![-2.0, -2.0]);
/// assert_eq!(dot(&v, &v), 2.0);
/// assert_eq!(dot(&a, &a.t()), a.dot(&a.t()));
/// ```
#[inline]
#[doc(hidden)]
pub fn dot<A: Dot2<B>, B: Value<Elem = A::Elem>>(a: &A, b: &B) -> DotOut<A, B> {
    a.dot2(b)
}

/// [`dot`] computed into the buffer of a value the caller no longer needs:
/// a loop's new state written into the buffer of the state before the last
/// (see [`Spare`]). The bits are those of [`dot`]; where the buffer does not
/// fit, or the product is not a matrix-vector or vector-matrix product, it
/// is [`dot`].
///
/// ```
/// use backprop_runtime::ops::{dot, dot_reuse};
/// use backprop_runtime::steps::Spare;
/// use ndarray::array;
/// let m = array![[1.0, 2.0], [3.0, 4.0]];
/// let v = array![1.0, -1.0];
/// let mut spare = Spare::new();
/// spare.put(array![7.0, 7.0]);
/// assert_eq!(dot_reuse(&mut spare, &m, &v), dot(&m, &v));
/// ```
#[inline]
#[doc(hidden)]
pub fn dot_reuse<A: Dot2<B>, B: Value<Elem = A::Elem>>(
    spare: &mut Spare<A::Elem>,
    a: &A,
    b: &B,
) -> DotOut<A, B> {
    a.dot2_reuse(b, spare)
}

/// The rule of [`dot`] for `a`, as a [`Contribution`] to `a`'s gradient:
/// matrix-matrix `G·Bᵀ`, matrix-vector `g ⊗ b` (an outer product, which a
/// loop may [`defer`](Contribution::defer)), vector-matrix `B g`,
/// vector-vector `g b`.
#[inline]
#[doc(hidden)]
pub fn dot_vjp_lhs<'a, G, A, B>(
    g: G,
    a: &'a A,
    b: &'a B,
) -> Contribution<DotRule<'a, G, A, B, Lhs>> {
    Contribution(DotRule {
        g,
        a,
        b,
        side: PhantomData,
    })
}

/// The rule of [`dot`] for `b`, as a [`Contribution`] to `b`'s gradient:
/// matrix-matrix `Aᵀ·G`, matrix-vector `Aᵀ g`, vector-matrix `a ⊗ g` (an
/// outer product), vector-vector `g a`.
#[inline]
#[doc(hidden)]
pub fn dot_vjp_rhs<'a, G, A, B>(
    g: G,
    a: &'a A,
    b: &'a B,
) -> Contribution<DotRule<'a, G, A, B, Rhs>> {
    Contribution(DotRule {
        g,
        a,
        b,
        side: PhantomData,
    })
}

/// The contribution of a product's rule to the gradient of the operand `S`.
#[doc(hidden)]
pub struct DotRule<'a, G, A, B, S> {
    g: G,
    a: &'a A,
    b: &'a B,
    side: PhantomData<S>,
}

impl<G, A, B> Kind<A::Owned> for DotRule<'_, G, A, B, Lhs>
where
    A: Dot2<B>,
    B: Value<Elem = A::Elem>,
    G: Cot<DotOut<A, B>>,
{
    #[inline]
    fn value(self) -> A::Owned {
        A::dot2_vjp_lhs(self.g, self.a, self.b)
    }
    #[inline]
    fn add_to(self, acc: &mut A::Owned) {
        A::dot2_vjp_lhs_acc(acc, self.g.get(), self.a, self.b)
    }
    #[inline(always)]
    fn defer<const N: usize>(self, slot: Slot<'_, '_, A::Elem, N>, acc: &mut A::Owned) {
        A::dot2_vjp_lhs_defer(slot, acc, self.g.get(), self.a, self.b)
    }
}

impl<G, A, B> Kind<B::Owned> for DotRule<'_, G, A, B, Rhs>
where
    A: Dot2<B>,
    B: Value<Elem = A::Elem>,
    G: Cot<DotOut<A, B>>,
{
    #[inline]
    fn value(self) -> B::Owned {
        A::dot2_vjp_rhs(self.g, self.a, self.b)
    }
    #[inline]
    fn add_to(self, acc: &mut B::Owned) {
        A::dot2_vjp_rhs_acc(acc, self.g.get(), self.a, self.b)
    }
    #[inline(always)]
    fn defer<const N: usize>(self, slot: Slot<'_, '_, A::Elem, N>, acc: &mut B::Owned) {
        A::dot2_vjp_rhs_defer(slot, acc, self.g.get(), self.a, self.b)
    }
}

/// `a + m.dot(&v)` with the product added into `a`'s buffer (a
/// matrix-vector product with β = 1, the same bits as the product and then
/// `+`), and the shape of the product, which the rules of `+` read. Where
/// that does not apply (another kind of product, a broadcast, a layout
/// ndarray would not give), the product is made and added as usual.
#[inline]
#[doc(hidden)]
pub fn add_dot<A, M, V>(a: A, m: &M, v: &V) -> AddDot<A, M, V>
where
    A: Tensor + Arith<DotOut<M, V>>,
    M: Dot2<V, Elem = A::Elem>,
    V: Value<Elem = A::Elem>,
    DotOut<M, V>: Reusable,
{
    let mut buf = a.into_array();
    if buf.is_standard_layout() && m.dot2_add_to(v, &mut buf) {
        let shape = <DotOut<M, V> as Reusable>::shape_like(&buf);
        let out = buf
            .into_dimensionality()
            .expect("a vector, as the product it was added to");
        return (<Out<A, DotOut<M, V>> as Tensor>::from_array(out), shape);
    }
    let a = A::from_array(buf);
    let d = m.dot2(v);
    let shape = d.shape_of();
    let sum = match a.into_output(&d) {
        Ok(out) => out.zip_with1(&d, |x, y| x + y),
        Err(a) => a.add(&d),
    };
    (sum, shape)
}

/// `a.t()`: the view with the axes reversed (the transpose of a matrix), no
/// copy.
///
/// Adjoint: `∂a = gᵀ`, also free: the upstream buffer is taken (copied only
/// when borrowed) and its axes reversed, so the gradient may come back in
/// column-major (Fortran) layout. Its values and shape are right; code that
/// needs a standard layout can call `as_standard_layout()`.
///
/// ```
/// use backprop_runtime::ops::t;
/// use ndarray::array;
/// let a = array![[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]];
/// assert_eq!(t(&a), a.t());
/// assert_eq!(t(&a).shape(), &[3, 2]);
/// ```
#[inline]
#[doc(hidden)]
pub fn t<F: Float, S: Data<Elem = F>, D: Dimension>(a: &ArrayBase<S, D>) -> ArrayView<'_, F, D> {
    a.t()
}

/// Adjoint of [`t`]: `gᵀ`, by reversing the axes of `g`'s buffer.
#[inline]
#[doc(hidden)]
pub fn t_vjp<F: Float, S: Data<Elem = F>, D: Dimension>(
    g: impl Cot<Array<F, D>>,
    _a: &ArrayBase<S, D>,
) -> Array<F, D> {
    g.into_owned().reversed_axes()
}
