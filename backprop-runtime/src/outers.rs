//! The outer products a loop's reverse sweep adds into the gradients of the
//! weights its iterations share, kept until the loop ends and then added as
//! one matrix product per weight ([`Outers`]).
//!
//! A matrix-vector product `W x` in an iteration gives `∂W += δ ⊗ x`. A
//! hand-written backward pass does not add these one by one: it writes each
//! iteration's `δ` into a row of one matrix `Δ` and computes `∂W = Δᵀ X` at
//! the end, reading the `x`s where they already are (the states in their
//! rows, the inputs in their matrix), and `∂U = Δᵀ H` from the same `Δ` when
//! two weights get the same `δ`. [`Outers`] does the same for the generated
//! code, and checks at every iteration that what it was told holds.

use crate::value::{Float, Tensor, Value};
use ndarray::linalg::general_mat_mul;
use ndarray::{s, Array2, ArrayBase, ArrayView2, Data, DataMut, Ix1, Ix2};

/// One product of a loop body whose outer products [`Outers`] keeps: what
/// the generated code declares before the reverse sweep (see
/// [`outer_term`]), and where its vectors are once placed.
#[derive(Clone, Copy, Debug)]
pub struct Term<'o, F> {
    /// The gradient's shape; `0` rows for a gradient that is not a matrix
    /// (nothing kept).
    rows: usize,
    cols: usize,
    /// The term whose `u`s this one's are, where both get the same gradient.
    u_from: Option<usize>,
    /// Where this term's `v`s are: row `k` is iteration `k`'s.
    v_from: Option<ArrayView2<'o, F>>,
    /// Where `u` is in a record, and whether another term writes it.
    u_at: usize,
    shared: bool,
    /// Where `v` is in a record (`usize::MAX` where it is read in `v_from`).
    v_at: usize,
    /// The iterations kept and not yet added into the gradient, `lo..hi`.
    lo: usize,
    hi: usize,
}

/// The term of an accumulator `acc`: its `u ⊗ v` are kept while `acc` is a
/// matrix of their shape.
pub fn outer_term<'o, V: Value>(acc: &V) -> Term<'o, V::Elem> {
    let (rows, cols) = match acc.shape() {
        &[rows, cols] => (rows, cols),
        _ => (0, 0),
    };
    Term {
        rows,
        cols,
        u_from: None,
        v_from: None,
        u_at: 0,
        shared: false,
        v_at: usize::MAX,
        lo: 0,
        hi: 0,
    }
}

impl<'o, F: Float> Term<'o, F> {
    /// This term's `u`s are those of term `j` (an earlier term): the two
    /// products' gradients are one value. Each iteration checks it, and
    /// adds its outer product at once where it does not hold.
    pub fn u_from(self, j: usize) -> Self {
        Term {
            u_from: Some(j),
            ..self
        }
    }

    /// This term's `v` in iteration `k` is row `k` of `rows` (a loop's kept
    /// states, or the rows of an input the loop walks through). Each
    /// iteration checks it; `None` keeps a copy of each `v`.
    pub fn v_from(self, rows: Option<ArrayView2<'o, F>>) -> Self {
        Term {
            v_from: rows,
            ..self
        }
    }
}

/// The outer products `u ⊗ v` of one loop's reverse sweep, kept by
/// iteration and added into each gradient after the loop as one matrix
/// product, `∂W += Uᵀ V` (see [`add_outers`]).
///
/// Each iteration `k` has a record in one buffer, with a place for each
/// `u` and `v` kept: a term that shares another's `u`, or reads its `v`
/// where it is, has none. Every promise a term was declared with is checked
/// when it pushes (the shape, `u` equal to the other term's, `v` the row),
/// and where one does not hold, that outer product is added into the
/// gradient at once: the sum is the same, only slower. So is an iteration
/// that does not continue the ones kept (the iterations run backwards, one
/// after the other): what is kept is added first.
#[derive(Clone, Debug)]
pub struct Outers<'o, F, const N: usize> {
    terms: [Term<'o, F>; N],
    /// One record per iteration, `stride` numbers each.
    data: Vec<F>,
    stride: usize,
    steps: usize,
}

