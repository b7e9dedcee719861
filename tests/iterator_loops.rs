//! `for` loops over iterators, walked by index: elements, rows, columns
//! and lanes of differentiable arrays, constant data with `.iter()`,
//! `.enumerate()` and `.zip(..)`. Each function is checked against the original's value bit
//! for bit, by central differences and by its closed-form gradient.

use backprop::prelude::*;
use backprop_testkit::random;

/// A per-example loss over the rows of a data matrix, labels enumerated.
#[differentiable(wrt(w))]
fn hinge(w: &Array1<f64>, x: &Array2<f64>, labels: &[f64]) -> f64 {
    let mut loss = 0.0;
    for (i, &y) in labels.iter().enumerate() {
        let margin = y * x.row(i).dot(w);
        loss += (1.0 - margin).max(0.0);
    }
    loss
}

#[test]
fn labels_enumerated() {
    let mut seed = 12;
    let x = random((5, 3), &mut seed);
    let w = random(3, &mut seed);
    let labels = [1.0, -1.0, 1.0, 1.0, -1.0];
    let (v, g) = hinge_backward(&w, &x, &labels, 1.0);
    assert_eq!(v, hinge(&w, &x, &labels));
    let mut exact = Array1::<f64>::zeros(3);
    for (i, &y) in labels.iter().enumerate() {
        if 1.0 - y * x.row(i).dot(&w) > 0.0 {
            exact = exact - &x.row(i) * y;
        }
    }
    assert!(
        (&g.w - &exact).iter().all(|e| e.abs() < 1e-15),
        "{} {exact}",
        g.w
    );
    gradcheck(&(w.clone(),), |(w,)| hinge_backward(w, &x, &labels, 1.0)).unwrap();
}

/// The rows of a differentiable matrix, zipped with constant targets.
#[differentiable(wrt(m))]
fn rows_zipped(m: &Array2<f64>, targets: &Array1<f64>) -> f64 {
    let mut s = 0.0;
    for (row, t) in m.rows().into_iter().zip(targets.iter()) {
        let e = row.sum() - t;
        s += e * e;
    }
    s
}

/// Columns and lanes along an axis of a differentiable matrix.
#[differentiable]
fn lanes(m: &Array2<f64>) -> f64 {
    let mut s = 0.0;
    for c in m.columns() {
        s += c.dot(&c);
    }
    for (k, lane) in m.axis_iter(Axis(0)).enumerate() {
        s += lane.sum() * (k as f64 + 1.0);
    }
    for r in m.outer_iter() {
        s += r[0];
    }
    s
}

#[test]
fn rows_columns_and_lanes() {
    let m = array![[1.0, 2.0], [3.0, -1.0], [0.5, 4.0]];
    let targets = array![2.0, 1.0, 3.0, 9.0];
    let (v, g) = rows_zipped_backward(&m, &targets, 1.0);
    assert_eq!(v, rows_zipped(&m, &targets));
    // Three rows (the zip stops at the shorter): ∂m_ij = 2 (Σ_j m_ij - t_i).
    let e = m.sum_axis(Axis(1)) - targets.slice(s![..3]);
    assert_eq!(
        g.m,
        (&e * 2.0).insert_axis(Axis(1)).broadcast((3, 2)).unwrap()
    );
    gradcheck(&(m.clone(),), |(m,)| rows_zipped_backward(m, &targets, 1.0)).unwrap();

    let (v, g) = lanes_backward(&m, 1.0);
    assert_eq!(v, lanes(&m));
    let mut exact = &m * 2.0;
    for (k, mut row) in exact.rows_mut().into_iter().enumerate() {
        row += k as f64 + 1.0;
        row[0] += 1.0;
    }
    assert_eq!(g.m, exact);
    gradcheck(&(m.clone(),), |(m,)| lanes_backward(m, 1.0)).unwrap();
}

/// Constant data only, zipped: weights and points, with a captured scalar.
#[differentiable(wrt(a))]
fn weighted(a: f64, points: &[f64], weights: &Vec<f64>) -> f64 {
    let mut s = 0.0;
    for (&p, w) in points.iter().zip(weights) {
        s += w * (a * p).sin();
    }
    s
}

