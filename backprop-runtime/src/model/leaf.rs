//! What a visitor of a model sees: the path of each field and its float
//! leaves as ndarray views, tagged with their precision.

use crate::value::Float;
use core::fmt;
use ndarray::{ArrayViewD, ArrayViewMutD, IxDyn, Zip};

/// One step of a [`Path`]: a named field (`w`, or `0` of a tuple struct) or
/// an index into a `Vec` or an array (`[1]`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Segment {
    /// A field, by name.
    Field(&'static str),
    /// An element of a `Vec` or of a `[T; N]`.
    Index(usize),
}

/// Where a leaf sits in a model, written as Rust reads it: `w1`,
/// `body.l1.w`, `layers[1].w` (empty for the model itself).
///
/// ```
/// use backprop_runtime::model::Path;
/// let mut path = Path::new();
/// path.push_field("layers");
/// path.push_index(1);
/// path.push_field("w");
/// assert_eq!(path.to_string(), "layers[1].w");
/// assert_eq!(path.element(&[0, 2]), "layers[1].w[[0, 2]]");
/// path.pop();
/// assert_eq!(path.element(&[3]), "layers[1][3]");
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Path {
    segments: Vec<Segment>,
}

impl Path {
    /// The empty path: the model itself.
    pub fn new() -> Self {
        Self::default()
    }

    /// Enters the field `name`.
    pub fn push_field(&mut self, name: &'static str) {
        self.segments.push(Segment::Field(name));
    }

    /// Enters element `index` of a sequence.
    pub fn push_index(&mut self, index: usize) {
        self.segments.push(Segment::Index(index));
    }

    /// Leaves the last field or element entered.
    pub fn pop(&mut self) -> Option<Segment> {
        self.segments.pop()
    }

    /// The steps from the model to here.
    pub fn segments(&self) -> &[Segment] {
        &self.segments
    }

    /// Whether this is the model itself.
    pub fn is_empty(&self) -> bool {
        self.segments.is_empty()
    }

    /// One element of the leaf at this path, by its multi-index: nothing
    /// appended for a scalar, `[3]` for a vector, `[[0, 2]]` for a matrix.
    pub fn element(&self, index: &[usize]) -> String {
        match index {
            [] => self.to_string(),
            [i] => format!("{self}[{i}]"),
            _ => {
                let parts: Vec<String> = index.iter().map(usize::to_string).collect();
                format!("{self}[[{}]]", parts.join(", "))
            }
        }
    }
}

impl fmt::Display for Path {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (k, segment) in self.segments.iter().enumerate() {
            match segment {
                Segment::Field(name) if k == 0 => f.write_str(name)?,
                Segment::Field(name) => write!(f, ".{name}")?,
                Segment::Index(i) => write!(f, "[{i}]")?,
            }
        }
        Ok(())
    }
}

