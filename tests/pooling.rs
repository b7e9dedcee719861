//! Max and min pooling as ndarray users write it: a reshape into windows,
//! then `fold_axis(Axis(k), f64::NEG_INFINITY, |m, &v| m.max(v))` or a
//! `map_axis` whose closure folds each lane. The gradient goes to the first
//! maximum (or minimum) of each window, and nowhere in a window where the
//! initial value won. Each function is checked against the original's value
//! bit for bit, against gradients computed by hand, and (away from ties) by
//! central differences.

use backprop::prelude::*;
use backprop_testkit::{random, random32};

/// Max pooling over windows of two of a signal, then a weighted sum.
#[differentiable(wrt(x))]
fn pooled(x: &Array1<f64>, w: &Array1<f64>) -> f64 {
    let n = x.len();
    let windows = x.view().into_shape_with_order((n / 2, 2)).unwrap();
    let peaks = windows.fold_axis(Axis(1), f64::NEG_INFINITY, |m, &v| m.max(v));
    peaks.dot(w)
}

#[test]
fn max_pooling_of_a_signal_gives_each_weight_to_its_window_maximum() {
    // Windows: [1, 3], [4, -2], [0.5, 0.5] (a tie), [-1, NaN].
    let x = array![1.0, 3.0, 4.0, -2.0, 0.5, 0.5, -1.0, f64::NAN];
    let w = array![10.0, 20.0, 30.0, 40.0];
    let (value, g) = pooled_backward(&x, &w, 1.0);
    assert_eq!(value.to_bits(), pooled(&x, &w).to_bits());
    assert_eq!(value, 3.0 * 10.0 + 4.0 * 20.0 + 0.5 * 30.0 - 40.0);
    // The tie goes to the first of the window; `f64::max` passes over NaN.
    assert_eq!(g.x, array![0.0, 10.0, 20.0, 0.0, 30.0, 0.0, 40.0, 0.0]);

    let mut seed = 11;
    let x = random(12, &mut seed);
    let w = random(6, &mut seed);
    let (value, g) = pooled_backward(&x, &w, 1.0);
    assert_eq!(value.to_bits(), pooled(&x, &w).to_bits());
    let expected = Array1::from_shape_fn(12, |i| {
        // The first of a window takes a tie.
        let (j, other) = (i / 2, i ^ 1);
        if x[i] > x[other] || (x[i] == x[other] && i % 2 == 0) {
            w[j]
        } else {
            0.0
        }
    });
    assert_eq!(g.x, expected);
    gradcheck(&(x.clone(),), |(x,)| pooled_backward(x, &w, 1.0)).unwrap();
}

/// The maximum of each row, two ways of folding a lane in `map_axis`.
#[differentiable(wrt(a))]
fn row_maxima(a: &Array2<f64>, c: &Array1<f64>) -> f64 {
    let m = a.map_axis(Axis(1), |r| r.fold(f64::NEG_INFINITY, |m, &v| m.max(v)));
    let n = a.map_axis(Axis(1), |lane| {
        lane.iter().cloned().fold(f64::NEG_INFINITY, f64::max)
    });
    (&m * c).sum() + (&n * &n).sum()
}

#[test]
fn map_axis_folds_each_row_to_its_maximum() {
    let a = array![[0.5, 2.0, -1.0], [3.0, 3.0, 1.0], [-2.0, -4.0, -3.0]];
    let c = array![1.0, 2.0, 3.0];
    let (value, g) = row_maxima_backward(&a, &c, 1.0);
    assert_eq!(value.to_bits(), row_maxima(&a, &c).to_bits());
    // ∂a_ij = c_i + 2 max_i at the first maximum of row i.
    let expected = array![
        [0.0, 1.0 + 4.0, 0.0],
        [2.0 + 6.0, 0.0, 0.0],
        [3.0 - 4.0, 0.0, 0.0],
    ];
    assert_eq!(g.a, expected);

    let mut seed = 5;
    let a = random((4, 5), &mut seed);
    let c = random(4, &mut seed);
    let (value, g) = row_maxima_backward(&a, &c, 1.0);
    assert_eq!(value.to_bits(), row_maxima(&a, &c).to_bits());
    let mut expected = Array2::zeros((4, 5));
    for (i, row) in a.rows().into_iter().enumerate() {
        let (j, m) =
            row.iter().enumerate().fold(
                (0, f64::NEG_INFINITY),
                |b, (j, &v)| if v > b.1 { (j, v) } else { b },
            );
        expected[[i, j]] = c[i] + 2.0 * m;
    }
    assert_eq!(g.a, expected);
    gradcheck(&(a.clone(),), |(a,)| row_maxima_backward(a, &c, 1.0)).unwrap();
}