#[test]
fn constant_data_zipped() {
    let points = [0.5, 1.0, 2.0];
    let weights = vec![1.0, -2.0, 0.5];
    let (v, g) = weighted_backward(0.3, &points, &weights, 1.0);
    assert_eq!(v, weighted(0.3, &points, &weights));
    let exact: f64 = points
        .iter()
        .zip(&weights)
        .map(|(p, w)| w * p * (0.3 * p).cos())
        .sum();
    assert!((g.a - exact).abs() < 1e-15);
    gradcheck(&(0.3,), |(a,)| {
        weighted_backward(*a, &points, &weights, 1.0)
    })
    .unwrap();
}

/// The elements of differentiable arrays, as `x.iter()` and `&m` give
/// them: enumerated, and zipped with the elements of a transposed view (in
/// its logical order, which is not its memory order).
#[differentiable]
fn elements(x: &Array1<f64>, m: &Array2<f64>) -> f64 {
    let mut s = 0.0;
    for v in x.iter() {
        s += *v * *v;
    }
    for (i, &v) in x.iter().enumerate() {
        s += v * (i as f64 + 1.0);
    }
    for (a, b) in m.iter().zip(&m.t().mapv(f64::sin)) {
        s += a * b;
    }
    s
}

#[test]
fn elements_of_differentiable_arrays() {
    let mut seed = 31;
    let x = random(4, &mut seed);
    let m = random((3, 3), &mut seed);
    let (v, g) = elements_backward(&x, &m, 1.0);
    assert_eq!(v, elements(&x, &m));
    // ∂x_i = 2 x_i + (i + 1); with s = Σ_ij m_ij sin(m_ji):
    // ∂m_ij = sin(m_ji) + m_ji cos(m_ij).
    let dx = 2.0 * &x + array![1.0, 2.0, 3.0, 4.0];
    assert!((&g.x - &dx).iter().all(|e| e.abs() < 1e-15), "{} {dx}", g.x);
    let dm = Array2::from_shape_fn((3, 3), |(i, j)| {
        m[[j, i]].sin() + m[[j, i]] * m[[i, j]].cos()
    });
    assert!((&g.m - &dm).iter().all(|e| e.abs() < 1e-15), "{} {dm}", g.m);
    gradcheck(&(x, m), |(x, m)| elements_backward(x, m, 1.0)).unwrap();
}

/// Adapters of the walks: neighbours by `x.windows(2)` (a smoothness
/// penalty), the elements after the first, the first three reversed, and
/// the rows from the last, enumerated.
#[differentiable]
fn adapted(x: &Array1<f64>, m: &Array2<f64>) -> f64 {
    let mut s = 0.0;
    for w in x.windows(2) {
        s += (w[1] - w[0]).powi(2);
    }
    for (i, v) in x.iter().skip(1).enumerate() {
        s += v * (i as f64 + 2.0);
    }
    for (i, &v) in x.iter().enumerate().take(3).rev() {
        s += v.sin() * i as f64;
    }
    for (r, row) in m.rows().into_iter().rev().enumerate() {
        s += row.sum() * (r as f64 + 1.0);
    }
    s
}

#[test]
fn windows_skip_take_and_rev() {
    let mut seed = 32;
    let x = random(5, &mut seed);
    let m = random((3, 2), &mut seed);
    let (v, g) = adapted_backward(&x, &m, 1.0);
    assert_eq!(v, adapted(&x, &m));
    let n = x.len();
    let dx = Array1::from_shape_fn(n, |j| {
        let mut d = 0.0;
        if j >= 1 {
            d += 2.0 * (x[j] - x[j - 1]) + j as f64 + 1.0;
        }
        if j + 1 < n {
            d -= 2.0 * (x[j + 1] - x[j]);
        }
        if j < 3 {
            d += x[j].cos() * j as f64;
        }
        d
    });
    assert!((&g.x - &dx).iter().all(|e| e.abs() < 1e-14), "{} {dx}", g.x);
    // Row i is the (2 - i)-th from the last: weight 3 - i.
    let dm = Array2::from_shape_fn((3, 2), |(i, _)| 3.0 - i as f64);
    assert_eq!(g.m, dm);
    gradcheck(&(x, m), |(x, m)| adapted_backward(x, m, 1.0)).unwrap();
}

/// Every other element, from the first and from the second; every third
/// row, reversed.
#[differentiable]
fn strided(x: &Array1<f64>, m: &Array2<f64>) -> f64 {
    let mut s = 0.0;
    for (k, &v) in x.iter().step_by(2).enumerate() {
        s += v * (k as f64 + 1.0);
    }
    for v in x.iter().skip(1).step_by(2) {
        s += v * v;
    }
    let odd = x.iter().skip(1).step_by(2).fold(1.0, |p, &v| p * v);
    for r in m.rows().into_iter().rev().step_by(3) {
        s += r.sum() * 0.5;
    }
    s + odd
}