/// A float leaf of a model, read-only: a view of an `f32` or `f64` scalar
/// (0-d) or array, whatever its memory layout.
///
/// ```
/// use backprop_runtime::model::{Differentiable, Leaf};
/// use ndarray::array;
/// let w = array![[1.0_f32, 2.0], [3.0, 4.0]];
/// let leaves = w.leaves();
/// assert_eq!(leaves[0].shape(), &[2, 2]);
/// assert!(matches!(leaves[0], Leaf::F32(_)));
/// assert_eq!(leaves[0].get(2), 3.0);
/// ```
#[derive(Clone, Debug)]
pub enum Leaf<'a> {
    /// A single-precision leaf.
    F32(ArrayViewD<'a, f32>),
    /// A double-precision leaf.
    F64(ArrayViewD<'a, f64>),
}

/// A float leaf of a model, writable: what [`Differentiable::visit_mut`]
/// hands out, so that an update runs over a whole array at a time.
///
/// [`Differentiable::visit_mut`]: crate::model::Differentiable::visit_mut
///
/// ```
/// use backprop_runtime::model::Differentiable;
/// use ndarray::array;
/// let mut w = array![1.0, 2.0];
/// for mut leaf in w.leaves_mut() {
///     leaf.scale(0.5);
///     leaf.set(0, 7.0);
/// }
/// assert_eq!(w, array![7.0, 1.0]);
/// ```
#[derive(Debug)]
pub enum LeafMut<'a> {
    /// A single-precision leaf.
    F32(ArrayViewMutD<'a, f32>),
    /// A double-precision leaf.
    F64(ArrayViewMutD<'a, f64>),
}

/// `match` over the two precisions with one body, `$v` bound to the view.
macro_rules! each {
    ($leaf:expr, $kind:ident, $v:ident => $body:expr) => {
        match $leaf {
            $kind::F32($v) => $body,
            $kind::F64($v) => $body,
        }
    };
}

/// The multi-index of element `k` (row-major) of an array of shape `shape`.
pub(crate) fn unravel(shape: &[usize], mut k: usize) -> Vec<usize> {
    let mut index = vec![0; shape.len()];
    for ax in (0..shape.len()).rev() {
        index[ax] = k % shape[ax];
        k /= shape[ax];
    }
    index
}

impl<'a> Leaf<'a> {
    /// The shape (empty for a scalar).
    pub fn shape(&self) -> &[usize] {
        each!(self, Leaf, v => v.shape())
    }

    /// The number of elements (1 for a scalar).
    pub fn len(&self) -> usize {
        each!(self, Leaf, v => v.len())
    }

    /// Whether the leaf has no element (an array with a zero-length axis).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Whether the leaf is `f32`.
    pub fn is_single_precision(&self) -> bool {
        matches!(self, Leaf::F32(_))
    }

    /// Element `k` in logical row-major order, as `f64`.
    ///
    /// # Panics
    ///
    /// If `k` is not below [`len`](Self::len).
    pub fn get(&self, k: usize) -> f64 {
        assert!(k < self.len(), "element {k} of a leaf of {}", self.len());
        let index = IxDyn(&unravel(self.shape(), k));
        each!(self, Leaf, v => Float::to_f64(v[index]))
    }

    /// Appends the elements, in logical row-major order, as `f64`.
    pub fn extend_f64(&self, out: &mut Vec<f64>) {
        each!(self, Leaf, v => out.extend(v.iter().map(|&x| Float::to_f64(x))))
    }

    /// The view, if the leaf has precision `F`.
    ///
    /// ```
    /// use backprop_runtime::model::Differentiable;
    /// let x = 2.5_f64;
    /// let leaf = x.leaves().remove(0);
    /// assert!(leaf.clone().downcast::<f32>().is_none());
    /// assert_eq!(leaf.downcast::<f64>().unwrap()[[]], 2.5);
    /// ```
    pub fn downcast<F: Float>(self) -> Option<ArrayViewD<'a, F>> {
        F::from_leaf(self)
    }
}

impl<'a> LeafMut<'a> {
    /// The shape (empty for a scalar).
    pub fn shape(&self) -> &[usize] {
        each!(self, LeafMut, v => v.shape())
    }

    /// The number of elements (1 for a scalar).
    pub fn len(&self) -> usize {
        each!(self, LeafMut, v => v.len())
    }

    /// Whether the leaf has no element.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Whether the leaf is `f32`.
    pub fn is_single_precision(&self) -> bool {
        matches!(self, LeafMut::F32(_))
    }

    /// A read-only view of the same leaf.
    pub fn view(&self) -> Leaf<'_> {
        match self {
            LeafMut::F32(v) => Leaf::F32(v.view()),
            LeafMut::F64(v) => Leaf::F64(v.view()),
        }
    }

    /// Sets element `k` (logical row-major order) to `value`, rounded to the
    /// leaf's precision.
    ///
    /// # Panics
    ///
    /// If `k` is not below [`len`](Self::len).
    pub fn set(&mut self, k: usize, value: f64) {
        assert!(k < self.len(), "element {k} of a leaf of {}", self.len());
        let index = IxDyn(&unravel(self.shape(), k));
        each!(self, LeafMut, v => v[index] = Float::from_f64(value))
    }

    /// Sets every element to `value`.
    pub fn fill(&mut self, value: f64) {
        each!(self, LeafMut, v => v.fill(Float::from_f64(value)))
    }

    /// Multiplies every element by `a`.
    pub fn scale(&mut self, a: f64) {
        match self {
            LeafMut::F32(v) => *v *= a as f32,
            LeafMut::F64(v) => *v *= a,
        }
    }

    /// Writes the next [`len`](Self::len) values of `values` in logical
    /// row-major order; returns how many it wrote (fewer if `values` ran out).
    pub fn assign_from(&mut self, values: &mut impl Iterator<Item = f64>) -> usize {
        let mut written = 0;
        each!(self, LeafMut, v => {
            for x in v.iter_mut() {
                let Some(value) = values.next() else { break };
                *x = Float::from_f64(value);
                written += 1;
            }
        });
        written
    }

    /// `self += a · x`, element by element.
    ///
    /// # Panics
    ///
    /// If `x` has another shape or precision.
    pub fn scaled_add(&mut self, a: f64, x: &Leaf<'_>) {
        assert_eq!(
            self.shape(),
            x.shape(),
            "scaled_add of leaves of two shapes"
        );
        match (self, x) {
            (LeafMut::F32(y), Leaf::F32(x)) => axpy(y, a, x),
            (LeafMut::F64(y), Leaf::F64(x)) => axpy(y, a, x),
            _ => panic!("scaled_add of an f32 leaf and an f64 leaf"),
        }
    }

    /// The view, if the leaf has precision `F`.
    ///
    /// ```
    /// use backprop_runtime::model::Differentiable;
    /// let mut x = 2.5_f32;
    /// let leaf = x.leaves_mut().remove(0);
    /// leaf.downcast::<f32>().unwrap()[[]] = 1.0;
    /// assert_eq!(x, 1.0);
    /// ```
    pub fn downcast<F: Float>(self) -> Option<ArrayViewMutD<'a, F>> {
        F::from_leaf_mut(self)
    }
}

