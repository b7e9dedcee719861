//! `while` loops (the number of iterations is a constant of the gradient,
//! known at run time: the forward keeps what each iteration's reverse
//! needs, and the reverse replays the iterations backwards) and `for` loops
//! over `(a..b).rev()` and `.step_by(k)`. Each function is checked against
//! the original's value bit for bit, by central differences and by its
//! closed-form gradient.

use backprop::prelude::*;
use backprop_testkit::random;

/// Halving until small: `a · 0.5^k`, with `k` decided by `a`.
#[differentiable]
fn halve(a: f64) -> f64 {
    let mut a = a;
    while a.abs() > 0.1 {
        a *= 0.5;
    }
    a
}

#[test]
fn halving_until_small() {
    for (a, k) in [(0.05, 0), (0.15, 1), (1.0, 4), (-3.0, 5)] {
        let (v, g) = halve_backward(a, 1.0);
        assert_eq!(v, halve(a));
        assert_eq!(g.a, 0.5_f64.powi(k), "a = {a}");
        gradcheck(&(a,), |(a,)| halve_backward(*a, 1.0)).unwrap();
    }
}

/// `xⁿ` by repeated multiplication, with an integer counter carried.
#[differentiable]
fn power(x: f64, n: usize) -> f64 {
    let mut p = 1.0;
    let mut k = 0;
    while k < n {
        p *= x;
        k += 1;
    }
    p
}

#[test]
fn a_power_by_repeated_multiplication() {
    for n in [0, 1, 2, 5] {
        let (v, g) = power_backward(1.3, n, 1.0);
        assert_eq!(v, power(1.3, n));
        let exact = if n == 0 {
            0.0
        } else {
            n as f64 * 1.3_f64.powi(n as i32 - 1)
        };
        assert!((g.x - exact).abs() < 1e-14, "n = {n}: {} {exact}", g.x);
        gradcheck(&(1.3,), |(x,)| power_backward(*x, n, 1.0)).unwrap();
    }
}

/// Newton's iteration for `√x` until converged: the gradient through the
/// iterations approaches `1 / (2 √x)`.
#[differentiable]
fn newton_sqrt(x: f64) -> f64 {
    let mut y = 1.0;
    while (y * y - x).abs() > 1e-12 {
        y = 0.5 * (y + x / y);
    }
    y
}

#[test]
fn newton_until_converged() {
    for x in [0.5, 2.0, 9.0] {
        let (v, g) = newton_sqrt_backward(x, 1.0);
        assert_eq!(v, newton_sqrt(x));
        assert!((g.x - 0.5 / x.sqrt()).abs() < 1e-9, "x = {x}: {}", g.x);
        gradcheck(&(x,), |(x,)| newton_sqrt_backward(*x, 1.0)).unwrap();
    }
}

/// A loop with an array carried and a captured array read each iteration.
#[differentiable]
fn shrink(w: &Array1<f64>, x: &Array1<f64>) -> f64 {
    let mut v = w * 1.0;
    let mut n = 0;
    while v.dot(&v) > 0.01 && n < 50 {
        v = (&v * 0.5) + &(x * 0.01);
        n += 1;
    }
    v.sum()
}

#[test]
fn an_array_carried_through_a_while() {
    let mut seed = 3;
    let w = random(4, &mut seed);
    let x = random(4, &mut seed);
    let (v, _) = shrink_backward(&w, &x, 1.0);
    assert_eq!(v, shrink(&w, &x));
    gradcheck(&(w.clone(), x.clone()), |(w, x)| shrink_backward(w, x, 1.0)).unwrap();
}

/// Discounted returns computed backwards (`(0..n).rev()`), summed.
#[differentiable(wrt(rewards, gamma))]
fn discounted(rewards: &Array1<f64>, gamma: f64) -> f64 {
    let mut g = 0.0;
    let mut total = 0.0;
    for t in (0..rewards.len()).rev() {
        g = rewards[t] + gamma * g;
        total += g;
    }
    total
}

#[test]
fn discounted_returns_by_a_reversed_loop() {
    let rewards = array![1.0, 2.0, 3.0];
    let gamma = 0.5;
    let (v, g) = discounted_backward(&rewards, gamma, 1.0);
    assert_eq!(v, discounted(&rewards, gamma));
    // G2 = 3, G1 = 2 + γ3, G0 = 1 + γ2 + γ²3: total = 6 + 2γ + 3γ + 3γ².
    assert_eq!(v, 6.0 + 5.0 * 0.5 + 3.0 * 0.25);
    assert_eq!(g.gamma, 5.0 + 6.0 * gamma);
    // ∂r_t = Σ_{s ≤ t} γ^(t-s).
    assert_eq!(
        g.rewards,
        array![1.0, 1.0 + gamma, 1.0 + gamma + gamma * gamma]
    );
    gradcheck(&(rewards.clone(), gamma), |(r, g)| {
        discounted_backward(r, *g, 1.0)
    })
    .unwrap();
}

/// Every other element from the end, weighted by its index.
#[differentiable]
fn stepped(w: &Array1<f64>) -> f64 {
    let mut s = 0.0;
    for i in (0..w.len()).rev().step_by(2) {
        s += w[i] * w[i] * (i as f64);
    }
    for i in (1..w.len()).step_by(3) {
        s += w[i];
    }
    s
}

#[test]
fn stepped_and_reversed_ranges() {
    let w = array![1.0, 2.0, 3.0, 4.0, 5.0];
    let (v, g) = stepped_backward(&w, 1.0);
    assert_eq!(v, stepped(&w));
    // (4, 2, 0) from the first loop, (1, 4) from the second.
    assert_eq!(
        g.w,
        array![0.0, 1.0, 2.0 * 3.0 * 2.0, 0.0, 2.0 * 5.0 * 4.0 + 1.0]
    );
    gradcheck(&(w.clone(),), |(w,)| stepped_backward(w, 1.0)).unwrap();
}
