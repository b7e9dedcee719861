//! Programs written with ndarray's own spellings, as a Rust user writes
//! them: `mean().unwrap()`, `mean_axis(..).unwrap()`, `var_axis`, `select`,
//! `slice(s![..])`, reshapes, `concatenate` and `stack`, `product_axis`. Each is checked
//! against central differences, and against the closed form of its gradient
//! where there is one.

use backprop::prelude::*;
use backprop_testkit::random;
use std::f64::consts::PI;

/// `|a - b| <= tol` for every element, with the first offender named.
fn close(what: &str, a: &[f64], b: &[f64], tol: f64) {
    assert_eq!(a.len(), b.len(), "{what}: lengths");
    for (k, (x, y)) in a.iter().zip(b).enumerate() {
        assert!((x - y).abs() <= tol, "{what}[{k}]: {x} vs {y}");
    }
}

/// Layer norm over the last axis with a learnable scale and shift, then
/// the mean squared error against a target.
#[differentiable(wrt(x, gamma, beta))]
fn layer_norm_loss(
    x: &Array2<f64>,
    gamma: &Array1<f64>,
    beta: &Array1<f64>,
    target: &Array2<f64>,
) -> f64 {
    let mu = x.mean_axis(Axis(1)).unwrap().insert_axis(Axis(1));
    let var = x.var_axis(Axis(1), 0.0).insert_axis(Axis(1));
    let xhat = (x - &mu) / (var + 1e-5).sqrt();
    let y = &xhat * gamma + beta;
    let r = &y - target;
    (&r * &r).mean().unwrap()
}

#[test]
fn layer_norm_with_mean_axis_and_var_axis() {
    let mut seed = 3;
    let (n, d) = (5, 4);
    let x = random((n, d), &mut seed) * 3.0;
    let gamma = random(d, &mut seed) + 1.0;
    let beta = random(d, &mut seed);
    let target = random((n, d), &mut seed);
    let (value, g) = layer_norm_loss_backward(&x, &gamma, &beta, &target, 1.0);
    assert_eq!(
        value.to_bits(),
        layer_norm_loss(&x, &gamma, &beta, &target).to_bits()
    );

    // ∂beta_j = Σ_i 2 r_ij / (n d), with r as the function computes it.
    let mu = x.mean_axis(Axis(1)).unwrap().insert_axis(Axis(1));
    let var = x.var_axis(Axis(1), 0.0).insert_axis(Axis(1));
    let xhat = (&x - &mu) / (var + 1e-5).mapv(f64::sqrt);
    let r = &xhat * &gamma + &beta - &target;
    let d_beta = (&r * (2.0 / (n * d) as f64)).sum_axis(Axis(0));
    close(
        "beta",
        g.beta.as_slice().unwrap(),
        d_beta.as_slice().unwrap(),
        1e-14,
    );
    let d_gamma = (&r * &xhat * (2.0 / (n * d) as f64)).sum_axis(Axis(0));
    close(
        "gamma",
        g.gamma.as_slice().unwrap(),
        d_gamma.as_slice().unwrap(),
        1e-14,
    );
    // A layer norm does not see a shift of a row: each row of ∂x sums to 0.
    for row in g.x.rows() {
        assert!(row.sum().abs() < 1e-12, "a row of ∂x sums to {}", row.sum());
    }
    gradcheck(
        &(x.clone(), gamma.clone(), beta.clone()),
        |(x, gamma, beta)| layer_norm_loss_backward(x, gamma, beta, &target, 1.0),
    )
    .unwrap();
}

/// An embedding lookup: the rows of `table` that `ids` names (with
/// repeats), projected on `w` and summed.
#[differentiable(wrt(table, w))]
fn embedding_score(table: &Array2<f64>, ids: &[usize], w: &Array1<f64>) -> f64 {
    let e = table.select(Axis(0), ids);
    e.dot(w).sum()
}

