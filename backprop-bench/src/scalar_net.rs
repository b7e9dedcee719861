//! Workload (a): the nine-parameter scalar sigmoid network of the
//! backprop-by-hand lesson, `L = ½ (σ(v1 h1 + v2 h2 + c) − y)²` with
//! `h_i = σ(w_i1 x1 + w_i2 x2 + b_i)`.

use crate::burn_ad;
use crate::check::{agree, flat_candle};
use crate::Grads;
use backprop_testkit::lcg;
// The function the macro differentiates.
use crate::networks::{network, network_backward, NetworkGrad};
use candle_core::{Device, Tensor, Var};

/// The nine parameters and the example.
#[derive(Clone, Copy, Debug)]
pub struct Inputs {
    /// `w11 w12 b1 w21 w22 b2 v1 v2 c`.
    pub p: [f64; 9],
    /// `x1 x2 y`.
    pub xy: [f64; 3],
}

impl Inputs {
    /// The lesson's numbers: x = (1, 2), y = 1, hidden weights (1, 1) bias −3
    /// and (1, −1) bias 1, output weights (1, −1) bias 0.
    pub fn lesson() -> Self {
        Inputs {
            p: [1.0, 1.0, -3.0, 1.0, -1.0, 1.0, 1.0, -1.0, 0.0],
            xy: [1.0, 2.0, 1.0],
        }
    }

    /// `n` random points (parameters and example in [-2, 2)): the signs of
    /// the pre-activations vary from one to the next, as a training loop's
    /// examples do.
    pub fn varied(n: usize) -> Vec<Self> {
        let mut seed = 1u64;
        let mut next = || lcg(&mut seed) * 2.0;
        (0..n)
            .map(|_| Inputs {
                p: std::array::from_fn(|_| next()),
                xy: std::array::from_fn(|_| next()),
            })
            .collect()
    }

    /// A point away from the lesson's symmetric one.
    pub fn other() -> Self {
        Inputs {
            p: [0.3, -0.7, 0.2, 1.1, 0.4, -0.5, 0.9, -1.3, 0.25],
            xy: [0.5, -1.5, 0.3],
        }
    }
}

/// The parameter names, in order.
pub const NAMES: [&str; 9] = ["w11", "w12", "b1", "w21", "w22", "b2", "v1", "v2", "c"];

/// The nine gradients as the common comparison format.
pub fn grads(g: [f64; 9]) -> Grads {
    NAMES.iter().zip(g).map(|(n, v)| (*n, vec![v])).collect()
}

#[inline]
fn sigmoid1(z: f64) -> f64 {
    // As a person writes it, and as the vocabulary's `sigmoid` computes it
    // (σ(±1000) is exactly 1 or 0 in IEEE arithmetic).
    1.0 / (1.0 + (-z).exp())
}

/// (1) Forward only, by hand.
#[inline(never)]
pub fn forward(i: &Inputs) -> f64 {
    let [w11, w12, b1, w21, w22, b2, v1, v2, c] = i.p;
    let [x1, x2, y] = i.xy;
    let h1 = sigmoid1(w11 * x1 + w12 * x2 + b1);
    let h2 = sigmoid1(w21 * x1 + w22 * x2 + b2);
    let p = sigmoid1(v1 * h1 + v2 * h2 + c);
    0.5 * (p - y) * (p - y)
}

/// (2) Forward and backward by hand, as in the lesson.
#[inline(never)]
pub fn hand(i: &Inputs) -> (f64, [f64; 9]) {
    by_hand(i, |e| 0.5 * e * e)
}

/// (2') [`hand`] with the loss spelled as the differentiable function spells
/// it, `0.5 * (p - y).powi(2)`, rather than `0.5 * e * e`: the same value
/// to the bit as the generated code's, and the same gradients as [`hand`].
/// The spelling can move the time (LLVM pairs the scalar operations into
/// SIMD registers differently): see BENCHMARKS.md.
#[inline(never)]
pub fn hand_as_spelled(i: &Inputs) -> (f64, [f64; 9]) {
    by_hand(i, |e| 0.5 * e.powi(2))
}