/// The minimum of each column, clipped from above by the initial value 0.5.
#[differentiable]
fn column_minima(a: &Array2<f64>, s: f64) -> f64 {
    let m = a.fold_axis(Axis(0), 0.5, |&m, &v| v.min(m));
    (&m * s).sum() + (&m * &m).sum()
}

#[test]
fn fold_axis_min_gives_nothing_to_a_column_where_the_initial_value_won() {
    let a = array![[0.25, 2.0, -1.0], [-0.5, 3.0, -1.0], [1.0, 0.75, 0.0]];
    let s = 2.0;
    let (value, g) = column_minima_backward(&a, s, 1.0);
    assert_eq!(value.to_bits(), column_minima(&a, s).to_bits());
    // Minima: -0.5, 0.5 (the initial value), -1.0 (a tie: the first row).
    assert_eq!(value, 2.0 * (-0.5 + 0.5 - 1.0) + 0.25 + 0.25 + 1.0);
    let expected = array![
        [0.0, 0.0, 2.0 - 2.0],
        [2.0 - 1.0, 0.0, 0.0],
        [0.0, 0.0, 0.0],
    ];
    assert_eq!(g.a, expected);
    assert_eq!(g.s, -1.0);

    let mut seed = 8;
    let a = random((5, 3), &mut seed) * 2.0;
    gradcheck(&(a.clone(), s), |(a, s)| column_minima_backward(a, *s, 1.0)).unwrap();
}

/// 2 × 2 max pooling of an image: the windows put on a last axis of four,
/// then folded.
#[differentiable(wrt(image))]
fn max_pool_2x2(image: &Array2<f64>, target: &Array2<f64>) -> f64 {
    let (h, w) = image.dim();
    let blocks = image
        .to_shape((h / 2, 2, w / 2, 2))
        .unwrap()
        .permuted_axes([0, 2, 1, 3]);
    let windows = blocks.to_shape((h / 2, w / 2, 4)).unwrap();
    let pooled = windows.fold_axis(Axis(2), f64::NEG_INFINITY, |m, &v| m.max(v));
    let r = &pooled - target;
    (&r * &r).sum()
}

#[test]
fn max_pooling_of_an_image_in_two_by_two_windows() {
    let image = array![
        [1.0, 2.0, 0.0, -1.0],
        [4.0, 3.0, 5.0, 5.0],
        [-1.0, -2.0, 0.5, 0.25],
        [-3.0, -0.5, 0.75, 1.0],
    ];
    let target = array![[1.0, 2.0], [0.0, 0.5]];
    let (value, g) = max_pool_2x2_backward(&image, &target, 1.0);
    assert_eq!(value.to_bits(), max_pool_2x2(&image, &target).to_bits());
    // Maxima 4, 5 (a tie: the first in the window's order), -0.5, 1.
    assert_eq!(value, 9.0 + 9.0 + 0.25 + 0.25);
    let expected = array![
        [0.0, 0.0, 0.0, 0.0],
        [6.0, 0.0, 6.0, 0.0],
        [0.0, 0.0, 0.0, 0.0],
        [0.0, -1.0, 0.0, 1.0],
    ];
    assert_eq!(g.image, expected);

    let mut seed = 21;
    let image = random((6, 4), &mut seed);
    let target = random((3, 2), &mut seed);
    gradcheck(&(image.clone(),), |(i,)| {
        max_pool_2x2_backward(i, &target, 1.0)
    })
    .unwrap();
}

