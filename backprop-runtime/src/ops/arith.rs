//! The arithmetic operators `+ - * /`, unary `-`, and the binary float
//! methods `max`, `min`, `powf`, `atan2`, `hypot`, `log`, on any mix of scalars and arrays, with
//! ndarray's broadcasting.
//!
//! Each is a [`Binary`] kernel: one line of maths for its value and one for
//! each operand's rule. The forward functions of `+ - * /` call ndarray's own
//! operators, so values (and the panic message on mismatched shapes) are
//! exactly those of the user's code; an operand passed by value lends its
//! buffer where ndarray would lay the result out the same way. Each rule
//! computes its local derivative on the broadcast shape and then sums it back
//! to the operand's shape with [`unbroadcast`].

use crate::contrib::{Contribution, Kind};
use crate::kernels::{map, map_vjp_g, zip, Binary, Pass, Unary};
use crate::unbroadcast::{unbroadcast, SumTo};
use crate::value::{Cot, Float, Operand, OwnedOf, Tensor, Value};
use ndarray::{Array, ArrayBase, Data, DimMax, Dimension, Zip};

/// Two values that combine elementwise, with broadcasting.
#[doc(hidden)]
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

// Written once over `F: Float`, so that a function generic over its float
// type is differentiated too (ndarray's `f64 + &array` is per type: the
// arrays' side is a map here).
impl<F: Float> Arith<F> for F {
    type Output = F;
    #[inline]
    fn add(&self, b: &F) -> F {
        *self + *b
    }
    #[inline]
    fn sub(&self, b: &F) -> F {
        *self - *b
    }
    #[inline]
    fn mul(&self, b: &F) -> F {
        *self * *b
    }
    #[inline]
    fn div(&self, b: &F) -> F {
        *self / *b
    }
    #[inline]
    fn zip_map(&self, b: &F, mut f: impl FnMut(F, F) -> F) -> F {
        f(*self, *b)
    }
    #[inline]
    fn into_output(self, _: &F) -> Result<F, F> {
        Ok(self)
    }
}

impl<F: Float, S: Data<Elem = F>, D: Dimension> Arith<ArrayBase<S, D>> for F {
    type Output = Array<F, D>;
    #[inline]
    fn add(&self, b: &ArrayBase<S, D>) -> Array<F, D> {
        b.mapv(|y| *self + y)
    }
    #[inline]
    fn sub(&self, b: &ArrayBase<S, D>) -> Array<F, D> {
        b.mapv(|y| *self - y)
    }
    #[inline]
    fn mul(&self, b: &ArrayBase<S, D>) -> Array<F, D> {
        b.mapv(|y| *self * y)
    }
    #[inline]
    fn div(&self, b: &ArrayBase<S, D>) -> Array<F, D> {
        b.mapv(|y| *self / y)
    }
    #[inline]
    fn zip_map(&self, b: &ArrayBase<S, D>, mut f: impl FnMut(F, F) -> F) -> Array<F, D> {
        b.map(|&y| f(*self, y))
    }
    #[inline]
    fn into_output(self, _: &ArrayBase<S, D>) -> Result<Array<F, D>, F> {
        Err(self)
    }
}

impl<F: Float, S: Data<Elem = F>, D: Dimension> Arith<F> for ArrayBase<S, D> {
    type Output = Array<F, D>;
    #[inline]
    fn add(&self, b: &F) -> Array<F, D> {
        self.mapv(|x| x + *b)
    }
    #[inline]
    fn sub(&self, b: &F) -> Array<F, D> {
        self.mapv(|x| x - *b)
    }
    #[inline]
    fn mul(&self, b: &F) -> Array<F, D> {
        self.mapv(|x| x * *b)
    }
    #[inline]
    fn div(&self, b: &F) -> Array<F, D> {
        self.mapv(|x| x / *b)
    }
    #[inline]
    fn zip_map(&self, b: &F, mut f: impl FnMut(F, F) -> F) -> Array<F, D> {
        self.map(|&x| f(x, *b))
    }
    #[inline]
    fn into_output(self, _: &F) -> Result<Array<F, D>, Self> {
        if self.is_standard_layout() {
            Ok(self.into_owned())
        } else {
            Err(self)
        }
    }
}

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
#[doc(hidden)]
pub type Out<A, B> = <A as Arith<B>>::Output;