impl<'o, F: Float, const N: usize> Outers<'o, F, N> {
    /// The outer products of a loop of `steps` iterations, for `terms`
    /// (term `j` is `terms[j]`).
    pub fn new(steps: usize, mut terms: [Term<'o, F>; N]) -> Self {
        let mut stride = 0;
        for j in 0..N {
            let t = terms[j];
            if t.rows == 0 || t.cols == 0 {
                terms[j].rows = 0;
                continue;
            }
            let owner = t
                .u_from
                .filter(|&i| i < j && terms[i].rows == t.rows && !terms[i].shared);
            let (u_at, shared) = match owner {
                Some(i) => (terms[i].u_at, true),
                None => {
                    stride += t.rows;
                    (stride - t.rows, false)
                }
            };
            let v_from = t.v_from.filter(|v| v.dim() == (steps, t.cols));
            let v_at = match v_from {
                Some(_) => usize::MAX,
                None => {
                    stride += t.cols;
                    stride - t.cols
                }
            };
            terms[j] = Term {
                v_from,
                u_at,
                shared,
                v_at,
                ..t
            };
        }
        let data = if stride > 0 && steps > 0 {
            vec![F::zero(); steps * stride]
        } else {
            Vec::new()
        };
        Outers {
            terms,
            data,
            stride,
            steps,
        }
    }

    /// Term `j`'s place in iteration `step`, for a product's deferred rule.
    #[inline]
    pub fn term(&mut self, j: usize, step: usize) -> Slot<'_, 'o, F, N> {
        Slot {
            outers: self,
            j,
            step,
        }
    }

    /// Keeps `u ⊗ v` as term `j`'s outer product in iteration `step`, or
    /// returns `false` (nothing changed) where it cannot be kept. Small
    /// enough to be inlined into the generated code.
    #[inline(always)]
    fn keep(
        &mut self,
        j: usize,
        step: usize,
        acc: &Array2<F>,
        u: &ArrayBase<impl Data<Elem = F>, Ix1>,
        v: &ArrayBase<impl Data<Elem = F>, Ix1>,
    ) -> bool {
        let (Some(t), Some(u)) = (self.terms.get(j), u.as_slice()) else {
            return false;
        };
        let (rows, cols) = (t.rows, t.cols);
        let fits = rows > 0
            && acc.dim() == (rows, cols)
            && u.len() == rows
            && v.len() == cols
            && step < self.steps
            && (t.lo >= t.hi || step + 1 == t.lo);
        if !fits {
            return false;
        }
        if let Some(kept) = &t.v_from {
            let row = kept
                .as_ptr()
                .wrapping_offset(step as isize * kept.strides()[0]);
            if !core::ptr::eq(v.as_ptr(), row) || (cols > 1 && v.strides()[0] != kept.strides()[1])
            {
                return false;
            }
        }
        let (u_at, shared, v_at) = (t.u_at, t.shared, t.v_at);
        let at = step * self.stride;
        let Some(u_place) = self.data.get_mut(at + u_at..at + u_at + rows) else {
            return false;
        };
        if shared {
            if !same_slice(u, u_place) {
                return false;
            }
        } else {
            u_place.copy_from_slice(u);
        }
        if v_at != usize::MAX {
            write(&mut self.data[at + v_at..at + v_at + cols], v);
        }
        let t = &mut self.terms[j];
        t.hi = if t.lo < t.hi { t.hi } else { step + 1 };
        t.lo = step;
        true
    }

    /// [`Outers::keep`] where it returned `false`: an iteration that does
    /// not continue the ones kept adds those into `acc` and starts anew,
    /// then tries again.
    #[inline(never)]
    fn keep_after(
        &mut self,
        j: usize,
        step: usize,
        acc: &mut Array2<F>,
        u: &ArrayBase<impl Data<Elem = F>, Ix1>,
        v: &ArrayBase<impl Data<Elem = F>, Ix1>,
    ) -> bool {
        let Some(t) = self.terms.get(j) else {
            return false;
        };
        if t.lo < t.hi && step + 1 != t.lo {
            self.flush(j, acc);
            return self.keep(j, step, acc, u, v);
        }
        false
    }

    /// Adds term `j`'s kept outer products into `acc` (`acc += Uᵀ V`, one
    /// matrix product), and keeps none.
    fn flush(&mut self, j: usize, acc: &mut ArrayBase<impl DataMut<Elem = F>, Ix2>) {
        let Some(t) = self.terms.get_mut(j) else {
            return;
        };
        let (lo, hi) = (t.lo, t.hi);
        (t.lo, t.hi) = (0, 0);
        if lo >= hi {
            return;
        }
        let t = *t;
        // The records as the rows of one matrix, each term's vectors a
        // block of its columns.
        let records = ArrayView2::from_shape((self.steps, self.stride), &self.data)
            .expect("Outers: a record per iteration");
        let u = records.slice(s![lo..hi, t.u_at..t.u_at + t.rows]);
        let v = match t.v_from {
            Some(rows) => rows.slice_move(s![lo..hi, ..]),
            None => records.slice_move(s![lo..hi, t.v_at..t.v_at + t.cols]),
        };
        general_mat_mul(F::one(), &u.t(), &v, F::one(), acc);
    }
}

/// Term `j` of an [`Outers`] in one iteration: where a deferred product
/// contribution (`dot_vjp_lhs(..).defer(slot, ..)`) keeps its outer product.
pub struct Slot<'a, 'o, F, const N: usize> {
    outers: &'a mut Outers<'o, F, N>,
    j: usize,
    step: usize,
}

impl<F: Float, const N: usize> Slot<'_, '_, F, N> {
    /// `acc += u ⊗ v`, kept for after the loop where it can be, added now
    /// where not.
    #[inline(always)]
    pub(crate) fn add(
        self,
        acc: &mut Array2<F>,
        u: &ArrayBase<impl Data<Elem = F>, Ix1>,
        v: &ArrayBase<impl Data<Elem = F>, Ix1>,
    ) {
        if !self.outers.keep(self.j, self.step, acc, u, v)
            && !self.outers.keep_after(self.j, self.step, acc, u, v)
        {
            crate::ops::linalg::add_outer(acc, u, v);
        }
    }
}

/// `acc` plus term `j`'s kept outer products, added into `acc`'s buffer by
/// one matrix product (`general_mat_mul` with β = 1); `acc` as it was when
/// none are kept.
///
/// # Panics
///
/// If outer products are kept and `acc` is not a matrix of their shape (the
/// generated code passes the gradient the term was declared with).
pub fn add_outers<F: Float, T: Tensor<Elem = F>, const N: usize>(
    acc: T,
    outers: &mut Outers<'_, F, N>,
    j: usize,
) -> T {
    let kept = matches!(outers.terms.get(j), Some(t) if t.lo < t.hi);
    if !kept {
        return acc;
    }
    let mut acc = acc.into_array();
    {
        let mut m = acc
            .view_mut()
            .into_dimensionality::<Ix2>()
            .expect("add_outers: the gradient is the matrix of the outer products");
        outers.flush(j, &mut m);
    }
    T::from_array(acc)
}

/// The rows `start..end` of a matrix, where an iteration `k` of a loop from
/// `start` reads row `start + k`; `None` where they are not all there.
#[inline]
pub fn rows_in<F, S: Data<Elem = F>>(
    m: &ArrayBase<S, Ix2>,
    start: usize,
    end: usize,
) -> Option<ArrayView2<'_, F>> {
    (start <= end && end <= m.nrows()).then(|| m.slice(s![start..end, ..]))
}

/// Whether `a` holds the numbers of `b`, as [`same`] compares them.
#[inline]
fn same_slice<F: Float>(a: &[F], b: &[F]) -> bool {
    // No early exit: the comparisons vectorize.
    let mut all = a.len() == b.len();
    for (&x, &y) in a.iter().zip(b) {
        all &= same(x, y);
    }
    all
}

/// Equal as IEEE numbers: a NaN is never the same, and `-0.0` is `0.0`
/// (the outer products of the two differ in the sign of a zero, which a
/// sum into a gradient that starts at `+0.0` does not keep).
#[inline]
fn same<F: Float>(x: F, y: F) -> bool {
    x == y
}

/// Copies `x` into `to` (of `x`'s length), in any layout.
#[inline]
fn write<F: Float>(to: &mut [F], x: &ArrayBase<impl Data<Elem = F>, Ix1>) {
    to.iter_mut().zip(x).for_each(|(t, &x)| *t = x);
}
