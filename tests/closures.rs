//! Closures mapped over arrays, as ndarray and iterators spell them: the
//! closure's body is differentiated as a scalar function of its elements
//! and of the differentiable scalars it captures (whose gradients sum over
//! the elements). Each function is checked against the original's value
//! bit for bit, by central differences and by its closed-form gradient.

use backprop::prelude::*;
use backprop_testkit::random;

fn close(a: &Array1<f64>, b: &Array1<f64>, tol: f64) -> bool {
    a.len() == b.len()
        && a.iter()
            .zip(b)
            .all(|(x, y)| (x - y).abs() <= tol * (1.0 + y.abs()))
}

/// `Σ c · tanh(s v)` over `x`, with `s` differentiable and `c` a constant.
#[differentiable]
fn scaled_tanh(x: &Array1<f64>, s: f64) -> f64 {
    let c = 0.5;
    x.mapv(|v| (v * s).tanh() * c).sum()
}

#[test]
fn mapv_with_a_captured_scalar_and_a_constant() {
    let x = array![0.3, -1.2, 2.0];
    let s = 0.7;
    let (v, g) = scaled_tanh_backward(&x, s, 1.0);
    assert_eq!(v, scaled_tanh(&x, s));
    // ∂x_i = c s (1 - t_i²), ∂s = Σ c x_i (1 - t_i²).
    let t = x.mapv(|v| (v * s).tanh());
    let sech2 = t.mapv(|t| 1.0 - t * t);
    assert!(close(&g.x, &(&sech2 * (0.5 * s)), 1e-15));
    assert!((g.s - (&x * &sech2).sum() * 0.5).abs() < 1e-15);
    gradcheck(&(x.clone(), s), |(x, s)| scaled_tanh_backward(x, *s, 1.0)).unwrap();
}

/// Poisson regression: the negative log-likelihood of counts `y` with rates
/// `exp(X w)`, with the rate written `mapv(f64::exp)` and `.exp()`.
#[differentiable(wrt(w))]
fn poisson_nll(x: &Array2<f64>, y: &Array1<f64>, w: &Array1<f64>) -> f64 {
    let eta = x.dot(w);
    let rate = eta.mapv(f64::exp);
    (&rate - &(y * &eta)).sum()
}

#[differentiable(wrt(w))]
fn poisson_nll_method(x: &Array2<f64>, y: &Array1<f64>, w: &Array1<f64>) -> f64 {
    let eta = x.dot(w);
    let rate = eta.exp();
    (&rate - &(y * &eta)).sum()
}

#[test]
fn poisson_regression_with_mapv_and_with_exp() {
    let mut seed = 41;
    let x = random((6, 3), &mut seed);
    let y = array![0.0, 1.0, 3.0, 0.0, 2.0, 1.0];
    let w = random(3, &mut seed);
    let (v, g) = poisson_nll_backward(&x, &y, &w, 1.0);
    assert_eq!(v, poisson_nll(&x, &y, &w));
    let (v2, g2) = poisson_nll_method_backward(&x, &y, &w, 1.0);
    assert_eq!(v2, v);
    assert_eq!(g2.w, g.w);
    // ∂w = Xᵀ (exp(X w) - y).
    let exact = x.t().dot(&(x.dot(&w).mapv(f64::exp) - &y));
    assert!(close(&g.w, &exact, 1e-14), "{} {exact}", g.w);
    gradcheck(&(w.clone(),), |(w,)| poisson_nll_backward(&x, &y, w, 1.0)).unwrap();
}

/// A ridge penalty as people write it.
#[differentiable]
fn ridge(w: &Array1<f64>, lambda: f64) -> f64 {
    lambda * w.mapv(|v| v * v).sum()
}

#[test]
fn ridge_penalty() {
    let w = array![1.0, -2.0, 0.5];
    let (v, g) = ridge_backward(&w, 0.1, 1.0);
    assert_eq!(v, ridge(&w, 0.1));
    assert_eq!(g.w, &w * 0.2);
    assert_eq!(g.lambda, 5.25);
    gradcheck(&(w.clone(), 0.1), |(w, l)| ridge_backward(w, *l, 1.0)).unwrap();
}

