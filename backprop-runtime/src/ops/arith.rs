//! The arithmetic operators `+ - * /`, unary `-`, and the binary float
//! methods `max`, `min`, `powf`, on any mix of scalars and arrays, with
//! ndarray's broadcasting.
//!
//! The forward functions call ndarray's own operators, so values (and the panic
//! message on mismatched shapes) are exactly those of the user's code. Each
//! adjoint computes its local derivative on the broadcast shape and then sums
//! it back to the operand's shape with [`unbroadcast`].

use crate::unbroadcast::{unbroadcast, SumTo};
use crate::value::{Cot, Float, Tensor, Value};
use ndarray::{Array, ArrayBase, Data, DimMax, Dimension, Zip};
use num_traits::{Float as _, One as _, Zero as _};

/// Two values that combine elementwise, with broadcasting.
pub trait Arith<B: Value>: Value {
    /// The type of `a ⊕ b`: a scalar for two scalars, else an owned array of
    /// the broadcast dimension.
    type Output: Tensor<Elem = Self::Elem> + SumTo<Self> + SumTo<B>;
    /// `a + b`.
    fn add(&self, b: &B) -> Self::Output;
    /// `a - b`.
    fn sub(&self, b: &B) -> Self::Output;
    /// `a * b`.
    fn mul(&self, b: &B) -> Self::Output;
    /// `a / b`.
    fn div(&self, b: &B) -> Self::Output;
    /// `f(a, b)` elementwise.
    fn zip_map(&self, b: &B, f: impl FnMut(Self::Elem, Self::Elem) -> Self::Elem) -> Self::Output;
    /// `self`'s buffer as the output of `self ⊕ b`, when it can hold it
    /// exactly as the allocating op would lay it out: it has the broadcast
    /// shape and the standard layout. Else `self` back, unchanged.
    fn into_output(self, b: &B) -> Result<Self::Output, Self>
    where
        Self: Sized;
}

macro_rules! scalar_arith {
    ($($f:ty),*) => {$(
        impl Arith<$f> for $f {
            type Output = $f;
            #[inline] fn add(&self, b: &$f) -> $f { *self + *b }
            #[inline] fn sub(&self, b: &$f) -> $f { *self - *b }
            #[inline] fn mul(&self, b: &$f) -> $f { *self * *b }
            #[inline] fn div(&self, b: &$f) -> $f { *self / *b }
            #[inline] fn zip_map(&self, b: &$f, mut f: impl FnMut($f, $f) -> $f) -> $f { f(*self, *b) }
            #[inline] fn into_output(self, _: &$f) -> Result<$f, $f> { Ok(self) }
        }

        impl<S: Data<Elem = $f>, D: Dimension> Arith<ArrayBase<S, D>> for $f {
            type Output = Array<$f, D>;
            #[inline] fn add(&self, b: &ArrayBase<S, D>) -> Array<$f, D> { *self + b }
            #[inline] fn sub(&self, b: &ArrayBase<S, D>) -> Array<$f, D> { *self - b }
            #[inline] fn mul(&self, b: &ArrayBase<S, D>) -> Array<$f, D> { *self * b }
            #[inline] fn div(&self, b: &ArrayBase<S, D>) -> Array<$f, D> { *self / b }
            #[inline]
            fn zip_map(&self, b: &ArrayBase<S, D>, mut f: impl FnMut($f, $f) -> $f) -> Array<$f, D> {
                b.map(|&y| f(*self, y))
            }
            #[inline]
            fn into_output(self, _: &ArrayBase<S, D>) -> Result<Array<$f, D>, $f> {
                Err(self)
            }
        }

        impl<S: Data<Elem = $f>, D: Dimension> Arith<$f> for ArrayBase<S, D> {
            type Output = Array<$f, D>;
            #[inline] fn add(&self, b: &$f) -> Array<$f, D> { self + *b }
            #[inline] fn sub(&self, b: &$f) -> Array<$f, D> { self - *b }
            #[inline] fn mul(&self, b: &$f) -> Array<$f, D> { self * *b }
            #[inline] fn div(&self, b: &$f) -> Array<$f, D> { self / *b }
            #[inline]
            fn zip_map(&self, b: &$f, mut f: impl FnMut($f, $f) -> $f) -> Array<$f, D> {
                self.map(|&x| f(x, *b))
            }
            #[inline]
            fn into_output(self, _: &$f) -> Result<Array<$f, D>, Self> {
                if self.is_standard_layout() {
                    Ok(self.into_owned())
                } else {
                    Err(self)
                }
            }
        }
    )*};
}
scalar_arith!(f32, f64);

