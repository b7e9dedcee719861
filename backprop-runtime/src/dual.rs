//! Dual numbers: forward mode, and through it second order.
//!
//! A [`Dual`] is a value and its tangent, `x + ε·ẋ` with `ε² = 0`: every
//! operation on duals computes its value as on floats and its tangent by the
//! chain rule. `Dual<F>` is a [`Float`](crate::Float) for every `Float` `F`
//! (`Dual<f64>`, and `Dual<Dual<f64>>` for forward over forward), so a
//! function generic over its float type runs on duals unchanged. Run on duals, a
//! function gives its directional derivative (`NAME_jvp`); its generated
//! reverse sweep, run on duals, gives the gradient and the derivative of the
//! gradient along the direction, the Hessian-vector product (`NAME_hvp`):
//! forward mode over the generated reverse sweep.
//!
//! Comparisons read the values only: a branch, a `max` or a `relu` takes the
//! path the values take, and that path is a constant of the derivative, as
//! in the reverse sweep.
//!
//! ```
//! use backprop_runtime::dual::Dual;
//! use num_traits::Float;
//! let x = Dual::new(2.0_f64, 1.0);
//! let y = x * x.exp();
//! // d/dx (x eˣ) = (1 + x) eˣ
//! assert_eq!(y.value, 2.0 * 2.0_f64.exp());
//! assert!((y.tangent - 3.0 * 2.0_f64.exp()).abs() < 1e-12);
//! ```

use core::cmp::Ordering;
use core::fmt;
use core::iter::{Product, Sum};
use core::num::FpCategory;
use core::ops::SubAssign;
use core::ops::{Add, AddAssign, Div, DivAssign, Mul, MulAssign, Neg, Rem, RemAssign, Sub};
use ndarray::{
    Array, Array2, ArrayBase, ArrayView, ArrayView2, ArrayViewMut, Axis, Data, Dimension,
    ScalarOperand, ShapeBuilder, Zip,
};
use num_traits::{FloatConst, Num, NumCast, One, ToPrimitive, Zero};

/// A value and its tangent (the derivative along one direction).
#[derive(Clone, Copy, Default)]
#[repr(C)]
pub struct Dual<F> {
    /// The value.
    pub value: F,
    /// The derivative of the value along the direction.
    pub tangent: F,
}

impl<F: num_traits::Float> Dual<F> {
    /// `value + ε·tangent`.
    #[inline]
    pub fn new(value: F, tangent: F) -> Self {
        Dual { value, tangent }
    }

    /// A constant: its tangent is zero.
    #[inline]
    pub fn constant(value: F) -> Self {
        Dual {
            value,
            tangent: F::zero(),
        }
    }

    /// The dual of `f(x)` whose derivative at `x` is `df`.
    #[inline]
    fn chain(self, value: F, df: F) -> Self {
        Dual {
            value,
            tangent: df * self.tangent,
        }
    }
}

impl<F: fmt::Debug> fmt::Debug for Dual<F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Dual({:?} + ε{:?})", self.value, self.tangent)
    }
}

impl<F: fmt::Display> fmt::Display for Dual<F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} + ε{}", self.value, self.tangent)
    }
}

/// Equal values: the tangents are not compared (see the module's docs).
impl<F: PartialEq> PartialEq for Dual<F> {
    #[inline]
    fn eq(&self, other: &Self) -> bool {
        self.value == other.value
    }
}

impl<F: PartialOrd> PartialOrd for Dual<F> {
    #[inline]
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        self.value.partial_cmp(&other.value)
    }
}

impl<F: num_traits::Float> Add for Dual<F> {
    type Output = Self;
    #[inline]
    fn add(self, o: Self) -> Self {
        Dual::new(self.value + o.value, self.tangent + o.tangent)
    }
}

impl<F: num_traits::Float> Sub for Dual<F> {
    type Output = Self;
    #[inline]
    fn sub(self, o: Self) -> Self {
        Dual::new(self.value - o.value, self.tangent - o.tangent)
    }
}

impl<F: num_traits::Float> Mul for Dual<F> {
    type Output = Self;
    #[inline]
    fn mul(self, o: Self) -> Self {
        Dual::new(
            self.value * o.value,
            self.tangent * o.value + self.value * o.tangent,
        )
    }
}

/// `(a + εȧ) / (b + εḃ) = a/b + ε(ȧ − (a/b)·ḃ)/b`. By an infinite `b` (an
/// overflowed `exp`, as in `1 / (1 + e^{1000})`) a finite `a` gives the
/// quotient 0 all around, whose tangent is 0, where IEEE would give NaN
/// (`0·∞`, `∞/∞`).
impl<F: num_traits::Float> Div for Dual<F> {
    type Output = Self;
    #[inline]
    fn div(self, o: Self) -> Self {
        let q = self.value / o.value;
        let tangent = (self.tangent - q * o.tangent) / o.value;
        let flat = o.value.is_infinite() && self.value.is_finite();
        Dual::new(q, if flat { F::zero() } else { tangent })
    }
}

/// `x % y = x - trunc(x / y)·y`: the quotient is a constant of the derivative.
impl<F: num_traits::Float> Rem for Dual<F> {
    type Output = Self;
    #[inline]
    fn rem(self, o: Self) -> Self {
        let k = (self.value / o.value).trunc();
        Dual::new(self.value % o.value, self.tangent - k * o.tangent)
    }
}