#[test]
fn select_adds_the_gradients_of_repeated_ids() {
    let table = array![[0.5, -1.0], [2.0, 0.25], [-0.75, 1.5], [1.0, 1.0]];
    let w = array![1.5, -0.5];
    let ids = [2, 0, 2, 2, 1];
    let (value, g) = embedding_score_backward(&table, &ids, &w, 1.0);
    assert_eq!(value, embedding_score(&table, &ids, &w));
    // Row r gets w once per time it is looked up: exactly.
    let expected = array![[1.5, -0.5], [1.5, -0.5], [4.5, -1.5], [0.0, 0.0]];
    assert_eq!(g.table, expected);
    // ∂w = the sum of the rows looked up.
    assert_eq!(g.w, array![3.0 * -0.75 + 0.5 + 2.0, 3.0 * 1.5 - 1.0 + 0.25]);
    gradcheck(&(table.clone(), w.clone()), |(t, w)| {
        embedding_score_backward(t, &ids, w, 1.0)
    })
    .unwrap();
}

/// A 1-D convolution, one window `x[i..i + k]` per output position, and its
/// squared error.
#[differentiable(wrt(x, kernel))]
fn conv1d_loss(x: &Array1<f64>, kernel: &Array1<f64>, target: &Array1<f64>) -> f64 {
    let mut loss = 0.0;
    for i in 0..x.len() - kernel.len() + 1 {
        let y = x.slice(s![i..i + kernel.len()]).dot(kernel);
        let r = y - target[i];
        loss += r * r;
    }
    loss
}

#[test]
fn convolution_with_a_slice_per_position() {
    let mut seed = 17;
    let x = random(9, &mut seed);
    let kernel = random(3, &mut seed);
    let target = random(7, &mut seed);
    let (value, g) = conv1d_loss_backward(&x, &kernel, &target, 1.0);
    assert_eq!(value, conv1d_loss(&x, &kernel, &target));
    // ∂kernel_j = Σ_i 2 r_i x_{i+j}; ∂x_m = Σ_i 2 r_i kernel_{m-i}.
    let mut d_kernel = Array1::<f64>::zeros(3);
    let mut d_x = Array1::<f64>::zeros(9);
    for i in 0..7 {
        let r = x.slice(s![i..i + 3]).dot(&kernel) - target[i];
        for j in 0..3 {
            d_kernel[j] += 2.0 * r * x[i + j];
            d_x[i + j] += 2.0 * r * kernel[j];
        }
    }
    close(
        "kernel",
        g.kernel.as_slice().unwrap(),
        d_kernel.as_slice().unwrap(),
        1e-13,
    );
    close("x", g.x.as_slice().unwrap(), d_x.as_slice().unwrap(), 1e-13);
    gradcheck(&(x.clone(), kernel.clone()), |(x, kernel)| {
        conv1d_loss_backward(x, kernel, &target, 1.0)
    })
    .unwrap();
}

/// Slices with steps, negative ends and bounds, single indices (an axis
/// removed) and a reversed axis.
#[differentiable(wrt(m))]
fn slices(m: &Array2<f64>, w: &Array2<f64>) -> f64 {
    let odd_rows = m.slice(s![1..;2, ..-1]);
    let first_row = m.slice(s![0, ..]);
    let reversed = m.slice(s![.., ..;-1]);
    odd_rows.sum() * 3.0 + first_row.sum() + (&reversed * w).sum()
}

#[test]
fn slices_put_the_gradient_where_they_read() {
    let m = Array2::from_shape_fn((4, 3), |(i, j)| (i * 3 + j) as f64 * 0.5);
    let w = Array2::from_shape_fn((4, 3), |(i, j)| (i as f64) - 2.0 * j as f64);
    let (value, g) = slices_backward(&m, &w, 1.0);
    assert_eq!(value, slices(&m, &w));
    let mut expected = w.slice(s![.., ..;-1]).to_owned();
    for i in [1, 3] {
        for j in 0..2 {
            expected[[i, j]] += 3.0;
        }
    }
    for j in 0..3 {
        expected[[0, j]] += 1.0;
    }
    assert_eq!(g.m, expected);
}

/// The negative log-likelihood of `y` under independent Gaussians.
#[differentiable(wrt(mu, log_sigma))]
fn gaussian_nll(mu: &Array1<f64>, log_sigma: &Array1<f64>, y: &Array1<f64>) -> f64 {
    let z = (y - mu) / log_sigma.exp();
    let nll = &z * &z * 0.5 + log_sigma + 0.5 * (2.0 * PI).ln();
    nll.mean().unwrap()
}