/// The broadcast shape of two dimensions, as ndarray computes it for `&a + &b`.
fn co_broadcast<D: Dimension + DimMax<E>, E: Dimension>(a: &D, b: &E) -> <D as DimMax<E>>::Output {
    let n = a.ndim().max(b.ndim());
    let mut out = <<D as DimMax<E>>::Output as Dimension>::zeros(n);
    for k in 0..n {
        let da = if k < a.ndim() { a[a.ndim() - 1 - k] } else { 1 };
        let db = if k < b.ndim() { b[b.ndim() - 1 - k] } else { 1 };
        out[n - 1 - k] = if da == db || db == 1 {
            da
        } else if da == 1 {
            db
        } else {
            panic!(
                "ndarray: could not broadcast array from shape: {:?} to: {:?}",
                b.slice(),
                a.slice()
            )
        };
    }
    out
}

impl<F, S, S2, D, E> Arith<ArrayBase<S2, E>> for ArrayBase<S, D>
where
    F: Float,
    S: Data<Elem = F>,
    S2: Data<Elem = F>,
    D: Dimension + DimMax<E>,
    E: Dimension,
{
    type Output = Array<F, <D as DimMax<E>>::Output>;
    #[inline]
    fn add(&self, b: &ArrayBase<S2, E>) -> Self::Output {
        self + b
    }
    #[inline]
    fn sub(&self, b: &ArrayBase<S2, E>) -> Self::Output {
        self - b
    }
    #[inline]
    fn mul(&self, b: &ArrayBase<S2, E>) -> Self::Output {
        self * b
    }
    #[inline]
    fn div(&self, b: &ArrayBase<S2, E>) -> Self::Output {
        self / b
    }
    fn zip_map(&self, b: &ArrayBase<S2, E>, mut f: impl FnMut(F, F) -> F) -> Self::Output {
        let shape = co_broadcast(&self.raw_dim(), &b.raw_dim());
        let a = self.broadcast(shape.clone()).expect("broadcast shape");
        let b = b.broadcast(shape).expect("broadcast shape");
        Zip::from(&a).and(&b).map_collect(|&x, &y| f(x, y))
    }
    fn into_output(self, b: &ArrayBase<S2, E>) -> Result<Self::Output, Self> {
        let fits = self.ndim() >= b.ndim()
            && self.is_standard_layout()
            && b.shape()
                .iter()
                .rev()
                .zip(self.shape().iter().rev())
                .all(|(&nb, &na)| nb == na || nb == 1);
        if !fits {
            return Err(self);
        }
        Ok(self
            .into_owned()
            .into_dimensionality()
            .expect("the broadcast dimension of an operand of the same rank"))
    }
}

/// The type of `a ⊕ b`.
pub type Out<A, B> = <A as Arith<B>>::Output;

/// `a + b` with broadcasting.
///
/// Adjoint: `∂a = unbroadcast(g)`, `∂b = unbroadcast(g)`.
#[inline]
pub fn add<A: Arith<B>, B: Value<Elem = A::Elem>>(a: &A, b: &B) -> Out<A, B> {
    a.add(b)
}

/// Adjoint of [`add`] with respect to `a`.
#[inline]
pub fn add_vjp_lhs<A: Arith<B>, B: Value<Elem = A::Elem>>(
    g: impl Cot<Out<A, B>>,
    a: &A,
    _b: &B,
) -> A::Owned {
    unbroadcast(g, a)
}

/// Adjoint of [`add`] with respect to `b`.
#[inline]
pub fn add_vjp_rhs<A: Arith<B>, B: Value<Elem = A::Elem>>(
    g: impl Cot<Out<A, B>>,
    _a: &A,
    b: &B,
) -> B::Owned {
    unbroadcast(g, b)
}

