//! Row-wise softmax family and the losses: values against direct formulas,
//! stability for large inputs, adjoints against central differences, and the
//! panics on bad labels or shapes.

#[macro_use]
mod common;

use backprop_runtime::ops::*;
use common::{f32s, rand, F32, F64};
use ndarray::{array, Array1, Array2, Axis, ShapeBuilder};

/// The naive row-wise softmax of a matrix (fine for small inputs).
fn naive_softmax(x: &Array2<f64>) -> Array2<f64> {
    let e = x.mapv(f64::exp);
    let s = e.sum_axis(Axis(1)).insert_axis(Axis(1));
    &e / &s
}

#[test]
fn softmax_family_forward_values() {
    let x = rand((3, 5), 1, -2.0, 2.0);
    let p = softmax(&x);
    let q = naive_softmax(&x);
    assert!(
        p.iter().zip(&q).all(|(a, b)| (a - b).abs() < 1e-15),
        "{p} vs {q}"
    );
    for r in p.rows() {
        assert!((r.sum() - 1.0).abs() < 1e-15);
    }
    let l = log_softmax(&x);
    assert!(l.iter().zip(&q).all(|(a, b)| (a - b.ln()).abs() < 1e-14));
    let lse = logsumexp(&x);
    for (i, r) in x.rows().into_iter().enumerate() {
        assert!((lse[i] - r.mapv(f64::exp).sum().ln()).abs() < 1e-14);
        assert!((logsumexp(&r) - lse[i]).abs() < 1e-15);
    }
    // A vector is one row; a scalar is a row of one element.
    assert_eq!(softmax(&x.row(0)), p.row(0));
    assert_eq!(softmax(3.0_f64), 1.0);
    assert_eq!(log_softmax(3.0_f64), 0.0);
    assert_eq!(logsumexp(3.0_f64), 3.0);
    // Rows of a column-major matrix and of a 3-d array.
    let f = rand((3, 5).f(), 2, -2.0, 2.0);
    assert!(softmax(&f)
        .iter()
        .zip(&naive_softmax(&f.to_owned()))
        .all(|(a, b)| (a - b).abs() < 1e-15));
    let x3 = rand((2, 3, 4), 3, -2.0, 2.0);
    let p3 = softmax(&x3);
    assert!(p3.sum_axis(Axis(2)).iter().all(|s| (s - 1.0).abs() < 1e-15));
}

#[test]
fn softmax_family_is_stable_for_large_inputs() {
    let x = array![
        [1000.0_f64, 1000.0, -1000.0],
        [-1000.0, -1000.0, -1000.0],
        [1e300, 0.0, -1e300]
    ];
    let p = softmax(&x);
    assert!(p.iter().all(|v| v.is_finite()), "{p}");
    assert_eq!(p.row(0), array![0.5, 0.5, 0.0]);
    assert_eq!(p.row(2), array![1.0, 0.0, 0.0]);
    let l = log_softmax(&x);
    assert_eq!(l[[0, 0]], -std::f64::consts::LN_2);
    assert!(l.row(1).iter().all(|v| (v + 3.0_f64.ln()).abs() < 1e-15));
    let lse = logsumexp(&x);
    assert_eq!(lse[0], 1000.0 + std::f64::consts::LN_2);
    assert!(lse.iter().all(|v| v.is_finite()));
    let ones = Array2::ones((3, 3));
    assert!(softmax_vjp(&ones, &x, &p).iter().all(|v| v.is_finite()));
    assert!(log_softmax_vjp(&ones, &x, &l).iter().all(|v| v.is_finite()));
    assert!(logsumexp_vjp(Array1::ones(3), &x, &lse)
        .iter()
        .all(|v| v.is_finite()));
    assert_eq!(
        logsumexp(&array![f64::NEG_INFINITY, f64::NEG_INFINITY]),
        f64::NEG_INFINITY
    );
    assert_eq!(logsumexp(&array![f64::INFINITY, 0.0]), f64::INFINITY);
    assert!(logsumexp(&array![f64::NAN, 0.0]).is_nan());
    assert!(softmax(&array![f64::NAN, 0.0]).iter().all(|v| v.is_nan()));
    assert_eq!(softmax(&array![1000.0_f32, 1000.0]), array![0.5, 0.5]);
}