impl<F: num_traits::Float> Neg for Dual<F> {
    type Output = Self;
    #[inline]
    fn neg(self) -> Self {
        Dual::new(-self.value, -self.tangent)
    }
}

macro_rules! assign_ops {
    ($($trait:ident $method:ident $op:tt;)*) => {$(
        impl<F: num_traits::Float> $trait for Dual<F> {
            #[inline]
            fn $method(&mut self, o: Self) {
                *self = *self $op o;
            }
        }
    )*};
}
assign_ops! {
    AddAssign add_assign +;
    SubAssign sub_assign -;
    MulAssign mul_assign *;
    DivAssign div_assign /;
    RemAssign rem_assign %;
}

/// The operators by reference, as Rust has them for `f64` (`&a * &b`,
/// `a + &b`, `&a - b`): a body's arithmetic on the references an iterator
/// gives compiles in its copy over duals.
macro_rules! by_reference {
    ($($trait:ident $method:ident $op:tt;)*) => {$(
        impl<F: num_traits::Float> $trait<&Dual<F>> for Dual<F> {
            type Output = Self;
            #[inline]
            fn $method(self, o: &Self) -> Self {
                self $op *o
            }
        }
        impl<F: num_traits::Float> $trait<Dual<F>> for &Dual<F> {
            type Output = Dual<F>;
            #[inline]
            fn $method(self, o: Dual<F>) -> Dual<F> {
                *self $op o
            }
        }
        impl<F: num_traits::Float> $trait<&Dual<F>> for &Dual<F> {
            type Output = Dual<F>;
            #[inline]
            fn $method(self, o: &Dual<F>) -> Dual<F> {
                *self $op *o
            }
        }
    )*};
}
by_reference! {
    Add add +;
    Sub sub -;
    Mul mul *;
    Div div /;
    Rem rem %;
}

impl<F: num_traits::Float> Neg for &Dual<F> {
    type Output = Dual<F>;
    #[inline]
    fn neg(self) -> Dual<F> {
        -*self
    }
}

impl<F: num_traits::Float> Sum for Dual<F> {
    fn sum<I: Iterator<Item = Self>>(iter: I) -> Self {
        iter.fold(Self::zero(), |a, b| a + b)
    }
}

impl<'a, F: num_traits::Float> Sum<&'a Dual<F>> for Dual<F> {
    fn sum<I: Iterator<Item = &'a Self>>(iter: I) -> Self {
        iter.fold(Self::zero(), |a, b| a + *b)
    }
}

impl<F: num_traits::Float> Product for Dual<F> {
    fn product<I: Iterator<Item = Self>>(iter: I) -> Self {
        iter.fold(Self::one(), |a, b| a * b)
    }
}

impl<'a, F: num_traits::Float> Product<&'a Dual<F>> for Dual<F> {
    fn product<I: Iterator<Item = &'a Self>>(iter: I) -> Self {
        iter.fold(Self::one(), |a, b| a * *b)
    }
}

impl<F: num_traits::Float> Zero for Dual<F> {
    #[inline]
    fn zero() -> Self {
        Dual::constant(F::zero())
    }
    #[inline]
    fn is_zero(&self) -> bool {
        self.value.is_zero() && self.tangent.is_zero()
    }
}

impl<F: num_traits::Float> One for Dual<F> {
    #[inline]
    fn one() -> Self {
        Dual::constant(F::one())
    }
    /// One with no tangent (as `is_zero` compares both parts).
    #[inline]
    fn is_one(&self) -> bool {
        self.value.is_one() && self.tangent.is_zero()
    }
}

impl<F: num_traits::Float> Num for Dual<F> {
    type FromStrRadixErr = F::FromStrRadixErr;
    fn from_str_radix(s: &str, radix: u32) -> Result<Self, Self::FromStrRadixErr> {
        F::from_str_radix(s, radix).map(Dual::constant)
    }
}

impl<F: num_traits::Float> ToPrimitive for Dual<F> {
    fn to_i64(&self) -> Option<i64> {
        self.value.to_i64()
    }
    fn to_u64(&self) -> Option<u64> {
        self.value.to_u64()
    }
    fn to_f64(&self) -> Option<f64> {
        self.value.to_f64()
    }
    fn to_f32(&self) -> Option<f32> {
        self.value.to_f32()
    }
}

impl<F: num_traits::Float + num_traits::FromPrimitive> num_traits::FromPrimitive for Dual<F> {
    fn from_i64(n: i64) -> Option<Self> {
        F::from_i64(n).map(Dual::constant)
    }
    fn from_u64(n: u64) -> Option<Self> {
        F::from_u64(n).map(Dual::constant)
    }
    fn from_f64(n: f64) -> Option<Self> {
        F::from_f64(n).map(Dual::constant)
    }
}

impl<F: num_traits::Float> NumCast for Dual<F> {
    fn from<T: ToPrimitive>(n: T) -> Option<Self> {
        F::from(n).map(Dual::constant)
    }
}

impl<F: ScalarOperand> ScalarOperand for Dual<F> {}

macro_rules! constants {
    ($($name:ident)*) => {$(
        #[inline]
        fn $name() -> Self {
            Dual::constant(F::$name())
        }
    )*};
}

macro_rules! piecewise_constant {
    ($($name:ident)*) => {$(
        /// Piecewise constant: its derivative is zero.
        #[inline]
        fn $name(self) -> Self {
            Dual::constant(self.value.$name())
        }
    )*};
}

macro_rules! value_tests {
    ($($name:ident)*) => {$(
        #[inline]
        fn $name(self) -> bool {
            self.value.$name()
        }
    )*};
}

