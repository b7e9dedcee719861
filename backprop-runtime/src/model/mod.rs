//! Models as structs: the [`Differentiable`] trait, which
//! `#[derive(backprop::Differentiable)]` implements for a struct of float
//! parameters, and what is written once over it (the [`optim`]isers).
//!
//! A model is a tree: its float leaves (`f32`, `f64`, ndarray float arrays)
//! sit in fields, nested structs, `Vec`s, `[T; N]`s and `Box`es; other fields
//! (integers, `bool`, strings, enums) are constants that a gradient copies
//! and an update leaves alone. A gradient is a value of the model's own type,
//! so two values of one type can be zipped leaf by leaf: the trait needs
//! only a visit of every leaf, read-only and writable, and builds the rest
//! (zero, scale, `axpy`, a flat vector and back) on it.
//!
//! ```
//! use backprop_runtime::model::{Differentiable, Leaf, LeafMut, Path, Visitor, VisitorMut};
//! use ndarray::{array, Array1};
//!
//! // What the derive writes for `struct Affine { w: Array1<f64>, b: f64, name: String }`.
//! #[derive(Clone, Debug)]
//! struct Affine {
//!     w: Array1<f64>,
//!     b: f64,
//!     name: String,
//! }
//!
//! impl Differentiable for Affine {
//!     fn visit<'a>(&'a self, path: &mut Path, visitor: &mut dyn Visitor<'a>) {
//!         path.push_field("w");
//!         self.w.visit(path, visitor);
//!         path.pop();
//!         path.push_field("b");
//!         self.b.visit(path, visitor);
//!         path.pop();
//!     }
//!     fn visit_mut<'a>(&'a mut self, path: &mut Path, visitor: &mut dyn VisitorMut<'a>) {
//!         path.push_field("w");
//!         self.w.visit_mut(path, visitor);
//!         path.pop();
//!         path.push_field("b");
//!         self.b.visit_mut(path, visitor);
//!         path.pop();
//!     }
//! }
//!
//! let model = Affine { w: array![1.0, 2.0], b: 0.5, name: "a".into() };
//! assert_eq!(model.leaf_paths(), ["w", "b"]);
//! assert_eq!(model.to_flat(), [1.0, 2.0, 0.5]);
//! let mut step = model.zeros_like();
//! assert_eq!(step.name, "a"); // constants are copied
//! step.axpy(2.0, &model);
//! assert_eq!(step.to_flat(), [2.0, 4.0, 1.0]);
//! ```

pub mod fields;
mod impls;
mod leaf;
pub mod optim;
#[doc(hidden)]
pub mod probe;
#[doc(hidden)]
pub mod serde_support;
mod zip;

pub(crate) use leaf::unravel;
pub use leaf::{Leaf, LeafMut, Path, Segment, Visitor, VisitorMut};
pub use zip::zip_mut;

use core::fmt::Debug;

/// A model: a value whose float leaves can be visited in a fixed order, so
/// that a gradient (a value of the same type) can be added to it, an
/// optimiser can update it, and `gradcheck` can perturb it.
///
/// Implement it with `#[derive(backprop::Differentiable)]`; it is
/// implemented for `f32`, `f64`, `Array<F, D>` (any dimension), and for
/// `Vec<T>`, `[T; N]`, `Box<T>` and `Option<T>` of such values. The order of
/// the leaves is the order of the fields, depth first; every method that
/// takes a second value of the type (`axpy`, `add_assign`, an optimiser's
/// state) panics, naming the path, where the two differ in a `Vec`'s length
/// or an array's shape.
///
/// ```
/// use backprop_runtime::model::Differentiable;
/// use ndarray::array;
/// let mut layers = vec![array![[1.0, 2.0]], array![[3.0], [4.0]]];
/// assert_eq!(layers.num_params(), 4);
/// assert_eq!(layers.leaf_paths(), ["[0]", "[1]"]);
/// let grad = layers.from_flat(&[0.5, 0.5, 1.0, 1.0]);
/// layers.axpy(-2.0, &grad);
/// assert_eq!(layers.to_flat(), [0.0, 1.0, 1.0, 2.0]);
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a model: it does not implement `Differentiable`",
    label = "not a model of float parameters",
    note = "add `#[derive(backprop::Differentiable)]` (and `Clone`, `Debug`) to the definition of `{Self}`"
)]
pub trait Differentiable: Clone + Debug {
    /// Hands every float leaf to `visitor`, in order, with its path below
    /// `path` (which it leaves as it found it), and the length of every
    /// sequence before its elements.
    fn visit<'a>(&'a self, path: &mut Path, visitor: &mut dyn Visitor<'a>);