/// Huber loss elementwise with `Zip`: a branch and `abs` in the closure.
#[differentiable]
fn huber(pred: &Array1<f64>, target: &Array1<f64>, delta: f64) -> f64 {
    let losses = Zip::from(pred).and(target).map_collect(|&p, &t| {
        let r = p - t;
        if r.abs() <= delta {
            0.5 * r * r
        } else {
            delta * (r.abs() - 0.5 * delta)
        }
    });
    losses.sum()
}

#[test]
fn huber_with_zip_and_a_branch() {
    let pred = array![0.2, 3.0, -2.5, 1.0];
    let target = array![0.0, 1.0, 0.0, 1.3];
    let delta = 1.0;
    let (v, g) = huber_backward(&pred, &target, delta, 1.0);
    assert_eq!(v, huber(&pred, &target, delta));
    // ∂p = r where |r| ≤ δ, else δ sign(r); ∂δ = |r| - δ where |r| > δ.
    let r = &pred - &target;
    let dp = r.mapv(|r: f64| if r.abs() <= 1.0 { r } else { r.signum() });
    assert!(close(&g.pred, &dp, 1e-15), "{} {dp}", g.pred);
    assert!(close(&g.target, &-&dp, 1e-15));
    let dd: f64 = r
        .iter()
        .filter(|r| r.abs() > 1.0)
        .map(|r| r.abs() - 1.0)
        .sum();
    assert!((g.delta - dd).abs() < 1e-15);
    gradcheck(&(pred.clone(), target.clone(), delta), |(p, t, d)| {
        huber_backward(p, t, *d, 1.0)
    })
    .unwrap();
}

/// Iterator chains over 1-D arrays: a squared distance and a sum of cubes.
#[differentiable]
fn iterated(a: &Array1<f64>, b: &Array1<f64>) -> f64 {
    let d = a
        .iter()
        .zip(b.iter())
        .map(|(x, y)| (x - y).powi(2))
        .sum::<f64>();
    let c: f64 = a.iter().map(|x| x * x * x).sum();
    d + c
}

#[test]
fn iterator_chains() {
    let a = array![1.0, 2.0, -1.0];
    let b = array![0.5, 2.5, 1.0];
    let (v, g) = iterated_backward(&a, &b, 1.0);
    assert_eq!(v, iterated(&a, &b));
    let diff = &a - &b;
    assert_eq!(g.a, &diff * 2.0 + &a.mapv(|x| 3.0 * x * x));
    assert_eq!(g.b, &diff * -2.0);
    gradcheck(&(a.clone(), b.clone()), |(a, b)| {
        iterated_backward(a, b, 1.0)
    })
    .unwrap();
}

/// A zip of iterators stops at the shorter one: the rest has no gradient.
#[differentiable]
fn truncated(a: &Array1<f64>, b: &Array1<f64>) -> f64 {
    a.iter().zip(b.iter()).map(|(x, y)| x * y).sum::<f64>()
}

#[test]
fn a_zip_of_unequal_lengths() {
    let a = array![1.0, 2.0, 3.0, 4.0];
    let b = array![5.0, 6.0];
    let (v, g) = truncated_backward(&a, &b, 1.0);
    assert_eq!(v, 17.0);
    assert_eq!(g.a, array![5.0, 6.0, 0.0, 0.0]);
    assert_eq!(g.b, array![1.0, 2.0]);
}

/// A scalar `#[differentiable]` function mapped by path and from a closure.
#[differentiable]
fn soft_clip(v: f64) -> f64 {
    (v * 0.5).tanh() * 2.0
}

#[differentiable]
fn mapped_function(x: &Array2<f64>) -> f64 {
    let a = x.mapv(soft_clip);
    let b = x.mapv(|v| soft_clip(v) * v);
    (&a * &b).sum()
}

