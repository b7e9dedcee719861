//! The values the generated code moves around: float scalars and ndarray arrays.
//!
//! Every op of the vocabulary is generic over [`Value`], so the macro never
//! needs to know at compile time whether a local is a scalar or an array: the
//! trait system picks the right implementation, and each implementation is the
//! loop a careful person would write for that case.

use crate::dual::Dual;
use crate::model::{Leaf, LeafMut};
use core::fmt::{Debug, Display};
use core::iter::Sum;
use ndarray::{
    aview0, Array, Array2, ArrayBase, ArrayView, ArrayView2, ArrayViewD, ArrayViewMut2,
    ArrayViewMutD, Axis, Data, Dimension, Ix0, LinalgScalar, ScalarOperand, ShapeBuilder, Zip,
};
use num_traits::{One as _, Zero as _};

mod sealed {
    pub trait Sealed {}
    impl Sealed for f32 {}
    impl Sealed for f64 {}
    impl<F: super::Float> Sealed for crate::dual::Dual<F> {}
}

/// The operators of a reference to a float `F`, with a reference or a
/// value on the right (`&a * &b`, `&a - b`, `-&a`), as Rust has them for
/// `f64`. A generic function cannot have `Float` imply them (a bound on
/// `&F` is not a supertrait), so the copies over duals of
/// `#[differentiable(jvp)]` functions state `for<'r> &'r F: RefArith<F>`
/// and `F: ArithByRef`.
#[doc(hidden)]
pub trait RefArith<F>:
    Sized
    + core::ops::Add<F, Output = F>
    + core::ops::Sub<F, Output = F>
    + core::ops::Mul<F, Output = F>
    + core::ops::Div<F, Output = F>
    + core::ops::Rem<F, Output = F>
    + core::ops::Add<Self, Output = F>
    + core::ops::Sub<Self, Output = F>
    + core::ops::Mul<Self, Output = F>
    + core::ops::Div<Self, Output = F>
    + core::ops::Rem<Self, Output = F>
    + core::ops::Neg<Output = F>
    + Plain<Out = F>
{
}

impl<T, F> RefArith<F> for T where
    T: Sized
        + Plain<Out = F>
        + core::ops::Add<F, Output = F>
        + core::ops::Sub<F, Output = F>
        + core::ops::Mul<F, Output = F>
        + core::ops::Div<F, Output = F>
        + core::ops::Rem<F, Output = F>
        + core::ops::Add<T, Output = F>
        + core::ops::Sub<T, Output = F>
        + core::ops::Mul<T, Output = F>
        + core::ops::Div<T, Output = F>
        + core::ops::Rem<T, Output = F>
        + core::ops::Neg<Output = F>
{
}

/// The operators of a float with a reference on the right (`a + &b`), as
/// Rust has them for `f64`; see [`RefArith`].
#[doc(hidden)]
pub trait ArithByRef:
    Sized
    + for<'a> core::ops::Add<&'a Self, Output = Self>
    + for<'a> core::ops::Sub<&'a Self, Output = Self>
    + for<'a> core::ops::Mul<&'a Self, Output = Self>
    + for<'a> core::ops::Div<&'a Self, Output = Self>
    + for<'a> core::ops::Rem<&'a Self, Output = Self>
    + Plain<Out = Self>
{
}

impl<T> ArithByRef for T where
    T: Sized
        + Plain<Out = T>
        + for<'a> core::ops::Add<&'a T, Output = T>
        + for<'a> core::ops::Sub<&'a T, Output = T>
        + for<'a> core::ops::Mul<&'a T, Output = T>
        + for<'a> core::ops::Div<&'a T, Output = T>
        + for<'a> core::ops::Rem<&'a T, Output = T>
{
}