#[test]
fn softmax_matches_central_differences() {
    check_vjp!(
        "matrix",
        F64,
        rand((3, 4), 4, -2.0, 2.0),
        |x| softmax(x),
        |g, out| softmax_vjp(g, x, out)
    );
    check_vjp!(
        "vector",
        F64,
        rand(5, 5, -2.0, 2.0),
        |x| softmax(x),
        |g, out| softmax_vjp(g, x, out)
    );
    check_vjp!(
        "scalar",
        F64,
        0.7_f64,
        |x| softmax(x),
        |g, out| softmax_vjp(g, x, out)
    );
    check_vjp!(
        "column-major",
        F64,
        rand((3, 4).f(), 6, -2.0, 2.0),
        |x| softmax(x),
        |g, out| softmax_vjp(g, x, out)
    );
    check_vjp!(
        "view",
        F64,
        rand((4, 3), 7, -2.0, 2.0),
        |x| softmax(&x.t()),
        |g, out| softmax_vjp(g, &x.t(), out).reversed_axes()
    );
    check_vjp!(
        "3-d",
        F64,
        rand((2, 3, 4), 8, -2.0, 2.0),
        |x| softmax(x),
        |g, out| softmax_vjp(g, x, out)
    );
    check_vjp!(
        "f32",
        F32,
        f32s(&rand((3, 4), 9, -2.0, 2.0)),
        |x| softmax(x),
        |g, out| softmax_vjp(g, x, out)
    );
}

#[test]
fn log_softmax_matches_central_differences() {
    check_vjp!(
        "matrix",
        F64,
        rand((3, 4), 10, -2.0, 2.0),
        |x| log_softmax(x),
        |g, out| log_softmax_vjp(g, x, out)
    );
    check_vjp!(
        "vector",
        F64,
        rand(5, 11, -2.0, 2.0),
        |x| log_softmax(x),
        |g, out| log_softmax_vjp(g, x, out)
    );
    check_vjp!("scalar", F64, 0.7_f64, |x| log_softmax(x), |g, out| {
        log_softmax_vjp(g, x, out)
    });
    check_vjp!(
        "column-major",
        F64,
        rand((3, 4).f(), 12, -2.0, 2.0),
        |x| log_softmax(x),
        |g, out| log_softmax_vjp(g, x, out)
    );
    check_vjp!(
        "f32",
        F32,
        f32s(&rand((3, 4), 13, -2.0, 2.0)),
        |x| log_softmax(x),
        |g, out| log_softmax_vjp(g, x, out)
    );
}

#[test]
fn logsumexp_matches_central_differences() {
    check_vjp!(
        "matrix",
        F64,
        rand((3, 4), 14, -2.0, 2.0),
        |x| logsumexp(x),
        |g, out| logsumexp_vjp(g, x, out)
    );
    check_vjp!(
        "vector",
        F64,
        rand(5, 15, -2.0, 2.0),
        |x| logsumexp(x),
        |g, out| logsumexp_vjp(g, x, out)
    );
    check_vjp!("scalar", F64, 0.7_f64, |x| logsumexp(x), |g, out| {
        logsumexp_vjp(g, x, out)
    });
    check_vjp!(
        "view",
        F64,
        rand((4, 3), 16, -2.0, 2.0),
        |x| logsumexp(&x.t()),
        |g, out| logsumexp_vjp(g, &x.t(), out).reversed_axes()
    );
    check_vjp!(
        "f32",
        F32,
        f32s(&rand((3, 4), 17, -2.0, 2.0)),
        |x| logsumexp(x),
        |g, out| logsumexp_vjp(g, x, out)
    );
}

#[test]
fn softmax_cross_entropy_values() {
    let x = rand((4, 3), 18, -2.0, 2.0);
    let labels = [2, 0, 1, 1];
    let (loss, probs) = softmax_cross_entropy_fwd(&x, &labels);
    assert_eq!(softmax_cross_entropy(&x, &labels), loss);
    let l = log_softmax(&x);
    let expected = -labels
        .iter()
        .enumerate()
        .map(|(i, &y)| l[[i, y]])
        .sum::<f64>()
        / 4.0;
    assert!((loss - expected).abs() < 1e-15, "{loss} vs {expected}");
    assert!(probs
        .iter()
        .zip(&softmax(&x))
        .all(|(a, b)| (a - b).abs() < 1e-16));
    // Large logits: finite loss and gradient.
    let big = array![[1000.0, -1000.0], [-1000.0, 1000.0], [1000.0, 1000.0]];
    let (loss, probs) = softmax_cross_entropy_fwd(&big, &[0, 0, 1]);
    assert!(
        (loss - (2000.0 + std::f64::consts::LN_2) / 3.0).abs() < 1e-12,
        "{loss}"
    );
    assert!(softmax_cross_entropy_vjp(1.0, &big, &[0, 0, 1], &probs)
        .iter()
        .all(|v| v.is_finite()));
    let loss32 = softmax_cross_entropy(&f32s(&big), &[0, 0, 1]);
    assert!(loss32.is_finite());
}

