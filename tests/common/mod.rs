//! Deterministic test data shared by the test files.
#![allow(dead_code)] // each test file uses what it needs

use backprop::ndarray::{Array, Dimension, ShapeBuilder};

/// The next value in [-1, 1) of a 64-bit linear congruential generator.
pub fn lcg(seed: &mut u64) -> f64 {
    *seed = seed
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    ((*seed >> 11) as f64 / (1u64 << 53) as f64) * 2.0 - 1.0
}

/// An array of `lcg` values, in row-major order of the shape.
pub fn random<Sh: ShapeBuilder<Dim = D>, D: Dimension>(shape: Sh, seed: &mut u64) -> Array<f64, D> {
    Array::from_shape_simple_fn(shape, || lcg(seed))
}