/// A float element type: `f32`, `f64`, or a dual of one of these (a
/// [`Dual`] of a `Float`, so also a dual of duals: forward over forward).
pub trait Float:
    num_traits::Float
    + num_traits::FloatConst
    + Operand<Value = Self>
    + crate::model::Differentiable
    + ScalarOperand
    + LinalgScalar
    + Debug
    + Display
    + Default
    + Sum
    + for<'a> Sum<&'a Self>
    + core::iter::Product
    + for<'a> core::iter::Product<&'a Self>
    + core::ops::AddAssign
    + core::ops::SubAssign
    + core::ops::MulAssign
    + core::ops::DivAssign
    + Send
    + Sync
    + sealed::Sealed
    + Tensor<Elem = Self, Dim = Ix0>
    + for<'a> crate::steps::Keep<Row<'a> = Self>
    + crate::dual::Dualize<Dual = Dual<Self>>
    + Reusable<Shape = Self>
    + for<'a> StandIn<View<'a> = Self>
    + 'static
{
    /// Converts to `f64` (used by `gradcheck` to compare in one precision).
    fn to_f64(self) -> f64;
    /// Converts from `f64`, rounding to the nearest representable value.
    fn from_f64(v: f64) -> Self;
    /// A view of a model's float leaf, tagged with its precision (what
    /// [`Differentiable::visit`](crate::model::Differentiable::visit) hands a visitor).
    fn leaf(view: ArrayViewD<'_, Self>) -> Leaf<'_>;
    /// A mutable view of a model's float leaf, tagged with its precision.
    fn leaf_mut(view: ArrayViewMutD<'_, Self>) -> LeafMut<'_>;
    /// The view of a leaf of this precision; `None` for the other one.
    fn from_leaf(leaf: Leaf<'_>) -> Option<ArrayViewD<'_, Self>>;
    /// The mutable view of a leaf of this precision; `None` for the other one.
    fn from_leaf_mut(leaf: LeafMut<'_>) -> Option<ArrayViewMutD<'_, Self>>;
    /// Hands `visitor` the leaves of a view of this type: the view, tagged
    /// with its precision ([`Float::leaf`]); for duals, the values and then
    /// the tangents, so that a visit that writes (a zeroing, a scaling)
    /// writes both.
    fn visit_leaves<'a>(
        view: ArrayViewD<'a, Self>,
        path: &crate::model::Path,
        visitor: &mut dyn crate::model::Visitor<'a>,
    ) {
        visitor.leaf(path, Self::leaf(view));
    }
    /// [`Float::visit_leaves`], for writing.
    fn visit_leaves_mut<'a>(
        view: ArrayViewMutD<'a, Self>,
        path: &crate::model::Path,
        visitor: &mut dyn crate::model::VisitorMut<'a>,
    ) {
        visitor.leaf(path, Self::leaf_mut(view));
    }
    /// The matrix product `a · b` (ndarray's `dot`); duals override it
    /// with products of floats.
    #[inline]
    fn matmul(a: &ArrayView2<'_, Self>, b: &ArrayView2<'_, Self>) -> Array2<Self> {
        a.dot(b)
    }
    /// `c = α·a·b + β·c` (ndarray's `general_mat_mul`); duals override it
    /// with products of floats.
    #[inline]
    fn gemm(
        alpha: Self,
        a: &ArrayView2<'_, Self>,
        b: &ArrayView2<'_, Self>,
        beta: Self,
        c: &mut ArrayViewMut2<'_, Self>,
    ) {
        ndarray::linalg::general_mat_mul(alpha, a, b, beta, c);
    }
}

macro_rules! float_leaf {
    ($f:ty, $variant:ident) => {
        fn leaf(view: ArrayViewD<'_, $f>) -> Leaf<'_> {
            Leaf::$variant(view)
        }
        fn leaf_mut(view: ArrayViewMutD<'_, $f>) -> LeafMut<'_> {
            LeafMut::$variant(view)
        }
        fn from_leaf(leaf: Leaf<'_>) -> Option<ArrayViewD<'_, $f>> {
            match leaf {
                Leaf::$variant(view) => Some(view),
                _ => None,
            }
        }
        fn from_leaf_mut(leaf: LeafMut<'_>) -> Option<ArrayViewMutD<'_, $f>> {
            match leaf {
                LeafMut::$variant(view) => Some(view),
                _ => None,
            }
        }
    };
}

impl Float for f32 {
    fn to_f64(self) -> f64 {
        f64::from(self)
    }
    fn from_f64(v: f64) -> Self {
        v as f32
    }
    float_leaf!(f32, F32);
}

impl Float for f64 {
    fn to_f64(self) -> f64 {
        self
    }
    fn from_f64(v: f64) -> Self {
        v
    }
    float_leaf!(f64, F64);
}

/// A dual is a float whose tangent rides along (see [`crate::dual`]). A
/// visitor of a model of duals sees the values; one that visits its
/// leaves sees the values and then the tangents (each a leaf of `F`'s, so
/// duals of duals show all four parts).
impl<F: Float> Float for Dual<F> {
    fn to_f64(self) -> f64 {
        self.value.to_f64()
    }
    fn from_f64(v: f64) -> Self {
        Dual::constant(F::from_f64(v))
    }
    fn leaf(view: ArrayViewD<'_, Self>) -> Leaf<'_> {
        F::leaf(crate::dual::parts_of_view(view).0)
    }
    fn leaf_mut(view: ArrayViewMutD<'_, Self>) -> LeafMut<'_> {
        F::leaf_mut(crate::dual::parts_of_view_mut(view).0)
    }
    fn from_leaf(_: Leaf<'_>) -> Option<ArrayViewD<'_, Self>> {
        None
    }
    fn visit_leaves<'a>(
        view: ArrayViewD<'a, Self>,
        path: &crate::model::Path,
        visitor: &mut dyn crate::model::Visitor<'a>,
    ) {
        let (values, tangents) = crate::dual::parts_of_view(view);
        F::visit_leaves(values, path, visitor);
        F::visit_leaves(tangents, path, visitor);
    }
    fn visit_leaves_mut<'a>(
        view: ArrayViewMutD<'a, Self>,
        path: &crate::model::Path,
        visitor: &mut dyn crate::model::VisitorMut<'a>,
    ) {
        let (values, tangents) = crate::dual::parts_of_view_mut(view);
        F::visit_leaves_mut(values, path, visitor);
        F::visit_leaves_mut(tangents, path, visitor);
    }
    fn from_leaf_mut(_: LeafMut<'_>) -> Option<ArrayViewMutD<'_, Self>> {
        None
    }
    fn matmul(a: &ArrayView2<'_, Self>, b: &ArrayView2<'_, Self>) -> Array2<Self> {
        crate::dual::matmul(a, b)
    }
    fn gemm(
        alpha: Self,
        a: &ArrayView2<'_, Self>,
        b: &ArrayView2<'_, Self>,
        beta: Self,
        c: &mut ArrayViewMut2<'_, Self>,
    ) {
        crate::dual::gemm(alpha, a, b, beta, c)
    }
}

/// A differentiable value: a float scalar (`f32`, `f64`) or an ndarray array of
/// floats of any storage (`Array`, `ArrayView`, ...) and any dimension.
///
/// `Owned` is the type of its gradient: `f64` for `f64`, `Array<F, D>` for any
/// `ArrayBase<S, D>`.
pub trait Value: Sized {
    /// The element type.
    type Elem: Float;
    /// The dimension: `Ix0` for a scalar.
    type Dim: Dimension;
    /// The owned counterpart, which is also the type of the gradient.
    type Owned: Tensor<Elem = Self::Elem, Dim = Self::Dim>;

    /// A view of the value as an array (a 0-d view for a scalar; no allocation).
    fn view(&self) -> ArrayView<'_, Self::Elem, Self::Dim>;
    /// The shape (empty for a scalar).
    fn shape(&self) -> &[usize];
    /// Applies `f` to every element.
    fn map_elems(&self, f: impl FnMut(Self::Elem) -> Self::Elem) -> Self::Owned;
    /// A zero of this value's shape: the gradient of an unused parameter.
    fn zeros_like(&self) -> Self::Owned {
        self.map_elems(|_| Self::Elem::zero())
    }
    /// The first element (the value itself for a scalar).
    fn first_elem(&self) -> Self::Elem;
    /// An owned copy.
    fn to_owned_value(&self) -> Self::Owned {
        self.map_elems(|x| x)
    }
    /// The sum of all elements: ndarray's `sum()` for an array (same order,
    /// same bits), the value itself for a scalar.
    fn sum_elems(&self) -> Self::Elem {
        self.view().sum()
    }
    /// The number of elements (1 for a scalar).
    fn len_elems(&self) -> usize {
        self.view().len()
    }
}

/// A value behind a reference is the value: the generated code may hold a
/// local that borrows a branch's result and pass it on borrowed again.
impl<T: Value> Value for &T {
    type Elem = T::Elem;
    type Dim = T::Dim;
    type Owned = T::Owned;
    #[inline]
    fn view(&self) -> ArrayView<'_, Self::Elem, Self::Dim> {
        (**self).view()
    }
    #[inline]
    fn shape(&self) -> &[usize] {
        (**self).shape()
    }
    #[inline]
    fn map_elems(&self, f: impl FnMut(Self::Elem) -> Self::Elem) -> Self::Owned {
        (**self).map_elems(f)
    }
    #[inline]
    fn first_elem(&self) -> Self::Elem {
        (**self).first_elem()
    }
    #[inline]
    fn sum_elems(&self) -> Self::Elem {
        (**self).sum_elems()
    }
}

/// An owned value (`f32`, `f64` or `Array<F, D>`): what gradients are made of.
pub trait Tensor: Value<Owned = Self> + Clone + Debug {
    /// Replaces every element `g` by `f(g, x, y)`, where `x` and `y` are the
    /// elements of `x` and `y` broadcast to this shape.
    fn zip_with2<X: Value<Elem = Self::Elem>, Y: Value<Elem = Self::Elem>>(
        self,
        x: &X,
        y: &Y,
        f: impl FnMut(Self::Elem, Self::Elem, Self::Elem) -> Self::Elem,
    ) -> Self;
    /// Replaces every element `g` by `f(g, x)`, where `x` is the element of `x`
    /// broadcast to this shape.
    #[inline]
    fn zip_with1<X: Value<Elem = Self::Elem>>(
        mut self,
        x: &X,
        f: impl FnMut(Self::Elem, Self::Elem) -> Self::Elem,
    ) -> Self {
        self.zip_assign(x, f);
        self
    }
    /// Replaces every element `a` of `self`, in place, by `f(a, x)`, where `x`
    /// is the element of `x` broadcast to this shape.
    fn zip_assign<X: Value<Elem = Self::Elem>>(
        &mut self,
        x: &X,
        f: impl FnMut(Self::Elem, Self::Elem) -> Self::Elem,
    );
    /// Builds the owned value from an array of its own dimension.
    fn from_array(a: Array<Self::Elem, Self::Dim>) -> Self;
    /// The sum of all elements.
    fn sum_all(&self) -> Self::Elem;
    /// A value of the given dimension filled with `v`.
    fn filled(dim: Self::Dim, v: Self::Elem) -> Self;
    /// Applies `f` to every element in place.
    fn map_owned(self, f: impl FnMut(Self::Elem) -> Self::Elem) -> Self;
    /// The value as an array of its own dimension (free for an array, a 0-d
    /// array for a scalar); [`Tensor::from_array`] is its inverse.
    fn into_array(self) -> Array<Self::Elem, Self::Dim> {
        self.view().to_owned()
    }
    /// The buffer of an array in the standard layout, its elements in
    /// order, for another array to be written into (see
    /// [`Spare`](crate::steps::Spare)); `None` for a scalar or another layout.
    fn into_buffer(self) -> Option<Vec<Self::Elem>> {
        None
    }
}

macro_rules! scalar_value {
    ($([$($g:tt)*] $f:ty),*) => {$(
        impl<$($g)*> Value for $f {
            type Elem = $f;
            type Dim = Ix0;
            type Owned = $f;
            #[inline]
            fn view(&self) -> ArrayView<'_, $f, Ix0> {
                aview0(self)
            }
            #[inline]
            fn shape(&self) -> &[usize] {
                &[]
            }
            #[inline]
            fn map_elems(&self, mut f: impl FnMut($f) -> $f) -> $f {
                f(*self)
            }
            #[inline]
            fn first_elem(&self) -> $f {
                *self
            }
            #[inline]
            fn sum_elems(&self) -> $f {
                *self
            }
            #[inline]
            fn len_elems(&self) -> usize {
                1
            }
        }

        impl<$($g)*> Tensor for $f {
            #[inline]
            fn zip_with2<X: Value<Elem = $f>, Y: Value<Elem = $f>>(
                self,
                x: &X,
                y: &Y,
                mut f: impl FnMut($f, $f, $f) -> $f,
            ) -> $f {
                // A scalar gradient comes only from scalar operands.
                f(self, x.first_elem(), y.first_elem())
            }
            #[inline]
            fn zip_assign<X: Value<Elem = $f>>(&mut self, x: &X, mut f: impl FnMut($f, $f) -> $f) {
                *self = f(*self, x.first_elem());
            }
            #[inline]
            fn from_array(a: Array<$f, Ix0>) -> $f {
                a.into_scalar()
            }
            #[inline]
            fn sum_all(&self) -> $f {
                *self
            }
            #[inline]
            fn filled(_: Ix0, v: $f) -> $f {
                v
            }
            #[inline]
            fn map_owned(self, mut f: impl FnMut($f) -> $f) -> $f {
                f(self)
            }
            #[inline]
            fn into_array(self) -> Array<$f, Ix0> {
                ndarray::arr0(self)
            }
        }
    )*};
}
scalar_value!([] f32, [] f64, [F: Float] Dual<F>);

impl<F: Float, S: Data<Elem = F>, D: Dimension> Value for ArrayBase<S, D> {
    type Elem = F;
    type Dim = D;
    type Owned = Array<F, D>;
    #[inline]
    fn view(&self) -> ArrayView<'_, F, D> {
        ndarray::ArrayRef::view(self)
    }
    #[inline]
    fn shape(&self) -> &[usize] {
        ndarray::LayoutRef::shape(self)
    }
    #[inline]
    fn map_elems(&self, f: impl FnMut(F) -> F) -> Array<F, D> {
        let mut f = f;
        self.map(|&x| f(x))
    }
    #[inline]
    fn first_elem(&self) -> F {
        *self.iter().next().expect("first_elem of an empty array")
    }
    #[inline]
    fn to_owned_value(&self) -> Array<F, D> {
        ndarray::ArrayRef::to_owned(self)
    }
    #[inline]
    fn sum_elems(&self) -> F {
        ndarray::ArrayRef::sum(self)
    }
    #[inline]
    fn len_elems(&self) -> usize {
        ndarray::LayoutRef::len(self)
    }
}

impl<F: Float, D: Dimension> Tensor for Array<F, D> {
    #[inline]
    fn zip_with2<X: Value<Elem = F>, Y: Value<Elem = F>>(
        mut self,
        x: &X,
        y: &Y,
        mut f: impl FnMut(F, F, F) -> F,
    ) -> Self {
        Zip::from(&mut self)
            .and_broadcast(x.view())
            .and_broadcast(y.view())
            .for_each(|g, &x, &y| *g = f(*g, x, y));
        self
    }
    #[inline]
    fn zip_assign<X: Value<Elem = F>>(&mut self, x: &X, f: impl FnMut(F, F) -> F) {
        let x = x.view();
        if self.ndim() == 0 || x.shape() == self.shape() {
            if let (Some(xs), Some(all)) = (x.as_slice(), self.as_slice_mut()) {
                // Both in the standard layout: two slices (the loop the
                // compiler vectorizes best), here where the caller inlines it.
                zip_rows(all, xs, f);
                return;
            }
        }
        zip_assign_strided(self, x, f);
    }
    #[inline]
    fn from_array(a: Array<F, D>) -> Self {
        a
    }
    #[inline]
    fn sum_all(&self) -> F {
        self.sum()
    }
    #[inline]
    fn filled(dim: D, v: F) -> Self {
        Array::from_elem(dim, v)
    }
    #[inline]
    fn map_owned(mut self, mut f: impl FnMut(F) -> F) -> Self {
        self.mapv_inplace(&mut f);
        self
    }
    #[inline]
    fn into_array(self) -> Array<F, D> {
        self
    }
    #[inline]
    fn into_buffer(self) -> Option<Vec<F>> {
        if !self.is_standard_layout() {
            return None;
        }
        let len = self.len();
        match self.into_raw_vec_and_offset() {
            (v, Some(0)) if v.len() == len => Some(v),
            _ => None,
        }
    }
}

/// An upstream gradient handed to an adjoint rule, owned or borrowed.
///
/// The generated code passes the last read of an adjoint by value (so a rule
/// can reuse its buffer) and every earlier read by reference.
pub trait Cot<T: Tensor> {
    /// The gradient as an owned value (free when owned, a copy when borrowed).
    fn into_owned(self) -> T;
    /// The gradient, borrowed.
    fn get(&self) -> &T;
}

impl<T: Tensor> Cot<T> for T {
    #[inline]
    fn into_owned(self) -> T {
        self
    }
    #[inline]
    fn get(&self) -> &T {
        self
    }
}

impl<T: Tensor> Cot<T> for &T {
    #[inline]
    fn into_owned(self) -> T {
        self.clone()
    }
    #[inline]
    fn get(&self) -> &T {
        self
    }
}

/// [`Tensor::zip_assign`] where the two are not slices of one length: a
/// layout other than the standard one, or a broadcast `x`.
fn zip_assign_strided<F: Float, D: Dimension, E: Dimension>(
    a: &mut Array<F, D>,
    x: ArrayView<'_, F, E>,
    mut f: impl FnMut(F, F) -> F,
) {
    if a.ndim() == 0 || x.shape() == a.shape() {
        Zip::from(a)
            .and_broadcast(&x)
            .for_each(|g, &x| *g = f(*g, x));
        return;
    }
    // A bias: a contiguous row added to every row of a contiguous array, as
    // a hand-written loop over rows does it (the compiler vectorizes the
    // inner loop).
    let cols = a.shape()[a.ndim() - 1];
    let row_like = x.ndim() <= a.ndim()
        && x.shape().last() == Some(&cols)
        && x.shape().iter().rev().skip(1).all(|&n| n == 1);
    if let (true, Some(xs), Some(all)) = (row_like, x.as_slice(), a.as_slice_mut()) {
        zip_rows(all, xs, f);
        return;
    }
    // Any other broadcast operand (a column, a middle axis): one lane at a
    // time, so that each inner loop runs over contiguous memory where it can.
    let last = Axis(a.ndim() - 1);
    let x = x.broadcast(a.raw_dim()).unwrap_or_else(|| {
        panic!(
            "zip_assign: cannot broadcast {:?} to {:?}",
            x.shape(),
            a.shape()
        )
    });
    Zip::from(a.lanes_mut(last))
        .and(x.lanes(last))
        .for_each(|mut lane, xs| {
            Zip::from(&mut lane)
                .and(&xs)
                .for_each(|g, &x| *g = f(*g, x))
        });
}

/// `g = f(g, x)` over `all`, with `x` running over `xs` again for each of
/// its rows of `xs.len()` elements (once when the two are as long).
fn zip_rows<F: Copy>(all: &mut [F], xs: &[F], mut f: impl FnMut(F, F) -> F) {
    if xs.is_empty() {
        return;
    }
    for row in all.chunks_exact_mut(xs.len()) {
        for (g, &x) in row.iter_mut().zip(xs) {
            *g = f(*g, x);
        }
    }
}

/// A gradient that is either its own array or one lent by another gradient
/// of the same values: the two operands of `a + b` with the gradient's shape
/// have the same gradient, so one of them borrows the other's (see
/// [`add_vjp_lend`](crate::ops::add_vjp_lend)). A rule that would
/// reuse its buffer copies a lent one, as it does any borrowed gradient.
#[derive(Debug)]
pub enum Lent<'a, T> {
    /// Its own array.
    Own(T),
    /// The other operand's.
    Lent(&'a T),
}

/// The gradient, as a model's field read adds it (`field_vjp`).
impl<T> core::borrow::Borrow<T> for Lent<'_, T> {
    #[inline]
    fn borrow(&self) -> &T {
        match self {
            Lent::Own(t) => t,
            Lent::Lent(t) => t,
        }
    }
}

impl<T: Tensor> Cot<T> for Lent<'_, T> {
    #[inline]
    fn into_owned(self) -> T {
        match self {
            Lent::Own(t) => t,
            Lent::Lent(t) => t.clone(),
        }
    }
    #[inline]
    fn get(&self) -> &T {
        match self {
            Lent::Own(t) => t,
            Lent::Lent(t) => t,
        }
    }
}

impl<T: Tensor> Cot<T> for &Lent<'_, T> {
    #[inline]
    fn into_owned(self) -> T {
        self.get().clone()
    }
    #[inline]
    fn get(&self) -> &T {
        Lent::get(self)
    }
}

/// The gradient `own` when there is one, else `other` lent: the second step
/// of [`add_vjp_lend`](crate::ops::add_vjp_lend), which returns no
/// gradient for the operand whose gradient is the other's.
///
/// # Panics
///
/// If `own` is `None` and `other` is not of type `T` (the rule returns
/// `None` only when the two types are the same).
#[inline]
pub fn lent<'a, T: 'static, U: 'static>(own: Option<T>, other: &'a U) -> Lent<'a, T> {
    match own {
        Some(t) => Lent::Own(t),
        None => Lent::Lent(
            (other as &dyn std::any::Any)
                .downcast_ref::<T>()
                .expect("lent: the two gradients are of one type"),
        ),
    }
}