#[test]
fn gaussian_nll_with_mean_unwrap() {
    let mut seed = 29;
    let n = 6;
    let mu = random(n, &mut seed);
    let log_sigma = random(n, &mut seed) * 0.5;
    let y = random(n, &mut seed);
    let (value, g) = gaussian_nll_backward(&mu, &log_sigma, &y, 1.0);
    assert_eq!(value.to_bits(), gaussian_nll(&mu, &log_sigma, &y).to_bits());
    // ∂mu_i = -z_i / (σ_i n); ∂log σ_i = (1 - z_i²) / n.
    let sigma = log_sigma.mapv(f64::exp);
    let z = (&y - &mu) / &sigma;
    let d_mu = -&z / &sigma / n as f64;
    let d_log_sigma = (1.0 - &z * &z) / n as f64;
    close(
        "mu",
        g.mu.as_slice().unwrap(),
        d_mu.as_slice().unwrap(),
        1e-15,
    );
    close(
        "log_sigma",
        g.log_sigma.as_slice().unwrap(),
        d_log_sigma.as_slice().unwrap(),
        1e-15,
    );
    gradcheck(&(mu.clone(), log_sigma.clone()), |(mu, ls)| {
        gaussian_nll_backward(mu, ls, &y, 1.0)
    })
    .unwrap();
}

#[differentiable]
fn spread(a: &Array1<f64>) -> f64 {
    a.var(0.0) + a.std(1.0) * 2.0
}

#[test]
fn var_and_std_of_two_values() {
    let a = array![1.0, 3.0];
    let (value, g) = spread_backward(&a, 1.0);
    // var = 1, std with ddof 1 = √2.
    assert_eq!(value, 1.0 + 2.0 * 2.0_f64.sqrt());
    // ∂var = 2(a - 1̄)/n = [-1, 1]; ∂std = (a - ā)/((n - 1) std) = [-1, 1]/√2.
    let s = 2.0 / 2.0_f64.sqrt();
    close("a", g.a.as_slice().unwrap(), &[-1.0 - s, 1.0 + s], 1e-15);
    gradcheck(&(array![0.3, -1.2, 2.5, 0.7],), |(a,)| {
        spread_backward(a, 1.0)
    })
    .unwrap();
}

#[differentiable]
fn products_of(a: &Array1<f64>, m: &Array2<f64>) -> f64 {
    a.product() + m.product()
}

#[test]
fn product_gradients_are_exact_with_zeros() {
    let a = array![2.0, 0.0, 3.0];
    let m = array![[1.5, 0.0], [2.0, 0.0]];
    let (value, g) = products_of_backward(&a, &m, 1.0);
    assert_eq!(value, 0.0);
    // One zero: only its own gradient is nonzero, the product of the rest.
    assert_eq!(g.a, array![0.0, 6.0, 0.0]);
    // Two zeros: every gradient is 0.
    assert_eq!(g.m, Array2::<f64>::zeros((2, 2)));
    let a = array![1.5, -0.5, 2.0, 0.75];
    let (_, g) = products_of_backward(&a, &m, 1.0);
    assert_eq!(g.a, array![-0.75, 2.25, -0.5625, -1.5]);
    gradcheck(&(a.clone(), array![[0.9, -1.1], [1.3, 0.4]]), |(a, m)| {
        products_of_backward(a, m, 1.0)
    })
    .unwrap();
}

/// The probability that no event of a row happens, `Π_j (1 - p_ij)`,
/// summed over the rows, and the product of a transposed view's elements
/// in its iteration order.
#[differentiable]
fn products_along(p: &Array2<f64>, m: &Array2<f64>) -> f64 {
    let none = (1.0 - p).product_axis(Axis(1));
    none.sum() + m.t().iter().product::<f64>()
}

