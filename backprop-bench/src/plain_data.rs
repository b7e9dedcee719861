//! Workloads (h) to (j): plain Rust data. (h) the nine-parameter network
//! of (a) taking its weights as one `[f64; 9]`, whose `_backward` is
//! scalar code with an `[f64; 9]` gradient on the stack (issue 31 asks
//! ≤ 1.10× the hand-written backward and no allocation); (i) Rosenbrock's
//! function over `&[f64]` with n = 1,000, against the gradient loop a
//! person writes (`g[i] += ..; g[i + 1] += ..`); (j) the pairwise products
//! of an `[f64; 8]` in nested loops, against the same loops by hand.

use crate::check::same;
use backprop::prelude::*;

/// (h): `(w₇ tanh(w₁x₁ + w₂x₂ + w₃) + w₈ tanh(w₄x₁ + w₅x₂ + w₆) + w₉)²`.
#[differentiable]
pub fn net(p: [f64; 9], x1: f64, x2: f64) -> f64 {
    let h1 = (p[0] * x1 + p[1] * x2 + p[2]).tanh();
    let h2 = (p[3] * x1 + p[4] * x2 + p[5]).tanh();
    let y = p[6] * h1 + p[7] * h2 + p[8];
    y * y
}

/// (i): `Σ 100 (xᵢ₊₁ − xᵢ²)² + (1 − xᵢ)²`.
#[differentiable]
pub fn rosenbrock(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..x.len() - 1 {
        s += 100.0 * (x[i + 1] - x[i] * x[i]).powi(2) + (1.0 - x[i]).powi(2);
    }
    s
}

/// (j): `c Σ_{i ≤ j} xᵢ xⱼ`, read by element in nested loops.
#[differentiable]
pub fn pairs(x: [f64; 8], c: f64) -> f64 {
    let mut s = 0.0;
    for i in 0..x.len() {
        for j in i..x.len() {
            s += c * x[i] * x[j];
        }
    }
    s
}

/// (j) over `[f64; 32]`: loops LLVM does not unroll whole.
#[differentiable]
pub fn pairs32(x: [f64; 32], c: f64) -> f64 {
    let mut s = 0.0;
    for i in 0..x.len() {
        for j in i..x.len() {
            s += c * x[i] * x[j];
        }
    }
    s
}

/// The point of (j) over `[f64; 32]`.
pub fn pairs32_point() -> ([f64; 32], f64) {
    (std::array::from_fn(|i| (i as f64 * 0.37).sin()), 0.7)
}

/// (j) over `[f64; 32]` by hand, term-wise.
#[inline(never)]
pub fn pairs32_hand(i: &([f64; 32], f64)) -> (f64, [f64; 32], f64) {
    termwise(i)
}

/// (j) over `[f64; 32]` generated.
#[inline(never)]
pub fn pairs32_generated(i: &([f64; 32], f64)) -> (f64, [f64; 32], f64) {
    let (v, g) = pairs32_backward(i.0, i.1, 1.0);
    (v, g.x, g.c)
}

/// The point of (j).
pub const PAIRS: ([f64; 8], f64) = ([0.3, -0.5, 0.8, 1.1, -0.2, 0.6, -0.9, 0.4], 0.7);

/// (j) by hand: the value and the gradient in the same loops.
#[inline(never)]
pub fn pairs_hand(i: &([f64; 8], f64)) -> (f64, [f64; 8], f64) {
    let (x, c) = *i;
    let (mut s, mut g) = (0.0, [0.0; 8]);
    for i in 0..8 {
        for j in i..8 {
            s += x[i] * x[j];
            g[i] += c * x[j];
            g[j] += c * x[i];
        }
    }
    (c * s, g, s)
}

/// (j) by hand as the function is written, `c` in every term.
#[inline(never)]
pub fn pairs_hand_termwise(i: &([f64; 8], f64)) -> (f64, [f64; 8], f64) {
    termwise(i)
}

/// (j) by hand, term-wise: the value and the gradient in the same loops,
/// of a constant length (inlined into each caller).
#[inline(always)]
fn termwise<const N: usize>(i: &([f64; N], f64)) -> (f64, [f64; N], f64) {
    let (x, c) = *i;
    let (mut s, mut g, mut gc) = (0.0, [0.0; N], 0.0);
    for i in 0..N {
        for j in i..N {
            s += c * x[i] * x[j];
            g[i] += c * x[j];
            g[j] += c * x[i];
            gc += x[i] * x[j];
        }
    }
    (s, g, gc)
}

/// (j) generated.
#[inline(never)]
pub fn pairs_generated(i: &([f64; 8], f64)) -> (f64, [f64; 8], f64) {
    let (v, g) = pairs_backward(i.0, i.1, 1.0);
    (v, g.x, g.c)
}

/// The weights and the input of (h).
pub const NET: ([f64; 9], f64, f64) = ([0.1, -0.2, 0.3, 0.4, -0.5, 0.6, 0.7, -0.8, 0.9], 0.3, -0.7);

