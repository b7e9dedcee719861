//! Each eval's objective: its generated gradient against central
//! differences (gradcheck), against the closed form where there is one, and
//! small fixtures against numbers computed independently.
//!
//! The fixtures' numbers were made once with numpy 2.4 (float64), outside
//! this repository: `lse` as `a + log(sum(exp(x - a)))` and its gradient as
//! the softmax; `llsq` with `np.vander(t, m, increasing=True)`, the value
//! `0.5 r·r` and the gradient `-Vᵀ r`; `det` as `np.linalg.det(A)` and its
//! gradient as `det(A) · inv(A)ᵀ`; `ode` by a vectorised numpy RK4 and its
//! gradient by the complex step (the solution is a polynomial in `x`, so
//! `Im f(x + 1e-30 i e_k) / 1e-30` is its derivative to rounding);
//! `kmeans` by brute-force distances and the gradient
//! `Σ_{i in cluster j} 2 (c_j - p_i)`.

use backprop::dual::Dual;
use backprop::prelude::*;
use backprop_gradbench::evals::particle::Inner;
use backprop_gradbench::evals::{det, hello, kmeans, llsq, lse, ode, particle, saddle};

fn assert_close(got: &[f64], want: &[f64], tol: f64) {
    assert_eq!(
        got.len(),
        want.len(),
        "lengths differ: {got:?} against {want:?}"
    );
    for (k, (g, w)) in got.iter().zip(want).enumerate() {
        assert!(
            (g - w).abs() <= tol * (1.0 + w.abs()),
            "element {k}: got {g}, want {w} (all: {got:?} against {want:?})"
        );
    }
}

#[test]
fn hello_square_and_its_derivative() {
    let (value, grad) = hello::square_backward(3.0, 1.0);
    assert_eq!(value, 9.0);
    assert_eq!(grad.x, 6.0);
    gradcheck(&(-1.7,), |&(x,)| hello::square_backward(x, 1.0)).unwrap();
}

#[test]
fn lse_against_numpy_and_the_softmax() {
    let x = array![0.5, -1.25, 3.0, 2.0];
    let (value, grad) = lse::logsumexp_backward(&x, 1.0);
    assert_eq!(value, lse::logsumexp(&x));
    assert_close(&[value], &[3.3813286012269788], 1e-15);
    assert_close(
        grad.x.as_slice().unwrap(),
        &[
            0.05606023164143659,
            0.009741807523077857,
            0.682953433407439,
            0.25124452742804654,
        ],
        1e-15,
    );
    // The gradient is the softmax of x, whatever the shift.
    let e = x.mapv(|v| (v - 3.0).exp());
    assert_close(
        grad.x.as_slice().unwrap(),
        (&e / e.sum()).as_slice().unwrap(),
        1e-15,
    );
    gradcheck(&(x,), |(x,)| lse::logsumexp_backward(x, 1.0)).unwrap();
}

#[test]
fn lse_does_not_overflow_and_takes_a_tied_maximum() {
    // exp(1000) overflows: the shift by the maximum keeps the value finite.
    let x = array![1000.0, 1000.0, 990.0];
    let (value, grad) = lse::logsumexp_backward(&x, 1.0);
    let rest = (-10.0f64).exp();
    assert_close(&[value], &[1000.0 + (2.0 + rest).ln()], 1e-15);
    let z = 2.0 + rest;
    assert_close(
        grad.x.as_slice().unwrap(),
        &[1.0 / z, 1.0 / z, rest / z],
        1e-14,
    );
}

#[test]
fn llsq_against_numpy_and_the_normal_equations() {
    let x = array![0.3, -0.2, 0.7, 0.1];
    let (value, grad) = llsq::llsq_backward(&x, 7, 1.0);
    assert_eq!(value, llsq::llsq(&x, 7));
    assert_close(&[value], &[5.119224965706446], 1e-14);
    assert_close(
        grad.x.as_slice().unwrap(),
        &[
            4.277777777777778,
            -4.380246913580247,
            2.627160493827161,
            -2.9327846364883405,
        ],
        1e-14,
    );
    gradcheck(&(x,), |(x,)| llsq::llsq_backward(x, 7, 1.0)).unwrap();
}

