//! Workload (c): an MLP 2 → 64 → 2 with ReLU and mean softmax cross-entropy on
//! a batch of 1024 (`crate::networks::mlp`).

use crate::burn_ad::{self, param1, param2};
use crate::check::{agree, flat};
use crate::two_heads::{
    candle_result, candle_xent, labels_tensor, softmax_xent_in_place, softmax_xent_value, tensor2,
    var1, var2,
};
use crate::Grads;
use backprop::ndarray::{Array1, Array2, Axis, Zip};
// The function the macro differentiates.
use crate::networks::{mlp, mlp_backward, MlpGrad};
use backprop_testkit::random;
use candle_core::{Tensor, Var};

/// Batch size.
pub const BATCH: usize = 1024;
/// Input, hidden and output widths.
pub const DIMS: (usize, usize, usize) = (2, 64, 2);

/// Parameters and a batch.
#[derive(Clone, Debug)]
#[allow(missing_docs)]
pub struct Inputs {
    pub w1: Array2<f64>,
    pub b1: Array1<f64>,
    pub w2: Array2<f64>,
    pub b2: Array1<f64>,
    pub x: Array2<f64>,
    pub labels: Vec<usize>,
}

impl Inputs {
    /// Random parameters (scaled like a usual initialisation) and a batch.
    pub fn new(batch: usize) -> Self {
        let mut s = 42;
        let (d, h, k) = DIMS;
        let x = random((batch, d), &mut s);
        let labels = (0..batch).map(|i| (i * 7 + 3) % k).collect();
        Inputs {
            w1: random((d, h), &mut s),
            b1: random(h, &mut s) * 0.1,
            w2: random((h, k), &mut s) * (1.0 / (h as f64).sqrt()),
            b2: random(k, &mut s) * 0.1,
            x,
            labels,
        }
    }
}

/// The gradient field names, in order.
pub const NAMES: [&str; 4] = ["w1", "b1", "w2", "b2"];

/// (1) Forward only, by hand: two products, biases and ReLU in place.
#[inline(never)]
pub fn forward(i: &Inputs) -> f64 {
    let mut h = i.x.dot(&i.w1);
    Zip::from(h.rows_mut()).for_each(|mut r| {
        Zip::from(&mut r)
            .and(&i.b1)
            .for_each(|z, &b| *z = (*z + b).max(0.0));
    });
    let mut logits = h.dot(&i.w2);
    logits += &i.b2;
    softmax_xent_value(&logits, &i.labels)
}

/// The hand-written gradients.
#[derive(Clone, Debug)]
#[allow(missing_docs)]
pub struct HandGrad {
    pub w1: Array2<f64>,
    pub b1: Array1<f64>,
    pub w2: Array2<f64>,
    pub b2: Array1<f64>,
}

/// (2) Forward and backward by hand: the logits buffer becomes its own
/// gradient, the ReLU mask is read from `h`, no temporary is copied.
#[inline(never)]
pub fn hand(i: &Inputs) -> (f64, HandGrad) {
    let mut h = i.x.dot(&i.w1);
    Zip::from(h.rows_mut()).for_each(|mut r| {
        Zip::from(&mut r)
            .and(&i.b1)
            .for_each(|z, &b| *z = (*z + b).max(0.0));
    });
    let mut d_logits = h.dot(&i.w2);
    d_logits += &i.b2;
    let loss = softmax_xent_in_place(&mut d_logits, &i.labels);
    let w2 = h.t().dot(&d_logits);
    let b2 = d_logits.sum_axis(Axis(0));
    let mut d_h = d_logits.dot(&i.w2.t());
    Zip::from(&mut d_h).and(&h).for_each(|d, &a| {
        if a <= 0.0 {
            *d = 0.0
        }
    });
    let w1 = i.x.t().dot(&d_h);
    let b1 = d_h.sum_axis(Axis(0));
    (loss, HandGrad { w1, b1, w2, b2 })
}

/// (3) The macro's `mlp_backward` (of [`crate::networks::mlp`]).
#[inline(never)]
pub fn generated(i: &Inputs) -> (f64, MlpGrad) {
    mlp_backward(&i.w1, &i.b1, &i.w2, &i.b2, &i.x, &i.labels, 1.0)
}