impl<F: num_traits::Float + FloatConst> num_traits::Float for Dual<F> {
    constants!(nan infinity neg_infinity neg_zero min_value min_positive_value max_value epsilon);
    piecewise_constant!(floor ceil round trunc signum);
    value_tests!(is_nan is_infinite is_finite is_normal is_sign_positive is_sign_negative);

    fn classify(self) -> FpCategory {
        self.value.classify()
    }
    fn integer_decode(self) -> (u64, i16, i8) {
        self.value.integer_decode()
    }
    #[inline]
    fn fract(self) -> Self {
        Dual::new(self.value.fract(), self.tangent)
    }
    /// `|x|`, whose derivative is 0 at the kink (as the reverse sweep's).
    #[inline]
    fn abs(self) -> Self {
        let s = if self.value > F::zero() {
            F::one()
        } else if self.value < F::zero() {
            -F::one()
        } else {
            F::zero()
        };
        self.chain(self.value.abs(), s)
    }
    #[inline]
    fn mul_add(self, a: Self, b: Self) -> Self {
        self * a + b
    }
    /// `1/x`, whose tangent is 0 at `x = ±∞` (see [`Div`]).
    #[inline]
    fn recip(self) -> Self {
        Self::one() / self
    }
    #[inline]
    fn powi(self, n: i32) -> Self {
        let d = if n == 0 {
            F::zero()
        } else {
            F::from(n).expect("an i32 is a float") * self.value.powi(n - 1)
        };
        self.chain(self.value.powi(n), d)
    }
    /// `xʸ`: `y·xʸ⁻¹·ẋ + ln x·xʸ·ẏ`, the second term only where `ẏ ≠ 0`
    /// (so a constant exponent of a negative base stays finite) and where
    /// `xʸ ≠ 0` (`0ʸ` does not move with `y`, as the reverse sweep's rule
    /// says; `ln 0·0` would be NaN).
    #[inline]
    fn powf(self, y: Self) -> Self {
        let p = self.value.powf(y.value);
        let dx = if y.value.is_zero() {
            F::zero()
        } else {
            y.value * self.value.powf(y.value - F::one())
        };
        let mut tangent = dx * self.tangent;
        if !y.tangent.is_zero() && !p.is_zero() {
            tangent = tangent + self.value.ln() * p * y.tangent;
        }
        Dual::new(p, tangent)
    }
    #[inline]
    fn sqrt(self) -> Self {
        let s = self.value.sqrt();
        self.chain(s, (s + s).recip())
    }
    #[inline]
    fn cbrt(self) -> Self {
        let c = self.value.cbrt();
        self.chain(c, (F::from(3.0).expect("3") * c * c).recip())
    }
    #[inline]
    fn exp(self) -> Self {
        let e = self.value.exp();
        self.chain(e, e)
    }
    #[inline]
    fn exp2(self) -> Self {
        let e = self.value.exp2();
        self.chain(e, e * F::LN_2())
    }
    #[inline]
    fn exp_m1(self) -> Self {
        self.chain(self.value.exp_m1(), self.value.exp())
    }
    #[inline]
    fn ln(self) -> Self {
        self.chain(self.value.ln(), self.value.recip())
    }
    #[inline]
    fn ln_1p(self) -> Self {
        self.chain(self.value.ln_1p(), (F::one() + self.value).recip())
    }
    #[inline]
    fn log(self, base: Self) -> Self {
        self.ln() / base.ln()
    }
    #[inline]
    fn log2(self) -> Self {
        self.chain(self.value.log2(), (self.value * F::LN_2()).recip())
    }
    #[inline]
    fn log10(self) -> Self {
        self.chain(self.value.log10(), (self.value * F::LN_10()).recip())
    }
    #[inline]
    fn to_degrees(self) -> Self {
        let k = F::from(180.0).expect("180") / F::PI();
        self.chain(self.value.to_degrees(), k)
    }
    #[inline]
    fn to_radians(self) -> Self {
        let k = F::PI() / F::from(180.0).expect("180");
        self.chain(self.value.to_radians(), k)
    }
    /// The larger, `self` on a tie (as the reverse sweep's `max`).
    #[inline]
    fn max(self, o: Self) -> Self {
        if self.value >= o.value || o.value.is_nan() {
            self
        } else {
            o
        }
    }
    /// The smaller, `self` on a tie (as the reverse sweep's `min`).
    #[inline]
    fn min(self, o: Self) -> Self {
        if self.value <= o.value || o.value.is_nan() {
            self
        } else {
            o
        }
    }
    #[inline]
    fn clamp(self, lo: Self, hi: Self) -> Self {
        if self.value < lo.value {
            lo
        } else if self.value > hi.value {
            hi
        } else {
            self
        }
    }
    #[allow(deprecated, reason = "num_traits::Float requires it")]
    fn abs_sub(self, o: Self) -> Self {
        if self.value > o.value {
            self - o
        } else {
            Self::zero()
        }
    }
    #[inline]
    fn hypot(self, o: Self) -> Self {
        let h = self.value.hypot(o.value);
        let tangent = if h.is_zero() {
            F::zero()
        } else {
            (self.value * self.tangent + o.value * o.tangent) / h
        };
        Dual::new(h, tangent)
    }
    #[inline]
    fn sin(self) -> Self {
        self.chain(self.value.sin(), self.value.cos())
    }
    #[inline]
    fn cos(self) -> Self {
        self.chain(self.value.cos(), -self.value.sin())
    }
    #[inline]
    fn tan(self) -> Self {
        let t = self.value.tan();
        self.chain(t, F::one() + t * t)
    }
    #[inline]
    fn asin(self) -> Self {
        let d = (F::one() - self.value * self.value).sqrt().recip();
        self.chain(self.value.asin(), d)
    }
    #[inline]
    fn acos(self) -> Self {
        let d = -(F::one() - self.value * self.value).sqrt().recip();
        self.chain(self.value.acos(), d)
    }
    #[inline]
    fn atan(self) -> Self {
        self.chain(
            self.value.atan(),
            (F::one() + self.value * self.value).recip(),
        )
    }
    /// `atan2(y, x)` of `self = y`: `(x·ẏ − y·ẋ) / (x² + y²)`.
    #[inline]
    fn atan2(self, x: Self) -> Self {
        let r2 = self.value * self.value + x.value * x.value;
        Dual::new(
            self.value.atan2(x.value),
            (x.value * self.tangent - self.value * x.tangent) / r2,
        )
    }
    #[inline]
    fn sin_cos(self) -> (Self, Self) {
        (self.sin(), self.cos())
    }
    #[inline]
    fn sinh(self) -> Self {
        self.chain(self.value.sinh(), self.value.cosh())
    }
    #[inline]
    fn cosh(self) -> Self {
        self.chain(self.value.cosh(), self.value.sinh())
    }
    #[inline]
    fn tanh(self) -> Self {
        let t = self.value.tanh();
        self.chain(t, F::one() - t * t)
    }
    #[inline]
    fn asinh(self) -> Self {
        let d = (self.value * self.value + F::one()).sqrt().recip();
        self.chain(self.value.asinh(), d)
    }
    #[inline]
    fn acosh(self) -> Self {
        let d = (self.value * self.value - F::one()).sqrt().recip();
        self.chain(self.value.acosh(), d)
    }
    #[inline]
    fn atanh(self) -> Self {
        let d = (F::one() - self.value * self.value).recip();
        self.chain(self.value.atanh(), d)
    }
    #[inline]
    fn copysign(self, sign: Self) -> Self {
        if self.value.is_sign_negative() == sign.value.is_sign_negative() {
            self
        } else {
            -self
        }
    }
}

