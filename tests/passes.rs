//! The planner's optimisations (in place, fused passes, products added into
//! sums, sums of squares, contributions added into earlier ones, shared
//! gradients, loop buffers, plain scalars) change where values live, not
//! what they are: each program below is compiled twice, as the macro plans
//! it and `unoptimized` (every value a new local, every contribution a new
//! array summed at the end, scalars through the runtime), and the two give
//! the same value and gradients bit for bit. The one optimisation that
//! changes the order of a sum, a loop's weights' outer products added after
//! the loop as one matrix product (`Δᵀ X`), is compared to 1e-12 relative,
//! and bit for bit with it alone switched off.

use backprop::Gradient;
use backprop_testkit::random;

/// The programs of the `remat` pass, under the attribute arguments given:
/// in `programs!`, and alone without the pass.
macro_rules! remat_programs {
    ($($args:tt)*) => {
        // Gated cells updated element by element, layer by layer: each
        // weight an element of a borrowed matrix that the reverse sweep
        // reads again, each state written in place, its shape read from
        // its adjoint (`remat`).
        #[differentiable(wrt(w, x0) $($args)*)]
        pub fn cells(w: &Array2<f64>, x0: &Array1<f64>, steps: usize) -> f64 {
            let (layers, n) = (w.nrows() / 2, x0.len());
            let mut h = Array2::<f64>::zeros((layers + 1, n));
            let mut c = Array2::<f64>::zeros((layers, n));
            let mut loss = 0.0;
            for t in 0..steps {
                h.row_mut(0).assign(&(x0 * (t as f64 + 1.0)));
                for k in 0..layers {
                    for j in 0..n {
                        let gate = sigmoid(h[[k, j]] * w[[2 * k, j]] + w[[2 * k + 1, j]]);
                        let next = c[[k, j]] * gate + (h[[k + 1, j]] * w[[2 * k, j]]).tanh();
                        c[[k, j]] = next;
                        h[[k + 1, j]] = gate * next.tanh();
                    }
                }
                loss += h.row(layers).dot(&w.row(1));
            }
            loss
        }

        // A state updated in place, then read element by element: the
        // outer loop keeps only its shape (`remat`).
        #[differentiable(wrt(w, x) $($args)*)]
        pub fn update_then_read(w: &Array1<f64>, x: &Array1<f64>, n: usize) -> f64 {
            let mut h = x.to_owned();
            let mut total = 0.0;
            for _ in 0..n {
                for j in 0..h.len() {
                    h[j] = (h[j] * w[j]).tanh();
                }
                for j in 0..h.len() {
                    total += h[j] * w[j];
                }
            }
            total
        }

        // A shifted product, `z_i = x_i (y_{i-1} + c k_{i-1})`: the sum its
        // rule reads is made again from elements and `c`, so the loop keeps
        // no record (`remat`); a sum with a carried value is kept, the
        // loop's variable as a float made again.
        #[differentiable(wrt(x, y, k, c) $($args)*)]
        pub fn shifted(x: &Array1<f64>, y: &Array1<f64>, k: &Array1<f64>, c: f64) -> f64 {
            let mut z = Array1::<f64>::zeros(x.len());
            z[0] = x[0];
            for i in 1..x.len() {
                z[i] = x[i] * (y[i - 1] + c * k[i - 1]);
            }
            let mut acc = 1.0;
            for i in 0..x.len() {
                acc = acc * 0.5 + z[i] * (acc - x[i]) * (i as f64 + 1.0);
            }
            acc
        }
    };
}