/// The "gradient" of a parameter that a function does not differentiate, in
/// the positional gradients (`NAME_vjp`) of a called differentiable function.
/// Passing a differentiable value for such a parameter is a type error where
/// this value is used as a gradient.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NotDifferentiable;

/// An argument of a public op: a scalar by value, a scalar or an array by
/// reference, exactly as ordinary Rust code passes them, or an owned array
/// by value, whose buffer the op may write its result into.
pub trait Operand: Sized {
    /// The value behind the argument.
    type Value: Value;
    /// Borrows the value.
    fn value(&self) -> &Self::Value;
    /// The value itself where the argument owns it (a float, an owned
    /// array), for an op to write its result into; the argument back where
    /// it is a reference.
    fn owned(self) -> Result<OwnedOf<Self>, Self>;
}

macro_rules! scalar_operand {
    ($([$($g:tt)*] $f:ty),*) => {$(
        impl<$($g)*> Operand for $f {
            type Value = $f;
            #[inline]
            fn value(&self) -> &$f {
                self
            }
            #[inline]
            fn owned(self) -> Result<$f, $f> {
                Ok(self)
            }
        }
    )*};
}
scalar_operand!([] f32, [] f64, [F: Float] Dual<F>);

impl<T: Value> Operand for &T {
    type Value = T;
    #[inline]
    fn value(&self) -> &T {
        self
    }
    #[inline]
    fn owned(self) -> Result<T::Owned, Self> {
        Err(self)
    }
}