    /// [`visit`](Self::visit), writable.
    fn visit_mut<'a>(&'a mut self, path: &mut Path, visitor: &mut dyn VisitorMut<'a>);

    /// Every float leaf, in order.
    ///
    /// ```
    /// use backprop_runtime::model::Differentiable;
    /// let pair = [1.0_f32, 2.0];
    /// assert_eq!(pair.leaves().len(), 2);
    /// ```
    fn leaves(&self) -> Vec<Leaf<'_>> {
        let mut out = Vec::new();
        self.visit(&mut Path::new(), &mut |_: &Path, leaf| out.push(leaf));
        out
    }

    /// Every float leaf, writable, in order.
    ///
    /// ```
    /// use backprop_runtime::model::Differentiable;
    /// let mut pair = [1.0, 2.0];
    /// pair.leaves_mut()[1].fill(5.0);
    /// assert_eq!(pair, [1.0, 5.0]);
    /// ```
    fn leaves_mut(&mut self) -> Vec<LeafMut<'_>> {
        let mut out = Vec::new();
        self.visit_mut(&mut Path::new(), &mut |_: &Path, leaf| out.push(leaf));
        out
    }

    /// The path of every float leaf, in order (`w1`, `body.l1.w`,
    /// `layers[1].w`; empty for a value that is itself a leaf).
    ///
    /// ```
    /// use backprop_runtime::model::Differentiable;
    /// assert_eq!(vec![Some(1.0), None].leaf_paths(), ["[0]"]);
    /// ```
    fn leaf_paths(&self) -> Vec<String> {
        let mut out = Vec::new();
        self.visit(&mut Path::new(), &mut |path: &Path, _: Leaf<'_>| {
            out.push(path.to_string())
        });
        out
    }

    /// The number of float elements, over all leaves.
    ///
    /// ```
    /// use backprop_runtime::model::Differentiable;
    /// use ndarray::Array2;
    /// assert_eq!(Array2::<f64>::zeros((3, 4)).num_params(), 12);
    /// ```
    fn num_params(&self) -> usize {
        let mut n = 0;
        self.visit(&mut Path::new(), &mut |_: &Path, leaf: Leaf<'_>| {
            n += leaf.len()
        });
        n
    }

    /// A copy whose every float element is zero; constants are cloned.
    ///
    /// ```
    /// use backprop_runtime::model::Differentiable;
    /// use ndarray::array;
    /// assert_eq!(array![1.5, -2.0].zeros_like(), array![0.0, 0.0]);
    /// ```
    fn zeros_like(&self) -> Self {
        let mut zero = self.clone();
        zero.visit_mut(&mut Path::new(), &mut |_: &Path, mut leaf: LeafMut<'_>| {
            leaf.fill(0.0)
        });
        zero
    }

    /// Multiplies every float element by `a` (rounded to the leaf's
    /// precision).
    ///
    /// ```
    /// use backprop_runtime::model::Differentiable;
    /// let mut x = vec![1.0_f32, -3.0];
    /// x.scale(0.5);
    /// assert_eq!(x, [0.5, -1.5]);
    /// ```
    fn scale(&mut self, a: f64) {
        self.visit_mut(&mut Path::new(), &mut |_: &Path, mut leaf: LeafMut<'_>| {
            leaf.scale(a)
        });
    }

    /// `self += a · x`, leaf by leaf.
    ///
    /// # Panics
    ///
    /// Where `x` has another `Vec` length or array shape, naming the path.
    ///
    /// ```
    /// use backprop_runtime::model::Differentiable;
    /// let mut y = [1.0, 1.0];
    /// y.axpy(0.5, &[2.0, 4.0]);
    /// assert_eq!(y, [2.0, 3.0]);
    /// ```
    fn axpy(&mut self, a: f64, x: &Self) {
        zip_mut(self, [("`x`", x)], [], |_, mut y, [x], []| {
            y.scaled_add(a, &x)
        });
    }

    /// `self += other`, leaf by leaf (a sum of gradients).
    ///
    /// # Panics
    ///
    /// Where `other` has another `Vec` length or array shape, naming the
    /// path.
    ///
    /// ```
    /// use backprop_runtime::model::Differentiable;
    /// let mut g = vec![1.0, 2.0];
    /// Differentiable::add_assign(&mut g, &vec![0.5, 0.25]);
    /// assert_eq!(g, [1.5, 2.25]);
    /// ```
    fn add_assign(&mut self, other: &Self) {
        self.axpy(1.0, other);
    }

    /// Every float element as `f64`, leaf after leaf, each in logical
    /// row-major order: the vector an external optimiser (argmin) works on.
    ///
    /// ```
    /// use backprop_runtime::model::Differentiable;
    /// use ndarray::array;
    /// let w = array![[1.0, 2.0], [3.0, 4.0]];
    /// assert_eq!(w.t().to_owned().to_flat(), [1.0, 3.0, 2.0, 4.0]);
    /// ```
    fn to_flat(&self) -> Vec<f64> {
        let mut out = Vec::with_capacity(self.num_params());
        self.visit(&mut Path::new(), &mut |_: &Path, leaf: Leaf<'_>| {
            leaf.extend_f64(&mut out)
        });
        out
    }

    /// A copy of `self` (the template for shapes, lengths and constants)
    /// whose float elements are `flat`, in the order of
    /// [`to_flat`](Self::to_flat), rounded to each leaf's precision.
    ///
    /// # Panics
    ///
    /// If `flat` does not have [`num_params`](Self::num_params) elements.
    ///
    /// ```
    /// use backprop_runtime::model::Differentiable;
    /// use ndarray::array;
    /// let template = array![0.0_f32, 0.0];
    /// let w = template.from_flat(&[1.0, 2.0]);
    /// assert_eq!(w, array![1.0_f32, 2.0]);
    /// ```
    #[allow(
        clippy::wrong_self_convention,
        reason = "`self` is the template: shapes, lengths and constants"
    )]
    fn from_flat(&self, flat: &[f64]) -> Self {
        let n = self.num_params();
        assert!(
            flat.len() == n,
            "from_flat: the model has {n} float parameters but the slice has {} elements",
            flat.len()
        );
        let mut out = self.clone();
        let mut values = flat.iter().copied();
        out.visit_mut(&mut Path::new(), &mut |_: &Path, mut leaf: LeafMut<'_>| {
            leaf.assign_from(&mut values);
        });
        out
    }
}