/// The same programs under the attribute arguments given.
macro_rules! programs {
    ($($args:tt)*) => {
        use backprop::prelude::*;

        #[differentiable(wrt(w11, w12, b1, w21, w22, b2, v1, v2, c) $($args)*)]
        #[allow(clippy::too_many_arguments)]
        pub fn network(
            w11: f64, w12: f64, b1: f64, w21: f64, w22: f64, b2: f64,
            v1: f64, v2: f64, c: f64, x1: f64, x2: f64, y: f64,
        ) -> f64 {
            let h1 = sigmoid(w11 * x1 + w12 * x2 + b1);
            let h2 = sigmoid(w21 * x1 + w22 * x2 + b2);
            let p = sigmoid(v1 * h1 + v2 * h2 + c);
            0.5 * (p - y).powi(2)
        }

        #[differentiable(wrt(w1, b1, w2, b2, v) $($args)*)]
        #[allow(clippy::too_many_arguments)]
        pub fn two_heads(
            w1: &Array2<f64>, b1: &Array1<f64>, w2: &Array2<f64>, b2: &Array1<f64>,
            v: &Array2<f64>, x: &Array2<f64>, labels: &[usize], y: &Array2<f64>,
        ) -> f64 {
            let a1 = relu(&(x.dot(&w1.t()) + b1));
            let loss_a = softmax_cross_entropy(&(a1.dot(&w2.t()) + b2), labels);
            let loss_b = mse(&a1.dot(&v.t()), y);
            loss_a + loss_b
        }

        #[differentiable(wrt(a, b) $($args)*)]
        pub fn squares(a: &Array2<f64>, b: &Array2<f64>) -> f64 {
            let c = a - b;
            sum(&(&c * &c)) + mean(&tanh(&(&c * 2.0 + 1.0)))
        }

        #[differentiable(wrt(w, u, b, v) $($args)*)]
        pub fn rnn(
            w: &Array2<f64>, u: &Array2<f64>, b: &Array1<f64>, v: &Array1<f64>,
            h0: &Array1<f64>, xs: &Array2<f64>,
        ) -> f64 {
            let mut h = h0.to_owned();
            let mut loss = 0.0;
            for t in 0..xs.nrows() {
                h = tanh(&(w.dot(&h) + u.dot(&xs.row(t)) + b));
                loss += v.dot(&h);
            }
            loss
        }

        #[differentiable(wrt(p, q) $($args)*)]
        pub fn branches(p: f64, q: &Array1<f64>, n: usize) -> f64 {
            let mut acc = sum(&(q * p));
            for i in 0..n {
                if acc > 0.5 {
                    acc = acc * q[i % q.len()] - p.exp();
                } else {
                    acc += (p * acc).tanh() + sum(&square(q));
                }
            }
            acc
        }

        remat_programs!($($args)*);

        // A rotation's sine and cosine: each rule reads the other
        // (`sin_cos`), in a loop body and in a branch arm.
        #[differentiable(wrt(angle, x, y) $($args)*)]
        pub fn rotations(angle: f64, x: f64, y: f64, n: usize) -> f64 {
            let (mut a, mut b) = (x, y);
            for k in 0..n {
                let t = angle * (k as f64 + 1.0);
                let (c, s) = (t.cos(), t.sin());
                let a2 = c * a - s * b;
                b = s * a + c * b;
                a = a2;
            }
            if a > 0.0 {
                let (c, s) = (b.cos(), b.sin());
                a * c + s
            } else {
                a * b.cos()
            }
        }
    };
}

// Spans from a `macro_rules!` are the crate's own, so rustc warns about the
// `NAME_vjp`s (for differentiable callers) that these tests do not call.
#[allow(dead_code, reason = "the generated `NAME_vjp`s are not called here")]
mod optimized {
    programs!();
}

#[allow(dead_code, reason = "the generated `NAME_vjp`s are not called here")]
mod unoptimized {
    programs!(, unoptimized);
}

#[allow(dead_code, reason = "the generated `NAME_vjp`s are not called here")]
mod without_remat {
    use backprop::prelude::*;

    remat_programs!(, without(remat));
}

#[allow(dead_code, reason = "the generated `NAME_vjp`s are not called here")]
mod without_loop_buffers {
    programs!(, without(loop_buffers));
}

/// A gradient's numbers as bits, by field.
fn bits(g: &impl Gradient) -> Vec<(&'static str, Vec<u64>)> {
    g.fields()
        .into_iter()
        .map(|(n, v)| (n, v.iter().map(|x| x.to_bits()).collect()))
        .collect()
}

/// The same value bit for bit, and gradients equal to 1e-12 relative
/// (sums added in another order).
fn close(a: &(f64, impl Gradient), b: &(f64, impl Gradient)) {
    assert_eq!(a.0.to_bits(), b.0.to_bits(), "the values differ");
    for ((name, x), (_, y)) in a.1.fields().into_iter().zip(b.1.fields()) {
        for (x, y) in x.iter().zip(&y) {
            assert!(
                (x - y).abs() <= 1e-12 * x.abs().max(1.0),
                "{name}: {x} vs {y}"
            );
        }
    }
}

/// The same value and gradients, bit for bit.
fn same(a: (f64, impl Gradient), b: (f64, impl Gradient), what: &str) {
    assert_eq!(a.0.to_bits(), b.0.to_bits(), "{what}: the values differ");
    assert_eq!(bits(&a.1), bits(&b.1), "{what}: the gradients differ");
}

#[test]
fn sine_and_cosine_rules_read_each_other() {
    for (angle, x, y) in [(0.3, 1.2, -0.4), (2.1, -0.8, 0.5)] {
        let optimized = optimized::rotations_backward(angle, x, y, 3, 1.0);
        same(
            optimized.clone(),
            unoptimized::rotations_backward(angle, x, y, 3, 1.0),
            "rotations",
        );
        backprop::gradcheck(&(angle, x, y), |&(angle, x, y)| {
            optimized::rotations_backward(angle, x, y, 3, 1.0)
        })
        .unwrap();
    }
}