#[test]
fn a_differentiable_function_mapped() {
    let mut seed = 8;
    let x = random((3, 4), &mut seed);
    let (v, _) = mapped_function_backward(&x, 1.0);
    assert_eq!(v, mapped_function(&x));
    gradcheck(&(x.clone(),), |(x,)| mapped_function_backward(x, 1.0)).unwrap();
}

/// `map` (by reference), `mapv_into` on a temporary, `max`/`min` and a
/// captured value computed in the body, inside a loop.
#[differentiable]
fn in_a_loop(x: &Array1<f64>, s: f64) -> f64 {
    let mut acc = 0.0;
    for k in 0..3 {
        let shift = s * (k as f64);
        let y = x.map(|&v| (v - shift).max(0.1 * v).min(2.0));
        acc += (&y * 2.0).mapv_into(|v| v.sin()).sum();
    }
    acc
}

#[test]
fn closures_in_a_loop() {
    let x = array![0.3, -0.8, 1.7, 2.9];
    let s = 0.4;
    let (v, _) = in_a_loop_backward(&x, s, 1.0);
    assert_eq!(v, in_a_loop(&x, s));
    gradcheck(&(x.clone(), s), |(x, s)| in_a_loop_backward(x, *s, 1.0)).unwrap();
}

/// The same in `f32`.
#[differentiable]
fn in_f32(x: &Array1<f32>, s: f32) -> f32 {
    x.mapv(|v| (v * s).exp()).sum()
}

#[test]
fn closures_in_f32() {
    let x = array![0.5_f32, -1.0];
    let (v, g) = in_f32_backward(&x, 2.0, 1.0);
    assert_eq!(v, in_f32(&x, 2.0));
    assert_eq!(g.x, x.mapv(|v| 2.0 * (2.0 * v).exp()));
    assert_eq!(g.s, (&x * &x.mapv(|v| (2.0 * v).exp())).sum());
}

/// An element by reference dereferenced in a branch's condition.
#[differentiable]
fn deref_in_a_condition(x: &Array1<f64>) -> f64 {
    x.iter()
        .map(|u| if *u < 0.0371 { u.exp() } else { u.cos() })
        .sum::<f64>()
}

#[test]
fn an_element_dereferenced_in_a_condition() {
    let x = array![0.5, -0.3];
    let (v, g) = deref_in_a_condition_backward(&x, 1.0);
    assert_eq!(v, deref_in_a_condition(&x));
    assert_eq!(g.x, array![-(0.5_f64.sin()), (-0.3_f64).exp()]);
    gradcheck(&(x.clone(),), |(x,)| deref_in_a_condition_backward(x, 1.0)).unwrap();
}

/// A Runge-Kutta stage of `y'_i = x_i y_{i-1}` as a `Zip` over three
/// slices: `x_i (y_{i-1} + c k_{i-1})` for `i ≥ 1`, `c` differentiable.
#[differentiable]
fn stage(x: &Array1<f64>, y: &Array1<f64>, k: &Array1<f64>, c: f64) -> f64 {
    let z = Zip::from(&x.slice(s![1..]))
        .and(&y.slice(s![..-1]))
        .and(&k.slice(s![..-1]))
        .map_collect(|&a, &b, &d| a * (b + c * d));
    z.dot(&z)
}

#[test]
fn a_zip_of_three_slices() {
    let mut seed = 41;
    let (x, y, k) = (
        random(5, &mut seed),
        random(5, &mut seed),
        random(5, &mut seed),
    );
    let c = 0.3;
    let (v, g) = stage_backward(&x, &y, &k, c, 1.0);
    assert_eq!(v, stage(&x, &y, &k, c));
    // With z_i = x_i u_i, u_i = y_{i-1} + c k_{i-1}: ∂x_i = 2 z_i u_i,
    // ∂y_{i-1} = 2 z_i x_i, ∂k_{i-1} = c ∂y_{i-1}, ∂c = Σ 2 z_i x_i k_{i-1}.
    let n = x.len();
    let (mut dx, mut dy, mut dk, mut dc) =
        (Array1::zeros(n), Array1::zeros(n), Array1::zeros(n), 0.0);
    for i in 1..n {
        let u = y[i - 1] + c * k[i - 1];
        let z = x[i] * u;
        dx[i] = 2.0 * z * u;
        dy[i - 1] = 2.0 * z * x[i];
        dk[i - 1] = c * dy[i - 1];
        dc += dy[i - 1] * k[i - 1];
    }
    assert!(close(&g.x, &dx, 1e-14), "{} {dx}", g.x);
    assert!(close(&g.y, &dy, 1e-14), "{} {dy}", g.y);
    assert!(close(&g.k, &dk, 1e-14), "{} {dk}", g.k);
    assert!(
        (g.c - dc).abs() <= 1e-14 * dc.abs().max(1.0),
        "{} {dc}",
        g.c
    );
    gradcheck(&(x, y, k, c), |(x, y, k, c)| {
        stage_backward(x, y, k, *c, 1.0)
    })
    .unwrap();
}