/// Writes a [`Binary`] kernel from one line of maths for its value and one
/// for each operand's rule, and its forward function.
macro_rules! binary {
    ($($(#[$doc:meta])* $name:ident, $kernel:ident: |$x:ident, $y:ident| $f:expr,
       lhs |$g1:ident| $lhs:expr, rhs |$g2:ident| $rhs:expr
       $(, passes $passes:expr, by $method:ident)?;)*) => {$(
        #[doc = concat!("The kernel of [`", stringify!($name), "`].")]
        #[doc(hidden)]
        #[derive(Clone, Copy, Debug)]
        pub struct $kernel;

        impl Binary for $kernel {
            #[inline]
            fn f<F: Float>(self, $x: F, $y: F) -> F {
                $f
            }
            #[inline]
            #[allow(unused_variables, reason = "a rule reads what its maths names")]
            fn lhs<F: Float>(self, $g1: F, $x: F, $y: F) -> F {
                $lhs
            }
            #[inline]
            #[allow(unused_variables, reason = "a rule reads what its maths names")]
            fn rhs<F: Float>(self, $g2: F, $x: F, $y: F) -> F {
                $rhs
            }
            $(
                const PASSES: [Pass; 2] = $passes;
                #[inline]
                fn apply<A: Arith<B>, B: Value<Elem = A::Elem>>(self, a: &A, b: &B) -> Out<A, B> {
                    a.$method(b)
                }
            )?
        }

        $(#[$doc])*
        #[doc(hidden)]
        #[inline]
        pub fn $name<A: Operand, B: Value<Elem = <A::Value as Value>::Elem>>(a: A, b: &B) -> Out<A::Value, B>
        where
            A::Value: Arith<B>,
            OwnedOf<A>: Arith<B, Output = Out<A::Value, B>>,
        {
            zip(a, b, $kernel)
        }
    )*};
}

binary! {
    /// `a + b` with broadcasting (ndarray's `+`).
    ///
    /// Adjoint: `∂a = unbroadcast(g)`, `∂b = unbroadcast(g)`.
    add, Add: |x, y| x + y, lhs |g| g, rhs |g| g, passes [Pass::G, Pass::G], by add;

    /// `a - b` with broadcasting (ndarray's `-`).
    ///
    /// Adjoint: `∂a = unbroadcast(g)`, `∂b = -unbroadcast(g)`.
    sub, Sub: |x, y| x - y, lhs |g| g, rhs |g| -g, passes [Pass::G, Pass::NegG], by sub;

    /// `a * b` with broadcasting (ndarray's `*`).
    ///
    /// Adjoint: `∂a = unbroadcast(g ⊙ b)`, `∂b = unbroadcast(g ⊙ a)`.
    mul, Mul: |x, y| x * y, lhs |g| g * y, rhs |g| g * x, passes [Pass::No, Pass::No], by mul;

    /// `a / b` with broadcasting (ndarray's `/`).
    ///
    /// Adjoint: `∂a = unbroadcast(g / b)`, `∂b = unbroadcast(-g ⊙ a / b²)`.
    div, Div: |x, y| x / y, lhs |g| g / y, rhs |g| -(g * x) / (y * y), passes [Pass::No, Pass::No], by div;

    /// `a.max(b)` elementwise (for arrays, with broadcasting).
    ///
    /// Adjoint: `∂a = g·[a ≥ b]`, `∂b = g·[a < b]` (a tie sends the gradient
    /// to `a`; `f64::max` picks the non-NaN operand, and so does the gradient).
    max, Max: |x, y| x.max(y),
        lhs |g| if x >= y || y.is_nan() { g } else { F::zero() },
        rhs |g| if x < y || x.is_nan() { g } else { F::zero() };

    /// `a.min(b)` elementwise (for arrays, with broadcasting).
    ///
    /// Adjoint: `∂a = g·[a ≤ b]`, `∂b = g·[a > b]` (a tie sends the gradient
    /// to `a`).
    min, Min: |x, y| x.min(y),
        lhs |g| if x <= y || y.is_nan() { g } else { F::zero() },
        rhs |g| if x > y || x.is_nan() { g } else { F::zero() };

    /// `a.powf(b)` elementwise (for arrays, with broadcasting).
    ///
    /// Adjoint: `∂a = g·b·a^(b-1)`, `∂b = g·a^b·ln a`, which is `0` where
    /// `a^b = 0` (a zero base, `b > 0`: the value does not move with `b`),
    /// not `0 · ln 0 = NaN`.
    powf, Powf: |x, y| x.powf(y),
        lhs |g| g * y * x.powf(y - F::one()),
        rhs |g| { let p = x.powf(y); if p == F::zero() { p } else { g * p * x.ln() } };

    /// `y.atan2(x)` elementwise: the angle of the point `(x, y)`, in
    /// `[-π, π]` (for arrays, with broadcasting). The receiver is `y`.
    ///
    /// Adjoint, with `r = hypot(x, y)`: `∂y = g·x/r²`, `∂x = -g·y/r²`,
    /// computed as `(x/r)/r` (no overflow of `x² + y²`). At the origin,
    /// where the angle jumps, both are NaN (`0/0`, as PyTorch gives).
    atan2, Atan2: |x, y| x.atan2(y),
        lhs |g| { let r = x.hypot(y); g * (y / r / r) },
        rhs |g| { let r = x.hypot(y); -(g * (x / r / r)) };

    /// `x.hypot(y) = √(x² + y²)` elementwise, without overflow (for
    /// arrays, with broadcasting).
    ///
    /// Adjoint: `∂x = g·x/r`, `∂y = g·y/r` with `r = hypot(x, y)`. At the
    /// origin, the kink, both take the subgradient 0 (as `abs` at 0:
    /// `hypot(x, 0) = |x|`); where an operand is infinite, NaN (`inf/inf`).
    hypot, Hypot: |x, y| x.hypot(y),
        lhs |g| { let r = x.hypot(y); if r == F::zero() { r } else { g * (x / r) } },
        rhs |g| { let r = x.hypot(y); if r == F::zero() { r } else { g * (y / r) } };

    /// `x.log(b) = ln x / ln b` elementwise, the logarithm to the base `b`
    /// (for arrays, with broadcasting), as `f64::log` computes it.
    ///
    /// Adjoint: `∂x = g / (x ln b)`, `∂b = -g·ln x / (b ln² b)`, computed as
    /// written: infinite or NaN where `x = 0`, `b = 1` or `b = 0`, as IEEE
    /// gives; the finite formulas where the value is NaN (a negative `x`
    /// or `b`), as for `ln`.
    log, Log: |x, y| x.log(y),
        lhs |g| g / (x * y.ln()),
        rhs |g| { let lb = y.ln(); -(g * x.ln() / lb) / (y * lb) };
}

/// `x.mul_add(a, b) = x·a + b` with one rounding (`f64::mul_add`, bit for
/// bit), of three scalars (ndarray's arrays have no `mul_add`).
///
/// Adjoint: `∂x = g·a`, `∂a = g·x`, `∂b = g` (the rules
/// [`mul_add_vjp_x`], [`mul_add_vjp_a`], [`mul_add_vjp_b`]).
///
/// ```
/// use backprop_runtime::ops::mul_add;
/// let (x, a, b) = (0.1_f64, 10.0, -1.0);
/// assert_eq!(mul_add(&x, &a, &b), x.mul_add(a, b));
/// assert_ne!(mul_add(&x, &a, &b), x * a + b);
/// ```
#[inline]
#[doc(hidden)]
pub fn mul_add<F: Float, X: Operand<Value = F>>(x: X, a: &F, b: &F) -> F {
    x.value().mul_add(*a, *b)
}

/// Adjoint of [`mul_add`] for `x`: `g·a`.
#[inline]
#[doc(hidden)]
pub fn mul_add_vjp_x<F: Float>(g: impl Cot<F>, _x: &F, a: &F, _b: &F) -> F {
    *g.get() * *a
}

/// Adjoint of [`mul_add`] for `a`: `g·x`.
#[inline]
#[doc(hidden)]
pub fn mul_add_vjp_a<F: Float>(g: impl Cot<F>, x: &F, _a: &F, _b: &F) -> F {
    *g.get() * *x
}

/// Adjoint of [`mul_add`] for `b`: `g`.
#[inline]
#[doc(hidden)]
pub fn mul_add_vjp_b<F: Float>(g: impl Cot<F>, _x: &F, _a: &F, _b: &F) -> F {
    *g.get()
}

/// `-x`, elementwise.
///
/// Adjoint: `∂x = -g`.
#[inline]
#[doc(hidden)]
pub fn neg<X: Operand>(x: X) -> OwnedOf<X> {
    map(x, Neg)
}

/// The kernel of [`neg`].
#[doc(hidden)]
#[derive(Clone, Copy, Debug)]
pub struct Neg;

impl Unary for Neg {
    type Reads = crate::kernels::G;
    #[inline]
    fn f<F: Float>(self, x: F) -> F {
        -x
    }
    #[inline]
    fn vjp<F: Float>(self, g: F, _x: F, _out: F) -> F {
        -g
    }
}

/// Adjoint of [`neg`]: `-g`, in `g`'s buffer when it is owned.
#[inline]
#[doc(hidden)]
pub fn neg_vjp<T: Tensor>(g: impl Cot<T>) -> T {
    map_vjp_g(g, Neg)
}

/// The left operand of `a ⊕ b` (a [`ZipRule`] for `a`).
#[derive(Clone, Copy, Debug)]
#[doc(hidden)]
pub struct Lhs;
/// The right operand (a [`ZipRule`] for `b`).
#[derive(Clone, Copy, Debug)]
#[doc(hidden)]
pub struct Rhs;

/// The contribution of a binary kernel's rule to the gradient of the
/// operand `S` ([`Lhs`] or [`Rhs`]).
#[doc(hidden)]
pub struct ZipRule<'a, G, A, B, K, S> {
    g: G,
    a: &'a A,
    b: &'a B,
    k: K,
    side: core::marker::PhantomData<S>,
}

/// The rule of `a ⊕ b` for `a`, as a [`Contribution`] to `a`'s gradient.
#[inline]
#[doc(hidden)]
pub fn zip_vjp_lhs<'a, G, A, B, K>(
    g: G,
    a: &'a A,
    b: &'a B,
    k: K,
) -> Contribution<ZipRule<'a, G, A, B, K, Lhs>> {
    Contribution(ZipRule {
        g,
        a,
        b,
        k,
        side: core::marker::PhantomData,
    })
}

