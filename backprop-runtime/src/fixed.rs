//! A fixed-size array `[F; N]` that the function reads only element by
//! element (`p[0] * x + p[1]`, `p[i]` in a loop or a branch), as the
//! generated code holds it, and its gradient: an `[F; N]` on the stack, so
//! that the backward of a function over `[f64; N]` allocates nothing.
//!
//! ```
//! use backprop_runtime::fixed::{fixed_index_vjp, fixed_view, fixed_zeros};
//! use backprop_runtime::plain::plain_from;
//! let p = [1.0, 2.0, 3.0];
//! let p = fixed_view(&p);
//! assert_eq!(backprop_runtime::fixed::fixed_index(&p, 1), 2.0);
//! let mut d = fixed_zeros(&p);
//! for i in 0..3 {
//!     fixed_index_vjp(0.5 * i as f64, &p, i).add_to(&mut d);
//! }
//! let d: [f64; 3] = plain_from(d + fixed_index_vjp(1.0, &p, 0).value());
//! assert_eq!(d, [1.0, 0.5, 1.0]);
//! ```

use crate::contrib::{Contribution, Kind};
use crate::plain::IntoPlain;
use crate::value::{Cot, Float, Tensor, Value};
use ndarray::{Array1, ArrayView, ArrayView1, Ix1};

/// A fixed-size array read element by element: a view of its elements for
/// the reads (it dereferences to `ArrayView1`, so every op that reads an
/// array reads it), whose gradient is a [`FixedGrad`] (see
/// [`fixed_index_vjp`]).
pub struct Fixed<'a, F, const N: usize> {
    array: &'a [F; N],
    view: ArrayView1<'a, F>,
}

impl<'a, F, const N: usize> Fixed<'a, F, N> {
    /// The array itself, whose length the compiler knows.
    #[inline]
    pub fn array(&self) -> &'a [F; N] {
        self.array
    }
}

impl<'a, F, const N: usize> core::ops::Deref for Fixed<'a, F, N> {
    type Target = ArrayView1<'a, F>;
    #[inline]
    fn deref(&self) -> &ArrayView1<'a, F> {
        &self.view
    }
}

/// A value whose `N` float elements lie in memory as an `[F; N]`: a
/// fixed-size array, or (with the `nalgebra` feature) a statically sized
/// nalgebra vector, matrix or point, its elements in column-major order.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a fixed-size container of {N} floats that `#[differentiable]` can read element by element",
    note = "a nalgebra vector, matrix or point needs backprop's `nalgebra` feature (nalgebra 0.35)"
)]
pub trait AsFixed<F, const N: usize> {
    /// The elements, in order (column-major for a matrix).
    fn as_fixed(&self) -> &[F; N];
}

impl<F, const N: usize> AsFixed<F, N> for [F; N] {
    #[inline]
    fn as_fixed(&self) -> &[F; N] {
        self
    }
}

impl<F, const N: usize, T: AsFixed<F, N> + ?Sized> AsFixed<F, N> for &T {
    #[inline]
    fn as_fixed(&self) -> &[F; N] {
        (**self).as_fixed()
    }
}

/// `a` as a [`Fixed`]: `let p = bp::fixed_view(&p);` (for a nalgebra
/// value, with its number of elements: `bp::fixed_view::<_, 3>(&v)`).
#[inline]
pub fn fixed_view<F, const N: usize>(a: &impl AsFixed<F, N>) -> Fixed<'_, F, N> {
    let a = a.as_fixed();
    Fixed {
        array: a,
        view: ArrayView1::from(a),
    }
}

/// The element `a[i]` of a [`Fixed`] (as `index` of an array), read from
/// the array, whose length the compiler knows.
#[inline]
pub fn fixed_index<F: Copy, const N: usize>(a: &Fixed<'_, F, N>, i: usize) -> F {
    a.array[i]
}

/// The gradient of a [`Fixed`]: its `N` numbers on the stack, with what the
/// generated code does with a gradient (a zero of its shape, `+`, a rule's
/// contribution added in), given back as an `[F; N]` by
/// [`plain_from`](crate::plain::plain_from).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FixedGrad<F, const N: usize> {
    elems: [F; N],
    /// `[N]`, for [`Value::shape`].
    shape: [usize; 1],
}

impl<F, const N: usize> FixedGrad<F, N> {
    #[inline]
    fn new(elems: [F; N]) -> Self {
        FixedGrad { elems, shape: [N] }
    }

    /// The numbers `elems`.
    #[inline]
    pub fn from_elems(elems: [F; N]) -> Self {
        Self::new(elems)
    }

    /// The numbers.
    #[inline]
    pub fn elems(&self) -> &[F; N] {
        &self.elems
    }
}

/// A copy of the `N` floats of `a` (an upstream gradient of a function
/// whose value is a fixed-size container: `&[f64; 3]`, `&Vector3<f64>`).
#[inline]
pub fn fixed_copy<F: Copy, const N: usize>(a: &impl AsFixed<F, N>) -> FixedGrad<F, N> {
    FixedGrad::new(*a.as_fixed())
}