/// `a - b` with broadcasting.
///
/// Adjoint: `∂a = unbroadcast(g)`, `∂b = -unbroadcast(g)`.
#[inline]
pub fn sub<A: Arith<B>, B: Value<Elem = A::Elem>>(a: &A, b: &B) -> Out<A, B> {
    a.sub(b)
}

/// Adjoint of [`sub`] with respect to `a`.
#[inline]
pub fn sub_vjp_lhs<A: Arith<B>, B: Value<Elem = A::Elem>>(
    g: impl Cot<Out<A, B>>,
    a: &A,
    _b: &B,
) -> A::Owned {
    unbroadcast(g, a)
}

/// Adjoint of [`sub`] with respect to `b`.
#[inline]
pub fn sub_vjp_rhs<A: Arith<B>, B: Value<Elem = A::Elem>>(
    g: impl Cot<Out<A, B>>,
    _a: &A,
    b: &B,
) -> B::Owned {
    let d = unbroadcast(g, b);
    <B::Owned as Tensor>::map_owned(d, |x| -x)
}

/// `a * b` with broadcasting.
///
/// Adjoint: `∂a = unbroadcast(g ⊙ b)`, `∂b = unbroadcast(g ⊙ a)`.
#[inline]
pub fn mul<A: Arith<B>, B: Value<Elem = A::Elem>>(a: &A, b: &B) -> Out<A, B> {
    a.mul(b)
}

/// Adjoint of [`mul`] with respect to `a`.
#[inline]
pub fn mul_vjp_lhs<A: Arith<B>, B: Value<Elem = A::Elem>>(
    g: impl Cot<Out<A, B>>,
    a: &A,
    b: &B,
) -> A::Owned {
    unbroadcast(g.into_owned().zip_with1(b, |g, y| g * y), a)
}

/// Adjoint of [`mul`] with respect to `b`.
#[inline]
pub fn mul_vjp_rhs<A: Arith<B>, B: Value<Elem = A::Elem>>(
    g: impl Cot<Out<A, B>>,
    a: &A,
    b: &B,
) -> B::Owned {
    unbroadcast(g.into_owned().zip_with1(a, |g, x| g * x), b)
}

/// `a / b` with broadcasting.
///
/// Adjoint: `∂a = unbroadcast(g / b)`, `∂b = unbroadcast(-g ⊙ a / b²)`.
#[inline]
pub fn div<A: Arith<B>, B: Value<Elem = A::Elem>>(a: &A, b: &B) -> Out<A, B> {
    a.div(b)
}

/// Adjoint of [`div`] with respect to `a`.
#[inline]
pub fn div_vjp_lhs<A: Arith<B>, B: Value<Elem = A::Elem>>(
    g: impl Cot<Out<A, B>>,
    a: &A,
    b: &B,
) -> A::Owned {
    unbroadcast(g.into_owned().zip_with1(b, |g, y| g / y), a)
}

/// Adjoint of [`div`] with respect to `b`.
#[inline]
pub fn div_vjp_rhs<A: Arith<B>, B: Value<Elem = A::Elem>>(
    g: impl Cot<Out<A, B>>,
    a: &A,
    b: &B,
) -> B::Owned {
    unbroadcast(
        g.into_owned().zip_with2(a, b, |g, x, y| -(g * x) / (y * y)),
        b,
    )
}

/// `-x`.
///
/// Adjoint: `∂x = -g`.
#[inline]
pub fn neg<V: Value>(x: &V) -> V::Owned {
    x.map_elems(neg_elem)
}

/// Adjoint of [`neg`].
#[inline]
pub fn neg_vjp<V: Value>(g: impl Cot<V::Owned>, _x: &V) -> V::Owned {
    g.into_owned().map_owned(|v| -v)
}

/// `a.max(b)` elementwise (for arrays, with broadcasting).
///
/// Adjoint: `∂a = g·[a ≥ b]`, `∂b = g·[a < b]` (a tie sends the gradient to `a`).
#[inline]
pub fn max<A: Arith<B>, B: Value<Elem = A::Elem>>(a: &A, b: &B) -> Out<A, B> {
    a.zip_map(b, |x, y| x.max(y))
}

