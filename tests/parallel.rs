//! Data-parallel gradients: the shards' values and gradients, added up (or
//! weighed, for a mean), equal one call on the whole batch to within the
//! order of the sums.

use backprop::parallel::{self, Shards};
use backprop::prelude::*;
use backprop_testkit::networks::{mlp_backward, MlpGrad};
use backprop_testkit::random;

struct Batch {
    w1: Array2<f64>,
    b1: Array1<f64>,
    w2: Array2<f64>,
    b2: Array1<f64>,
    x: Array2<f64>,
    labels: Vec<usize>,
}

fn batch(rows: usize) -> Batch {
    let mut seed = 5;
    Batch {
        w1: random((2, 16), &mut seed),
        b1: random(16, &mut seed) * 0.1,
        w2: random((16, 3), &mut seed) * 0.25,
        b2: random(3, &mut seed) * 0.1,
        x: random((rows, 2), &mut seed),
        labels: (0..rows).map(|i| (i * 7 + 1) % 3).collect(),
    }
}

/// The MLP's mean loss and gradient on some rows of the batch.
fn on_rows(b: &Batch, rows: std::ops::Range<usize>) -> (f64, MlpGrad) {
    let x = b.x.slice(s![rows.clone(), ..]).to_owned();
    mlp_backward(&b.w1, &b.b1, &b.w2, &b.b2, &x, &b.labels[rows], 1.0)
}

/// `max |a − b| ≤ tol · max |b|` over every element.
fn close(a: &MlpGrad, b: &MlpGrad, tol: f64) -> bool {
    let (a, b) = (a.to_flat(), b.to_flat());
    let scale = b.iter().fold(0.0_f64, |m, v| m.max(v.abs()));
    a.iter().zip(&b).all(|(x, y)| (x - y).abs() <= tol * scale)
}

#[test]
fn a_mean_over_shards_is_the_mean_over_the_batch() {
    let b = batch(1000);
    let (value, grad) = on_rows(&b, 0..1000);
    for shards in [1, 2, 3, 4, 7] {
        let (v, g) = Shards::new(shards).mean(1000, |rows| on_rows(&b, rows));
        assert!(
            (v - value).abs() <= 1e-12 * value,
            "{shards} shards: {v} against {value}"
        );
        assert!(close(&g, &grad, 1e-12), "{shards} shards");
        if shards == 1 {
            // One shard is the one call, bit for bit.
            assert_eq!((v, g.to_flat()), (value, grad.to_flat()));
        }
    }
    let (v, g) = parallel::mean(1000, |rows| on_rows(&b, rows));
    assert!((v - value).abs() <= 1e-12 * value);
    assert!(close(&g, &grad, 1e-12));
}

/// A loss that sums over the rows: the shards add up.
#[differentiable(wrt(w))]
fn sse(w: &Array1<f64>, x: &Array2<f64>, y: &Array1<f64>) -> f64 {
    sum(&square(&(x.dot(w) - y)))
}

#[test]
fn a_sum_over_shards_is_the_sum_over_the_batch() {
    let mut seed = 9;
    let (w, x, y) = (
        random(4, &mut seed),
        random((501, 4), &mut seed),
        random(501, &mut seed),
    );
    let shard = |rows: std::ops::Range<usize>| {
        let xs = x.slice(s![rows.clone(), ..]).to_owned();
        let ys = y.slice(s![rows]).to_owned();
        sse_backward(&w, &xs, &ys, 1.0)
    };
    let (value, grad) = shard(0..501);
    for shards in [2, 5] {
        let (v, g) = Shards::new(shards).sum(501, shard);
        assert!((v - value).abs() <= 1e-12 * value);
        let diff = (&g.w - &grad.w).mapv(f64::abs).sum();
        assert!(
            diff <= 1e-12 * grad.w.mapv(f64::abs).sum(),
            "{shards}: {diff}"
        );
    }
    let (v, _) = parallel::sum(501, shard);
    assert!((v - value).abs() <= 1e-12 * value);
}

#[test]
fn shards_cover_the_rows_in_order() {
    assert_eq!(Shards::new(4).ranges(10), [0..3, 3..6, 6..8, 8..10]);
    assert_eq!(Shards::new(1).ranges(5), vec![0..5; 1]);
    assert_eq!(Shards::new(8).ranges(3).len(), 3);
    assert!(std::panic::catch_unwind(|| Shards::new(0)).is_err());
    let empty = std::panic::catch_unwind(|| Shards::new(2).mean(0, |_| (1.0, 1.0)));
    assert!(empty.is_err());
}
