//! The `fused_sums` pass: a loop that only adds to a float runs each
//! iteration's reverse in the forward, seeded with one, and the reverse
//! sweep scales the accumulators by the adjoint of the sum. It changes the
//! order in which contributions are added, not what they are: each program
//! is compiled with and `without(fused_sums)`, and the two agree to 1e-12
//! relative (the values bit for bit); each is gradchecked, and checked by
//! hand where the numbers are known.

use backprop::prelude::*;
use backprop::Gradient;
use backprop_testkit::{random, rosenbrock_gradient};

macro_rules! fused_programs {
    ($($args:tt)*) => {
        // A slice read by index, the sum the function's value.
        #[differentiable(hvp $($args)*)]
        pub fn rosenbrock(x: &[f64]) -> f64 {
            let mut s = 0.0;
            for i in 0..x.len() - 1 {
                s += 100.0 * (x[i + 1] - x[i] * x[i]).powi(2) + (1.0 - x[i]).powi(2);
            }
            s
        }

        // Logistic regression's loss: `total -= ..`, divided after the loop
        // (the adjoint is not one), and a weight read after the loop too
        // (its accumulator is added to that contribution).
        #[differentiable(hvp, wrt(w, c) $($args)*)]
        pub fn logistic(w: &Array1<f64>, c: f64, xs: &Array2<f64>, labels: &[f64], n: usize) -> f64 {
            let mut total = 0.0;
            for i in 0..n {
                let p = sigmoid(xs.row(i).dot(w) + c);
                total -= labels[i] * ln(p) + (1.0 - labels[i]) * ln(1.0 - p);
            }
            total / (n as f64) + 0.01 * sum(&square(w))
        }

        // A value the reverse reads that the iteration computes (`tanh`'s),
        // and a float read in every iteration.
        #[differentiable(hvp $($args)*)]
        pub fn kept(x: &[f64], k: f64) -> f64 {
            let mut s = 0.0;
            for i in 0..x.len() {
                s += (k * x[i]).tanh() * x[i];
            }
            s * s
        }

        // A fixed-size array: the accumulator is on the stack.
        #[differentiable(hvp $($args)*)]
        pub fn squares(p: [f64; 4], c: f64) -> f64 {
            let mut s = 1.0;
            for i in 0..p.len() {
                s += c * p[i] * p[i];
            }
            s.ln()
        }

        // Nested loops over a fixed-size array: both fused, the inner
        // adding into the outer's accumulators.
        #[differentiable(hvp $($args)*)]
        pub fn pairs(x: [f64; 6], c: f64) -> f64 {
            let mut s = 0.0;
            for i in 0..x.len() {
                for j in i + 1..x.len() {
                    s += (x[i] * x[j] - c).tanh();
                }
            }
            s
        }

        // A value of the outer iteration that the inner reads (its own
        // accumulator), `-=`, and three levels.
        #[differentiable(hvp $($args)*)]
        pub fn levels(x: &[f64], c: f64) -> f64 {
            let mut s = 0.5;
            for i in 0..x.len() {
                let a = (c * x[i]).sin();
                for j in 0..i {
                    s -= a * x[j];
                    for k in 0..j {
                        s += c * x[i] * x[j] * x[k];
                    }
                }
            }
            s * s
        }

        // Sums of iterators over plain data: the loops they are.
        #[differentiable(hvp $($args)*)]
        pub fn walked(x: [f64; 4], y: &[f64], c: f64) -> f64 {
            x.iter().zip(y).map(|(a, b)| (a * b * c).sin()).sum::<f64>()
                + x.iter().map(|v| v * v).sum::<f64>() * c
        }
    };
}

// Spans from a `macro_rules!` are the crate's own, so rustc and clippy see
// the generated items as this file's: the `NAME_vjp`s (for differentiable
// callers) that these tests do not call, and the copies' marker type.
#[allow(dead_code, reason = "the generated `NAME_vjp`s are not called here")]
#[allow(
    clippy::extra_unused_type_parameters,
    reason = "the second-order copies' marker"
)]
mod fused {
    use super::*;
    fused_programs!();
}

#[allow(dead_code, reason = "the generated `NAME_vjp`s are not called here")]
#[allow(
    clippy::extra_unused_type_parameters,
    reason = "the second-order copies' marker"
)]
mod unfused {
    use super::*;
    fused_programs!(, without(fused_sums));
}

/// The same value bit for bit, and gradients equal to 1e-12 relative.
fn close(a: &(f64, impl Gradient), b: &(f64, impl Gradient)) {
    assert_eq!(a.0.to_bits(), b.0.to_bits(), "the values differ");
    for ((name, x), (_, y)) in a.1.fields().into_iter().zip(b.1.fields()) {
        assert_eq!(x.len(), y.len());
        for (x, y) in x.iter().zip(&y) {
            assert!(
                (x - y).abs() <= 1e-12 * x.abs().max(1.0),
                "{name}: {x} vs {y}"
            );
        }
    }
}