/// Adjoint of [`max`] with respect to `a`.
#[inline]
pub fn max_vjp_lhs<A: Arith<B>, B: Value<Elem = A::Elem>>(
    g: impl Cot<Out<A, B>>,
    a: &A,
    b: &B,
) -> A::Owned {
    let zero = A::Elem::zero();
    unbroadcast(
        g.into_owned()
            .zip_with2(a, b, |g, x, y| if x >= y || y.is_nan() { g } else { zero }),
        a,
    )
}

/// Adjoint of [`max`] with respect to `b`.
#[inline]
pub fn max_vjp_rhs<A: Arith<B>, B: Value<Elem = A::Elem>>(
    g: impl Cot<Out<A, B>>,
    a: &A,
    b: &B,
) -> B::Owned {
    let zero = A::Elem::zero();
    unbroadcast(
        g.into_owned()
            .zip_with2(a, b, |g, x, y| if x < y || x.is_nan() { g } else { zero }),
        b,
    )
}

/// `a.min(b)` elementwise (for arrays, with broadcasting).
///
/// Adjoint: `∂a = g·[a ≤ b]`, `∂b = g·[a > b]` (a tie sends the gradient to `a`).
#[inline]
pub fn min<A: Arith<B>, B: Value<Elem = A::Elem>>(a: &A, b: &B) -> Out<A, B> {
    a.zip_map(b, |x, y| x.min(y))
}

/// Adjoint of [`min`] with respect to `a`.
#[inline]
pub fn min_vjp_lhs<A: Arith<B>, B: Value<Elem = A::Elem>>(
    g: impl Cot<Out<A, B>>,
    a: &A,
    b: &B,
) -> A::Owned {
    let zero = A::Elem::zero();
    unbroadcast(
        g.into_owned()
            .zip_with2(a, b, |g, x, y| if x <= y || y.is_nan() { g } else { zero }),
        a,
    )
}

/// Adjoint of [`min`] with respect to `b`.
#[inline]
pub fn min_vjp_rhs<A: Arith<B>, B: Value<Elem = A::Elem>>(
    g: impl Cot<Out<A, B>>,
    a: &A,
    b: &B,
) -> B::Owned {
    let zero = A::Elem::zero();
    unbroadcast(
        g.into_owned()
            .zip_with2(a, b, |g, x, y| if x > y || x.is_nan() { g } else { zero }),
        b,
    )
}

/// `a.powf(b)` elementwise (for arrays, with broadcasting).
///
/// Adjoint: `∂a = g·b·a^(b-1)`, `∂b = g·a^b·ln a` (`0` where `a^b = 0`).
#[inline]
pub fn powf<A: Arith<B>, B: Value<Elem = A::Elem>>(a: &A, b: &B) -> Out<A, B> {
    a.zip_map(b, |x, y| x.powf(y))
}

/// Adjoint of [`powf`] with respect to `a`.
#[inline]
pub fn powf_vjp_lhs<A: Arith<B>, B: Value<Elem = A::Elem>>(
    g: impl Cot<Out<A, B>>,
    a: &A,
    b: &B,
) -> A::Owned {
    let one = A::Elem::one();
    unbroadcast(
        g.into_owned()
            .zip_with2(a, b, |g, x, y| g * y * x.powf(y - one)),
        a,
    )
}

/// Adjoint of [`powf`] with respect to `b`.
#[inline]
pub fn powf_vjp_rhs<A: Arith<B>, B: Value<Elem = A::Elem>>(
    g: impl Cot<Out<A, B>>,
    a: &A,
    b: &B,
) -> B::Owned {
    unbroadcast(
        g.into_owned()
            // At a zero power (a zero base, b > 0) the value does not move
            // with b: the gradient is 0, not 0 · ln 0 = NaN.
            .zip_with2(a, b, |g, x, y| {
                let p = x.powf(y);
                if p == A::Elem::zero() {
                    p
                } else {
                    g * p * x.ln()
                }
            }),
        b,
    )
}