impl<F: Float, D: Dimension> Operand for Array<F, D> {
    type Value = Array<F, D>;
    #[inline]
    fn value(&self) -> &Self {
        self
    }
    #[inline]
    fn owned(self) -> Result<Self, Self> {
        Ok(self)
    }
}

/// The owned type (and gradient type) of an operand.
pub type OwnedOf<X> = <<X as Operand>::Value as Value>::Owned;
/// The element type of an operand.
pub type ElemOf<X> = <<X as Operand>::Value as Value>::Elem;

/// A zero of `x`'s shape: the gradient of a parameter that does not reach the output.
#[inline]
pub fn zeros_like<V: Value>(x: &V) -> V::Owned {
    x.zeros_like()
}

/// A one of `x`'s shape: the seed of a sum's reverse run in its forward
/// loop (a fused sum, whose accumulators [`scaled`] then scales).
#[inline]
pub fn one_like<V: Value>(x: &V) -> V::Owned {
    x.map_elems(|_| V::Elem::one())
}

/// `acc · d`: a fused sum's accumulator, added up with the seed one,
/// scaled by the adjoint of the sum's result. A zero (of a dual number,
/// its value and its tangent) stays zero, as the
/// element the loop never reached (or a loop of no iterations) does when
/// each iteration's contribution is scaled before it is added, whatever
/// `d` is (an infinite `d` of `total / 0.0` gives no `0 · ∞`).
///
/// ```
/// use backprop_runtime::value::scaled;
/// use ndarray::array;
/// assert_eq!(scaled(array![2.0, 0.0], 1.5), array![3.0, 0.0]);
/// assert_eq!(scaled(0.0, f64::INFINITY), 0.0);
/// assert_eq!(scaled(array![2.0, -0.5], 1.0), array![2.0, -0.5]);
/// ```
#[inline]
pub fn scaled<T: Tensor>(acc: T, d: T::Elem) -> T {
    if d.is_one() {
        // `a · 1 = a`: the sum of a loss's terms, `d_out = 1`.
        return acc;
    }
    acc.map_owned(|a| if a.is_zero() { a } else { a * d })
}