#[test]
fn a_sum_over_a_slice() {
    for n in [1, 2, 7] {
        let x: Vec<f64> = (0..n).map(|i| (i as f64 * 0.37).sin() + 0.2).collect();
        for d_out in [1.0, -2.5] {
            let a = fused::rosenbrock_backward(&x, d_out);
            close(&a, &unfused::rosenbrock_backward(&x, d_out));
            for (g, h) in a.1.x.iter().zip(rosenbrock_gradient(&x)) {
                assert!(
                    (g - d_out * h).abs() <= 1e-12 * h.abs().max(1.0),
                    "{g} against {h}"
                );
            }
        }
        if n > 1 {
            gradcheck(&(x.clone(),), |(x,)| fused::rosenbrock_backward(x, 1.0)).unwrap();
            let t: Vec<f64> = (0..n).map(|i| (i as f64 * 0.7).cos()).collect();
            hvpcheck(&(x.clone(),), &(t,), |(x,), (t,)| {
                fused::rosenbrock_hvp(x, t)
            })
            .unwrap();
        }
    }
}

#[test]
fn a_loss_divided_after_the_loop_and_a_weight_read_after_it() {
    let mut seed = 5;
    let (xs, w) = (random((6, 3), &mut seed), random(3, &mut seed));
    let labels: Vec<f64> = (0..6).map(|i| (i % 2) as f64).collect();
    let a = fused::logistic_backward(&w, 0.1, &xs, &labels, 6, 1.0);
    close(
        &a,
        &unfused::logistic_backward(&w, 0.1, &xs, &labels, 6, 1.0),
    );
    // By hand: mean((p - y) x) + 0.02 w.
    let mut expect = &w * 0.02;
    for (x, y) in xs.rows().into_iter().zip(&labels) {
        let p = 1.0 / (1.0 + (-(x.dot(&w) + 0.1)).exp());
        expect = expect + (p - y) * &x / 6.0;
    }
    for (g, e) in a.1.w.iter().zip(&expect) {
        assert!((g - e).abs() < 1e-12, "{g} against {e}");
    }
    gradcheck(&(w.clone(), 0.1), |(w, c)| {
        fused::logistic_backward(w, *c, &xs, &labels, 6, 1.0)
    })
    .unwrap();
    // No iterations: the value is NaN (0 / 0), the adjoint of the sum
    // infinite, and the loop adds nothing: `c` gets no gradient, `w` only
    // its penalty's.
    let (v, g) = fused::logistic_backward(&w, 0.1, &xs, &labels, 0, 1.0);
    assert!(v.is_nan());
    assert_eq!(g.c, 0.0);
    assert_eq!(g.w, &w * 0.02);
    let (_, h) = unfused::logistic_backward(&w, 0.1, &xs, &labels, 0, 1.0);
    assert_eq!((g.c, &g.w), (h.c, &h.w));
}

#[test]
fn a_value_the_reverse_reads_and_a_float_read_every_iteration() {
    let x = [0.3, -1.2, 0.8, 2.0];
    let k = 0.7;
    let a = fused::kept_backward(&x, k, 1.0);
    close(&a, &unfused::kept_backward(&x, k, 1.0));
    // By hand: s = Σ tanh(k xᵢ) xᵢ, f = s².
    let s: f64 = x.iter().map(|v| (k * v).tanh() * v).sum();
    let dk: f64 = x
        .iter()
        .map(|v| (1.0 - (k * v).tanh().powi(2)) * v * v)
        .sum();
    assert!((a.1.k - 2.0 * s * dk).abs() < 1e-12);
    gradcheck(&(x.to_vec(), k), |(x, k)| fused::kept_backward(x, *k, 1.0)).unwrap();
    hvpcheck(
        &(x.to_vec(), k),
        &(vec![0.5, 0.1, -0.3, 0.2], 0.4),
        |(x, k), (tx, tk)| fused::kept_hvp(x, *k, tx, *tk),
    )
    .unwrap();
}

#[test]
fn a_fixed_size_array_in_a_sum() {
    let (p, c) = ([0.3, -1.2, 0.8, 2.0], 0.7);
    let a = fused::squares_backward(p, c, 1.0);
    close(&a, &unfused::squares_backward(p, c, 1.0));
    let s = 1.0 + c * p.iter().map(|v| v * v).sum::<f64>();
    for (g, v) in a.1.p.iter().zip(p) {
        assert!((g - 2.0 * c * v / s).abs() < 1e-14);
    }
    gradcheck(&(p, c), |&(p, c)| fused::squares_backward(p, c, 1.0)).unwrap();
    hvpcheck(
        &(p, c),
        &([0.5, 0.1, -0.3, 0.2], 0.4),
        |&(p, c), &(tp, tc)| fused::squares_hvp(p, c, tp, tc),
    )
    .unwrap();
}

