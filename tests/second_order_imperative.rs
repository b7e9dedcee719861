//! Second order through the imperative language of issue 16: writes into
//! arrays (elements, rows, in place over a copy of a parameter), `while`
//! and `loop` with `break` and `continue`, `match` with guards, reversed
//! and stepped loops, loops over rows. Every HVP passes `hvpcheck`, and
//! where the Hessian has a closed form it is compared with it; every JVP
//! agrees with the HVP's gradient along the direction.

use backprop::prelude::*;
use backprop_testkit::random;

/// An RNN whose states are rows of one zero buffer, `h[t + 1] =
/// tanh(W h[t] + x[t])`, the loss the sum of the states after the first.
#[differentiable(hvp, wrt(w))]
fn rnn_buffer(w: &Array2<f64>, x: &Array2<f64>) -> f64 {
    let (steps, n) = x.dim();
    let mut h = Array2::zeros((steps + 1, n));
    for t in 0..steps {
        let next = tanh(&(w.dot(&h.row(t)) + x.row(t)));
        h.row_mut(t + 1).assign(&next);
    }
    h.slice(s![1.., ..]).sum()
}

#[test]
fn an_rnn_writing_rows_passes_hvpcheck() {
    let mut seed = 3;
    let w: Array2<f64> = random((4, 4), &mut seed) * 0.6;
    let x: Array2<f64> = random((5, 4), &mut seed);
    for _ in 0..3 {
        let d: Array2<f64> = random((4, 4), &mut seed);
        hvpcheck(&(w.clone(),), &(d,), |(w,), (d,)| rnn_buffer_hvp(w, &x, d)).unwrap();
    }
    let (v, g) = rnn_buffer_backward(&w, &x, 1.0);
    let (v2, g2, _) = rnn_buffer_hvp(&w, &x, &random((4, 4), &mut seed));
    assert_eq!(v.to_bits(), v2.to_bits());
    for (a, b) in g.w.iter().zip(&g2.w) {
        assert!((a - b).abs() <= 1e-13 * a.abs().max(1.0), "{a} vs {b}");
    }
}

/// The cumulative product written in place over a copy of the parameter:
/// `y[i] = y[i - 1] * x[i]` reads the element the last step wrote.
#[differentiable(hvp)]
fn cumulative_product(x: &Array1<f64>) -> f64 {
    let mut y = x.to_owned();
    for i in 1..y.len() {
        y[i] = y[i - 1] * x[i];
    }
    y.sum()
}

#[test]
fn a_cumulative_product_in_place_has_its_exact_hessian() {
    let x = array![1.5, -0.5, 2.0, 0.75];
    // f = Σ_k Π_{i ≤ k} x_i; ∂²f/∂x_a∂x_b (a ≠ b) = Σ_{k ≥ max(a, b)}
    // Π_{i ≤ k, i ∉ {a, b}} x_i, and ∂²f/∂x_a² = 0.
    let n = x.len();
    let mut h = Array2::<f64>::zeros((n, n));
    for a in 0..n {
        for b in 0..n {
            if a == b {
                continue;
            }
            h[[a, b]] = (a.max(b)..n)
                .map(|k| {
                    (0..=k)
                        .filter(|&i| i != a && i != b)
                        .map(|i| x[i])
                        .product::<f64>()
                })
                .sum();
        }
    }
    for j in 0..n {
        let mut e = Array1::zeros(n);
        e[j] = 1.0;
        let (_, _, hv) = cumulative_product_hvp(&x, &e);
        for i in 0..n {
            assert!(
                (hv.x[i] - h[[i, j]]).abs() <= 1e-13 * h[[i, j]].abs().max(1.0),
                "H[{i}, {j}] {} vs {}",
                hv.x[i],
                h[[i, j]]
            );
        }
        hvpcheck(&(x.clone(),), &(e,), |(x,), (d,)| {
            cumulative_product_hvp(x, d)
        })
        .unwrap();
    }
}

/// Discounted returns computed backwards into a zero buffer, then a
/// weighted square: `g[i] = r[i] + γ g[i + 1]`.
#[differentiable(hvp, wrt(r, gamma))]
fn discounted(r: &Array1<f64>, gamma: f64, weights: &Array1<f64>) -> f64 {
    let n = r.len();
    let mut g = Array1::<f64>::zeros(n + 1);
    for i in (0..n).rev() {
        g[i] = r[i] + gamma * g[i + 1];
    }
    let mut total = 0.0;
    for i in 0..n {
        total += weights[i] * g[i] * g[i];
    }
    total
}

#[test]
fn discounted_returns_pass_hvpcheck() {
    let r = array![1.0, -0.5, 0.25, 2.0];
    let w = array![0.5, 1.0, -0.25, 0.75];
    for d in [
        (array![1.0, 0.0, 0.0, 0.0], 0.0),
        (array![0.3, -0.2, 0.6, 0.1], 0.7),
    ] {
        hvpcheck(&(r.clone(), 0.9), &d, |(r, gamma), (dr, dg)| {
            discounted_hvp(r, *gamma, &w, dr, *dg)
        })
        .unwrap();
    }
    // With γ = 0, g = r: f = Σ w_i r_i², so H_rr = 2 diag(w).
    let (_, _, hv) = discounted_hvp(&r, 0.0, &w, &array![1.0, 1.0, 1.0, 1.0], 0.0);
    assert_eq!(hv.r, &w * 2.0);
}