macro_rules! float_constants {
    ($($name:ident)*) => {
        impl<F: num_traits::Float + FloatConst> FloatConst for Dual<F> {
            $(
                #[inline]
                fn $name() -> Self {
                    Dual::constant(F::$name())
                }
            )*
        }
    };
}
float_constants!(E FRAC_1_PI FRAC_1_SQRT_2 FRAC_2_PI FRAC_2_SQRT_PI FRAC_PI_2 FRAC_PI_3
    FRAC_PI_4 FRAC_PI_6 FRAC_PI_8 LN_10 LN_2 LOG10_E LOG2_E PI SQRT_2 TAU LOG10_2 LOG2_10);

/// Values with tangents, and their parts: what `NAME_jvp` and `NAME_hvp`
/// build from a point and a direction and take apart again.
pub trait Dualize: Sized {
    /// The same value made of duals.
    type Dual;
    /// The value whose tangent is `direction`.
    fn with_tangent(&self, direction: &Self) -> Self::Dual;
    /// The value as a constant (every tangent zero).
    fn constant(&self) -> Self::Dual;
    /// The values of `d`.
    fn value_of(d: &Self::Dual) -> Self;
    /// The tangents of `d`.
    fn tangent_of(d: &Self::Dual) -> Self;
}

macro_rules! dualize_float {
    ($($f:ty),*) => {$(
        impl Dualize for $f {
            type Dual = Dual<$f>;
            #[inline]
            fn with_tangent(&self, direction: &$f) -> Dual<$f> {
                Dual::new(*self, *direction)
            }
            #[inline]
            fn constant(&self) -> Dual<$f> {
                Dual::constant(*self)
            }
            #[inline]
            fn value_of(d: &Dual<$f>) -> $f {
                d.value
            }
            #[inline]
            fn tangent_of(d: &Dual<$f>) -> $f {
                d.tangent
            }
        }
    )*};
}
dualize_float!(f32, f64);

/// A dual with a tangent of its own: forward over forward (`NAME_jvp` of a
/// function generic over its float type, run on duals).
impl<F: crate::Float> Dualize for Dual<F> {
    type Dual = Dual<Dual<F>>;
    #[inline]
    fn with_tangent(&self, direction: &Self) -> Dual<Dual<F>> {
        Dual::new(*self, *direction)
    }
    #[inline]
    fn constant(&self) -> Dual<Dual<F>> {
        Dual::constant(*self)
    }
    #[inline]
    fn value_of(d: &Dual<Dual<F>>) -> Self {
        d.value
    }
    #[inline]
    fn tangent_of(d: &Dual<Dual<F>>) -> Self {
        d.tangent
    }
}

impl<F: crate::Float, D: Dimension> Dualize for Array<F, D> {
    type Dual = Array<Dual<F>, D>;
    fn with_tangent(&self, direction: &Self) -> Array<Dual<F>, D> {
        assert_eq!(
            self.shape(),
            direction.shape(),
            "a direction of shape {:?} for a parameter of shape {:?}",
            direction.shape(),
            self.shape()
        );
        Zip::from(self).and(direction).map_collect(|&v, &t| Dual {
            value: v,
            tangent: t,
        })
    }
    fn constant(&self) -> Array<Dual<F>, D> {
        self.mapv(Dual::constant)
    }
    fn value_of(d: &Array<Dual<F>, D>) -> Self {
        d.mapv(|x| x.value)
    }
    fn tangent_of(d: &Array<Dual<F>, D>) -> Self {
        d.mapv(|x| x.tangent)
    }
}

