//! The broadcast-gradient post (shared/seeds/broadcast-gradient-post.txt):
//! `C = A - B` with A (3, 3) and B (3, 1) gives dA = G and dB = -(row sums of G).

use backprop::prelude::*;
use backprop_testkit::lcg;

#[differentiable]
fn broadcast_sub(a: &Array2<f64>, b: &Array2<f64>) -> Array2<f64> {
    a - b
}

/// A small deterministic generator, so the "random" upstream is reproducible.
#[test]
fn broadcast_subtraction_sums_the_rows_with_a_minus_sign() {
    let mut seed = 7;
    let a = Array2::from_shape_fn((3, 3), |_| lcg(&mut seed));
    let b = Array2::from_shape_fn((3, 1), |_| lcg(&mut seed));
    for _ in 0..5 {
        let g = Array2::from_shape_fn((3, 3), |_| lcg(&mut seed));
        let (c, grad) = broadcast_sub_backward(&a, &b, &g);
        assert_eq!(c, broadcast_sub(&a, &b));
        assert_eq!(c, &a - &b);
        // "dL/dA = G": the gradient passes through unchanged.
        assert_eq!(grad.a, g);
        // "dB = -G.sum(axis=1, keepdims=True)", shape (3, 1).
        assert_eq!(grad.b.shape(), &[3, 1]);
        for i in 0..3 {
            let row_sum = g[[i, 0]] + g[[i, 1]] + g[[i, 2]];
            assert!(
                (grad.b[[i, 0]] + row_sum).abs() < 1e-15,
                "{} vs {}",
                grad.b[[i, 0]],
                -row_sum
            );
        }
        gradcheck_with(&a, &b, &g);
    }
}

fn gradcheck_with(a: &Array2<f64>, b: &Array2<f64>, g: &Array2<f64>) {
    GradCheck::new()
        .upstream(g)
        .check(&(a.clone(), b.clone()), |(a, b)| {
            broadcast_sub_backward(a, b, g)
        })
        .unwrap();
}

/// If the operation had been an addition with the same broadcast, the sum stays
/// and the sign goes.
#[differentiable]
fn broadcast_add(a: &Array2<f64>, b: &Array2<f64>) -> Array2<f64> {
    a + b
}

#[test]
fn broadcast_addition_sums_without_the_sign() {
    let a = Array2::from_shape_fn((3, 3), |(i, j)| (i * 3 + j) as f64);
    let b = array![[1.0], [2.0], [3.0]];
    let g = Array2::from_shape_fn((3, 3), |(i, j)| 0.5 * i as f64 - j as f64);
    let (c, grad) = broadcast_add_backward(&a, &b, &g);
    assert_eq!(c, broadcast_add(&a, &b));
    assert_eq!(grad.a, g);
    assert_eq!(grad.b, g.sum_axis(Axis(1)).insert_axis(Axis(1)));
}