#[test]
fn softmax_cross_entropy_matches_central_differences() {
    let labels = [2, 0, 1, 1];
    check_vjp!(
        "f64",
        F64,
        rand((4, 3), 19, -2.0, 2.0),
        |x| softmax_cross_entropy(x, &labels),
        |g, _o| softmax_cross_entropy_vjp(g, x, &labels, &softmax_cross_entropy_fwd(x, &labels).1)
    );
    check_vjp!(
        "column-major",
        F64,
        rand((4, 3).f(), 20, -2.0, 2.0),
        |x| softmax_cross_entropy(x, &labels),
        |g, _o| softmax_cross_entropy_vjp(g, x, &labels, &softmax_cross_entropy_fwd(x, &labels).1)
    );
    check_vjp!(
        "view",
        F64,
        rand((3, 4), 21, -2.0, 2.0),
        |x| softmax_cross_entropy(&x.t(), &labels),
        |g, _o| {
            softmax_cross_entropy_vjp(
                g,
                &x.t(),
                &labels,
                &softmax_cross_entropy_fwd(&x.t(), &labels).1,
            )
            .reversed_axes()
        }
    );
    check_vjp!(
        "f32",
        F32,
        f32s(&rand((4, 3), 22, -2.0, 2.0)),
        |x| softmax_cross_entropy(x, &labels),
        |g, _o| softmax_cross_entropy_vjp(g, x, &labels, &softmax_cross_entropy_fwd(x, &labels).1)
    );
}

#[test]
#[should_panic(expected = "softmax_cross_entropy: 3 labels for 4 rows of logits (shape [4, 3])")]
fn softmax_cross_entropy_panics_on_a_label_count_mismatch() {
    let _ = softmax_cross_entropy(&Array2::<f64>::zeros((4, 3)), &[0, 1, 2]);
}

#[test]
#[should_panic(expected = "softmax_cross_entropy: label 3 of row 1 is out of range for 3 classes")]
fn softmax_cross_entropy_panics_on_an_out_of_range_label() {
    let _ = softmax_cross_entropy(&Array2::<f64>::zeros((2, 3)), &[0, 3]);
}

#[test]
#[should_panic(expected = "softmax_cross_entropy: label 5 of row 0 is out of range for 3 classes")]
fn softmax_cross_entropy_vjp_panics_on_an_out_of_range_label() {
    let x = Array2::<f64>::zeros((1, 3));
    let _ = softmax_cross_entropy_vjp(1.0, &x, &[5], &x);
}

#[test]
fn mse_values() {
    let p = rand((3, 4), 23, -1.0, 1.0);
    let t = rand((3, 4), 24, -1.0, 1.0);
    let expected = (&p - &t).mapv(|d| d * d).mean().unwrap();
    assert!((mse(&p, &t) - expected).abs() < 1e-16);
    assert!((mse(&p.view(), &t) - expected).abs() < 1e-16);
    assert_eq!(mse(3.0_f64, 1.0), 4.0);
    #[allow(
        clippy::needless_borrows_for_generic_args,
        reason = "the generated code passes scalars by reference"
    )]
    let by_ref = mse(&3.0_f64, &1.0);
    assert_eq!(by_ref, 4.0);
}

