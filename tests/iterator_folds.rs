//! An iterator's `fold`, differentiated as the loop it is: Horner's rule
//! over coefficients, sums and products over ranges and zipped
//! iterators, a maximum folded with `f64::max`, an array accumulated over
//! rows. Each function is checked against the original's value bit for
//! bit, by central differences and by its closed-form gradient.

use backprop::prelude::*;
use backprop_testkit::random;

/// `c_0 x^{n-1} + .. + c_{n-1}` by Horner's rule.
#[differentiable]
fn horner(c: &Array1<f64>, x: f64) -> f64 {
    c.iter().fold(0.0, |acc, &ci| acc * x + ci)
}

#[test]
fn horners_rule_has_the_polynomials_gradient() {
    let c = array![1.0, -3.0, 0.5, 2.0];
    let (value, g) = horner_backward(&c, 2.0, 1.0);
    assert_eq!(value.to_bits(), horner(&c, 2.0).to_bits());
    // 8 - 12 + 1 + 2.
    assert_eq!(value, -1.0);
    // ∂c_i = x^{n-1-i}; ∂x = 3 x² - 6 x + 0.5.
    assert_eq!(g.c, array![8.0, 4.0, 2.0, 1.0]);
    assert_eq!(g.x, 0.5);
    gradcheck(&(c, 0.7), |(c, x)| horner_backward(c, *x, 1.0)).unwrap();
}

/// Folds over reversed elements, a typed accumulator of references, a
/// range, copied elements with `f64::max`, zipped rows and elements.
#[differentiable]
fn folds(c: &Array1<f64>, x: f64, m: &Array2<f64>) -> f64 {
    let reversed = c.iter().rev().fold(0.0, |acc, &ci| acc * x + ci);
    let squares = c.iter().fold(0.0, |s: f64, v| s + v * *v);
    let ranged = (0..c.len()).fold(1.0, |p, i| p * (1.0 + c[i] * x));
    let top = c.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let rows = m.rows().into_iter().fold(0.0, |acc, r| acc + r.dot(c));
    let zipped = c
        .iter()
        .zip(m.row(0).iter())
        .fold(0.0, |a, (u, w)| a + u * w);
    reversed + 2.0 * squares + ranged * zipped + rows + top
}

#[test]
fn folds_of_every_walk_gradcheck() {
    let mut seed = 71;
    let c = random(4, &mut seed);
    let m = random((3, 4), &mut seed);
    let (value, _) = folds_backward(&c, 0.6, &m, 1.0);
    assert_eq!(value.to_bits(), folds(&c, 0.6, &m).to_bits());
    gradcheck(&(c, 0.6, m), |(c, x, m)| folds_backward(c, *x, m, 1.0)).unwrap();
}

#[test]
fn a_maximum_folded_with_f64_max_has_its_gradient_at_the_maximum() {
    let c = array![0.5, 2.0, -1.0, 1.5];
    let m = Array2::zeros((1, 4));
    let (_, g) = folds_backward(&c, 0.0, &m, 1.0);
    // At x = 0 and m = 0: reversed is c_0 (folded last), ranged 1,
    // zipped and rows 0, so ∂c = e_0 + 4 c + e_1 (the maximum).
    assert_eq!(g.c, array![3.0, 9.0, -4.0, 6.0]);
}

/// The sum of the squared rows, an array carried by the fold.
#[differentiable]
fn column_energy(m: &Array2<f64>, w: &Array1<f64>) -> f64 {
    let energy = m
        .rows()
        .into_iter()
        .fold(Array1::zeros(m.ncols()), |acc, r| acc + &r * &r);
    energy.dot(w)
}

