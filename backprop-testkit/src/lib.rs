//! What backprop's tests, benchmarks and fuzz programs share: one
//! deterministic random-number generator, the standard networks of the
//! lessons and the benchmarks, each written once as the user would write
//! it, and gradients worked out by hand that several tests check against.
#![warn(missing_docs)]

pub mod networks;

use ndarray::{Array, Dimension, ShapeBuilder};

/// The next value in [-1, 1) of a 64-bit linear congruential generator
/// (Knuth's MMIX constants), from its top 53 bits.
pub fn lcg(seed: &mut u64) -> f64 {
    *seed = seed
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    ((*seed >> 11) as f64 / (1u64 << 53) as f64) * 2.0 - 1.0
}

/// An [`lcg`] value.
pub fn scalar(seed: &mut u64) -> f64 {
    lcg(seed)
}

/// An [`lcg`] value in single precision.
pub fn scalar32(seed: &mut u64) -> f32 {
    lcg(seed) as f32
}

/// An array of [`lcg`] values, in row-major order of the shape.
pub fn random<Sh: ShapeBuilder<Dim = D>, D: Dimension>(shape: Sh, seed: &mut u64) -> Array<f64, D> {
    Array::from_shape_simple_fn(shape, || lcg(seed))
}

/// An array of [`lcg`] values in single precision.
pub fn random32<Sh: ShapeBuilder<Dim = D>, D: Dimension>(
    shape: Sh,
    seed: &mut u64,
) -> Array<f32, D> {
    Array::from_shape_simple_fn(shape, || lcg(seed) as f32)
}

/// The gradient of Rosenbrock's function `Σ 100 (xᵢ₊₁ − xᵢ²)² + (1 − xᵢ)²`,
/// by hand: each term adds to `xᵢ` and `xᵢ₊₁`.
pub fn rosenbrock_gradient(x: &[f64]) -> Vec<f64> {
    let mut g = vec![0.0; x.len()];
    for i in 0..x.len().saturating_sub(1) {
        let t = x[i + 1] - x[i] * x[i];
        g[i] += -400.0 * x[i] * t - 2.0 * (1.0 - x[i]);
        g[i + 1] += 200.0 * t;
    }
    g
}