/// `acc · d + prev`: [`scaled`], added to the contribution written before
/// the loop.
#[inline]
pub fn scaled_add<T: Tensor>(acc: T, d: T::Elem, prev: T) -> T {
    if d.is_one() {
        return acc.zip_with1(&prev, |a, p| a + p);
    }
    acc.zip_with1(&prev, |a, p| if a.is_zero() { p } else { a * d + p })
}

/// `x`'s buffer filled with zeros: the gradient of a value that the
/// reverse sweep starts from zero, in the buffer of a value nothing reads
/// any more (a loop's last state, whose rows keep it).
#[inline]
pub fn zeros_in<T: Tensor>(x: T) -> T {
    x.map_owned(|_| T::Elem::zero())
}

/// An owned temporary whose buffer the next op may take over: the generated
/// code keeps only its shape, [`shape_of`], for the adjoint rules that need
/// nothing else (the operand of `+`, the input of `tanh`, ...).
pub trait Reusable: Tensor {
    /// What is kept: the value itself for a scalar (a copy is free), the
    /// dimension for an array.
    type Shape: StandIn;
    /// Keeps the shape of `self` before its buffer is given away.
    fn shape_of(&self) -> Self::Shape;
    /// The shape of a value of this type that has `like`'s shape and was
    /// never made (its sum was written into another buffer).
    fn shape_like<V: Value<Elem = Self::Elem>>(like: &V) -> Self::Shape;
}