#[derive(Clone, Copy)]
enum Activation {
    Tanh,
    Softplus,
    Cube,
}

/// `match` on a constant enum, then a guard comparing a differentiable
/// value (the branch taken is a constant of the derivatives).
#[differentiable(hvp, wrt(x, y))]
fn activated(x: f64, y: f64, act: Activation) -> f64 {
    let z = x * y + 0.5 * x;
    let a = match act {
        Activation::Tanh => z.tanh(),
        Activation::Softplus => (1.0 + z.exp()).ln(),
        Activation::Cube => z * z * z,
    };
    match act {
        _ if a > 0.5 => a * y,
        _ => a - y * y,
    }
}

#[test]
fn matches_pass_hvpcheck() {
    for act in [Activation::Tanh, Activation::Softplus, Activation::Cube] {
        for (x, y) in [(0.4, 0.3), (1.2, 0.8), (-0.6, 1.1)] {
            for d in [(1.0, 0.0), (0.0, 1.0), (0.5, -0.7)] {
                hvpcheck(&(x, y), &d, |&(x, y), &(dx, dy)| {
                    activated_hvp(x, y, act, dx, dy)
                })
                .unwrap();
            }
        }
    }
    // Cube with v = z³ ≤ 0.5 at x = 0.4, y = 0.3 (z = 0.32): f = z³ − y²,
    // ∂²f/∂y² = 6 z x² − 2.
    let (_, _, hv) = activated_hvp(0.4, 0.3, Activation::Cube, 0.0, 1.0);
    let z: f64 = 0.4 * 0.3 + 0.2;
    assert!((hv.y - (6.0 * z * 0.16 - 2.0)).abs() <= 1e-14);
}

/// `while` halving until small, then `loop` with `continue` and `break`
/// on conditions that read differentiable values.
#[differentiable(hvp)]
fn iterate(x: f64, y: f64) -> f64 {
    let mut a = x * x + y;
    while a.abs() > 0.1 {
        a *= 0.5;
    }
    let mut s = 0.0;
    let mut k = 0;
    loop {
        k += 1;
        if k % 2 == 0 {
            continue;
        }
        s += (a * k as f64).sin() * y;
        if s > 1.0 || k > 7 {
            break;
        }
    }
    s + a * x
}

#[test]
fn while_and_loop_exits_pass_hvpcheck() {
    for (x, y) in [(0.9, 0.4), (1.7, -0.3), (0.2, 0.05)] {
        for d in [(1.0, 0.0), (0.0, 1.0), (0.8, 0.6)] {
            hvpcheck(&(x, y), &d, |&(x, y), &(dx, dy)| iterate_hvp(x, y, dx, dy)).unwrap();
        }
    }
}

/// A loop over a matrix's rows, a stepped loop, and an early return from
/// inside a loop.
#[differentiable(hvp, wrt(w))]
fn rows_and_steps(w: &Array1<f64>, x: &Array2<f64>) -> f64 {
    let mut total = 0.0;
    for row in x.rows() {
        total += (row.dot(w)).tanh();
    }
    for i in (0..w.len()).step_by(2) {
        total += w[i] * w[i] * 0.5;
        if total > 10.0 {
            return total;
        }
    }
    total * total
}

#[test]
fn row_loops_steps_and_early_returns_pass_hvpcheck() {
    let mut seed = 5;
    let x: Array2<f64> = random((4, 3), &mut seed);
    for w in [array![0.3, -0.2, 0.5], array![4.0, 1.0, 3.0]] {
        for _ in 0..3 {
            let d: Array1<f64> = random(3, &mut seed);
            hvpcheck(&(w.clone(),), &(d,), |(w,), (d,)| {
                rows_and_steps_hvp(w, &x, d)
            })
            .unwrap();
        }
    }
}

/// A JVP through writes agrees with the gradient along the direction.
#[differentiable(jvp)]
fn smoothed(x: &Array1<f64>) -> Array1<f64> {
    let n = x.len();
    let mut y = Array1::zeros(n);
    y[0] = x[0];
    for i in 1..n {
        y[i] = 0.5 * y[i - 1] + x[i] * x[i];
    }
    y
}

#[differentiable(hvp)]
fn smoothed_sum(x: &Array1<f64>) -> f64 {
    smoothed(x).sum()
}

#[test]
fn a_jvp_through_writes_is_the_gradient_along_the_direction() {
    let x = array![0.5, -1.0, 2.0, 0.25];
    let d = array![0.1, 0.7, -0.3, 1.0];
    let (y, dy) = smoothed_jvp(&x, &d);
    assert_eq!(y, smoothed(&x));
    let (_, g) = smoothed_sum_backward(&x, 1.0);
    let along: f64 = g.x.dot(&d);
    assert!((dy.sum() - along).abs() <= 1e-13, "{} vs {along}", dy.sum());
    hvpcheck(&(x.clone(),), &(d,), |(x,), (d,)| smoothed_sum_hvp(x, d)).unwrap();
}
