//! Data-parallel gradients: the rows of a batch split into shards over
//! rayon's threads, a backward run on each, and the shards' values and
//! gradients added up: the fork rule at the batch level (a loss that sums
//! over the rows is the sum of the shards' losses, and so is its gradient).
//!
//! The closure gets a range of rows, slices its data and calls the
//! generated backward, returning `(value, gradient)` with a gradient that
//! is [`Differentiable`] (a `NameGrad` of `#[differentiable]`, or a model
//! struct). [`sum`] adds the shards; [`mean`] weighs each by its share of
//! the rows, for a loss that is a mean over them. The shards are added in
//! order, one after the other, so a result depends only on the number of
//! shards (by default one per thread of rayon's pool), not on the timing.
//!
//! ```
//! use backprop_runtime::parallel;
//! use ndarray::{s, Array1};
//!
//! // The mean of (w·xᵢ − yᵢ)² over 1,000 rows, and its gradient, by hand.
//! let x = Array1::linspace(-1.0, 1.0, 1000);
//! let y = x.mapv(|v| 3.0 * v + 0.5);
//! let loss = |w: f64, rows: std::ops::Range<usize>| {
//!     let (x, y) = (x.slice(s![rows.clone()]), y.slice(s![rows]));
//!     let r = &x * w - &y;
//!     (r.mapv(|v| v * v).mean().unwrap(), 2.0 * (&r * &x).mean().unwrap())
//! };
//! let (value, grad) = parallel::mean(1000, |rows| loss(2.0, rows));
//! let (one_value, one_grad) = loss(2.0, 0..1000);
//! assert!((value - one_value).abs() <= 1e-12 * one_value);
//! assert!((grad - one_grad).abs() <= 1e-12 * one_grad.abs());
//! ```

use crate::model::Differentiable;
use crate::value::Float;
use core::ops::Range;
use rayon::prelude::*;

/// How many shards a batch is split into.
///
/// ```
/// use backprop_runtime::parallel::Shards;
/// assert_eq!(Shards::new(3).ranges(10), [0..4, 4..7, 7..10]);
/// assert_eq!(Shards::new(4).ranges(2), [0..1, 1..2]);
/// assert_eq!(Shards::new(2).ranges(0), [0..0]);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shards {
    count: usize,
}

impl Shards {
    /// `count` shards (fewer when the batch has fewer rows).
    ///
    /// # Panics
    ///
    /// If `count` is 0.
    pub fn new(count: usize) -> Self {
        assert!(count > 0, "a batch is split into at least one shard");
        Shards { count }
    }

    /// One shard per thread of rayon's current pool.
    ///
    /// ```
    /// use backprop_runtime::parallel::Shards;
    /// assert_eq!(Shards::per_thread().count(), rayon::current_num_threads());
    /// ```
    pub fn per_thread() -> Self {
        Self::new(rayon::current_num_threads().max(1))
    }

    /// The number of shards asked for.
    pub fn count(&self) -> usize {
        self.count
    }

    /// The rows of each shard, in order, as even as can be (the first
    /// shards take one row more); one empty range for an empty batch.
    pub fn ranges(&self, rows: usize) -> Vec<Range<usize>> {
        let k = self.count.min(rows).max(1);
        let (base, extra) = (rows / k, rows % k);
        let mut start = 0;
        (0..k)
            .map(|i| {
                let len = base + usize::from(i < extra);
                start += len;
                start - len..start
            })
            .collect()
    }

    /// Runs `f` on every shard in parallel; the results in shard order.
    fn run<V, G, F>(&self, rows: usize, f: F) -> Vec<(Range<usize>, (V, G))>
    where
        V: Send,
        G: Send,
        F: Fn(Range<usize>) -> (V, G) + Sync,
    {
        self.ranges(rows)
            .into_par_iter()
            .map(|r| (r.clone(), f(r)))
            .collect()
    }