/// A kept shape, lent to an adjoint rule in the place of the value it was
/// taken from.
pub trait StandIn {
    /// What the rule receives: the scalar, or a zero-stride view of one zero
    /// with the array's shape (no allocation, and never read for its values).
    type View<'a>: Value
    where
        Self: 'a;
    /// The stand-in.
    fn stand_in(&self) -> Self::View<'_>;
}

macro_rules! scalar_reusable {
    ($([$($g:tt)*] $f:ty),*) => {$(
        impl<$($g)*> Reusable for $f {
            type Shape = $f;
            #[inline]
            fn shape_of(&self) -> $f {
                *self
            }
            #[inline]
            fn shape_like<V: Value<Elem = $f>>(like: &V) -> $f {
                like.first_elem()
            }
        }

        impl<$($g)*> StandIn for $f {
            type View<'a> = $f;
            #[inline]
            fn stand_in(&self) -> $f {
                *self
            }
        }
    )*};
}
scalar_reusable!([] f32, [] f64, [F: Float] Dual<F>);

/// The shape of an array whose buffer was reused (see [`Reusable`]).
#[derive(Debug, Clone)]
pub struct Shape<F, D> {
    dim: D,
    zero: F,
}

impl<F: Float, D: Dimension> Reusable for Array<F, D> {
    type Shape = Shape<F, D>;
    #[inline]
    fn shape_of(&self) -> Shape<F, D> {
        Shape {
            dim: self.raw_dim(),
            zero: F::zero(),
        }
    }
    #[inline]
    fn shape_like<V: Value<Elem = F>>(like: &V) -> Shape<F, D> {
        Shape {
            dim: D::from_dimension(&like.view().raw_dim()).expect("a shape of the same rank"),
            zero: F::zero(),
        }
    }
}