/// The rule of `a ⊕ b` for `b`, as a [`Contribution`] to `b`'s gradient.
#[inline]
#[doc(hidden)]
pub fn zip_vjp_rhs<'a, G, A, B, K>(
    g: G,
    a: &'a A,
    b: &'a B,
    k: K,
) -> Contribution<ZipRule<'a, G, A, B, K, Rhs>> {
    Contribution(ZipRule {
        g,
        a,
        b,
        k,
        side: core::marker::PhantomData,
    })
}

impl<G, A, B, K> Kind<A::Owned> for ZipRule<'_, G, A, B, K, Lhs>
where
    A: Arith<B>,
    B: Value<Elem = A::Elem>,
    G: Cot<Out<A, B>>,
    K: Binary,
{
    #[inline]
    fn value(self) -> A::Owned {
        let (a, b, k) = (self.a, self.b, self.k);
        match K::PASSES[0] {
            // `g` itself, summed to `a`'s shape: no pass over it first.
            Pass::G => unbroadcast(self.g, a),
            Pass::NegG => negated(unbroadcast(self.g, a)),
            Pass::No => unbroadcast(
                self.g
                    .into_owned()
                    .zip_with2(a, b, |g, x, y| k.lhs(g, x, y)),
                a,
            ),
        }
    }
    #[inline]
    fn add_to(self, acc: &mut A::Owned) {
        match K::PASSES[0] {
            Pass::No => {
                let d = self.value();
                acc.zip_assign(&d, |s, x| s + x);
            }
            pass => add_unbroadcast(acc, self.g.get(), self.a, pass == Pass::NegG),
        }
    }
}