#[test]
fn gated_cells_read_weights_again() {
    let mut seed = 23;
    let (w, x0) = (random((4, 3), &mut seed), random(3, &mut seed));
    let opt = optimized::cells_backward(&w, &x0, 4, 1.0);
    same(
        opt.clone(),
        unoptimized::cells_backward(&w, &x0, 4, 1.0),
        "cells",
    );
    same(
        opt,
        without_remat::cells_backward(&w, &x0, 4, 1.0),
        "cells without remat",
    );
    backprop::gradcheck(&(w, x0), |(w, x0)| optimized::cells_backward(w, x0, 4, 1.0)).unwrap();
}

#[test]
fn a_state_read_only_for_its_shape() {
    let mut seed = 24;
    let (w, x) = (random(4, &mut seed), random(4, &mut seed));
    let opt = optimized::update_then_read_backward(&w, &x, 3, 1.0);
    same(
        opt.clone(),
        without_remat::update_then_read_backward(&w, &x, 3, 1.0),
        "update then read without remat",
    );
    // The nested loops add into the enclosing loop's gradients: another
    // order, equal to rounding.
    close(
        &opt,
        &unoptimized::update_then_read_backward(&w, &x, 3, 1.0),
    );
    backprop::gradcheck(&(w, x), |(w, x)| {
        optimized::update_then_read_backward(w, x, 3, 1.0)
    })
    .unwrap();
}

#[test]
fn a_sum_of_elements_made_again() {
    let mut seed = 25;
    let (x, y, k) = (
        random(5, &mut seed),
        random(5, &mut seed),
        random(5, &mut seed),
    );
    let c = 0.7;
    let opt = optimized::shifted_backward(&x, &y, &k, c, 1.0);
    assert_eq!(opt.0, optimized::shifted(&x, &y, &k, c));
    same(
        opt.clone(),
        without_remat::shifted_backward(&x, &y, &k, c, 1.0),
        "shifted without remat",
    );
    close(&opt, &unoptimized::shifted_backward(&x, &y, &k, c, 1.0));
    backprop::gradcheck(&(x, y, k, c), |(x, y, k, c)| {
        optimized::shifted_backward(x, y, k, *c, 1.0)
    })
    .unwrap();
}

#[test]
fn a_scalar_network() {
    let p = [0.3, -0.7, 0.2, 1.1, 0.4, -0.5, 0.9, -1.3, 0.25];
    let (v, g) = optimized::network_backward(
        p[0], p[1], p[2], p[3], p[4], p[5], p[6], p[7], p[8], 0.5, -1.5, 0.3, 1.0,
    );
    let (vu, gu) = unoptimized::network_backward(
        p[0], p[1], p[2], p[3], p[4], p[5], p[6], p[7], p[8], 0.5, -1.5, 0.3, 1.0,
    );
    same((v, g), (vu, gu), "network");
}

#[test]
fn two_heads_and_squares() {
    let mut seed = 21;
    let (w1, b1) = (random((4, 3), &mut seed), random(4, &mut seed));
    let (w2, b2, v) = (
        random((2, 4), &mut seed),
        random(2, &mut seed),
        random((2, 4), &mut seed),
    );
    let (x, y) = (random((6, 3), &mut seed), random((6, 2), &mut seed));
    let labels = [0, 1, 1, 0, 1, 0];
    same(
        optimized::two_heads_backward(&w1, &b1, &w2, &b2, &v, &x, &labels, &y, 1.0),
        unoptimized::two_heads_backward(&w1, &b1, &w2, &b2, &v, &x, &labels, &y, 1.0),
        "two heads",
    );
    let (a, b) = (random((5, 4), &mut seed), random((5, 1), &mut seed));
    same(
        optimized::squares_backward(&a, &b, 1.0),
        unoptimized::squares_backward(&a, &b, 1.0),
        "squares",
    );
}

#[test]
fn a_recurrence() {
    let mut seed = 22;
    let (w, u) = (random((5, 5), &mut seed), random((5, 3), &mut seed));
    let (b, v) = (random(5, &mut seed), random(5, &mut seed));
    let (h0, xs) = (random(5, &mut seed), random((7, 3), &mut seed));
    let opt = optimized::rnn_backward(&w, &u, &b, &v, &h0, &xs, 1.0);
    // The outer products summed after the loop (`Δᵀ X`) add in another
    // order: equal to rounding.
    let plain = unoptimized::rnn_backward(&w, &u, &b, &v, &h0, &xs, 1.0);
    close(&opt, &plain);
    same(
        without_loop_buffers::rnn_backward(&w, &u, &b, &v, &h0, &xs, 1.0),
        plain,
        "rnn without loop buffers",
    );
}

#[test]
fn loops_and_branches() {
    let mut seed = 23;
    let q = random(4, &mut seed);
    for (p, n) in [(0.4, 5), (-0.8, 3), (1.3, 7)] {
        same(
            optimized::branches_backward(p, &q, n, 1.0),
            unoptimized::branches_backward(p, &q, n, 1.0),
            "branches",
        );
    }
}