#[test]
fn product_axis_and_iter_product_are_exact_with_zeros() {
    let p = array![[0.5, 1.0, 0.25], [0.5, 0.75, 0.0], [1.0, 0.5, 1.0]];
    let m = array![[1.5, -2.0], [0.5, 4.0]];
    let (value, g) = products_along_backward(&p, &m, 1.0);
    assert_eq!(value.to_bits(), products_along(&p, &m).to_bits());
    assert_eq!(value, 0.0 + 0.125 + 0.0 + -6.0);
    // ∂p_ij = -Π_{k≠j} (1 - p_ik): a row with one certain event (a zero
    // factor) has a gradient only there; with two, none.
    assert_eq!(
        g.p,
        array![[0.0, -0.375, 0.0], [-0.25, -0.5, -0.125], [0.0, 0.0, 0.0]]
    );
    // ∂m_ij = Π of the others, -6 / m_ij here.
    assert_eq!(g.m, array![[-4.0, 3.0], [-12.0, -1.5]]);
    // A value in `m.t()`'s iteration order, bit for bit.
    let m = array![[0.3, 1.7], [-2.9, 0.11]];
    assert_eq!(
        products_along_backward(&p, &m, 1.0).0.to_bits(),
        ((1.0 - &p).product_axis(Axis(1)).sum() + m.t().iter().product::<f64>()).to_bits()
    );
    let mut seed = 43;
    let p = random((4, 3), &mut seed);
    let m = random((3, 2), &mut seed);
    gradcheck(&(p, m), |(p, m)| products_along_backward(p, m, 1.0)).unwrap();
}

#[differentiable]
fn iter_sums(a: &Array2<f64>) -> f64 {
    let total: f64 = (a * a).iter().sum();
    a.iter().sum::<f64>() * 0.5 + total
}

#[test]
fn iter_sum_is_the_sum_in_iteration_order() {
    let mut seed = 41;
    let a = random((7, 5), &mut seed);
    let (value, g) = iter_sums_backward(&a, 1.0);
    assert_eq!(value.to_bits(), iter_sums(&a).to_bits());
    assert_eq!(g.a, &a * 2.0 + 0.5);
}

/// Two heads of a projection split, reordered, joined back swapped and
/// stacked; a bias broadcast by hand.
#[differentiable]
fn heads(x: &Array2<f64>, w: &Array2<f64>, b: &Array1<f64>) -> f64 {
    let h = x.dot(w);
    let split = h.to_shape((4, 2, 3)).unwrap();
    let per_head = split.permuted_axes([1, 0, 2]);
    let a = per_head.index_axis(Axis(0), 0);
    let c = per_head.index_axis(Axis(0), 1);
    let swapped = concatenate(Axis(1), &[c.view(), a.view()]).unwrap();
    let both = stack(Axis(0), &[a.view(), c.view()]).unwrap();
    let flat = both.into_shape_with_order(24).expect("24 elements");
    let bias = b.broadcast((4, 6)).unwrap();
    (&swapped * &h).sum() + flat.dot(&flat) * 0.5 + (&bias * &h).sum()
}

#[test]
fn reshapes_permutations_and_joins() {
    let mut seed = 53;
    let x = random((4, 3), &mut seed);
    let w = random((3, 6), &mut seed);
    let b = random(6, &mut seed);
    let (value, g) = heads_backward(&x, &w, &b, 1.0);
    assert_eq!(value.to_bits(), heads(&x, &w, &b).to_bits());
    // The broadcast bias: its gradient is the column sums of `h`.
    let h = x.dot(&w);
    close(
        "b",
        g.b.as_slice().unwrap(),
        h.sum_axis(Axis(0)).as_slice().unwrap(),
        1e-14,
    );
    gradcheck(&(x.clone(), w.clone(), b.clone()), |(x, w, b)| {
        heads_backward(x, w, b, 1.0)
    })
    .unwrap();
}

/// `slice_axis`, `remove_axis`, `reversed_axes` and `std_axis`.
#[differentiable]
fn lanes(m: &Array2<f64>) -> f64 {
    let tail = m.slice_axis(Axis(1), Slice::from(1..));
    let top = m.slice(s![..1, ..]).remove_axis(Axis(0));
    let spread = tail.std_axis(Axis(0), 1.0);
    spread.sum() + top.dot(&top) + (&m.view().reversed_axes() * 2.0).sum()
}

#[test]
fn slice_axis_remove_axis_and_std_axis() {
    let mut seed = 61;
    let m = random((5, 3), &mut seed);
    let (value, _) = lanes_backward(&m, 1.0);
    assert_eq!(value.to_bits(), lanes(&m).to_bits());
    gradcheck(&(m.clone(),), |(m,)| lanes_backward(m, 1.0)).unwrap();
}

