//! Elementwise functions as one line of maths each: a [`Unary`] kernel is a
//! function of one float and its adjoint rule, a [`Binary`] kernel one of two
//! floats and its two rules. The generic primitives here apply a kernel to
//! scalars and arrays of any shape, allocating ([`map`]), in the buffer of an
//! operand passed by value ([`Operand::owned`]), fused after an arithmetic op
//! ([`zip_map`]), and in the rules ([`map_vjp_out`], ...), so that an op of
//! the vocabulary is its kernel and nothing else.

use crate::ops::arith::{Arith, Out as ArithOut};
use crate::value::{Cot, Float, Operand, OwnedOf, Tensor, Value};

/// What a unary kernel's rule reads besides the upstream gradient: its
/// input ([`X`]), its output ([`Out`]) or both ([`XOut`]). A rule that does
/// not read the input lets the op write its result over the input's buffer.
pub trait Reads {}

/// The rule reads the input `x`.
pub enum X {}
/// The rule reads the output.
pub enum Out {}
/// The rule reads the input and the output.
pub enum XOut {}
/// The rule reads neither (`-g`).
pub enum G {}

impl Reads for X {}
impl Reads for Out {}
impl Reads for XOut {}
impl Reads for G {}

/// An elementwise function of one float and its adjoint rule.
pub trait Unary: Copy {
    /// What [`Unary::vjp`] reads.
    type Reads: Reads;
    /// `f(x)`.
    fn f<F: Float>(self, x: F) -> F;
    /// `∂x` for the upstream gradient `g`, at input `x` with output `out`
    /// (the one the rule does not read is not passed: it is zero).
    fn vjp<F: Float>(self, g: F, x: F, out: F) -> F;
}

/// An elementwise function of two floats and its two adjoint rules.
pub trait Binary: Copy {
    /// `f(x, y)`.
    fn f<F: Float>(self, x: F, y: F) -> F;
    /// `∂x` for the upstream gradient `g`.
    fn lhs<F: Float>(self, g: F, x: F, y: F) -> F;
    /// `∂y` for the upstream gradient `g`.
    fn rhs<F: Float>(self, g: F, x: F, y: F) -> F;
    /// Where a rule is the upstream gradient itself, or its negation
    /// (`+` and `-`), a contribution is added where `g` is, with no array.
    const PASSES: [Pass; 2] = [Pass::No, Pass::No];
    /// `f(a, b)` as a new value, as the user's code computes it: ndarray's
    /// operator for `+ - * /`.
    #[inline]
    fn apply<A: Arith<B>, B: Value<Elem = A::Elem>>(self, a: &A, b: &B) -> ArithOut<A, B> {
        a.zip_map(b, |x, y| self.f(x, y))
    }
}

/// Whether a binary kernel's rule for one operand is `g` or `-g`.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Pass {
    /// Something else.
    No,
    /// `g`.
    G,
    /// `-g`.
    NegG,
}

/// `k.f(x)` of every element of `x`: in `x`'s buffer when it is passed by
/// value, a new value otherwise.
#[inline]
pub fn map<K: Unary, X: Operand>(x: X, k: K) -> OwnedOf<X> {
    match x.owned() {
        Ok(v) => v.map_owned(|v| k.f(v)),
        Err(x) => x.value().map_elems(|v| k.f(v)),
    }
}

/// The rule of a kernel that reads its output: `∂x = k.vjp(g, _, out)`,
/// in `g`'s buffer when it is owned. `out` may be any array of the output's
/// shape (a view of a row a loop keeps).
#[inline]
pub fn map_vjp_out<K: Unary<Reads = Out>, T: Tensor>(
    g: impl Cot<T>,
    out: &impl Value<Elem = T::Elem>,
    k: K,
) -> T {
    let zero = num_traits::Zero::zero();
    g.into_owned().zip_with1(out, |g, o| k.vjp(g, zero, o))
}

/// The rule of a kernel that reads its input: `∂x = k.vjp(g, x, _)`.
#[inline]
pub fn map_vjp_x<K: Unary<Reads = X>, T: Tensor>(
    g: impl Cot<T>,
    x: &impl Value<Elem = T::Elem>,
    k: K,
) -> T {
    let zero = num_traits::Zero::zero();
    g.into_owned().zip_with1(x, |g, x| k.vjp(g, x, zero))
}

/// The rule of a kernel that reads neither its input nor its output.
#[inline]
pub fn map_vjp_g<K: Unary<Reads = G>, T: Tensor>(g: impl Cot<T>, k: K) -> T {
    let zero = num_traits::Zero::zero();
    g.into_owned().map_owned(|g| k.vjp(g, zero, zero))
}