/// A sequence of values, each with its tangent (a model's `Vec` of layers).
impl<M: Dualize> Dualize for Vec<M> {
    type Dual = Vec<M::Dual>;
    fn with_tangent(&self, direction: &Self) -> Vec<M::Dual> {
        assert_eq!(
            self.len(),
            direction.len(),
            "a direction of {} elements for a sequence of {}",
            direction.len(),
            self.len()
        );
        self.iter()
            .zip(direction)
            .map(|(x, d)| x.with_tangent(d))
            .collect()
    }
    fn constant(&self) -> Vec<M::Dual> {
        self.iter().map(Dualize::constant).collect()
    }
    fn value_of(d: &Vec<M::Dual>) -> Self {
        d.iter().map(M::value_of).collect()
    }
    fn tangent_of(d: &Vec<M::Dual>) -> Self {
        d.iter().map(M::tangent_of).collect()
    }
}

impl<M: Dualize, const N: usize> Dualize for [M; N] {
    type Dual = [M::Dual; N];
    fn with_tangent(&self, direction: &Self) -> [M::Dual; N] {
        core::array::from_fn(|i| self[i].with_tangent(&direction[i]))
    }
    fn constant(&self) -> [M::Dual; N] {
        core::array::from_fn(|i| self[i].constant())
    }
    fn value_of(d: &[M::Dual; N]) -> Self {
        core::array::from_fn(|i| M::value_of(&d[i]))
    }
    fn tangent_of(d: &[M::Dual; N]) -> Self {
        core::array::from_fn(|i| M::tangent_of(&d[i]))
    }
}

impl<M: Dualize> Dualize for Box<M> {
    type Dual = Box<M::Dual>;
    fn with_tangent(&self, direction: &Self) -> Box<M::Dual> {
        Box::new((**self).with_tangent(direction))
    }
    fn constant(&self) -> Box<M::Dual> {
        Box::new((**self).constant())
    }
    fn value_of(d: &Box<M::Dual>) -> Self {
        Box::new(M::value_of(d))
    }
    fn tangent_of(d: &Box<M::Dual>) -> Self {
        Box::new(M::tangent_of(d))
    }
}

/// A tuple value (`-> (f64, Array1<f64>)`), component by component: the
/// `NAME_jvp` of a function whose value is a tuple returns the tuple of its
/// values and the tuple of its tangents.
macro_rules! dualize_tuple {
    ($($T:ident $i:tt),+) => {
        impl<$($T: Dualize),+> Dualize for ($($T,)+) {
            type Dual = ($($T::Dual,)+);
            fn with_tangent(&self, direction: &Self) -> Self::Dual {
                ($(self.$i.with_tangent(&direction.$i),)+)
            }
            fn constant(&self) -> Self::Dual {
                ($(self.$i.constant(),)+)
            }
            fn value_of(d: &Self::Dual) -> Self {
                ($($T::value_of(&d.$i),)+)
            }
            fn tangent_of(d: &Self::Dual) -> Self {
                ($($T::tangent_of(&d.$i),)+)
            }
        }
    };
}
dualize_tuple!(A 0);
dualize_tuple!(A 0, B 1);
dualize_tuple!(A 0, B 1, C 2);
dualize_tuple!(A 0, B 1, C 2, D 3);
dualize_tuple!(A 0, B 1, C 2, D 3, E 4);
dualize_tuple!(A 0, B 1, C 2, D 3, E 4, G 5);
dualize_tuple!(A 0, B 1, C 2, D 3, E 4, G 5, H 6);
dualize_tuple!(A 0, B 1, C 2, D 3, E 4, G 5, H 6, I 7);

/// `x` with tangent `direction`: a float or an array, by value or borrowed.
#[inline]
pub fn with_tangent<T: Dualize>(x: &T, direction: &T) -> T::Dual {
    x.with_tangent(direction)
}

/// `x` as a constant of the derivative.
#[inline]
pub fn constant<T: Dualize>(x: &T) -> T::Dual {
    x.constant()
}

/// The value and the tangent of a dual float, array or tuple of them.
#[inline]
pub fn split<T: Dualize>(d: &T::Dual) -> (T, T) {
    (T::value_of(d), T::tangent_of(d))
}

/// A constant of the user's code in a copy over duals (`PI`, `scale(C)`),
/// which the original reads as an `f64` or `f32` (or an array of them):
/// `(&Lift(&c)).lift::<F>()` is it in the copy's float type `F`, a constant
/// (a zero tangent), and a value already of that type a copy of it. The
/// first impl that applies is the one of the exact type ([`LiftConstant`]);
/// any other value reaches [`LiftAsIs`] through one more reference.
#[doc(hidden)]
pub struct Lift<'a, T>(pub &'a T);

/// [`Lift`] of an `f64`, an `f32` or an array of them: converted.
#[doc(hidden)]
pub trait LiftConstant {
    /// The value in the float type `F`.
    type Out<F: crate::value::Float>;
    /// Converts.
    fn lift<F: crate::value::Float>(&self) -> Self::Out<F>;
}