/// `acc ± unbroadcast(g)`, in place: no array when the operand was not
/// broadcast (the gradient is read where it is), one sum when it was.
#[inline]
fn add_unbroadcast<G: SumTo<T>, T: Value<Elem = G::Elem>>(
    acc: &mut T::Owned,
    g: &G,
    target: &T,
    negate: bool,
) {
    let f = |a: T::Elem, x: T::Elem| if negate { a - x } else { a + x };
    if g.shape() == target.shape() {
        acc.zip_assign(g, f);
    } else {
        acc.zip_assign(&unbroadcast(g, target), f);
    }
}

/// The adjoints of `+` and `-` added into an accumulator, reading the
/// upstream gradient where it is: `$acc(&mut acc, g, a, b)` adds in place (a
/// loop's gradient of a value every iteration reads, a carried adjoint), and
/// `$add(acc, g, a, b)` returns the sum in `acc`'s buffer (a fork sum).
macro_rules! accumulate {
    ($acc:ident, $add:ident, $rule:ident, $grad:ident, $side:ident, $negate:literal) => {
        #[doc = concat!("[`", stringify!($rule), "`] added into `acc`, in place.")]
        #[inline]
        pub fn $acc<A: Arith<B>, B: Value<Elem = A::Elem>>(
            acc: &mut $grad::Owned,
            g: impl Cot<Out<A, B>>,
            a: &A,
            b: &B,
        ) {
            let _ = (a, b);
            add_unbroadcast(acc, g.get(), operand!($side, a, b), $negate)
        }

        #[doc = concat!("`acc + ", stringify!($rule), "(g, a, b)`, in `acc`'s buffer.")]
        #[inline]
        pub fn $add<A: Arith<B>, B: Value<Elem = A::Elem>>(
            mut acc: $grad::Owned,
            g: impl Cot<Out<A, B>>,
            a: &A,
            b: &B,
        ) -> $grad::Owned {
            $acc(&mut acc, g, a, b);
            acc
        }
    };
}

/// The operand a rule is for.
macro_rules! operand {
    (lhs, $a:expr, $b:expr) => {
        $a
    };
    (rhs, $a:expr, $b:expr) => {
        $b
    };
}

accumulate!(add_vjp_lhs_acc, add_vjp_lhs_add, add_vjp_lhs, A, lhs, false);
accumulate!(add_vjp_rhs_acc, add_vjp_rhs_add, add_vjp_rhs, B, rhs, false);
accumulate!(sub_vjp_lhs_acc, sub_vjp_lhs_add, sub_vjp_lhs, A, lhs, false);
accumulate!(sub_vjp_rhs_acc, sub_vjp_rhs_add, sub_vjp_rhs, B, rhs, true);

/// The forms of `+ - * /` that write the result over their left operand's
/// buffer when it can hold it (see [`Arith::into_output`]), and allocate as
/// the plain op does otherwise; and the same followed by an elementwise
/// function in the same pass (`relu(x.dot(w) + b)` reads and writes the
/// buffer once). The values are the plain ops', bit for bit.
///
/// The generated code calls them on a temporary that nothing else reads.
macro_rules! owned {
    ($owned:ident, $owned_map:ident, $plain:ident, $op:tt) => {
        #[doc = concat!("[`", stringify!($plain), "`] into `a`'s buffer when it has the result's shape and layout.")]
        #[inline]
        pub fn $owned<A: Arith<B>, B: Value<Elem = A::Elem>>(a: A, b: &B) -> Out<A, B> {
            match a.into_output(b) {
                Ok(out) => out.zip_with1(b, |x, y| x $op y),
                Err(a) => a.$plain(b),
            }
        }

        #[doc = concat!("[`", stringify!($owned), "`], then `f` of each element, in one pass.")]
        #[inline]
        pub fn $owned_map<A: Arith<B>, B: Value<Elem = A::Elem>>(
            a: A,
            b: &B,
            f: impl Fn(A::Elem) -> A::Elem,
        ) -> Out<A, B> {
            match a.into_output(b) {
                Ok(out) => out.zip_with1(b, |x, y| f(x $op y)),
                Err(a) => a.$plain(b).map_owned(f),
            }
        }
    };
}

owned!(add_owned, add_owned_map, add, +);
owned!(sub_owned, sub_owned_map, sub, -);
owned!(mul_owned, mul_owned_map, mul, *);
owned!(div_owned, div_owned_map, div, /);