#[test]
fn a_sum_through_nested_loops() {
    let (x, c) = ([0.3, -1.2, 0.8, 2.0, -0.4, 0.6], 0.7);
    for d_out in [1.0, -2.5] {
        let a = fused::pairs_backward(x, c, d_out);
        close(&a, &unfused::pairs_backward(x, c, d_out));
        // By hand: s = Σ_{i<j} tanh(xᵢxⱼ - c).
        let (mut dx, mut dc) = ([0.0; 6], 0.0);
        for i in 0..6 {
            for j in i + 1..6 {
                let d = 1.0 - (x[i] * x[j] - c).tanh().powi(2);
                dx[i] += d * x[j];
                dx[j] += d * x[i];
                dc -= d;
            }
        }
        for (g, h) in a.1.x.iter().zip(dx) {
            assert!((g - d_out * h).abs() < 1e-12, "{g} against {h}");
        }
        assert!((a.1.c - d_out * dc).abs() < 1e-12);
    }
    gradcheck(&(x, c), |&(x, c)| fused::pairs_backward(x, c, 1.0)).unwrap();
    hvpcheck(
        &(x, c),
        &([0.5, 0.1, -0.3, 0.2, 0.7, -0.6], 0.4),
        |&(x, c), &(tx, tc)| fused::pairs_hvp(x, c, tx, tc),
    )
    .unwrap();
}

#[test]
fn a_sum_through_three_levels_with_a_value_of_the_outer_iteration() {
    for n in [0, 1, 2, 5] {
        let x: Vec<f64> = (0..n).map(|i| (i as f64 * 0.61).cos() - 0.3).collect();
        let c = 0.8;
        for d_out in [1.0, 3.0] {
            let a = fused::levels_backward(&x, c, d_out);
            close(&a, &unfused::levels_backward(&x, c, d_out));
        }
        // By hand: f = s², s = 0.5 - Σ_{j<i} sin(c xᵢ) xⱼ + c Σ_{k<j<i} xᵢxⱼxₖ.
        let mut s = 0.5;
        let (mut ds, mut dsc) = (vec![0.0; n], 0.0);
        for i in 0..n {
            let a = (c * x[i]).sin();
            for j in 0..i {
                s -= a * x[j];
                ds[j] -= a;
                ds[i] -= (c * x[i]).cos() * c * x[j];
                dsc -= (c * x[i]).cos() * x[i] * x[j];
                for k in 0..j {
                    s += c * x[i] * x[j] * x[k];
                    ds[i] += c * x[j] * x[k];
                    ds[j] += c * x[i] * x[k];
                    ds[k] += c * x[i] * x[j];
                    dsc += x[i] * x[j] * x[k];
                }
            }
        }
        let (v, g) = fused::levels_backward(&x, c, 1.0);
        assert!((v - s * s).abs() < 1e-12);
        for (g, h) in g.x.iter().zip(&ds) {
            assert!(
                (g - 2.0 * s * h).abs() < 1e-12,
                "{g} against {}",
                2.0 * s * h
            );
        }
        assert!((g.c - 2.0 * s * dsc).abs() < 1e-12);
        if n > 0 {
            gradcheck(&(x.clone(), c), |(x, c)| fused::levels_backward(x, *c, 1.0)).unwrap();
            let t: Vec<f64> = (0..n).map(|i| (i as f64 * 0.3).sin()).collect();
            hvpcheck(&(x.clone(), c), &(t, 0.2), |(x, c), (tx, tc)| {
                fused::levels_hvp(x, *c, tx, *tc)
            })
            .unwrap();
        }
    }
}

#[test]
fn sums_of_iterators_over_plain_data() {
    let (x, c) = ([0.3, -1.2, 0.8, 2.0], 0.7);
    for y in [vec![0.5, 1.5, -0.5, 0.25], vec![0.5, 1.5], vec![]] {
        let a = fused::walked_backward(x, &y, c, 1.0);
        close(&a, &unfused::walked_backward(x, &y, c, 1.0));
        let m = y.len().min(4);
        let v: f64 = (0..m).map(|i| (x[i] * y[i] * c).sin()).sum::<f64>()
            + x.iter().map(|v| v * v).sum::<f64>() * c;
        assert_eq!(a.0, v);
        for i in 0..4 {
            let mut h = 2.0 * x[i] * c;
            if i < m {
                h += (x[i] * y[i] * c).cos() * y[i] * c;
            }
            assert!((a.1.x[i] - h).abs() < 1e-12, "{} against {h}", a.1.x[i]);
        }
        if y.is_empty() {
            // An empty field is no parameter to `gradcheck`.
            continue;
        }
        gradcheck(&(x, y.clone(), c), |(x, y, c)| {
            fused::walked_backward(*x, y, *c, 1.0)
        })
        .unwrap();
        hvpcheck(
            &(x, y.clone(), c),
            &([0.5, 0.1, -0.3, 0.2], vec![0.3; y.len()], 0.4),
            |(x, y, c), (tx, ty, tc)| fused::walked_hvp(*x, y, *c, *tx, ty, *tc),
        )
        .unwrap();
    }
}
