//! Workload (f): an elementwise chain `Σ (a x + 1)² ⊙ x - a x` over 100,000
//! elements, with `a` a differentiable scalar (cheap arithmetic, so that
//! the passes over memory, not a transcendental function, decide the
//! cost), written three ways: as one
//! closure (`x.mapv(|v| ..)`, which the macro differentiates as a scalar
//! function and runs in one pass forward and one backward), op by op (each
//! op a pass and an array), and by hand as one fused loop that computes the
//! value and both gradients together.

use crate::check::same;
use backprop::ndarray::{Array1, Zip};
use backprop::prelude::*;
use backprop_testkit::random;

/// The number of elements.
pub const N: usize = 100_000;

/// `x` and `a`.
#[derive(Clone, Debug)]
#[allow(missing_docs)]
pub struct Inputs {
    pub x: Array1<f64>,
    pub a: f64,
}

impl Inputs {
    /// Deterministic random `x` of `n` elements.
    pub fn new(n: usize) -> Self {
        let mut s = 23;
        Inputs {
            x: random(n, &mut s),
            a: 0.8,
        }
    }
}

/// The chain as one closure.
#[differentiable]
pub fn fused(x: &Array1<f64>, a: f64) -> f64 {
    x.mapv(|v| {
        let z = v * a + 1.0;
        z * z * v - a * v
    })
    .sum()
}

/// The same chain op by op.
#[differentiable]
pub fn op_by_op(x: &Array1<f64>, a: f64) -> f64 {
    let z = x * a + 1.0;
    (&z * &z * x - x * a).sum()
}

/// By hand: one loop for the value and both gradients
/// (`∂x = z² + 2 a z x - a`, `∂a = Σ 2 z x² - x`, with `z = a x + 1`).
#[inline(never)]
pub fn hand(i: &Inputs) -> (f64, Array1<f64>, f64) {
    let a = i.a;
    let mut dx = Array1::zeros(i.x.len());
    let (mut value, mut da) = (0.0, 0.0);
    Zip::from(&mut dx).and(&i.x).for_each(|d, &v| {
        let z = v * a + 1.0;
        value += z * z * v - a * v;
        da += 2.0 * z * v * v - v;
        *d = z * z + 2.0 * a * z * v - a;
    });
    (value, dx, da)
}

/// The closure's `_backward`.
#[inline(never)]
pub fn generated(i: &Inputs) -> (f64, Array1<f64>, f64) {
    let (v, g) = fused_backward(&i.x, i.a, 1.0);
    (v, g.x, g.a)
}

/// The op-by-op `_backward`.
#[inline(never)]
pub fn generated_op_by_op(i: &Inputs) -> (f64, Array1<f64>, f64) {
    let (v, g) = op_by_op_backward(&i.x, i.a, 1.0);
    (v, g.x, g.a)
}

/// The three agree (1e-9 relative), and each `_backward`'s value is its
/// function's.
pub fn verify() -> Result<(), String> {
    let i = Inputs::new(1_000);
    let (hv, hx, ha) = hand(&i);
    for (name, (v, x, a), original) in [
        ("closure", generated(&i), fused(&i.x, i.a)),
        ("op by op", generated_op_by_op(&i), op_by_op(&i.x, i.a)),
    ] {
        if v != original {
            return Err(format!(
                "(f) {name}: the backward's value {v} is not the function's {original}"
            ));
        }
        let got = (v, vec![("x", x.to_vec()), ("a", vec![a])]);
        let want = (hv, vec![("x", hx.to_vec()), ("a", vec![ha])]);
        same("(f) closure chain", name, &want, &got)?;
    }
    Ok(())
}