macro_rules! lift_scalar {
    ($($t:ty),*) => {$(
        impl LiftConstant for Lift<'_, $t> {
            type Out<F: crate::value::Float> = F;
            #[inline]
            fn lift<F: crate::value::Float>(&self) -> F {
                F::from_f64(crate::value::Float::to_f64(*self.0))
            }
        }
        impl LiftConstant for Lift<'_, &$t> {
            type Out<F: crate::value::Float> = F;
            #[inline]
            fn lift<F: crate::value::Float>(&self) -> F {
                F::from_f64(crate::value::Float::to_f64(**self.0))
            }
        }
    )*};
}
lift_scalar!(f64, f32);

macro_rules! lift_array {
    ($($t:ty),*) => {$(
        impl<D: ndarray::Dimension> LiftConstant for Lift<'_, ndarray::Array<$t, D>> {
            type Out<F: crate::value::Float> = ndarray::Array<F, D>;
            #[inline]
            fn lift<F: crate::value::Float>(&self) -> ndarray::Array<F, D> {
                self.0.mapv(|x| F::from_f64(crate::value::Float::to_f64(x)))
            }
        }
        // A view of constant data (a method's `self.xs` walked as a view).
        impl<D: ndarray::Dimension> LiftConstant for Lift<'_, ndarray::ArrayView<'_, $t, D>> {
            type Out<F: crate::value::Float> = ndarray::Array<F, D>;
            #[inline]
            fn lift<F: crate::value::Float>(&self) -> ndarray::Array<F, D> {
                self.0.mapv(|x| F::from_f64(crate::value::Float::to_f64(x)))
            }
        }
    )*};
}
// Owned arrays of `f64` and `f32` only: an array of duals keeps its
// tangents.
lift_array!(f64, f32);

macro_rules! lift_container {
    ($($t:ty),*) => {$(
        impl LiftConstant for Lift<'_, Vec<$t>> {
            type Out<F: crate::value::Float> = Vec<F>;
            #[inline]
            fn lift<F: crate::value::Float>(&self) -> Vec<F> {
                self.0.iter().map(|&x| F::from_f64(crate::value::Float::to_f64(x))).collect()
            }
        }
        impl<const N: usize> LiftConstant for Lift<'_, [$t; N]> {
            type Out<F: crate::value::Float> = [F; N];
            #[inline]
            fn lift<F: crate::value::Float>(&self) -> [F; N] {
                core::array::from_fn(|i| F::from_f64(crate::value::Float::to_f64(self.0[i])))
            }
        }
    )*};
}
// The data of a method's constant `self` (`xs: Vec<f64>`, `k: [f64; 3]`).
lift_container!(f64, f32);

/// An argument of a call of the user's over constants in a copy over
/// duals (`scale(n.tanh())` of `let n = xs.len() as f64;`, whose `n` the
/// copy makes its `__F`), as the callee takes it: `(&Unlift(&x)).unlift()`
/// is a float converted to the original's float type (the callee's
/// parameter's, [`UnliftFloat`]), any other value cloned ([`UnliftAsIs`],
/// through one more reference, as [`Lift`]).
#[doc(hidden)]
pub struct Unlift<'a, T>(pub &'a T);

/// [`Unlift`] of a float: converted to the float type `T` the callee takes.
#[doc(hidden)]
pub trait UnliftFloat {
    /// The value in the float type `T`.
    fn unlift<T: crate::value::Float>(&self) -> T;
}

impl<F: crate::value::Float> UnliftFloat for Unlift<'_, F> {
    #[inline]
    fn unlift<T: crate::value::Float>(&self) -> T {
        T::from_f64(crate::value::Float::to_f64(*self.0))
    }
}

/// [`Unlift`] of any other value: a copy.
#[doc(hidden)]
pub trait UnliftAsIs {
    /// The value.
    type Out;
    /// A copy of the value.
    fn unlift(&self) -> Self::Out;
}

impl<X: Clone> UnliftAsIs for &Unlift<'_, X> {
    type Out = X;
    #[inline]
    fn unlift(&self) -> X {
        self.0.clone()
    }
}

/// [`Lift`] of any other value (one of the copy's float type): a copy.
#[doc(hidden)]
pub trait LiftAsIs {
    /// The value.
    type Out;
    /// A copy of the value.
    fn lift<F>(&self) -> Self::Out;
}

impl<T: Clone> LiftAsIs for &Lift<'_, T> {
    type Out = T;
    #[inline]
    fn lift<F>(&self) -> T {
        self.0.clone()
    }
}

/// How a `#[differentiable(jvp)]` or `(hvp)` function reaches the copies
/// over duals of a function it calls, `f`: `FGrad::__copies::<f>()` (`f` a
/// type of the function's name that the caller writes), then `.call(..)`
/// and `.vjp(..)`. A second-order function's gradient struct has an
/// inherent `__copies`, which comes first; any other type finds this one,
/// whose bound [`SecondOrder`] no type meets, so rustc reports the message
/// below at the call and nothing after it (the value is of an error type).
#[doc(hidden)]
pub trait SecondOrderCalls {
    /// Never called: its bound fails.
    fn __copies<C>() -> <Self as SecondOrder<C>>::Calls
    where
        Self: SecondOrder<C>,
    {
        unreachable!("no type meets `SecondOrder`")
    }
}

impl<T: ?Sized> SecondOrderCalls for T {}