#[test]
fn an_array_accumulated_over_rows() {
    let mut seed = 72;
    let m = random((5, 3), &mut seed);
    let w = random(3, &mut seed);
    let (value, g) = column_energy_backward(&m, &w, 1.0);
    assert_eq!(value.to_bits(), column_energy(&m, &w).to_bits());
    // ∂m_ij = 2 m_ij w_j; ∂w = Σ_i m_i².
    assert!((&g.m - &(&m * &w * 2.0)).iter().all(|e| e.abs() < 1e-15));
    assert!((&g.w - &(&m * &m).sum_axis(Axis(0)))
        .iter()
        .all(|e| e.abs() < 1e-15));
    gradcheck(&(m, w), |(m, w)| column_energy_backward(m, w, 1.0)).unwrap();
}

/// Horner's rule to second order: `p(x)²` of a cubic.
#[differentiable(hvp)]
fn horner_squared(c: &Array1<f64>, x: f64) -> f64 {
    let p = c.iter().fold(0.0, |acc, &ci| acc * x + ci);
    p * p
}

#[test]
fn a_fold_to_second_order() {
    let c = array![1.0, -3.0, 0.5, 2.0];
    // Along x alone: d²(p²)/dx² = 2 p'² + 2 p p'' at x = 2, where p = -1,
    // p' = 0.5, p'' = 6 x - 6 = 6.
    let (value, _, hv) = horner_squared_hvp(&c, 2.0, &Array1::zeros(4), 1.0);
    assert_eq!(value, 1.0);
    assert_eq!(hv.x, 2.0 * 0.25 - 2.0 * 6.0);
    hvpcheck(
        &(c, 0.7),
        &(array![0.3, -0.2, 0.5, 0.1], 0.4),
        |(c, x), (tc, tx)| horner_squared_hvp(c, *x, tc, *tx),
    )
    .unwrap();
}

/// Sums and products of iterator pipelines the closure sums do not take:
/// enumerated, skipped, reversed, rows, a range, a mapped function.
#[differentiable]
fn pipelines(x: &Array1<f64>, m: &Array2<f64>) -> f64 {
    let weighted = x
        .iter()
        .enumerate()
        .map(|(i, &v)| v * (i as f64 + 1.0))
        .sum::<f64>();
    let tail: f64 = x.iter().skip(1).sum();
    let rows = m.rows().into_iter().map(|r| r.sum().powi(2)).sum::<f64>();
    let exps = x.iter().rev().map(|v| v.exp()).product::<f64>();
    let ranged = (0..x.len()).map(|i| x[i] * m[[0, i]]).sum::<f64>();
    let lnsum = x.iter().copied().map(f64::exp).sum::<f64>().ln();
    weighted + tail + rows + exps + ranged + lnsum
}

#[test]
fn sums_and_products_of_pipelines() {
    let x = array![0.5, -1.0, 2.0];
    let m = array![[1.0, 2.0, 3.0], [0.0, -1.0, 0.5]];
    let (value, g) = pipelines_backward(&x, &m, 1.0);
    assert_eq!(value.to_bits(), pipelines(&x, &m).to_bits());
    // ∂x_i = (i + 1) + [i ≥ 1] + e^{Σx} + m_0i + softmax(x)_i.
    let e = x.mapv(f64::exp);
    let softmax = &e / e.sum();
    let exact = array![1.0, 2.0 + 1.0, 3.0 + 1.0] + 1.5_f64.exp() + m.row(0) + &softmax;
    assert!(
        (&g.x - &exact).iter().all(|d| d.abs() < 1e-14),
        "{} {exact}",
        g.x
    );
    // ∂m_ij = 2 Σ_j m_ij, plus x_j on row 0.
    let mut d_m = Array2::from_shape_fn((2, 3), |(i, _)| 2.0 * m.row(i).sum());
    d_m.row_mut(0).scaled_add(1.0, &x);
    assert!((&g.m - &d_m).iter().all(|d| d.abs() < 1e-14));
    let mut seed = 73;
    let x = random(4, &mut seed);
    let m = random((3, 4), &mut seed);
    gradcheck(&(x, m), |(x, m)| pipelines_backward(x, m, 1.0)).unwrap();
}