impl<G, A, B, K> Kind<B::Owned> for ZipRule<'_, G, A, B, K, Rhs>
where
    A: Arith<B>,
    B: Value<Elem = A::Elem>,
    G: Cot<Out<A, B>>,
    K: Binary,
{
    #[inline]
    fn value(self) -> B::Owned {
        let (a, b, k) = (self.a, self.b, self.k);
        match K::PASSES[1] {
            Pass::G => unbroadcast(self.g, b),
            // `-(Σg)`: the sum, then its sign (as `-g` summed would not keep
            // the sign of a zero sum).
            Pass::NegG => negated(unbroadcast(self.g, b)),
            Pass::No => unbroadcast(
                self.g
                    .into_owned()
                    .zip_with2(a, b, |g, x, y| k.rhs(g, x, y)),
                b,
            ),
        }
    }
    #[inline]
    fn add_to(self, acc: &mut B::Owned) {
        match K::PASSES[1] {
            Pass::No => {
                let d = self.value();
                acc.zip_assign(&d, |s, x| s + x);
            }
            pass => add_unbroadcast(acc, self.g.get(), self.b, pass == Pass::NegG),
        }
    }
}

/// Both rules of `a ⊕ b` in one call, giving the owned upstream buffer to
/// the operand that was not broadcast (its gradient has the same shape), so
/// that it is reused, and lending it to the other operand first.
#[inline]
#[doc(hidden)]
pub fn zip_vjp_both<A, B, K>(g: impl Cot<Out<A, B>>, a: &A, b: &B, k: K) -> (A::Owned, B::Owned)
where
    A: Arith<B>,
    B: Value<Elem = A::Elem>,
    K: Binary,
{
    if a.shape() == g.get().shape() {
        let db = zip_vjp_rhs(g.get(), a, b, k).value();
        (zip_vjp_lhs(g, a, b, k).value(), db)
    } else {
        let da = zip_vjp_lhs(g.get(), a, b, k).value();
        (da, zip_vjp_rhs(g, a, b, k).value())
    }
}