/// Windows of a local array, in a loop, and slices in the arms of a branch.
#[differentiable]
fn windows_of_a_local(x: &Array1<f64>, w: &Array1<f64>, s: f64) -> f64 {
    let h = (x * 2.0).tanh();
    let mut acc = 0.0;
    for i in 0..h.len() - 1 {
        let pair = h.slice(s![i..i + 2]);
        acc += pair.dot(w) * pair[0];
    }
    let edge = if s > 0.0 {
        h.slice(s![..2]).sum()
    } else {
        h.slice(s![-2..;-1]).dot(w)
    };
    acc + edge * s
}

#[test]
fn slices_of_a_local_in_a_loop_and_a_branch() {
    let mut seed = 71;
    let x = random(6, &mut seed);
    let w = random(2, &mut seed);
    for s in [0.75, -0.5] {
        let (value, _) = windows_of_a_local_backward(&x, &w, s, 1.0);
        assert_eq!(value.to_bits(), windows_of_a_local(&x, &w, s).to_bits());
        gradcheck(&(x.clone(), w.clone(), s), |(x, w, s)| {
            windows_of_a_local_backward(x, w, *s, 1.0)
        })
        .unwrap();
    }
}

/// ndarray's macro forms of `concatenate` and `stack`.
#[differentiable]
fn joined_by_macros(a: &Array2<f64>, b: &Array2<f64>) -> f64 {
    let (x, y) = (a * 1.0, b * 2.0);
    let c = ndarray::concatenate![Axis(0), x, y];
    let s = ndarray::stack![Axis(1), a.row(0), b.row(1)];
    (&c * &c).sum() + s.sum() * 3.0
}

#[test]
fn concatenate_and_stack_as_macros() {
    let a = array![[1.0, 2.0], [3.0, 4.0]];
    let b = array![[0.5, -1.0], [2.0, 0.25]];
    let (v, g) = joined_by_macros_backward(&a, &b, 1.0);
    assert_eq!(v, joined_by_macros(&a, &b));
    // Σ c² over [a; 2b]: 2a and 8b; the stack adds 3 to a's row 0 and b's row 1.
    assert_eq!(g.a, &a * 2.0 + &array![[3.0, 3.0], [0.0, 0.0]]);
    assert_eq!(g.b, &b * 8.0 + &array![[0.0, 0.0], [3.0, 3.0]]);
    gradcheck(&(a.clone(), b.clone()), |(a, b)| {
        joined_by_macros_backward(a, b, 1.0)
    })
    .unwrap();
}

/// `map_axis` with a closure that is no maximum: each row's product with
/// `w`, each column's log-sum-exp.
#[differentiable]
fn lanes_mapped(x: &Array2<f64>, w: &Array1<f64>) -> f64 {
    let scores = x.map_axis(Axis(1), |row| row.dot(w));
    let lse = x.map_axis(Axis(0), |col| col.mapv(f64::exp).sum().ln());
    scores.dot(&scores) + lse.sum()
}

#[test]
fn map_axis_with_any_closure() {
    let x = array![[1.0, 2.0], [0.5, -1.0], [0.0, 3.0]];
    let w = array![2.0, -1.0];
    let (value, g) = lanes_mapped_backward(&x, &w, 1.0);
    assert_eq!(value.to_bits(), lanes_mapped(&x, &w).to_bits());
    // ∂w = 2 Σ_i s_i x_i with s = x w = (0, 2, -3).
    assert_eq!(g.w, array![2.0 * (2.0 * 0.5), 2.0 * (-2.0 - 3.0 * 3.0)]);
    // ∂x_ij = 2 s_i w_j + softmax of column j at i.
    let e = x.mapv(f64::exp);
    let soft = &e / &e.sum_axis(Axis(0));
    let s = x.dot(&w);
    let exact = Array2::from_shape_fn((3, 2), |(i, j)| 2.0 * s[i] * w[j]) + soft;
    assert!((&g.x - &exact).iter().all(|d| d.abs() < 1e-14));
    let mut seed = 47;
    let (x, w) = (random((4, 3), &mut seed), random(3, &mut seed));
    gradcheck(&(x, w), |(x, w)| lanes_mapped_backward(x, w, 1.0)).unwrap();
}