/// Met by no type: the message of a call of a function without a second
/// order from one with (see [`SecondOrderCalls`]).
#[doc(hidden)]
#[diagnostic::on_unimplemented(
    message = "`{C}` has no second order, and a `#[differentiable(jvp)]` or `(hvp)` function calls it",
    label = "mark `{C}` `#[differentiable(jvp)]` (or `hvp`) too",
    note = "a `jvp`/`hvp` function runs the functions it calls on dual numbers, through their copies that `jvp` and `hvp` write; `jvp` on `{C}` is enough (`hvp` writes `{C}_hvp` too)",
    note = "if `{C}` has an `#[adjoint]` rule: write `{C}` and the rule generic over `T: backprop::Float` and mark the rule `#[adjoint({C}, hvp)]`"
)]
pub trait SecondOrder<C> {
    /// What `.call(..)` and `.vjp(..)` are methods of.
    type Calls;
}

/// The matrix product of duals by products of floats (ndarray's):
/// `(A + εȦ)(B + εḂ) = AB + ε(ȦB + AḂ)`.
///
/// Where the rows of `a` are contiguous, its memory is an `m × 2k` matrix
/// of floats whose columns alternate values and tangents, and so is the
/// product's `m × 2n`: one product of floats, `[A Ȧ] · W`, with
/// `W = [[B, Ḃ], [0, B]]` interleaved the same way, writes the product of
/// duals in place. Where the columns of `a` are contiguous (a transposed
/// operand, `hᵀ·G`) and the rows of `b`, one product of floats
/// `[A; Ȧ] · [B Ḃ]`, rows and columns interleaved, gives every block.
/// Where only the rows of `b` are contiguous, two products `A · [B Ḃ]` and
/// `Ȧ · [B Ḃ]`. Otherwise three products of the values and tangents, read
/// in place.
pub fn matmul<F: crate::Float>(
    a: &ArrayView2<'_, Dual<F>>,
    b: &ArrayView2<'_, Dual<F>>,
) -> Array2<Dual<F>> {
    let ((m, k), (k2, n)) = (a.dim(), b.dim());
    if k != k2 {
        // ndarray's panic message.
        return a.dot(b);
    }
    if let Some(a_raw) = raw_rows(a) {
        let mut w = Array2::<F>::zeros((2 * k, 2 * n));
        for ((l, j), d) in b.indexed_iter() {
            w[[2 * l, 2 * j]] = d.value;
            w[[2 * l, 2 * j + 1]] = d.tangent;
            w[[2 * l + 1, 2 * j + 1]] = d.value;
        }
        let mut out = Array2::<Dual<F>>::zeros((m, n));
        let mut out_raw = raw_rows_mut(&mut out);
        F::gemm(F::one(), &a_raw, &w.view(), F::zero(), &mut out_raw);
        return out;
    }
    if let (Some(a_raw), Some(b_raw)) = (raw_columns(a), raw_rows(b)) {
        // `[A; Ȧ]·[B Ḃ]`, rows and columns interleaved, in one product
        // (each operand packed once); `Ȧ·Ḃ` is not read.
        let p = F::matmul(&a_raw, &b_raw);
        let (v, v_t) = (ndarray::s![..;2, ..;2], ndarray::s![..;2, 1..;2]);
        return Zip::from(p.slice(v))
            .and(p.slice(v_t))
            .and(p.slice(ndarray::s![1..;2, ..;2]))
            .map_collect(|&v, &a_bt, &at_b| Dual {
                value: v,
                tangent: at_b + a_bt,
            });
    }
    if let Some(b_raw) = raw_rows(b) {
        // `A·[B Ḃ]` and `Ȧ·[B Ḃ]`, interleaved; `Ȧ·Ḃ` is not read.
        let p = F::matmul(&values(a), &b_raw);
        let q = F::matmul(&tangents(a), &b_raw);
        let step = ndarray::s![.., ..;2];
        let odd = ndarray::s![.., 1..;2];
        return Zip::from(p.slice(step))
            .and(p.slice(odd))
            .and(q.slice(step))
            .map_collect(|&v, &at_b, &a_bt| Dual {
                value: v,
                tangent: at_b + a_bt,
            });
    }
    let (av, at) = (values(a), tangents(a));
    let (bv, bt) = (values(b), tangents(b));
    let value = F::matmul(&av, &bv);
    let mut tangent = F::matmul(&at, &bv);
    F::gemm(F::one(), &av, &bt, F::one(), &mut tangent.view_mut());
    Zip::from(&value).and(&tangent).map_collect(|&v, &t| Dual {
        value: v,
        tangent: t,
    })
}

/// The memory of a matrix of duals whose rows are contiguous (each row's
/// duals next to each other, rows at a non-negative stride), as a matrix
/// of floats twice as wide: columns `2l` and `2l + 1` are the value and
/// the tangent of column `l`.
fn raw_rows<'a, F>(a: &ArrayView2<'a, Dual<F>>) -> Option<ArrayView2<'a, F>> {
    let (m, k) = a.dim();
    let (rs, cs) = (a.strides()[0], a.strides()[1]);
    if !(cs == 1 || k <= 1) || rs < 0 || m == 0 || k == 0 {
        return None;
    }
    let rs = if m == 1 { k as isize } else { rs };
    // SAFETY: each dual is two `F`s (`repr(C)`); the elements of row `i`
    // are at `i·rs` duals from the first, next to each other, so float
    // `(i, c)` of the view is at `2·i·rs + c` floats, inside `a`'s
    // elements, which the view's lifetime `'a` keeps alive and unchanged.
    let shape = (m, 2 * k).strides((2 * rs as usize, 1));
    Some(unsafe { ArrayView2::from_shape_ptr(shape, a.as_ptr() as *const F) })
}