/// The rule of a kernel that reads its input and its output.
#[inline]
pub fn map_vjp<K: Unary<Reads = XOut>, T: Tensor>(
    g: impl Cot<T>,
    x: &impl Value<Elem = T::Elem>,
    out: &impl Value<Elem = T::Elem>,
    k: K,
) -> T {
    g.into_owned().zip_with2(x, out, |g, x, o| k.vjp(g, x, o))
}

/// Writes the elementwise ops of the vocabulary: each row is the op's
/// documentation, its name and its kernel's name, its function of one
/// element and its rule, and the macro writes the kernel and the op's
/// function (which maps over scalars and arrays, in the buffer of an array
/// passed by value).
///
/// A rule names what it reads: `X |g, x|`, `Out |g, out|`,
/// `XOut |g, x, out|` or `G |g|`. In both lines the element type is `F`
/// (`F::one()`).
macro_rules! elementwise {
    ($($(#[$doc:meta])* $name:ident, $kernel:ident: |$x:ident| $f:expr, $reads:ident |$g:ident $(, $a:ident)*| $rule:expr;)*) => {$(
        #[doc = concat!("The kernel of [`", stringify!($name), "`]: its function of one element and its rule.")]
        #[doc(hidden)]
        #[derive(Clone, Copy, Debug)]
        pub struct $kernel;

        impl $crate::kernels::Unary for $kernel {
            type Reads = $crate::kernels::$reads;
            #[inline]
            fn f<F: $crate::value::Float>(self, $x: F) -> F {
                $f
            }
            $crate::kernels::elementwise!(@vjp $reads |$g $(, $a)*| $rule);
        }

        $(#[$doc])*
        #[inline]
        pub fn $name<X: $crate::value::Operand>(x: X) -> $crate::value::OwnedOf<X> {
            $crate::kernels::map(x, $kernel)
        }
    )*
        /// The ops of these rows, for [`crate::ops::vocabulary`].
        pub mod vocabulary {
            pub use super::{$($name),*};
        }
    };
    (@vjp X |$g:ident, $x:ident| $rule:expr) => {
        #[inline]
        fn vjp<F: $crate::value::Float>(self, $g: F, $x: F, _: F) -> F {
            $rule
        }
    };
    (@vjp Out |$g:ident, $out:ident| $rule:expr) => {
        #[inline]
        fn vjp<F: $crate::value::Float>(self, $g: F, _: F, $out: F) -> F {
            $rule
        }
    };
    (@vjp G |$g:ident| $rule:expr) => {
        #[inline]
        fn vjp<F: $crate::value::Float>(self, $g: F, _: F, _: F) -> F {
            $rule
        }
    };
    (@vjp XOut |$g:ident, $x:ident, $out:ident| $rule:expr) => {
        #[inline]
        fn vjp<F: $crate::value::Float>(self, $g: F, $x: F, $out: F) -> F {
            $rule
        }
    };
}
pub(crate) use elementwise;

/// `k.f(a, b)` elementwise, with broadcasting: in `a`'s buffer where `a` is
/// passed by value and its buffer holds the result exactly as the
/// allocating op would lay it out (see [`Arith::into_output`]), else a new
/// value, as [`Binary::apply`] computes it.
#[inline]
pub fn zip<A, B, K>(a: A, b: &B, k: K) -> ArithOut<A::Value, B>
where
    A: Operand,
    A::Value: Arith<B>,
    OwnedOf<A>: Arith<B, Output = ArithOut<A::Value, B>>,
    B: Value<Elem = <A::Value as Value>::Elem>,
    K: Binary,
{
    match a.owned() {
        Ok(v) => match v.into_output(b) {
            Ok(out) => out.zip_with1(b, |x, y| k.f(x, y)),
            Err(v) => k.apply(&v, b),
        },
        Err(a) => k.apply(a.value(), b),
    }
}

/// [`zip`], then the unary kernel `u` of each element, in one pass: the
/// forward of `relu(&(x.dot(w) + b))` over the product's buffer.
#[inline]
pub fn zip_map<A, B, K, U>(a: A, b: &B, k: K, u: U) -> ArithOut<A::Value, B>
where
    A: Operand,
    A::Value: Arith<B>,
    OwnedOf<A>: Arith<B, Output = ArithOut<A::Value, B>>,
    B: Value<Elem = <A::Value as Value>::Elem>,
    K: Binary,
    U: Unary,
{
    match a.owned() {
        Ok(v) => match v.into_output(b) {
            Ok(out) => out.zip_with1(b, |x, y| u.f(k.f(x, y))),
            Err(v) => k.apply(&v, b).map_owned(|x| u.f(x)),
        },
        Err(a) => k.apply(a.value(), b).map_owned(|x| u.f(x)),
    }
}