#[test]
fn elements_and_rows_by_step() {
    let x = array![1.0, 2.0, 3.0, 4.0, 5.0];
    let m = Array2::from_shape_fn((7, 2), |(i, j)| (i * 2 + j) as f64);
    let (value, g) = strided_backward(&x, &m, 1.0);
    assert_eq!(value.to_bits(), strided(&x, &m).to_bits());
    // x_0, x_2, x_4 weighted 1, 2, 3; x_1, x_3 squared and multiplied.
    assert_eq!(g.x, array![1.0, 4.0 + 4.0, 2.0, 8.0 + 2.0, 3.0]);
    // Rows 6, 3 and 0.
    let mut d_m = Array2::zeros((7, 2));
    for i in [0, 3, 6] {
        d_m.row_mut(i).fill(0.5);
    }
    assert_eq!(g.m, d_m);
    gradcheck(&(x, m), |(x, m)| strided_backward(x, m, 1.0)).unwrap();
}

/// Positive elements only, in a loop and in a pipeline; rows whose sum
/// is positive, from the second on.
#[differentiable]
fn filtered(x: &Array1<f64>, m: &Array2<f64>) -> f64 {
    let mut s = 0.0;
    for &v in x.iter().filter(|&&v| v > 0.0) {
        s += v * v;
    }
    let cubes = x
        .iter()
        .filter(|v| **v > 0.0)
        .map(|v| v * v * v)
        .sum::<f64>();
    let mut rows = 0.0;
    for r in m.rows().into_iter().skip(1).filter(|r| r.sum() > 0.0) {
        rows += r.dot(&r);
    }
    s + cubes + rows
}

#[test]
fn filtered_elements_and_rows() {
    let x = array![1.0, -2.0, 3.0, 0.0];
    let m = array![[1.0, 1.0], [2.0, -3.0], [0.5, 1.0]];
    let (value, g) = filtered_backward(&x, &m, 1.0);
    assert_eq!(value.to_bits(), filtered(&x, &m).to_bits());
    assert_eq!(value, 10.0 + 28.0 + 1.25);
    // ∂x_i = 2 x_i + 3 x_i² where x_i > 0.
    assert_eq!(g.x, array![5.0, 0.0, 6.0 + 27.0, 0.0]);
    // Only row 2 (row 0 is skipped, row 1 sums to -1).
    assert_eq!(g.m, array![[0.0, 0.0], [0.0, 0.0], [1.0, 2.0]]);
    let mut seed = 31;
    let x = random(6, &mut seed);
    let m = random((4, 3), &mut seed);
    gradcheck(&(x, m), |(x, m)| filtered_backward(x, m, 1.0)).unwrap();
}

/// Arrays walked by name: `zip(y)` of a borrowed parameter, `for v in y`.
#[differentiable]
fn by_name(x: &Array1<f64>, y: &Array1<f64>) -> f64 {
    let mut s = 0.0;
    for (a, b) in x.iter().zip(y) {
        s += a * b;
    }
    for v in y {
        s += v * v;
    }
    let scale = 0.5;
    let mapped = x
        .iter()
        .map(|v| v * 2.0)
        .fold(0.0, |acc, v| acc + v * scale);
    s + x
        .iter()
        .zip(y)
        .map(|(a, b)| a - b)
        .fold(0.0, |m: f64, d| m.max(d))
        + mapped
}

#[test]
fn arrays_walked_by_name() {
    let x = array![1.0, 2.0, 3.0];
    let y = array![0.5, -1.0, 4.0];
    let (value, g) = by_name_backward(&x, &y, 1.0);
    assert_eq!(value.to_bits(), by_name(&x, &y).to_bits());
    // The largest difference is x_1 - y_1 = 3.
    assert_eq!(g.x, array![0.5 + 1.0, -1.0 + 1.0 + 1.0, 4.0 + 1.0]);
    assert_eq!(g.y, array![1.0 + 1.0, 2.0 - 2.0 - 1.0, 3.0 + 8.0]);
    let mut seed = 33;
    let (x, y) = (random(5, &mut seed), random(5, &mut seed));
    gradcheck(&(x, y), |(x, y)| by_name_backward(x, y, 1.0)).unwrap();
}