/// Five matrices, one of them transposed, and a captured scalar: the value
/// is laid out as the user's `Zip` lays it out, so the sum is the same to
/// the bit.
#[differentiable]
fn five(
    a: &Array2<f64>,
    b: &Array2<f64>,
    c: &Array2<f64>,
    d: &Array2<f64>,
    e: &Array2<f64>,
    s: f64,
) -> f64 {
    Zip::from(a)
        .and(b)
        .and(c)
        .and(d)
        .and(&e.t())
        .map_collect(|&a, &b, &c, &d, &e| a * b + (c - d).powi(2) * s + e.sin())
        .sum()
}

/// Four vectors, the first twice: each use of `x` gets its contribution.
#[differentiable]
fn four(x: &Array1<f64>, y: &Array1<f64>, w: &Array1<f64>) -> f64 {
    Zip::from(x)
        .and(y)
        .and(x)
        .and(w)
        .map_collect(|&a, &b, &c, &d| a * b * c + d.exp() * a)
        .sum()
}

#[test]
fn zips_of_four_and_five_arrays() {
    let mut seed = 42;
    let m = |seed: &mut u64| random((3, 2), seed);
    let (a, b, c, d) = (m(&mut seed), m(&mut seed), m(&mut seed), m(&mut seed));
    let e = random((2, 3), &mut seed);
    let s = 0.7;
    let (v, g) = five_backward(&a, &b, &c, &d, &e, s, 1.0);
    assert_eq!(v, five(&a, &b, &c, &d, &e, s));
    // ∂a = b, ∂b = a, ∂c = 2 (c - d) s = -∂d, ∂e = cos(e), ∂s = Σ (c - d)².
    assert_eq!(g.a, b);
    assert_eq!(g.b, a);
    let diff = &c - &d;
    let dc = diff.mapv(|v| 2.0 * v * s);
    assert!(g.c.iter().zip(&dc).all(|(x, y)| (x - y).abs() < 1e-15));
    assert!(g.d.iter().zip(&dc).all(|(x, y)| (x + y).abs() < 1e-15));
    assert_eq!(g.e, e.mapv(f64::cos));
    assert!((g.s - diff.mapv(|v| v * v).sum()).abs() < 1e-14);
    gradcheck(&(a, b, c, d, e, s), |(a, b, c, d, e, s)| {
        five_backward(a, b, c, d, e, *s, 1.0)
    })
    .unwrap();

    let (x, y, w) = (
        random(4, &mut seed),
        random(4, &mut seed),
        random(4, &mut seed),
    );
    let (v, g) = four_backward(&x, &y, &w, 1.0);
    assert_eq!(v, four(&x, &y, &w));
    // ∂x = 2 x y + exp(w), ∂y = x², ∂w = exp(w) x.
    let dx = 2.0 * &x * &y + w.mapv(f64::exp);
    assert!(close(&g.x, &dx, 1e-15), "{} {dx}", g.x);
    assert!(close(&g.y, &(&x * &x), 1e-15));
    assert!(close(&g.w, &(w.mapv(f64::exp) * &x), 1e-15));
    gradcheck(&(x, y, w), |(x, y, w)| four_backward(x, y, w, 1.0)).unwrap();
}