/// (h) by hand: the value and the gradient, on the stack.
#[inline(never)]
pub fn net_hand(i: &([f64; 9], f64, f64)) -> (f64, [f64; 9]) {
    let (p, x1, x2) = *i;
    let h1 = (p[0] * x1 + p[1] * x2 + p[2]).tanh();
    let h2 = (p[3] * x1 + p[4] * x2 + p[5]).tanh();
    let y = p[6] * h1 + p[7] * h2 + p[8];
    let dy = 2.0 * y;
    let dh1 = dy * p[6] * (1.0 - h1 * h1);
    let dh2 = dy * p[7] * (1.0 - h2 * h2);
    let g = [
        dh1 * x1,
        dh1 * x2,
        dh1,
        dh2 * x1,
        dh2 * x2,
        dh2,
        dy * h1,
        dy * h2,
        dy,
    ];
    (y * y, g)
}

/// (h) generated.
#[inline(never)]
pub fn net_generated(i: &([f64; 9], f64, f64)) -> (f64, [f64; 9]) {
    let (v, g) = net_backward(i.0, i.1, i.2, 1.0);
    (v, g.p)
}

/// The point of (i): n = 1,000.
pub fn rosenbrock_point() -> Vec<f64> {
    (0..1000).map(|i| (i as f64 * 0.37).sin()).collect()
}

/// (i) by hand.
#[inline(never)]
pub fn rosenbrock_hand(x: &[f64]) -> (f64, Vec<f64>) {
    let mut s = 0.0;
    let mut g = vec![0.0; x.len()];
    for i in 0..x.len() - 1 {
        let t = x[i + 1] - x[i] * x[i];
        let u = 1.0 - x[i];
        s += 100.0 * t * t + u * u;
        g[i] += -400.0 * x[i] * t - 2.0 * u;
        g[i + 1] += 200.0 * t;
    }
    (s, g)
}

/// (i) generated.
#[inline(never)]
pub fn rosenbrock_generated(x: &[f64]) -> (f64, Vec<f64>) {
    let (v, g) = rosenbrock_backward(x, 1.0);
    (v, g.x)
}

/// Each pair agrees (1e-9 relative), and each `_backward`'s value is its
/// function's.
pub fn verify() -> Result<(), String> {
    let (hv, hg) = net_hand(&NET);
    let (gv, gg) = net_generated(&NET);
    if gv != net(NET.0, NET.1, NET.2) {
        return Err("(h) the backward's value is not the function's".to_owned());
    }
    same(
        "(h) [f64; 9] network",
        "generated",
        &(hv, vec![("p", hg.to_vec())]),
        &(gv, vec![("p", gg.to_vec())]),
    )?;
    let x = rosenbrock_point();
    let (hv, hg) = rosenbrock_hand(&x);
    let (gv, gg) = rosenbrock_generated(&x);
    if gv != rosenbrock(&x) {
        return Err("(i) the backward's value is not the function's".to_owned());
    }
    same(
        "(i) Rosenbrock",
        "generated",
        &(hv, vec![("x", hg)]),
        &(gv, vec![("x", gg)]),
    )?;
    let (hv, hg, hc) = pairs_hand(&PAIRS);
    let (gv, gg, gc) = pairs_generated(&PAIRS);
    if gv != pairs(PAIRS.0, PAIRS.1) {
        return Err("(j) the backward's value is not the function's".to_owned());
    }
    let (tv, tg, tc) = pairs_hand_termwise(&PAIRS);
    if tv != gv {
        return Err("(j) the term-wise hand loop's value is not the function's".to_owned());
    }
    same(
        "(j) pairs over [f64; 8], term-wise",
        "generated",
        &(tv, vec![("x", tg.to_vec()), ("c", vec![tc])]),
        &(gv, vec![("x", gg.to_vec()), ("c", vec![gc])]),
    )?;
    same(
        "(j) pairs over [f64; 8]",
        "generated",
        &(hv, vec![("x", hg.to_vec()), ("c", vec![hc])]),
        &(gv, vec![("x", gg.to_vec()), ("c", vec![gc])]),
    )?;
    let p = pairs32_point();
    let (hv, hg, hc) = pairs32_hand(&p);
    let (gv, gg, gc) = pairs32_generated(&p);
    if gv != pairs32(p.0, p.1) || gv != hv {
        return Err("(j) over [f64; 32]: the values are not the function's".to_owned());
    }
    same(
        "(j) pairs over [f64; 32]",
        "generated",
        &(hv, vec![("x", hg.to_vec()), ("c", vec![hc])]),
        &(gv, vec![("x", gg.to_vec()), ("c", vec![gc])]),
    )
}

/// Allocations per call, hand-written and generated: (h), (i), (j).
pub fn allocations() -> [(&'static str, usize, usize); 3] {
    use crate::alloc::measure;
    use std::hint::black_box;
    let x = rosenbrock_point();
    [
        (
            "(h)",
            measure(|| net_hand(black_box(&NET))).allocs,
            measure(|| net_generated(black_box(&NET))).allocs,
        ),
        (
            "(i)",
            measure(|| rosenbrock_hand(black_box(&x))).allocs,
            measure(|| rosenbrock_generated(black_box(&x))).allocs,
        ),
        (
            "(j)",
            measure(|| pairs_hand(black_box(&PAIRS))).allocs,
            measure(|| pairs_generated(black_box(&PAIRS))).allocs,
        ),
    ]
}