impl<F: Float, D: Dimension> StandIn for Shape<F, D> {
    type View<'a>
        = ArrayView<'a, F, D>
    where
        Self: 'a;
    #[inline]
    fn stand_in(&self) -> ArrayView<'_, F, D> {
        let strides = D::zeros(self.dim.ndim());
        // SAFETY: every stride is zero, so every index of the view is the
        // one element `self.zero`, which `&self` keeps alive and unchanged
        // for the view's lifetime; the dimension is that of an array that
        // existed, so its size fits in `isize`. (`ArrayView::from_shape` would
        // check the same strides against a one-element slice at run time, on
        // every call of every rule that reads a kept shape.)
        unsafe { ArrayView::from_shape_ptr(self.dim.clone().strides(strides), &self.zero) }
    }
}

/// Keeps the shape of a temporary whose buffer the next op takes over.
#[inline]
pub fn shape_of<T: Reusable>(x: &T) -> T::Shape {
    x.shape_of()
}

/// What the generated code passes to a call where the user passed an
/// array that the generated code holds as a view (`&x.permuted_axes(..)`
/// of an owned `x`, `x.t()`): the callee's parameter type picks it, a view
/// of the same data or an owned copy, as the user's own array was.
pub trait CallArg<'a, F, D>: Sized {
    /// The argument made from `a`.
    fn from_array<S: Data<Elem = F>>(a: &'a ArrayBase<S, D>) -> Self;
}

impl<'a, F, D: Dimension> CallArg<'a, F, D> for ArrayView<'a, F, D> {
    #[inline]
    fn from_array<S: Data<Elem = F>>(a: &'a ArrayBase<S, D>) -> Self {
        a.view()
    }
}

impl<'a, F: Clone, D: Dimension> CallArg<'a, F, D> for Array<F, D> {
    #[inline]
    fn from_array<S: Data<Elem = F>>(a: &'a ArrayBase<S, D>) -> Self {
        a.to_owned()
    }
}