/// Visits the field `name` of a struct: enters it, visits it, leaves it
/// (what the derive writes for each field; also for hand-written impls).
///
/// ```
/// use backprop_runtime::model::{visit_field, Differentiable, Leaf, Path};
/// let w = [2.0, 3.0];
/// let mut paths = Vec::new();
/// visit_field(&mut Path::new(), "w", &w, &mut |p: &Path, _: Leaf<'_>| paths.push(p.to_string()));
/// assert_eq!(paths, ["w[0]", "w[1]"]);
/// ```
pub fn visit_field<'a, T: Differentiable>(
    path: &mut Path,
    name: &'static str,
    field: &'a T,
    visitor: &mut dyn Visitor<'a>,
) {
    path.push_field(name);
    field.visit(path, visitor);
    path.pop();
}

/// [`visit_field`], writable.
///
/// ```
/// use backprop_runtime::model::{visit_field_mut, LeafMut, Path};
/// let mut b = 1.0;
/// visit_field_mut(&mut Path::new(), "b", &mut b, &mut |_: &Path, mut l: LeafMut<'_>| l.fill(4.0));
/// assert_eq!(b, 4.0);
/// ```
pub fn visit_field_mut<'a, T: Differentiable>(
    path: &mut Path,
    name: &'static str,
    field: &'a mut T,
    visitor: &mut dyn VisitorMut<'a>,
) {
    path.push_field(name);
    field.visit_mut(path, visitor);
    path.pop();
}