#[test]
fn llsq_gradient_vanishes_at_the_least_squares_fit() {
    // With as many coefficients as points the polynomial interpolates s:
    // the residual, and so the gradient, is zero at the solution of V x = s.
    // n = 3: t = (-1, 0, 1), s = (-1, 0, 1), so x = (0, 1, 0).
    let x = array![0.0, 1.0, 0.0];
    let (value, grad) = llsq::llsq_backward(&x, 3, 1.0);
    assert_eq!(value, 0.0);
    assert_close(grad.x.as_slice().unwrap(), &[0.0, 0.0, 0.0], 0.0);
    let x = array![0.25, -0.5, 1.5, 0.75, -1.0];
    gradcheck(&(x,), |(x,)| llsq::llsq_backward(x, 16, 1.0)).unwrap();
}

#[test]
fn det_against_numpy_and_the_cofactors() {
    let a = array![
        [2.0, -1.0, 0.5, 3.0],
        [1.0, 4.0, -2.0, 0.25],
        [0.0, 1.5, 3.0, -1.0],
        [2.5, 0.5, 1.0, 2.0]
    ];
    let (value, grad) = det::det_backward(&a, 1.0);
    assert_eq!(value, det::det(&a));
    assert_close(&[value], &[-36.09374999999998], 1e-14);
    assert_close(
        grad.a.as_slice().unwrap(),
        &[
            34.99999999999998,
            -10.124999999999995,
            -7.437499999999997,
            -37.499999999999986,
            8.749999999999995,
            -9.749999999999991,
            1.749999999999999,
            -9.374999999999996,
            15.312499999999993,
            -8.812499999999996,
            -11.374999999999995,
            -11.249999999999995,
            -45.93749999999998,
            11.999999999999993,
            5.249999999999998,
            33.749999999999986,
        ],
        1e-13,
    );
    gradcheck(&(a,), |(a,)| det::det_backward(a, 1.0)).unwrap();
}

#[test]
fn det_of_small_matrices_in_closed_form() {
    let (value, grad) = det::det_backward(&array![[-2.5]], 1.0);
    assert_eq!((value, grad.a[[0, 0]]), (-2.5, 1.0));
    // det [[a, b], [c, d]] = ad - bc, gradient [[d, -c], [-b, a]].
    let (value, grad) = det::det_backward(&array![[1.5, 2.0], [-3.0, 0.5]], 1.0);
    assert_eq!(value, 1.5 * 0.5 + 2.0 * 3.0);
    assert_close(grad.a.as_slice().unwrap(), &[0.5, 3.0, -2.0, 1.5], 0.0);
    // A permutation matrix of an odd permutation: det = -1.
    let p = array![[0.0, 1.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 1.0]];
    assert_eq!(det::det(&p), -1.0);
    let b = Array2::from_shape_fn((6, 6), |(i, j)| {
        ((i * 37 + j * 91) % 17) as f64 / 17.0 + if i == j { 2.0 } else { 0.0 }
    });
    gradcheck(&(b,), |(b,)| det::det_backward(b, 1.0)).unwrap();
}

#[test]
fn ode_against_numpy_and_the_complex_step() {
    let x = array![0.5, 1.5, -0.7, 1.2, 0.9, 1.1];
    let mut last = Array1::zeros(6);
    last[5] = 1.0;
    let (value, grad) = ode::ode_backward(&x, 4, &last);
    assert_eq!(value, ode::ode(&x, 4));
    assert_close(
        value.as_slice().unwrap(),
        &[1.0, 1.5, -0.7, -0.42, -0.150609375, -0.05441132812499999],
        1e-14,
    );
    assert_close(
        grad.x.as_slice().unwrap(),
        &[
            -0.10882265625,
            -0.036274218750000004,
            0.07773046874999999,
            -0.0453427734375,
            -0.06045703125,
            -0.04946484374999999,
        ],
        1e-14,
    );
    let up = array![0.3, -1.0, 0.5, 2.0, -0.25, 1.0];
    GradCheck::new()
        .upstream(&up)
        .check(&(x,), |(x,)| ode::ode_backward(x, 3, &up))
        .unwrap();
}