    /// The sum of `f`'s values and gradients over the shards of `rows`
    /// rows, computed in parallel: for a loss that sums over the rows.
    ///
    /// ```
    /// use backprop_runtime::parallel::Shards;
    /// // Σᵢ w·i over 0..10: the value 45 w, the gradient 45.
    /// let (value, grad) = Shards::new(3).sum(10, |rows| {
    ///     let n: f64 = rows.map(|i| i as f64).sum();
    ///     (2.0 * n, n)
    /// });
    /// assert_eq!((value, grad), (90.0, 45.0));
    /// ```
    pub fn sum<V, G, F>(&self, rows: usize, f: F) -> (V, G)
    where
        V: Float,
        G: Differentiable + Send,
        F: Fn(Range<usize>) -> (V, G) + Sync,
    {
        let mut shards = self.run(rows, f).into_iter();
        let (_, (mut value, mut grad)) = shards.next().expect("at least one shard");
        for (_, (v, g)) in shards {
            value += v;
            grad.add_assign(&g);
        }
        (value, grad)
    }

    /// The mean over the rows, from shards that each return the mean over
    /// their own rows: every shard's value and gradient weighed by its
    /// share of the rows, `Σₛ (nₛ / n) fₛ`, computed in parallel.
    ///
    /// # Panics
    ///
    /// If `rows` is 0 (an empty batch has no mean).
    ///
    /// ```
    /// use backprop_runtime::parallel::Shards;
    /// // The mean of w·i over 0..10: the value 4.5 w, the gradient 4.5.
    /// let (value, grad) = Shards::new(4).mean(10, |rows| {
    ///     let len = rows.len() as f64;
    ///     let n: f64 = rows.map(|i| i as f64).sum();
    ///     (2.0 * n / len, n / len)
    /// });
    /// assert!((value - 9.0).abs() < 1e-15 && (grad - 4.5).abs() < 1e-15);
    /// ```
    pub fn mean<V, G, F>(&self, rows: usize, f: F) -> (V, G)
    where
        V: Float,
        G: Differentiable + Send,
        F: Fn(Range<usize>) -> (V, G) + Sync,
    {
        assert!(rows > 0, "the mean over an empty batch is undefined");
        let share = |r: &Range<usize>| r.len() as f64 / rows as f64;
        let mut shards = self.run(rows, f).into_iter();
        let (r, (value, mut grad)) = shards.next().expect("at least one shard");
        let mut value = value * V::from_f64(share(&r));
        grad.scale(share(&r));
        for (r, (v, g)) in shards {
            value += v * V::from_f64(share(&r));
            grad.axpy(share(&r), &g);
        }
        (value, grad)
    }
}

/// [`Shards::sum`] with one shard per thread of rayon's pool: the sum of
/// `f`'s values and gradients over the shards of `rows` rows.
///
/// ```
/// use backprop_runtime::parallel;
/// let (value, grad) = parallel::sum(100, |rows| (rows.len() as f64, vec![1.0]));
/// assert_eq!(value, 100.0);
/// assert_eq!(grad.len(), 1);
/// ```
pub fn sum<V, G, F>(rows: usize, f: F) -> (V, G)
where
    V: Float,
    G: Differentiable + Send,
    F: Fn(Range<usize>) -> (V, G) + Sync,
{
    Shards::per_thread().sum(rows, f)
}

/// [`Shards::mean`] with one shard per thread of rayon's pool: for a loss
/// that is a mean over the rows (`softmax_cross_entropy`, `mse`).
///
/// # Panics
///
/// If `rows` is 0.
///
/// ```
/// use backprop_runtime::parallel;
/// // Each shard's weight (its rows over 8) is exact: so is the mean.
/// let (value, grad) = parallel::mean(8, |_rows| (1.5_f32, [2.0_f32]));
/// assert_eq!((value, grad), (1.5, [2.0]));
/// ```
pub fn mean<V, G, F>(rows: usize, f: F) -> (V, G)
where
    V: Float,
    G: Differentiable + Send,
    F: Fn(Range<usize>) -> (V, G) + Sync,
{
    Shards::per_thread().mean(rows, f)
}