/// A filter, a fold and `from_shape_fn` to second order.
#[differentiable(hvp)]
fn filtered_cubes(x: &Array1<f64>) -> f64 {
    let mut s = 0.0;
    for &v in x.iter().filter(|&&v| v > 0.0) {
        s += v * v * v;
    }
    let doubled = Array1::from_shape_fn(x.len(), |i| x[i] * 2.0);
    s + x.iter().filter(|v| **v < 0.0).map(|&v| v * v).sum::<f64>()
        + doubled.iter().fold(0.0, |a, &b| a + b * b)
}

#[test]
fn a_filter_and_a_fold_to_second_order() {
    let x = array![1.0, -2.0, 3.0];
    // Along e_0: d²/dx_0² of x_0³ + 4 x_0² is 6 x_0 + 8.
    let (_, _, hv) = filtered_cubes_hvp(&x, &array![1.0, 0.0, 0.0]);
    assert_eq!(hv.x, array![14.0, 0.0, 0.0]);
    hvpcheck(&x, &array![0.3, 0.1, -0.2], filtered_cubes_hvp).unwrap();
}

/// Arithmetic on the references `iter()` gives (`v * v`, `-v * s`, `b * b`
/// of `b: &f64`), to second order: the copy over duals has the operators
/// by reference that `f64` has.
#[differentiable(hvp)]
fn by_reference(x: &Array1<f64>, s: f64) -> f64 {
    let mut t = 0.0;
    for v in x.iter() {
        t += v * v - v / 2.0 + -v * s;
    }
    x.iter().map(|v| v * v * s).sum::<f64>() + t + x.iter().fold(0.0, |a, b| a + b * b)
}

#[test]
fn arithmetic_on_references_to_second_order() {
    let x = array![1.0, -2.0, 3.0];
    // Along s: ∂²/∂s² = 0; along x_0: 2 s + 2 + 2 = 5.4 at s = 0.7.
    let (_, _, hv) = by_reference_hvp(&x, 0.7, &array![1.0, 0.0, 0.0], 0.0);
    assert!((hv.x[0] - 5.4).abs() < 1e-14 && hv.x[1] == 0.0 && hv.x[2] == 0.0);
    // ∂²/∂x_0∂s = 2 x_0 - 1.
    assert_eq!(hv.s, 1.0);
    hvpcheck(
        &(x, 0.7),
        &(array![0.3, 0.1, -0.2], 0.4),
        |(x, s), (tx, ts)| by_reference_hvp(x, *s, tx, *ts),
    )
    .unwrap();
}

/// A fold whose closure does not read its accumulator (`|_, &v|`): the
/// last element's image, or the initial value of an empty slice.
#[differentiable(jvp)]
fn last_doubled(x: &[f64], c: f64) -> f64 {
    x.iter().fold(c, |_, &v| v * 2.0)
}

#[test]
fn a_fold_that_ignores_its_accumulator() {
    let (v, g) = last_doubled_backward(&[1.0, 3.0], 0.5, 1.0);
    assert_eq!((v, g.x, g.c), (6.0, vec![0.0, 2.0], 0.0));
    assert_eq!(v, last_doubled(&[1.0, 3.0], 0.5));
    let (v, g) = last_doubled_backward(&[], 0.5, 1.0);
    assert_eq!((v, g.x, g.c), (0.5, vec![], 1.0));
    let params = (vec![1.0, 3.0], 0.5);
    gradcheck(&params, |(x, c)| last_doubled_backward(x, *c, 1.0)).unwrap();
    jvpcheck(
        &params,
        &(vec![0.5, -1.0], 2.0),
        |(x, c)| last_doubled_backward(x, *c, 1.0),
        |(x, c), (tx, tc)| last_doubled_jvp(x, *c, tx, *tc),
    )
    .unwrap();
}