#[test]
fn ode_stage_against_its_definition() {
    // z_0 = x_0, z_i = x_i (y_{i-1} + c k_{i-1}).
    let x = array![0.5, 1.5, -0.7, 1.2];
    let y = array![0.25, -1.0, 2.0, 0.5];
    let k = array![1.0, 0.75, -0.5, 3.0];
    let c = 0.3;
    let z = ode::rhs(&x, &y, &k, c);
    assert_eq!(
        z,
        array![
            0.5,
            1.5 * (0.25 + 0.3),
            -0.7 * (-1.0 + 0.225),
            1.2 * (2.0 - 0.15)
        ]
    );
    let up = array![0.3, -1.0, 0.5, 2.0];
    let (value, g) = ode::rhs_backward(&x, &y, &k, c, &up);
    assert_eq!(value, z);
    // ∂x_i = u_i (y_{i-1} + c k_{i-1}); ∂y_{i-1} = u_i x_i; ∂k_{i-1} = c u_i x_i.
    assert_close(
        g.x.as_slice().unwrap(),
        &[0.3, -(0.25 + 0.3), 0.5 * (-1.0 + 0.225), 2.0 * (2.0 - 0.15)],
        1e-15,
    );
    assert_close(g.y.as_slice().unwrap(), &[-1.5, -0.35, 2.4, 0.0], 1e-15);
    assert_close(g.k.as_slice().unwrap(), &[-0.45, -0.105, 0.72, 0.0], 1e-15);
    GradCheck::new()
        .upstream(&up)
        .check(&(x, y, k), |(x, y, k)| ode::rhs_backward(x, y, k, c, &up))
        .unwrap();
}

#[test]
fn ode_is_exact_for_four_components() {
    // y_i(t) = x_0 ⋯ x_i t^(i+1) / (i+1)!, a polynomial of degree at most 4,
    // which Runge-Kutta integrates exactly: y_3(2) = 16 x_0 x_1 x_2 x_3 / 24
    // and its gradient is y_3(2) / x_k.
    let x = array![1.25, -0.5, 2.0, 0.75];
    let mut last = Array1::zeros(4);
    last[3] = 1.0;
    let (value, grad) = ode::ode_backward(&x, 1, &last);
    let y3 = 16.0 * x.product() / 24.0;
    assert_close(&[value[3]], &[y3], 1e-15);
    assert_close(
        grad.x.as_slice().unwrap(),
        (y3 / &x).as_slice().unwrap(),
        1e-15,
    );
}

#[test]
fn kmeans_cost_against_numpy_and_the_cluster_sums() {
    let points = array![
        [0.0, 0.0],
        [1.0, 0.5],
        [4.0, 4.5],
        [5.0, 5.0],
        [0.5, 1.0],
        [6.0, 4.0]
    ];
    let centroids = array![[0.2, 0.3], [5.5, 4.5]];
    let (value, grad) = kmeans::cost_backward(&points, &centroids, 1.0);
    assert_eq!(value, kmeans::cost(&points, &centroids));
    assert_close(&[value], &[4.64], 1e-14);
    // The gradient of a transposed operand may come back column-major: compare
    // in logical order.
    let grad: Vec<f64> = grad.centroids.iter().copied().collect();
    assert_close(&grad, &[-1.8, -1.2, 3.0, 0.0], 1e-14);
    gradcheck(&(centroids,), |(c,)| kmeans::cost_backward(&points, c, 1.0)).unwrap();
}

/// The Hessian of the k-means cost is diagonal, so the product with the
/// all-ones direction that `kmeans::dir` takes is its diagonal: checked
/// against the whole Hessian, one HVP per unit vector, and the Newton
/// direction against its closed form `c_j - mean of c_j's points`.
#[test]
fn kmeans_dir_from_one_hvp_is_the_newton_direction() {
    let points = array![
        [0.0, 0.0],
        [1.0, 0.5],
        [4.0, 4.5],
        [5.0, 5.0],
        [0.5, 1.0],
        [6.0, 4.0],
        [5.5, 5.25]
    ];
    let centroids = array![[0.2, 0.3], [5.5, 4.5]];
    let n = centroids.len();
    let mut hessian = Array2::<f64>::zeros((n, n));
    for m in 0..n {
        let mut e = Array2::zeros(centroids.raw_dim());
        e[[m / 2, m % 2]] = 1.0;
        let (value, g, hv) = kmeans::cost_hvp(&points, &centroids, &e);
        let (v0, g0) = kmeans::cost_backward(&points, &centroids, 1.0);
        assert_eq!(value, v0);
        let (g, g0): (Vec<f64>, Vec<f64>) = (
            g.centroids.iter().copied().collect(),
            g0.centroids.iter().copied().collect(),
        );
        assert_close(&g, &g0, 1e-14);
        for (k, h) in hv.centroids.iter().enumerate() {
            hessian[[k, m]] = *h;
        }
        hvpcheck(&(centroids.clone(),), &(e.clone(),), |(c,), (e,)| {
            kmeans::cost_hvp(&points, c, e)
        })
        .unwrap();
    }
    // Three points nearest each centroid, four for the second: H = 2 n_j.
    let want = Array2::from_diag(&array![6.0, 6.0, 8.0, 8.0]);
    for ((i, j), h) in hessian.indexed_iter() {
        assert!((h - want[[i, j]]).abs() <= 1e-12, "H[{i}, {j}] = {h}");
    }
    let ones = Array2::ones(centroids.raw_dim());
    let (_, _, diag) = kmeans::cost_hvp(&points, &centroids, &ones);
    let diag: Vec<f64> = diag.centroids.iter().copied().collect();
    assert_close(&diag, &hessian.diag().to_vec(), 1e-15);
    // Means (0.5, 0.5) and (5.125, 4.6875).
    let d = kmeans::dir(&points, &centroids).unwrap();
    let d: Vec<f64> = d.iter().copied().collect();
    assert_close(&d, &[-0.3, -0.2, 0.375, -0.1875], 1e-14);
    // A centroid nearest to no point has no direction.
    let far = array![[0.2, 0.3], [5.5, 4.5], [100.0, 100.0]];
    assert!(kmeans::dir(&points, &far).is_err());
}