/// The gradient of a [`Fixed`] where nothing reaches it: zeros.
#[inline]
pub fn fixed_zeros<F: Float, const N: usize>(_: &Fixed<'_, F, N>) -> FixedGrad<F, N> {
    FixedGrad::new([F::zero(); N])
}

impl<F: Float, const N: usize> Value for Fixed<'_, F, N> {
    type Elem = F;
    type Dim = Ix1;
    type Owned = FixedGrad<F, N>;
    #[inline]
    fn view(&self) -> ArrayView<'_, F, Ix1> {
        self.view.view()
    }
    #[inline]
    fn shape(&self) -> &[usize] {
        self.view.shape()
    }
    #[inline]
    fn map_elems(&self, mut f: impl FnMut(F) -> F) -> FixedGrad<F, N> {
        FixedGrad::new(core::array::from_fn(|k| f(self.view[k])))
    }
    #[inline]
    fn first_elem(&self) -> F {
        self.view[0]
    }
}

impl<F: Float, const N: usize> Value for FixedGrad<F, N> {
    type Elem = F;
    type Dim = Ix1;
    type Owned = FixedGrad<F, N>;
    #[inline]
    fn view(&self) -> ArrayView<'_, F, Ix1> {
        ArrayView1::from(&self.elems)
    }
    #[inline]
    fn shape(&self) -> &[usize] {
        &self.shape
    }
    #[inline]
    fn map_elems(&self, mut f: impl FnMut(F) -> F) -> FixedGrad<F, N> {
        FixedGrad::new(self.elems.map(&mut f))
    }
    #[inline]
    fn first_elem(&self) -> F {
        self.elems[0]
    }
}

/// The message of a broadcast that cannot be.
const BROADCASTS: &str = "an operand of a fixed-size array's gradient broadcasts to it";

impl<F: Float, const N: usize> Tensor for FixedGrad<F, N> {
    #[inline]
    fn zip_with2<X: Value<Elem = F>, Y: Value<Elem = F>>(
        mut self,
        x: &X,
        y: &Y,
        mut f: impl FnMut(F, F, F) -> F,
    ) -> Self {
        let (x, y) = (x.view(), y.view());
        let (x, y) = (
            x.broadcast(N).expect(BROADCASTS),
            y.broadcast(N).expect(BROADCASTS),
        );
        for (k, e) in self.elems.iter_mut().enumerate() {
            *e = f(*e, x[k], y[k]);
        }
        self
    }
    #[inline]
    fn zip_assign<X: Value<Elem = F>>(&mut self, x: &X, mut f: impl FnMut(F, F) -> F) {
        let x = x.view();
        let x = x.broadcast(N).expect(BROADCASTS);
        for (k, e) in self.elems.iter_mut().enumerate() {
            *e = f(*e, x[k]);
        }
    }
    #[inline]
    fn from_array(a: Array1<F>) -> Self {
        FixedGrad::new(core::array::from_fn(|k| a[k]))
    }
    #[inline]
    fn sum_all(&self) -> F {
        self.elems.iter().fold(F::zero(), |s, &e| s + e)
    }
    #[inline]
    fn filled(_: Ix1, v: F) -> Self {
        FixedGrad::new([v; N])
    }
    #[inline]
    fn map_owned(self, f: impl FnMut(F) -> F) -> Self {
        FixedGrad::new(self.elems.map(f))
    }
}

impl<F: Float, const N: usize> core::ops::Add for FixedGrad<F, N> {
    type Output = Self;
    #[inline]
    fn add(mut self, rhs: Self) -> Self {
        self += rhs;
        self
    }
}

impl<F: Float, const N: usize> core::ops::AddAssign for FixedGrad<F, N> {
    #[inline]
    fn add_assign(&mut self, rhs: Self) {
        for (a, b) in self.elems.iter_mut().zip(rhs.elems) {
            *a += b;
        }
    }
}

impl<F, const N: usize> IntoPlain<[F; N]> for FixedGrad<F, N> {
    #[inline]
    fn into_plain(self) -> [F; N] {
        self.elems
    }
}

/// The contribution of the element read `a[idx]` to the gradient of a
/// [`Fixed`]: `g` at `idx` (see [`fixed_index_vjp`]).
pub struct FixedPlaced<G, const N: usize> {
    g: G,
    idx: usize,
}

/// Adjoint of the read `a[idx]` of a [`Fixed`] (as `index_vjp` of an
/// array), whose gradient is a [`FixedGrad`].
#[inline]
pub fn fixed_index_vjp<F: Float, G: Cot<F>, const N: usize>(
    g: G,
    _: &Fixed<'_, F, N>,
    idx: usize,
) -> Contribution<FixedPlaced<G, N>> {
    Contribution(FixedPlaced { g, idx })
}

impl<F: Float, G: Cot<F>, const N: usize> Kind<FixedGrad<F, N>> for FixedPlaced<G, N> {
    #[inline]
    fn value(self) -> FixedGrad<F, N> {
        let mut d = [F::zero(); N];
        d[self.idx] = *self.g.get();
        FixedGrad::new(d)
    }
    #[inline]
    fn add_to(self, acc: &mut FixedGrad<F, N>) {
        acc.elems[self.idx] += *self.g.get();
    }
}