#[test]
fn mse_matches_central_differences() {
    check_vjp2!(
        "matrix",
        F64,
        rand((3, 4), 25, -1.0, 1.0),
        rand((3, 4), 26, -1.0, 1.0),
        |p, t| mse(p, t),
        |g, _o| mse_vjp_lhs(g, p, t),
        |g, _o| mse_vjp_rhs(g, p, t)
    );
    check_vjp2!(
        "column-major target",
        F64,
        rand((3, 4), 27, -1.0, 1.0),
        rand((3, 4).f(), 28, -1.0, 1.0),
        |p, t| mse(p, t),
        |g, _o| mse_vjp_lhs(g, p, t),
        |g, _o| mse_vjp_rhs(g, p, t)
    );
    check_vjp2!(
        "view pred",
        F64,
        rand((4, 3), 29, -1.0, 1.0),
        rand((3, 4), 30, -1.0, 1.0),
        |p, t| mse(&p.t(), t),
        |g, _o| mse_vjp_lhs(g, &p.t(), t).reversed_axes(),
        |g, _o| mse_vjp_rhs(g, &p.t(), t)
    );
    check_vjp2!(
        "scalars",
        F64,
        0.3_f64,
        -0.8_f64,
        |p, t| mse(p, t),
        |g, _o| mse_vjp_lhs(g, p, t),
        |g, _o| mse_vjp_rhs(g, p, t)
    );
    check_vjp2!(
        "vectors",
        F64,
        rand(5, 31, -1.0, 1.0),
        rand(5, 32, -1.0, 1.0),
        |p, t| mse(p, t),
        |g, _o| mse_vjp_lhs(g, p, t),
        |g, _o| mse_vjp_rhs(g, p, t)
    );
    check_vjp2!(
        "f32",
        F32,
        f32s(&rand((3, 4), 33, -1.0, 1.0)),
        f32s(&rand((3, 4), 34, -1.0, 1.0)),
        |p, t| mse(p, t),
        |g, _o| mse_vjp_lhs(g, p, t),
        |g, _o| mse_vjp_rhs(g, p, t)
    );
}

#[test]
#[should_panic(expected = "mse: pred has shape [3, 4] but target has shape [4, 3]")]
fn mse_panics_on_a_shape_mismatch() {
    let (p, t) = (Array2::<f64>::zeros((3, 4)), Array2::<f64>::zeros((4, 3)));
    let _ = mse(&p, &t);
}

#[test]
#[should_panic(expected = "mse: pred has shape [3] but target has shape []")]
fn mse_does_not_broadcast() {
    let _ = mse(&Array1::<f64>::zeros(3), 1.0);
}

/// `mse` sums `(p − t)²` in the arrays' logical order, one addition after
/// another, whether both are in the standard layout (two slices) or not (a
/// zip): the same bits as that sum written out.
#[test]
fn mse_adds_in_logical_order_for_every_layout() {
    let p = rand((7, 5), 91, -2.0, 2.0);
    let t = rand((7, 5), 92, -2.0, 2.0);
    let written_out = |p: &Array2<f64>, t: &Array2<f64>| {
        let mut total = 0.0;
        for (a, b) in p.iter().zip(t.iter()) {
            total += (a - b) * (a - b);
        }
        total / 35.0
    };
    let expected = written_out(&p, &t);
    assert_eq!(mse(&p, &t).to_bits(), expected.to_bits());
    // A column-major target, a transposed view, a strided view.
    let mut t_f = Array2::zeros((7, 5).f());
    t_f.assign(&t);
    assert_eq!(mse(&p, &t_f).to_bits(), expected.to_bits());
    let pt = p.t().to_owned();
    assert_eq!(mse(&pt.t(), &t).to_bits(), expected.to_bits());
    let wide = rand((7, 10), 93, -2.0, 2.0);
    let every_other = wide.slice(ndarray::s![.., ..;2]);
    assert_eq!(
        mse(&every_other, &t).to_bits(),
        written_out(&every_other.to_owned(), &t).to_bits()
    );
}

/// `mse_vjp_lhs` with `pred` owned and passed by value writes the gradient
/// over `pred`, with the bits of the call by reference, in either layout;
/// a scalar `pred` by value is the scalar rule.
#[test]
fn mse_rule_over_the_predictions_buffer() {
    let t = rand((3, 4), 35, -1.0, 1.0);
    for p in [rand((3, 4), 36, -1.0, 1.0), {
        let mut f = Array2::zeros((3, 4).f());
        f.assign(&rand((3, 4), 37, -1.0, 1.0));
        f
    }] {
        let by_ref = mse_vjp_lhs(0.75, &p, &t);
        let ptr = p.as_ptr();
        let by_value = mse_vjp_lhs(0.75, p, &t);
        assert_eq!(by_value.as_ptr(), ptr);
        assert_eq!(by_value.strides(), by_ref.strides());
        common::assert_same("mse_vjp_lhs by value", &by_value, &by_ref);
    }
    assert_eq!(
        mse_vjp_lhs(0.5, 3.0_f64, &1.0).to_bits(),
        mse_vjp_lhs(0.5, &3.0_f64, &1.0).to_bits()
    );
    assert_eq!(mse_vjp_lhs(0.5, 3.0_f64, &1.0), 2.0);
    assert_eq!(mse_vjp_rhs(0.5, &3.0_f64, &1.0), -2.0);
}