#[test]
fn saddle_gradients_nest_in_both_modes() {
    gradcheck(&(0.5, -1.5, 2.0, 0.25), |&(a, b, c, d)| {
        saddle::objective_backward(a, b, c, d, 1.0)
    })
    .unwrap();
    let (_, g) = saddle::objective_backward(0.5, -1.5, 2.0, 0.25, 1.0);
    assert_eq!((g.x1, g.y1, g.x2, g.y2), (1.0, -3.0, -4.0, -0.5));
    // The inner gradient in both modes, and its rule (the Hessian's columns
    // along x2 and y2: -2 on the diagonal, zero elsewhere) under gradcheck.
    for inner in [Inner::Reverse, Inner::Forward] {
        assert_eq!(saddle::df_dx2(0.5, -1.5, 2.0, 0.25, inner), -4.0);
        assert_eq!(saddle::df_dy2(0.5, -1.5, 2.0, 0.25, inner), -0.5);
    }
    // max over p2 of -|p2|² is near p2 = 0 whatever p1, so the outer
    // gradient, through the whole ascent, is 2 p1.
    let (x1, y1) = (0.5, -0.25);
    for inner in [Inner::Reverse, Inner::Forward] {
        let (value, g) = saddle::max_over_p2_backward(x1, y1, 1.0, 1.0, inner, 1.0);
        assert_eq!(value, saddle::max_over_p2(x1, y1, 1.0, 1.0, inner));
        assert!((value - (x1 * x1 + y1 * y1)).abs() < 1e-8, "{value}");
        assert_close(&[g.x1, g.y1], &[2.0 * x1, 2.0 * y1], 1e-12);
        gradcheck(&(x1, y1), |&(a, b)| {
            saddle::max_over_p2_backward(a, b, 1.0, 1.0, inner, 1.0)
        })
        .unwrap();
    }
    // The same ascent run on duals: forward over reverse (the inner
    // gradient by `objective_backward` on duals) and forward over forward
    // (by `objective_jvp` on duals).
    let start = [Dual::constant(1.0), Dual::constant(1.0)];
    for inner in [Inner::Reverse, Inner::Forward] {
        let dx = saddle::max_over_p2_of([Dual::new(x1, 1.0), Dual::constant(y1)], start, inner);
        let dy = saddle::max_over_p2_of([Dual::constant(x1), Dual::new(y1, 1.0)], start, inner);
        assert_eq!(dx.value, saddle::max_over_p2(x1, y1, 1.0, 1.0, inner));
        assert_close(&[dx.tangent, dy.tangent], &[2.0 * x1, 2.0 * y1], 1e-12);
    }
    // The inner gradient on duals, in both modes, is the Hessian's column
    // along the duals' direction: ∂(∂f/∂p2)/∂x2 = (-2, 0).
    let p = [0.5, -1.5, 2.0, 0.25].map(Dual::constant);
    let p = [p[0], p[1], Dual::new(2.0, 1.0), p[3]];
    for inner in [Inner::Reverse, Inner::Forward] {
        let [gx, gy] = saddle::grad_p2(p, inner);
        assert_eq!(
            [gx.value, gy.value, gx.tangent, gy.tangent],
            [-4.0, -0.5, -2.0, 0.0]
        );
    }
    // GradBench's answer, in every mode.
    for (outer, inner) in [
        (Inner::Reverse, Inner::Reverse),
        (Inner::Reverse, Inner::Forward),
        (Inner::Forward, Inner::Reverse),
        (Inner::Forward, Inner::Forward),
    ] {
        let got = saddle::saddle(outer, inner, [1.0, 1.0]);
        assert_close(&got, &[8.246324826140356e-6; 4], 1e-12);
    }
}