/// The memory of a matrix of duals whose columns are contiguous (a
/// transposed [`raw_rows`] matrix), as a matrix of floats twice as tall:
/// rows `2i` and `2i + 1` are the values and the tangents of row `i`.
fn raw_columns<'a, F>(a: &ArrayView2<'a, Dual<F>>) -> Option<ArrayView2<'a, F>> {
    raw_rows(&(*a).reversed_axes()).map(|t| t.reversed_axes())
}

/// [`raw_rows`] of a new matrix in the standard layout, for writing.
fn raw_rows_mut<F>(a: &mut Array2<Dual<F>>) -> ndarray::ArrayViewMut2<'_, F> {
    let (m, k) = a.dim();
    assert!(
        a.is_standard_layout(),
        "a new matrix is in the standard layout"
    );
    // SAFETY: a standard-layout `m × k` matrix of duals is `2·m·k`
    // consecutive `F`s (`repr(C)`), borrowed mutably for the view's life.
    unsafe { ndarray::ArrayViewMut2::from_shape_ptr((m, 2 * k), a.as_mut_ptr() as *mut F) }
}

/// `c = α·a·b + β·c` over duals, by products of floats (see [`matmul`]).
pub fn gemm<F: crate::Float>(
    alpha: Dual<F>,
    a: &ArrayView2<'_, Dual<F>>,
    b: &ArrayView2<'_, Dual<F>>,
    beta: Dual<F>,
    c: &mut ndarray::ArrayViewMut2<'_, Dual<F>>,
) {
    let ab = matmul(a, b);
    Zip::from(c)
        .and(&ab)
        .for_each(|c, &p| *c = alpha * p + beta * *c);
}

/// A view of the values of an array of duals, without a copy.
pub fn values<F, S: Data<Elem = Dual<F>>, D: Dimension>(
    a: &ArrayBase<S, D>,
) -> ArrayView<'_, F, D> {
    parts_of_view(a.view()).0
}

/// A view of the tangents of an array of duals, without a copy.
pub fn tangents<F, S: Data<Elem = Dual<F>>, D: Dimension>(
    a: &ArrayBase<S, D>,
) -> ArrayView<'_, F, D> {
    parts_of_view(a.view()).1
}

/// The values and the tangents of a view of duals, as views of floats of
/// the same lifetime.
pub fn parts_of_view<F, D: Dimension>(
    a: ArrayView<'_, Dual<F>, D>,
) -> (ArrayView<'_, F, D>, ArrayView<'_, F, D>) {
    let (ptr, dim, reversed) = parts(a);
    let dim2 = dim.clone();
    // SAFETY: see `parts`; offsets 0 and 1 are each dual's `value` and
    // `tangent`, read only.
    let (values, tangents) = unsafe {
        (
            ArrayView::from_shape_ptr(dim, ptr as *const F),
            ArrayView::from_shape_ptr(dim2, (ptr as *const F).add(1)),
        )
    };
    (restore(values, &reversed), restore(tangents, &reversed))
}

/// The values and the tangents of a mutable view of duals, as two mutable
/// views of floats (disjoint: every float is one dual's value or its
/// tangent).
pub fn parts_of_view_mut<F, D: Dimension>(
    mut a: ArrayViewMut<'_, Dual<F>, D>,
) -> (ArrayViewMut<'_, F, D>, ArrayViewMut<'_, F, D>) {
    let base = a.as_mut_ptr();
    let (first, dim, reversed) = parts(a.view());
    let dim2 = dim.clone();
    // SAFETY: as in `parts_of_view`, from the pointer of the mutable
    // borrow, which lasts as long as the views; the two views never share
    // a float (`value` at offset 0, `tangent` at 1 of each dual).
    let (mut values, mut tangents) = unsafe {
        let first = base.offset(first.offset_from(base as *const Dual<F>)) as *mut F;
        (
            ArrayViewMut::from_shape_ptr(dim, first),
            ArrayViewMut::from_shape_ptr(dim2, first.add(1)),
        )
    };
    for &k in &reversed {
        values.invert_axis(Axis(k));
        tangents.invert_axis(Axis(k));
    }
    (values, tangents)
}

/// The pointer to the first dual in memory, the shape with strides in units
/// of `F` (twice those in duals: `Dual<F>` is `repr(C)` with two fields of
/// type `F`, `value` and `tangent` at offsets 0 and 1), and the axes turned
/// around on the way (every stride is made non-negative, so that the
/// pointer is the element of lowest address).
fn parts<F, D: Dimension>(
    mut v: ArrayView<'_, Dual<F>, D>,
) -> (*const Dual<F>, ndarray::StrideShape<D>, Vec<usize>) {
    let reversed: Vec<usize> = (0..v.ndim()).filter(|&k| v.strides()[k] < 0).collect();
    for &k in &reversed {
        v.invert_axis(Axis(k));
    }
    let mut strides = v.raw_dim();
    for (s, &t) in strides.slice_mut().iter_mut().zip(v.strides()) {
        *s = 2 * t as usize;
    }
    (v.as_ptr(), v.raw_dim().strides(strides), reversed)
}

/// Turns back the axes that [`parts`] turned around.
fn restore<'a, F, D: Dimension>(
    mut out: ArrayView<'a, F, D>,
    reversed: &[usize],
) -> ArrayView<'a, F, D> {
    for &k in reversed {
        out.invert_axis(Axis(k));
    }
    out
}
