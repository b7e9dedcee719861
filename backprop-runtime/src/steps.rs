//! What a loop keeps from its forward pass for its reverse sweep, beside the
//! vector of each iteration's locals: the values of a carried variable as the
//! rows of one buffer ([`Rows`]), and the buffer of the carried value an
//! iteration no longer needs, for the next iteration's new value ([`Spare`]).
//!
//! A hand-written recurrent network keeps its states as the rows of one
//! `(T + 1, H)` matrix and computes each new state into a buffer of its own;
//! the generated code does the same with these two.

use crate::value::{Float, Tensor, Value};
use ndarray::{Array, ArrayView, ArrayView2, Dimension, Ix0};
use std::any::Any;

/// A value that [`Rows`] can keep: a float scalar or an owned array.
pub trait Keep: Tensor {
    /// How a kept value is read back: the scalar, or a view of its row.
    type Row<'a>: Value<Elem = Self::Elem, Dim = Self::Dim>
    where
        Self: 'a;
    /// The shape.
    fn dim(&self) -> Self::Dim;
    /// Appends the elements, in the standard (row-major) order.
    fn append_to(&self, data: &mut Vec<Self::Elem>);
    /// The value of shape `dim` whose elements are `data`.
    fn row_of<'a>(data: &'a [Self::Elem], dim: &Self::Dim) -> Self::Row<'a>;
}

macro_rules! keep_scalar {
    ($([$($g:tt)*] $f:ty),*) => {$(
        impl<$($g)*> Keep for $f {
            type Row<'a> = $f;
            #[inline]
            fn dim(&self) -> Ix0 {
                Ix0()
            }
            #[inline]
            fn append_to(&self, data: &mut Vec<$f>) {
                data.push(*self);
            }
            #[inline]
            fn row_of(data: &[$f], _: &Ix0) -> $f {
                data[0]
            }
        }
    )*};
}
keep_scalar!([] f32, [] f64, [F: Float] crate::dual::Dual<F>);

impl<F: Float, D: Dimension> Keep for Array<F, D> {
    type Row<'a>
        = ArrayView<'a, F, D>
    where
        Self: 'a;
    #[inline]
    fn dim(&self) -> D {
        self.raw_dim()
    }
    #[inline]
    fn append_to(&self, data: &mut Vec<F>) {
        match self.as_slice() {
            Some(xs) => data.extend_from_slice(xs),
            None => data.extend(self.iter().copied()),
        }
    }
    #[inline]
    fn row_of<'a>(data: &'a [F], dim: &D) -> ArrayView<'a, F, D> {
        ArrayView::from_shape(dim.clone(), data).expect("a row holds its shape's elements")
    }
}

/// The values a loop's carried variable takes, one row per iteration and one
/// for the value after the last, copied into one buffer: the generated code
/// keeps a recurrent state here instead of one array per iteration, and its
/// reverse sweep reads each iteration's starting value (row `k`) and new
/// value (row `k + 1`) as views.
///
/// Rows may differ in shape (a value broadcast to a larger shape in the
/// first iteration): from the first row of another shape on, each row's
/// place and shape are written down.
///
/// ```
/// use backprop_runtime::steps::Rows;
/// use ndarray::array;
/// let mut rows = Rows::with_steps(2);
/// rows.push(&array![1.0, 2.0]);
/// rows.push(&array![3.0, 4.0]);
/// rows.push(&array![5.0, 6.0]);
/// assert_eq!(rows.row(1), array![3.0, 4.0]);
/// assert_eq!(rows.len(), 3);
/// ```
#[derive(Clone, Debug)]
pub struct Rows<T: Keep> {
    data: Vec<T::Elem>,
    /// The first row's shape, which every row has while `index` is empty.
    shape: T::Dim,
    /// Where each row starts, and its shape, once the rows differ in shape.
    index: Vec<(usize, T::Dim)>,
    rows: usize,
    /// The number of rows to reserve room for at the first.
    expected: usize,
}

impl<T: Keep> Rows<T> {
    /// None yet; room for `steps + 1` rows (each iteration's starting value
    /// and the last value) is reserved when the first arrives.
    pub fn with_steps(steps: usize) -> Self {
        Rows {
            data: Vec::new(),
            shape: T::Dim::default(),
            index: Vec::new(),
            rows: 0,
            expected: steps.saturating_add(1),
        }
    }