/// A slice of a contiguous vector: a container parameter (`&[f64]`) of the
/// callee, where the caller holds the elements as a view.
impl<'a, F> CallArg<'a, F, ndarray::Ix1> for &'a [F] {
    #[inline]
    fn from_array<S: Data<Elem = F>>(a: &'a ArrayBase<S, ndarray::Ix1>) -> Self {
        a.as_slice()
            .expect("the elements of a slice, a `Vec` or an array are contiguous")
    }
}

impl<'a, F, const N: usize> CallArg<'a, F, ndarray::Ix1> for &'a [F; N] {
    #[inline]
    fn from_array<S: Data<Elem = F>>(a: &'a ArrayBase<S, ndarray::Ix1>) -> Self {
        let s: &[F] = CallArg::from_array(a);
        s.try_into().expect("an array of the callee's length")
    }
}

impl<'a, F: Copy, const N: usize> CallArg<'a, F, ndarray::Ix1> for [F; N] {
    #[inline]
    fn from_array<S: Data<Elem = F>>(a: &'a ArrayBase<S, ndarray::Ix1>) -> Self {
        assert_eq!(a.len(), N, "an array of the callee's length");
        core::array::from_fn(|i| a[i])
    }
}

impl<'a, F: Clone> CallArg<'a, F, ndarray::Ix1> for Vec<F> {
    #[inline]
    fn from_array<S: Data<Elem = F>>(a: &'a ArrayBase<S, ndarray::Ix1>) -> Self {
        a.to_vec()
    }
}

impl<'a, F: Copy, const M: usize, const N: usize> CallArg<'a, F, ndarray::Ix2> for [[F; N]; M] {
    #[inline]
    fn from_array<S: Data<Elem = F>>(a: &'a ArrayBase<S, ndarray::Ix2>) -> Self {
        assert_eq!(a.dim(), (M, N), "an array of the callee's shape");
        core::array::from_fn(|i| core::array::from_fn(|j| a[[i, j]]))
    }
}

/// `a` as the callee's parameter takes it (see [`CallArg`]).
#[inline]
pub fn call_arg<'a, F, D: Dimension, S: Data<Elem = F>, T: CallArg<'a, F, D>>(
    a: &'a ArrayBase<S, D>,
) -> T {
    T::from_array(a)
}

/// Lends a kept shape to an adjoint rule in the place of the value.
#[inline]
pub fn stand_in<S: StandIn>(s: &S) -> S::View<'_> {
    s.stand_in()
}

/// A constant as the generated code reads it: a number behind references
/// as the number (`&f64` as `f64`, as Rust's arithmetic reads it), an array
/// or a reference to one as it is. The items of a constant iterable a loop
/// walks pass through it (`for (p, w) in points.iter().zip(weights)`).
pub trait Plain {
    /// The value read.
    type Out;
    /// `self` read as a value.
    fn plain(self) -> Self::Out;
}

macro_rules! plain_numbers {
    ($([$($g:tt)*] $t:ty),* $(,)?) => {$(
        impl<$($g)*> Plain for $t {
            type Out = $t;
            #[inline]
            fn plain(self) -> $t {
                self
            }
        }
        impl<$($g)*> Plain for &$t {
            type Out = $t;
            #[inline]
            fn plain(self) -> $t {
                *self
            }
        }
        impl<$($g)*> Plain for &&$t {
            type Out = $t;
            #[inline]
            fn plain(self) -> $t {
                **self
            }
        }
    )*};
}
plain_numbers!(
    [] f32,
    [] f64,
    [F: Float] Dual<F>,
    [] usize,
    [] isize,
    [] u8,
    [] u16,
    [] u32,
    [] u64,
    [] i8,
    [] i16,
    [] i32,
    [] i64,
    [] bool,
);

/// Plain Rust containers of constant data (`for (row, &y) in
/// x.chunks(3).zip(ys)`): as they are, a reference behind a reference as the
/// reference.
macro_rules! plain_containers {
    ($([$($g:tt)*] $t:ty),* $(,)?) => {$(
        impl<'a, $($g)*> Plain for &'a $t {
            type Out = &'a $t;
            #[inline]
            fn plain(self) -> &'a $t {
                self
            }
        }
        impl<'a, $($g)*> Plain for &&'a $t {
            type Out = &'a $t;
            #[inline]
            fn plain(self) -> &'a $t {
                self
            }
        }
    )*};
}
plain_containers!([T] [T], [T, const N: usize] [T; N], [T] Vec<T>);

impl<S: ndarray::RawData, D> Plain for ArrayBase<S, D> {
    type Out = Self;
    #[inline]
    fn plain(self) -> Self {
        self
    }
}

impl<S: ndarray::RawData, D> Plain for &ArrayBase<S, D> {
    type Out = Self;
    #[inline]
    fn plain(self) -> Self {
        self
    }
}

impl<'a, S: ndarray::RawData, D> Plain for &&'a ArrayBase<S, D> {
    type Out = &'a ArrayBase<S, D>;
    #[inline]
    fn plain(self) -> &'a ArrayBase<S, D> {
        self
    }
}
