//! Workload (d): broadcast subtraction `C = A − B` with `A` (512, 512) and
//! `B` (512, 1) broadcast across the columns, `L = Σ C ⊙ C`. `B`'s gradient
//! is a row sum (the broadcast-gradient post).

use crate::burn_ad::{self, param2};
use crate::check::{agree, flat};
use crate::two_heads::{candle_result, var2};
use crate::Grads;
use backprop::ndarray::{Array2, Axis, Zip};
use backprop::prelude::*;
use backprop_testkit::random;
use candle_core::{Tensor, Var};

/// The side of `A`.
pub const N: usize = 512;

/// `A` and `B`.
#[derive(Clone, Debug)]
#[allow(missing_docs)]
pub struct Inputs {
    pub a: Array2<f64>,
    pub b: Array2<f64>,
}

impl Inputs {
    /// Deterministic random `A` (n, n) and `B` (n, 1).
    pub fn new(n: usize) -> Self {
        let mut s = 7;
        Inputs {
            a: random((n, n), &mut s),
            b: random((n, 1), &mut s),
        }
    }
}

/// The gradient field names, in order.
pub const NAMES: [&str; 2] = ["a", "b"];

/// (1) Forward only, by hand: one fused pass, no temporary.
#[inline(never)]
pub fn forward(i: &Inputs) -> f64 {
    let mut total = 0.0;
    Zip::from(i.a.rows()).and(i.b.rows()).for_each(|a, b| {
        let b = b[0];
        total += a.fold(0.0, |s, &x| s + (x - b) * (x - b));
    });
    total
}

/// (2) Forward and backward by hand: `C` is computed once, becomes `2C` in
/// place (which is `∂A`), and `∂B = −Σ_row 2C`.
#[inline(never)]
pub fn hand(i: &Inputs) -> (f64, Array2<f64>, Array2<f64>) {
    let mut c = &i.a - &i.b;
    let loss = c.fold(0.0, |s, &x| s + x * x);
    c *= 2.0;
    let mut db = c.sum_axis(Axis(1)).insert_axis(Axis(1));
    db.mapv_inplace(|x| -x);
    (loss, c, db)
}

/// The function the macro differentiates.
#[differentiable]
pub fn broadcast_sub_sq(a: &Array2<f64>, b: &Array2<f64>) -> f64 {
    let c = a - b;
    sum(&(&c * &c))
}

/// (3) The macro's `broadcast_sub_sq_backward`.
#[inline(never)]
pub fn generated(i: &Inputs) -> (f64, BroadcastSubSqGrad) {
    broadcast_sub_sq_backward(&i.a, &i.b, 1.0)
}

/// `A` and `B` as candle variables.
#[allow(missing_docs)]
pub struct CandleInputs {
    pub a: Var,
    pub b: Var,
}

impl CandleInputs {
    /// The same numbers on the CPU.
    pub fn new(i: &Inputs) -> Self {
        CandleInputs {
            a: var2(&i.a),
            b: var2(&i.b),
        }
    }
}

/// (4) candle-core: forward, then `backward()`.
#[inline(never)]
pub fn candle(i: &CandleInputs) -> candle_core::Result<(Tensor, candle_core::backprop::GradStore)> {
    let c = i.a.broadcast_sub(&i.b)?;
    let loss = c.sqr()?.sum_all()?;
    let grads = loss.backward()?;
    Ok((loss, grads))
}

/// `A` and `B` as burn leaves on the `f64` autodiff ndarray device.
#[allow(missing_docs)]
pub struct BurnInputs {
    pub a: burn::tensor::Tensor<2>,
    pub b: burn::tensor::Tensor<2>,
}

impl BurnInputs {
    /// The same numbers.
    pub fn new(i: &Inputs) -> Self {
        BurnInputs {
            a: param2(&i.a),
            b: param2(&i.b),
        }
    }

    /// Value and gradients of [`burn`], in [`NAMES`] order.
    pub fn result(&self) -> (f64, Grads) {
        burn_ad::result(burn(self), |g| {
            vec![
                ("a", burn_ad::grad(&self.a, g)),
                ("b", burn_ad::grad(&self.b, g)),
            ]
        })
    }
}

/// (5) burn: forward, then `backward()`. `-` broadcasts `B`'s one column.
#[inline(never)]
pub fn burn(i: &BurnInputs) -> (burn::tensor::Tensor<1>, burn_ad::Gradients) {
    let c = i.a.clone() - i.b.clone();
    let loss = c.square().sum();
    let grads = loss.backward();
    (loss, grads)
}

/// Checks the five implementations agree.
pub fn verify() -> Result<(), String> {
    const W: &str = "broadcast sub";
    let i = Inputs::new(N);
    let (v, da, db) = hand(&i);
    let reference = (v, vec![("a", flat(&da)), ("b", flat(&db))]);
    let (gv, gg) = generated(&i);
    let ci = CandleInputs::new(&i);
    agree(
        W,
        &reference,
        &(gv, backprop::Gradient::fields(&gg)),
        &candle_result(&[&ci.a, &ci.b], &NAMES, candle(&ci)),
        &BurnInputs::new(&i).result(),
        forward(&i),
        broadcast_sub_sq(&i.a, &i.b),
    )
}