#[test]
fn particle_gradients_nest_in_both_modes() {
    let (x, y, w) = (3.0, 4.5, 0.25);
    gradcheck(&(x, y, w), |&(x, y, w)| {
        particle::potential_backward(x, y, w, 1.0)
    })
    .unwrap();
    // ∇(1/|p - c|) = -(p - c) / |p - c|³ for each charge c.
    let (_, g) = particle::potential_backward(x, y, w, 1.0);
    let mut want = (0.0, 0.0);
    for (cx, cy) in [(10.0, 10.0 - w), (10.0, 0.0)] {
        let r2: f64 = (x - cx) * (x - cx) + (y - cy) * (y - cy);
        want.0 -= (x - cx) / r2.powf(1.5);
        want.1 -= (y - cy) / r2.powf(1.5);
    }
    assert_close(&[g.x, g.y], &[want.0, want.1], 1e-14);
    for inner in [Inner::Reverse, Inner::Forward] {
        assert_close(
            &[
                particle::dp_dx(x, y, w, inner),
                particle::dp_dy(x, y, w, inner),
            ],
            &[want.0, want.1],
            1e-14,
        );
    }
    hvpcheck(&(x, y, w), &(1.0, 0.0, 0.0), |&(x, y, w), &(a, b, c)| {
        particle::potential_hvp(x, y, w, a, b, c)
    })
    .unwrap();
    // The force on duals, by either inner mode, is the Hessian's column
    // along the duals' direction (forward over reverse, forward over
    // forward): the HVP along `(0.3, -0.7, 1.0)`.
    let (_, _, h) = particle::potential_hvp(x, y, w, 0.3, -0.7, 1.0);
    let (px, py, pw) = (Dual::new(x, 0.3), Dual::new(y, -0.7), Dual::new(w, 1.0));
    for grad in [particle::grad_reverse, particle::grad_forward] {
        let (gx, gy) = grad(px, py, pw);
        assert_close(&[gx.value, gy.value], &[want.0, want.1], 1e-14);
        assert_close(&[gx.tangent, gy.tangent], &[h.x, h.y], 1e-13);
    }
    // The outer derivative through the whole trajectory, in reverse (the
    // inner gradient either way) and in forward mode, against central
    // differences and each other.
    let w = 0.1;
    let (value, g) = particle::crossing_backward(w, Inner::Reverse, 1.0);
    assert_eq!(value, particle::crossing(w, Inner::Reverse));
    for inner in [Inner::Reverse, Inner::Forward] {
        gradcheck(&(w,), |&(w,)| particle::crossing_backward(w, inner, 1.0)).unwrap();
    }
    let (_, gf) = particle::crossing_backward(w, Inner::Forward, 1.0);
    let forward = particle::trajectory(Dual::new(w, 1.0), particle::grad_reverse);
    assert_close(&[forward.value], &[value], 1e-13);
    let ff = particle::trajectory(Dual::new(w, 1.0), particle::grad_forward);
    assert_close(&[ff.value], &[value], 1e-13);
    assert_close(
        &[gf.w, forward.tangent, ff.tangent],
        &[g.w, g.w, g.w],
        1e-10,
    );
    // GradBench's answer, w = 0.2071918746486116, brings the particle down
    // at the origin; w = 0 does not; each mode served finds it from 0.
    let hit = particle::crossing(0.2071918746486116, Inner::Reverse);
    assert!(hit < 1e-6, "{hit}");
    assert!(particle::crossing(0.0, Inner::Reverse) > 100.0 * hit);
    for function in ["rr", "rf", "fr", "ff"] {
        let found = particle::argmin(function, 0.0).unwrap();
        assert_close(&[found], &[0.2071918746486116], 1e-12);
    }
}