/// The parameters as candle variables and the batch as constants.
#[allow(missing_docs)]
pub struct CandleInputs {
    pub w1: Var,
    pub b1: Var,
    pub w2: Var,
    pub b2: Var,
    pub x: Tensor,
    pub labels: Tensor,
}

impl CandleInputs {
    /// The same numbers on the CPU.
    pub fn new(i: &Inputs) -> Self {
        CandleInputs {
            w1: var2(&i.w1),
            b1: var1(&i.b1),
            w2: var2(&i.w2),
            b2: var1(&i.b2),
            x: tensor2(&i.x),
            labels: labels_tensor(&i.labels),
        }
    }

    /// The variables in [`NAMES`] order.
    pub fn vars(&self) -> [&Var; 4] {
        [&self.w1, &self.b1, &self.w2, &self.b2]
    }
}

/// (4) candle-core: forward, then `backward()`.
#[inline(never)]
pub fn candle(i: &CandleInputs) -> candle_core::Result<(Tensor, candle_core::backprop::GradStore)> {
    let h = i.x.matmul(&i.w1)?.broadcast_add(&i.b1)?.relu()?;
    let logits = h.matmul(&i.w2)?.broadcast_add(&i.b2)?;
    let loss = candle_xent(&logits, &i.labels)?;
    let grads = loss.backward()?;
    Ok((loss, grads))
}

/// The parameters as burn leaves and the batch as constants, on the `f64`
/// autodiff ndarray device.
#[allow(missing_docs)]
pub struct BurnInputs {
    pub w1: burn::tensor::Tensor<2>,
    pub b1: burn::tensor::Tensor<1>,
    pub w2: burn::tensor::Tensor<2>,
    pub b2: burn::tensor::Tensor<1>,
    pub x: burn::tensor::Tensor<2>,
    pub labels: burn::tensor::Tensor<2, burn::tensor::Int>,
}

impl BurnInputs {
    /// The same numbers.
    pub fn new(i: &Inputs) -> Self {
        BurnInputs {
            w1: param2(&i.w1),
            b1: param1(&i.b1),
            w2: param2(&i.w2),
            b2: param1(&i.b2),
            x: burn_ad::tensor2(&i.x),
            labels: burn_ad::labels(&i.labels),
        }
    }

    /// Value and gradients of [`burn`], in [`NAMES`] order.
    pub fn result(&self) -> (f64, Grads) {
        burn_ad::result(burn(self), |g| {
            vec![
                ("w1", burn_ad::grad(&self.w1, g)),
                ("b1", burn_ad::grad(&self.b1, g)),
                ("w2", burn_ad::grad(&self.w2, g)),
                ("b2", burn_ad::grad(&self.b2, g)),
            ]
        })
    }
}

/// (5) burn: forward, then `backward()`.
#[inline(never)]
pub fn burn(i: &BurnInputs) -> (burn::tensor::Tensor<1>, burn_ad::Gradients) {
    use burn::tensor::activation::relu;
    let h = relu(i.x.clone().matmul(i.w1.clone()) + i.b1.clone().unsqueeze());
    let logits = h.matmul(i.w2.clone()) + i.b2.clone().unsqueeze();
    let loss = burn_ad::xent(logits, i.labels.clone());
    let grads = loss.backward();
    (loss, grads)
}

/// Checks the five implementations agree.
pub fn verify() -> Result<(), String> {
    const W: &str = "mlp";
    let i = Inputs::new(BATCH);
    let (v, g) = hand(&i);
    let reference = (
        v,
        vec![
            ("w1", flat(&g.w1)),
            ("b1", flat(&g.b1)),
            ("w2", flat(&g.w2)),
            ("b2", flat(&g.b2)),
        ],
    );
    let (gv, gg) = generated(&i);
    let ci = CandleInputs::new(&i);
    agree(
        W,
        &reference,
        &(gv, backprop::Gradient::fields(&gg)),
        &candle_result(&ci.vars(), &NAMES, candle(&ci)),
        &BurnInputs::new(&i).result(),
        forward(&i),
        mlp(&i.w1, &i.b1, &i.w2, &i.b2, &i.x, &i.labels),
    )
}