    /// Copies `x` in as the next row.
    #[inline]
    pub fn push(&mut self, x: &T) {
        let dim = x.dim();
        let start = self.data.len();
        if self.rows == 0 {
            self.data
                .reserve(self.expected.saturating_mul(x.len_elems()));
            self.shape = dim.clone();
        } else if self.index.is_empty() && dim != self.shape {
            let len = self.shape.size();
            self.index = (0..self.rows)
                .map(|k| (k * len, self.shape.clone()))
                .collect();
        }
        if !self.index.is_empty() {
            self.index.push((start, dim));
        }
        x.append_to(&mut self.data);
        self.rows += 1;
    }

    /// Row `k`, the `k`-th value pushed.
    ///
    /// # Panics
    ///
    /// If there is no row `k`.
    #[inline]
    pub fn row(&self, k: usize) -> T::Row<'_> {
        assert!(k < self.rows, "Rows::row: row {k} of {} rows", self.rows);
        let (start, dim) = match self.index.get(k) {
            Some((start, dim)) => (*start, dim),
            None => (k * self.shape.size(), &self.shape),
        };
        T::row_of(&self.data[start..start + dim.size()], dim)
    }

    /// Every row but the last, as the rows of a matrix (each of a row's
    /// elements in order): each iteration's starting value, for the outer
    /// products of a weight that multiplies it (see
    /// [`Term::v_from`](crate::outers::Term::v_from)). `None` while there
    /// is no row, or once the rows differ in shape.
    #[inline]
    pub fn starts(&self) -> Option<ArrayView2<'_, T::Elem>> {
        if self.rows == 0 || !self.index.is_empty() {
            return None;
        }
        let len = self.shape.size();
        ArrayView2::from_shape((self.rows - 1, len), &self.data[..(self.rows - 1) * len]).ok()
    }

    /// The number of rows.
    pub fn len(&self) -> usize {
        self.rows
    }

    /// Whether there is none.
    pub fn is_empty(&self) -> bool {
        self.rows == 0
    }
}

/// The buffer of a value that a loop's forward pass no longer needs (a
/// carried variable's starting value, once copied into its [`Rows`]), for
/// the next iteration to compute its new value into: two buffers in turn,
/// instead of a new array per iteration.
///
/// ```
/// use backprop_runtime::steps::Spare;
/// use ndarray::array;
/// let mut spare = Spare::new();
/// spare.put(array![1.0, 2.0]);
/// assert_eq!(spare.take(2), Some(vec![1.0, 2.0]));
/// assert_eq!(spare.take(2), None);
/// ```
#[derive(Clone, Debug, Default)]
pub struct Spare<F> {
    buf: Option<Vec<F>>,
}

impl<F: Float> Spare<F> {
    /// No buffer yet.
    pub fn new() -> Self {
        Spare { buf: None }
    }

    /// Keeps `x`'s buffer (nothing for a scalar, or an array not in the
    /// standard layout).
    pub fn put<T: Tensor<Elem = F>>(&mut self, x: T) {
        self.buf = x.into_buffer();
    }

    /// The buffer, if there is one of `len` elements (it is dropped
    /// otherwise). Its elements are those of the value it held.
    pub fn take(&mut self, len: usize) -> Option<Vec<F>> {
        self.buf.take().filter(|b| b.len() == len)
    }

    /// A zero of `x`'s shape, in the buffer where it is an array of as many
    /// elements of this type, else new: after the loop, the spare serves the
    /// first gradient of its size that the reverse sweep starts from zero.
    /// A buffer of another size stays for the next.
    ///
    /// ```
    /// use backprop_runtime::steps::Spare;
    /// use ndarray::{array, Array2};
    /// let mut spare = Spare::new();
    /// spare.put(array![1.0, 2.0, 3.0, 4.0]);
    /// assert_eq!(spare.zeros_like(&array![1.0, 2.0]), array![0.0, 0.0]); // new
    /// assert_eq!(spare.zeros_like(&Array2::<f64>::ones((2, 2))), Array2::zeros((2, 2)));
    /// assert_eq!(spare.take(4), None); // taken
    /// ```
    pub fn zeros_like<V: Value>(&mut self, x: &V) -> V::Owned
    where
        F: 'static,
        V::Elem: 'static,
    {
        let dim = x.view().raw_dim();
        let fits = dim.ndim() > 0 && self.buf.as_ref().is_some_and(|b| b.len() == dim.size());
        if fits {
            let buf: &mut dyn Any = &mut self.buf;
            if let Some(mut b) = buf
                .downcast_mut::<Option<Vec<V::Elem>>>()
                .and_then(Option::take)
            {
                b.fill(num_traits::Zero::zero());
                let a = Array::from_shape_vec(dim, b).expect("a buffer of the shape's size");
                return V::Owned::from_array(a);
            }
        }
        x.zeros_like()
    }
}
