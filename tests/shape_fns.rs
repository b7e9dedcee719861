//! Arrays made by `from_shape_fn` of closures that read differentiable
//! values: filled element by element as the loops they are. Each function
//! is checked against the original's value bit for bit, by central
//! differences and by its closed-form gradient.

use backprop::prelude::*;
use backprop_testkit::random;

/// Neighbour products around a ring, then a matrix scaled column by column.
#[differentiable]
fn ring(x: &Array1<f64>, m: &Array2<f64>) -> f64 {
    let n = x.len();
    let y = Array1::from_shape_fn(n, |i| x[i] * x[(i + 1) % n]);
    let z = Array2::from_shape_fn((m.nrows(), n), |(i, j)| m[[i, j]] * y[j]);
    z.sum()
}

#[test]
fn from_shape_fn_of_one_and_two_axes() {
    let x = array![1.0, 2.0, 3.0];
    let m = array![[1.0, 0.5, 2.0], [3.0, -1.0, 1.0]];
    let (value, g) = ring_backward(&x, &m, 1.0);
    assert_eq!(value.to_bits(), ring(&x, &m).to_bits());
    // y = (2, 6, 3), column sums of m (4, -0.5, 3).
    assert_eq!(value, 8.0 - 3.0 + 9.0);
    // ∂m_ij = y_j; ∂x_i = c_i x_{i+1} + c_{i-1} x_{i-1}, c the column sums.
    assert_eq!(g.m, array![[2.0, 6.0, 3.0], [2.0, 6.0, 3.0]]);
    assert_eq!(
        g.x,
        array![
            4.0 * 2.0 + 3.0 * 3.0,
            -0.5 * 3.0 + 4.0 * 1.0,
            3.0 * 1.0 - 0.5 * 2.0
        ]
    );
    let mut seed = 81;
    let x = random(5, &mut seed);
    let m = random((3, 5), &mut seed);
    gradcheck(&(x, m), |(x, m)| ring_backward(x, m, 1.0)).unwrap();
}

/// A Gram matrix of the rows, `k_ij = exp(-|a_i - a_j|²)`, a three-axis
/// array of outer products, and a typed index.
#[differentiable]
fn kernels(a: &Array2<f64>, v: &Array1<f64>) -> f64 {
    let n = a.nrows();
    let gram = Array2::from_shape_fn((n, n), |(i, j)| {
        let d = &a.row(i) - &a.row(j);
        (-d.dot(&d)).exp()
    });
    let cube = Array3::from_shape_fn((2, 2, v.len()), |ijk| {
        let (i, j, k) = ijk;
        v[k] * (i + 2 * j + 1) as f64
    });
    let scaled = Array1::from_shape_fn(v.len(), |k: usize| v[k] * v[k]);
    gram.sum() + cube.sum() + scaled.sum()
}

#[test]
fn a_gram_matrix_and_three_axes() {
    let mut seed = 82;
    let a = random((4, 3), &mut seed);
    let v = random(3, &mut seed);
    let (value, g) = kernels_backward(&a, &v, 1.0);
    assert_eq!(value.to_bits(), kernels(&a, &v).to_bits());
    // ∂v_k = (1 + 2 + 3 + 4) + 2 v_k.
    assert!((&g.v - &(&v * 2.0 + 10.0)).iter().all(|e| e.abs() < 1e-14));
    gradcheck(&(a, v), |(a, v)| kernels_backward(a, v, 1.0)).unwrap();
}

/// To second order: `Σ_i (x_i x_{i+1})²` made by `from_shape_fn`.
#[differentiable(hvp)]
fn chain_energy(x: &Array1<f64>) -> f64 {
    let p = Array1::from_shape_fn(x.len() - 1, |i| x[i] * x[i + 1]);
    p.dot(&p)
}

#[test]
fn from_shape_fn_to_second_order() {
    let x = array![1.0, 2.0, -1.0];
    let (value, g, _) = chain_energy_hvp(&x, &Array1::zeros(3));
    assert_eq!(value, 4.0 + 4.0);
    // ∂x = (2 p_0 x_1, 2 p_0 x_0 + 2 p_1 x_2, 2 p_1 x_1), p = (2, -2).
    assert_eq!(g.x, array![8.0, 4.0 + 4.0, -8.0]);
    hvpcheck(&x, &array![0.3, -0.4, 0.2], chain_energy_hvp).unwrap();
}