/// [`neg`] of one element (see [`add_owned_map`]).
#[inline]
pub fn neg_elem<F: Float>(v: F) -> F {
    -v
}

/// [`neg`] in place.
#[inline]
pub fn neg_owned<T: Tensor>(x: T) -> T {
    x.map_owned(neg_elem)
}

/// Both adjoints of [`add`] where the right operand's will borrow the left's
/// when it can: when both operands have the gradient's shape (and their
/// gradients one type), each gradient is the upstream gradient itself, so the
/// left one takes its buffer and the right one is `None`, to be lent the left
/// one by [`lent`](crate::value::lent). Otherwise, as [`add_vjp_both`].
///
/// The generated code calls it when the right operand's gradient is only
/// read, and read before the left one's is used.
#[inline]
pub fn add_vjp_lend_rhs<A: Arith<B>, B: Value<Elem = A::Elem>>(
    g: impl Cot<Out<A, B>>,
    a: &A,
    b: &B,
) -> (A::Owned, Option<B::Owned>)
where
    A::Owned: 'static,
    B::Owned: 'static,
{
    if same_gradient(g.get(), a, b) {
        (add_vjp_lhs(g, a, b), None)
    } else {
        let (da, db) = add_vjp_both(g, a, b);
        (da, Some(db))
    }
}

/// [`add_vjp_lend_rhs`] with the sides swapped: the left operand's gradient
/// is `None` where it can borrow the right one's.
#[inline]
pub fn add_vjp_lend_lhs<A: Arith<B>, B: Value<Elem = A::Elem>>(
    g: impl Cot<Out<A, B>>,
    a: &A,
    b: &B,
) -> (Option<A::Owned>, B::Owned)
where
    A::Owned: 'static,
    B::Owned: 'static,
{
    if same_gradient(g.get(), a, b) {
        (None, add_vjp_rhs(g, a, b))
    } else {
        let (da, db) = add_vjp_both(g, a, b);
        (Some(da), db)
    }
}

/// Whether both operands of `a + b` get `g` itself as their gradient, as
/// values of one type.
fn same_gradient<A: Arith<B>, B: Value<Elem = A::Elem>>(g: &Out<A, B>, a: &A, b: &B) -> bool
where
    A::Owned: 'static,
    B::Owned: 'static,
{
    use std::any::TypeId;
    TypeId::of::<A::Owned>() == TypeId::of::<B::Owned>()
        && a.shape() == g.shape()
        && b.shape() == g.shape()
}

/// Both adjoints of a binary op in one call, giving the owned upstream buffer
/// to the operand that was not broadcast (its gradient is the same shape), so
/// that it is reused, and lending it to the other operand first.
macro_rules! both {
    ($both:ident, $lhs:ident, $rhs:ident, $doc:literal) => {
        #[doc = $doc]
        #[inline]
        pub fn $both<A: Arith<B>, B: Value<Elem = A::Elem>>(
            g: impl Cot<Out<A, B>>,
            a: &A,
            b: &B,
        ) -> (A::Owned, B::Owned) {
            if a.shape() == g.get().shape() {
                let db = $rhs(g.get(), a, b);
                (($lhs)(g, a, b), db)
            } else {
                let da = $lhs(g.get(), a, b);
                (da, $rhs(g, a, b))
            }
        }
    };
}

both!(
    add_vjp_both,
    add_vjp_lhs,
    add_vjp_rhs,
    "[`add_vjp_lhs`] and [`add_vjp_rhs`] in one call."
);
both!(
    sub_vjp_both,
    sub_vjp_lhs,
    sub_vjp_rhs,
    "[`sub_vjp_lhs`] and [`sub_vjp_rhs`] in one call."
);
both!(
    mul_vjp_both,
    mul_vjp_lhs,
    mul_vjp_rhs,
    "[`mul_vjp_lhs`] and [`mul_vjp_rhs`] in one call."
);
both!(
    div_vjp_both,
    div_vjp_lhs,
    div_vjp_rhs,
    "[`div_vjp_lhs`] and [`div_vjp_rhs`] in one call."
);
