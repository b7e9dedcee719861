//! One model, generic over its float type, trained in `f32` and in `f64`.
//!
//! ```text
//! cargo run --release --example generic_model
//! ```
//!
//! A `1 -> 16 -> 1` tanh network fits `sin(3x)` on `[-1, 1]`. The model is
//! `Mlp<T>` with `T: backprop::Float`, its loss a `#[differentiable]`
//! function generic over `T`, and Adam updates it in its own precision: the
//! same code serves both, and the `f32` model ends near the `f64` one.

use backprop::optim::Adam;
use backprop::prelude::*;
use backprop::Float;

/// The network's parameters, in any float type.
#[derive(Clone, Debug, Differentiable)]
struct Mlp<T: Float> {
    w1: Array2<T>,
    b1: Array1<T>,
    w2: Array2<T>,
    b2: Array1<T>,
}

/// Mean squared error of the network on `(x, y)`: generic over the float
/// type, like the model.
#[differentiable(wrt(model))]
fn loss<T: Float>(model: &Mlp<T>, x: &Array2<T>, y: &Array2<T>) -> T {
    let h = (x.dot(&model.w1) + &model.b1).tanh();
    let e = h.dot(&model.w2) + &model.b2 - y;
    (&e * &e).sum() / T::from_f64(y.len() as f64)
}

/// Deterministic initial weights (a small LCG), in `T`.
fn init<T: Float>(hidden: usize) -> Mlp<T> {
    let mut state = 12345_u64;
    let mut next = move || {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        T::from_f64(((state >> 11) as f64 / (1u64 << 53) as f64 - 0.5) * 2.0)
    };
    Mlp {
        w1: Array2::from_shape_simple_fn((1, hidden), &mut next),
        b1: Array1::from_shape_simple_fn(hidden, &mut next),
        w2: Array2::from_shape_simple_fn((hidden, 1), &mut next) * T::from_f64(0.5),
        b2: Array1::zeros(1),
    }
}

/// `n` points of `sin(3x)` on `[-1, 1]`.
fn data<T: Float>(n: usize) -> (Array2<T>, Array2<T>) {
    let x = Array2::from_shape_fn((n, 1), |(i, _)| -1.0 + 2.0 * i as f64 / (n - 1) as f64);
    let y = x.mapv(|v| (3.0 * v).sin());
    (x.mapv(T::from_f64), y.mapv(T::from_f64))
}

/// Trains for `steps` full-batch Adam steps; returns the model and the
/// first and last loss.
fn train<T: Float>(steps: usize) -> (Mlp<T>, f64, f64) {
    let (x, y) = data::<T>(64);
    let mut model = init::<T>(16);
    let mut adam = Adam::new(0.02);
    let first = loss(&model, &x, &y).to_f64();
    for _ in 0..steps {
        let (_, grad) = loss_backward(&model, &x, &y, T::from_f64(1.0));
        adam.step(&mut model, &grad.model);
    }
    let last = loss(&model, &x, &y).to_f64();
    (model, first, last)
}

fn main() {
    let steps = 2000;
    let (m64, first64, last64) = train::<f64>(steps);
    let (m32, first32, last32) = train::<f32>(steps);
    println!("f64: loss {first64:.4} -> {last64:.6} after {steps} Adam steps");
    println!("f32: loss {first32:.4} -> {last32:.6} after {steps} Adam steps");
    let gap = m64
        .to_flat()
        .iter()
        .zip(m32.to_flat())
        .map(|(a, b)| (a - b).abs())
        .fold(0.0, f64::max);
    println!("largest difference between the f64 and f32 weights: {gap:.2e}");
}