/// The hand-written forward and backward, with the loss `loss(p - y)`.
#[inline(always)]
fn by_hand(i: &Inputs, loss: impl Fn(f64) -> f64) -> (f64, [f64; 9]) {
    let [w11, w12, b1, w21, w22, b2, v1, v2, c] = i.p;
    let [x1, x2, y] = i.xy;
    let h1 = sigmoid1(w11 * x1 + w12 * x2 + b1);
    let h2 = sigmoid1(w21 * x1 + w22 * x2 + b2);
    let p = sigmoid1(v1 * h1 + v2 * h2 + c);
    let e = p - y;
    let loss = loss(e);
    // dL/dz at the output, then at the two hidden units.
    let dz = e * p * (1.0 - p);
    let dz1 = dz * v1 * h1 * (1.0 - h1);
    let dz2 = dz * v2 * h2 * (1.0 - h2);
    (
        loss,
        [
            dz1 * x1,
            dz1 * x2,
            dz1,
            dz2 * x1,
            dz2 * x2,
            dz2,
            dz * h1,
            dz * h2,
            dz,
        ],
    )
}

/// (3) The macro's `network_backward` (of [`crate::networks::network`]).
#[inline(never)]
pub fn generated(i: &Inputs) -> (f64, NetworkGrad) {
    let [w11, w12, b1, w21, w22, b2, v1, v2, c] = i.p;
    let [x1, x2, y] = i.xy;
    network_backward(w11, w12, b1, w21, w22, b2, v1, v2, c, x1, x2, y, 1.0)
}

fn generated_grads(g: &NetworkGrad) -> [f64; 9] {
    [g.w11, g.w12, g.b1, g.w21, g.w22, g.b2, g.v1, g.v2, g.c]
}

/// The parameters as candle variables (0-d tensors).
pub struct CandleInputs {
    /// The nine parameters.
    pub p: Vec<Var>,
    /// `x1 x2 y`, constants.
    pub xy: [f64; 3],
}

impl CandleInputs {
    /// The same numbers on the CPU.
    pub fn new(i: &Inputs) -> Self {
        let p =
            i.p.iter()
                .map(|&v| Var::new(v, &Device::Cpu).expect("a 0-d f64 variable"))
                .collect();
        CandleInputs { p, xy: i.xy }
    }
}

fn candle_sigmoid(t: &Tensor) -> candle_core::Result<Tensor> {
    (t.neg()?.exp()? + 1.0)?.recip()
}

/// (4) candle-core: forward, then `backward()`.
#[inline(never)]
pub fn candle(i: &CandleInputs) -> candle_core::Result<(Tensor, candle_core::backprop::GradStore)> {
    let [x1, x2, y] = i.xy;
    let p = &i.p;
    let h1 = candle_sigmoid(
        &(((p[0].as_tensor() * x1)? + (p[1].as_tensor() * x2)?)? + p[2].as_tensor())?,
    )?;
    let h2 = candle_sigmoid(
        &(((p[3].as_tensor() * x1)? + (p[4].as_tensor() * x2)?)? + p[5].as_tensor())?,
    )?;
    let out = candle_sigmoid(
        &(((p[6].as_tensor() * &h1)? + (p[7].as_tensor() * &h2)?)? + p[8].as_tensor())?,
    )?;
    let loss = ((out - y)?.sqr()? * 0.5)?;
    let grads = loss.backward()?;
    Ok((loss, grads))
}

fn candle_result(i: &CandleInputs) -> (f64, Grads) {
    let (loss, g) = candle(i).expect("candle runs");
    let value = loss.to_scalar::<f64>().expect("a scalar loss");
    let grads = NAMES
        .iter()
        .zip(&i.p)
        .map(|(n, v)| {
            (
                *n,
                flat_candle(g.get(v.as_tensor()).expect("a gradient for every variable")),
            )
        })
        .collect();
    (value, grads)
}