/// `y += a · x` (ndarray's `scaled_add` for an `a` of 1 adds, as `+=` does).
fn axpy<F: Float>(y: &mut ArrayViewMutD<'_, F>, a: f64, x: &ArrayViewD<'_, F>) {
    if a == 1.0 {
        Zip::from(y).and(x).for_each(|y, &x| *y += x);
    } else {
        let a = F::from_f64(a);
        Zip::from(y).and(x).for_each(|y, &x| *y += a * x);
    }
}

/// Sees every float leaf of a model in order, read-only, with its path
/// (see [`Differentiable::visit`]). A closure
/// `|path: &Path, leaf: Leaf<'_>| ..` is a visitor.
///
/// [`Differentiable::visit`]: crate::model::Differentiable::visit
///
/// ```
/// use backprop_runtime::model::{Differentiable, Leaf, Path};
/// use ndarray::array;
/// let layers = vec![array![1.0, 2.0], array![3.0]];
/// let mut seen = Vec::new();
/// layers.visit(&mut Path::new(), &mut |path: &Path, leaf: Leaf<'_>| {
///     seen.push(format!("{path}: {}", leaf.len()));
/// });
/// assert_eq!(seen, ["[0]: 2", "[1]: 1"]);
/// ```
pub trait Visitor<'a> {
    /// One float leaf.
    fn leaf(&mut self, path: &Path, leaf: Leaf<'a>);
    /// A sequence of run-time length (a `Vec`, or an `Option` as 0 or 1),
    /// before its elements: lets a zip of two models check that their
    /// lengths agree. Does nothing unless overridden.
    fn sequence(&mut self, path: &Path, len: usize) {
        let _ = (path, len);
    }
}

impl<'a, F: FnMut(&Path, Leaf<'a>)> Visitor<'a> for F {
    fn leaf(&mut self, path: &Path, leaf: Leaf<'a>) {
        self(path, leaf)
    }
}

/// Sees every float leaf of a model in order, writable, with its path (see
/// [`Differentiable::visit_mut`]). A closure
/// `|path: &Path, leaf: LeafMut<'_>| ..` is a visitor.
///
/// [`Differentiable::visit_mut`]: crate::model::Differentiable::visit_mut
///
/// ```
/// use backprop_runtime::model::{Differentiable, LeafMut, Path};
/// let mut weights = [1.0, 2.0, 3.0];
/// weights.visit_mut(&mut Path::new(), &mut |path: &Path, mut leaf: LeafMut<'_>| {
///     if path.to_string() == "[1]" {
///         leaf.fill(0.0);
///     }
/// });
/// assert_eq!(weights, [1.0, 0.0, 3.0]);
/// ```
pub trait VisitorMut<'a> {
    /// One float leaf.
    fn leaf(&mut self, path: &Path, leaf: LeafMut<'a>);
    /// A sequence of run-time length, before its elements (see
    /// [`Visitor::sequence`]).
    fn sequence(&mut self, path: &Path, len: usize) {
        let _ = (path, len);
    }
}

impl<'a, F: FnMut(&Path, LeafMut<'a>)> VisitorMut<'a> for F {
    fn leaf(&mut self, path: &Path, leaf: LeafMut<'a>) {
        self(path, leaf)
    }
}