/// The rules of `a + b` where the operand `borrower` ([`Lhs`] or [`Rhs`])
/// may borrow the other's gradient: when both operands have the gradient's
/// shape (and their gradients one type), each gradient is the upstream
/// gradient itself, so the other operand takes its buffer and the
/// borrower's is `None`, to be lent the other's by
/// [`lent`](crate::value::lent). Otherwise, as [`zip_vjp_both`].
///
/// The generated code calls it when the borrower's gradient is only read,
/// and read before the other's is used.
#[inline]
#[doc(hidden)]
pub fn add_vjp_lend<A, B, S>(g: impl Cot<Out<A, B>>, a: &A, b: &B, borrower: S) -> S::Grads
where
    A: Arith<B>,
    B: Value<Elem = A::Elem>,
    A::Owned: 'static,
    B::Owned: 'static,
    S: Borrower<A, B>,
{
    let _ = borrower;
    let same = same_type::<A::Owned, B::Owned>()
        && a.shape() == g.get().shape()
        && b.shape() == g.get().shape();
    let (da, db) = if same {
        match S::LHS {
            true => (None, Some(zip_vjp_rhs(g, a, b, Add).value())),
            false => (Some(zip_vjp_lhs(g, a, b, Add).value()), None),
        }
    } else {
        let (da, db) = zip_vjp_both(g, a, b, Add);
        (Some(da), Some(db))
    };
    S::grads(da, db)
}

/// The operand of `a + b` that borrows the other's gradient, and the
/// gradients [`add_vjp_lend`] returns for it.
#[doc(hidden)]
pub trait Borrower<A: Value, B: Value> {
    /// Whether it is the left operand.
    const LHS: bool;
    /// The lender's gradient, and the borrower's if it has one of its own.
    type Grads;
    /// The two gradients, the lender's always there.
    fn grads(a: Option<A::Owned>, b: Option<B::Owned>) -> Self::Grads;
}

impl<A: Value, B: Value> Borrower<A, B> for Rhs {
    const LHS: bool = false;
    type Grads = (A::Owned, Option<B::Owned>);
    fn grads(a: Option<A::Owned>, b: Option<B::Owned>) -> Self::Grads {
        (a.expect("the lender's gradient"), b)
    }
}

impl<A: Value, B: Value> Borrower<A, B> for Lhs {
    const LHS: bool = true;
    type Grads = (Option<A::Owned>, B::Owned);
    fn grads(a: Option<A::Owned>, b: Option<B::Owned>) -> Self::Grads {
        (a, b.expect("the lender's gradient"))
    }
}

/// Whether two types are one.
fn same_type<T: 'static, U: 'static>() -> bool {
    std::any::TypeId::of::<T>() == std::any::TypeId::of::<U>()
}

/// `-x`, in `x`'s buffer.
#[inline]
fn negated<T: Tensor>(x: T) -> T {
    x.map_owned(|v| -v)
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