/// The parameters as burn leaves (one-element tensors: burn has no 0-d
/// tensor) on the `f64` autodiff ndarray device.
pub struct BurnInputs {
    /// The nine parameters, each `require_grad()`.
    pub p: Vec<burn::tensor::Tensor<1>>,
    /// `x1 x2 y`, constants.
    pub xy: [f64; 3],
}

impl BurnInputs {
    /// The same numbers.
    pub fn new(i: &Inputs) -> Self {
        let p =
            i.p.iter()
                .map(|&v| burn_ad::scalar(v).require_grad())
                .collect();
        BurnInputs { p, xy: i.xy }
    }

    /// Value and gradients of [`burn`], in [`NAMES`] order.
    pub fn result(&self) -> (f64, Grads) {
        burn_ad::result(burn(self), |g| {
            NAMES
                .iter()
                .zip(&self.p)
                .map(|(n, t)| (*n, burn_ad::grad(t, g)))
                .collect()
        })
    }
}

/// σ as candle's: `(1 + exp(−x)).recip()`. burn has `activation::sigmoid`,
/// but on the ndarray backend it is the backend trait's default, which casts
/// its input to `f32` and back (`burn-backend`'s `ActivationOps::sigmoid`):
/// its values differ from the `f64` ones by about 1e-8 relative (see the
/// `burn_sigmoid_is_computed_in_f32` test), so it cannot pass the 1e-9 check.
fn burn_sigmoid(t: burn::tensor::Tensor<1>) -> burn::tensor::Tensor<1> {
    t.neg().exp().add_scalar(1.0).recip()
}

/// (5) burn: forward, then `backward()`.
#[inline(never)]
pub fn burn(i: &BurnInputs) -> (burn::tensor::Tensor<1>, burn_ad::Gradients) {
    let [x1, x2, y] = i.xy;
    let p = &i.p;
    let h1 = burn_sigmoid(p[0].clone().mul_scalar(x1) + p[1].clone().mul_scalar(x2) + p[2].clone());
    let h2 = burn_sigmoid(p[3].clone().mul_scalar(x1) + p[4].clone().mul_scalar(x2) + p[5].clone());
    let out = burn_sigmoid(p[6].clone() * h1 + p[7].clone() * h2 + p[8].clone());
    let loss = out.sub_scalar(y).square().mul_scalar(0.5);
    let grads = loss.backward();
    (loss, grads)
}

/// Checks the five implementations agree at `i`.
pub fn verify_at(i: &Inputs) -> Result<(), String> {
    const W: &str = "scalar network";
    let (v, g) = hand(i);
    let reference = (v, grads(g));
    let (gv, gg) = generated(i);
    let (sv, sg) = hand_as_spelled(i);
    if sv.to_bits() != gv.to_bits() || sg != g {
        return Err(format!(
            "{W}: the hand-written code of the same spelling differs: {sv} {sg:?}"
        ));
    }
    let [w11, w12, b1, w21, w22, b2, v1, v2, c] = i.p;
    let [x1, x2, y] = i.xy;
    agree(
        W,
        &reference,
        &(gv, grads(generated_grads(&gg))),
        &candle_result(&CandleInputs::new(i)),
        &BurnInputs::new(i).result(),
        forward(i),
        network(w11, w12, b1, w21, w22, b2, v1, v2, c, x1, x2, y),
    )
}

/// Checks the five implementations agree at the lesson's point and another.
pub fn verify() -> Result<(), String> {
    let lesson = Inputs::lesson();
    let (v, g) = hand(&lesson);
    // The lesson's printed numbers.
    if v != 0.125
        || g != [
            -0.03125, -0.0625, -0.03125, 0.03125, 0.0625, 0.03125, -0.0625, -0.0625, -0.125,
        ]
    {
        return Err(format!(
            "scalar network: hand-written disagrees with the lesson: {v} {g:?}"
        ));
    }
    verify_at(&lesson)?;
    verify_at(&Inputs::other())
}