/// A fold inside a loop: the maximum of each row of a moving window.
#[differentiable(wrt(x))]
fn windows_in_a_loop(x: &Array2<f64>) -> f64 {
    let mut total = 0.0;
    for i in 0..x.nrows() - 1 {
        let pair = x.slice(s![i..i + 2, ..]);
        let top = pair.fold_axis(Axis(0), f64::NEG_INFINITY, |m, v| m.max(*v));
        total += top.sum() * (i as f64 + 1.0);
    }
    total
}

#[test]
fn a_fold_in_a_loop_body() {
    let x = array![[1.0, 0.0], [2.0, -1.0], [0.5, 3.0]];
    let (value, g) = windows_in_a_loop_backward(&x, 1.0);
    assert_eq!(value.to_bits(), windows_in_a_loop(&x).to_bits());
    // i = 0: maxima x[1,0], x[0,1]; i = 1: x[1,0], x[2,1] (times 2).
    assert_eq!(g.x, array![[0.0, 1.0], [1.0 + 2.0, 0.0], [0.0, 2.0]]);
    let mut seed = 2;
    let x = random((5, 3), &mut seed);
    gradcheck(&(x.clone(),), |(x,)| windows_in_a_loop_backward(x, 1.0)).unwrap();
}

/// The same spellings in `f32`.
#[differentiable]
fn pooled32(x: &Array2<f32>) -> f32 {
    let m = x.fold_axis(Axis(1), f32::NEG_INFINITY, |m, &v| f32::max(*m, v));
    let n = x.map_axis(Axis(0), |r| r.fold(f32::INFINITY, |m, &v| m.min(v)));
    m.sum() + (&n * &n).sum()
}

#[test]
fn f32_folds() {
    let x = array![[1.0_f32, -2.0], [0.5, 4.0]];
    let (value, g) = pooled32_backward(&x, 1.0);
    assert_eq!(value.to_bits(), pooled32(&x).to_bits());
    // Row maxima 1, 4; column minima 0.5, -2.
    assert_eq!(g.x, array![[1.0_f32, -4.0], [1.0, 1.0]]);
    let mut seed = 4;
    let x = random32((3, 4), &mut seed);
    gradcheck(&(x.clone(),), |(x,)| pooled32_backward(x, 1.0)).unwrap();
}

/// A fold of a constant is any fold: it is a constant of the gradient.
#[differentiable(wrt(x))]
fn weighted_by_row_sums(x: &Array1<f64>, c: &Array2<f64>) -> f64 {
    let sums = c.fold_axis(Axis(1), 0.0, |a, &b| a + b * 2.0);
    x.dot(&sums)
}

#[test]
fn any_fold_of_a_constant_passes_through() {
    let x = array![1.0, -1.0];
    let c = array![[1.0, 2.0], [3.0, 0.5]];
    let (value, g) = weighted_by_row_sums_backward(&x, &c, 1.0);
    assert_eq!(value, weighted_by_row_sums(&x, &c));
    assert_eq!(g.x, array![6.0, 7.0]);
}

/// A differentiable floor under the maxima, as the hint of a non-constant
/// initial value says: fold from `-∞`, then take the `max` with it.
#[differentiable]
fn floored_peaks(a: &Array2<f64>, floor: f64) -> f64 {
    let peaks = a.fold_axis(Axis(1), f64::NEG_INFINITY, |m, &v| m.max(v));
    peaks.mapv(|m| m.max(floor)).sum()
}

#[test]
fn a_differentiable_floor_after_the_fold() {
    let a = array![[0.5, -1.0], [-2.0, -3.0], [1.5, 2.5]];
    let (value, g) = floored_peaks_backward(&a, -0.5, 1.0);
    assert_eq!(value, floored_peaks(&a, -0.5));
    assert_eq!(value, 0.5 - 0.5 + 2.5);
    assert_eq!(g.a, array![[1.0, 0.0], [0.0, 0.0], [0.0, 1.0]]);
    assert_eq!(g.floor, 1.0);
    gradcheck(&(a.clone(), -0.5), |(a, f)| {
        floored_peaks_backward(a, *f, 1.0)
    })
    .unwrap();
}
