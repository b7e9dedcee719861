//! Workload (b): the 2-2-2 two-head network of the fork-rule lesson at batch
//! 1: a ReLU trunk `a1` feeding a softmax cross-entropy head and a mean
//! squared error head, whose losses add (so `a1`'s gradient is a fork sum).

use crate::burn_ad::{self, param1, param2};
use crate::check::{agree, flat, flat_candle};
use crate::Grads;
use backprop::ndarray::{array, Array1, Array2, Axis, Zip};
// The function the macro differentiates.
use crate::networks::{two_heads, two_heads_backward, TwoHeadsGrad};
use candle_core::{DType, Device, Tensor, Var};

/// Parameters and the example, as in `tests/seeds_fork_rule.rs`.
#[derive(Clone, Debug)]
#[allow(missing_docs)]
pub struct Inputs {
    pub w1: Array2<f64>,
    pub b1: Array1<f64>,
    pub w2: Array2<f64>,
    pub b2: Array1<f64>,
    pub v: Array2<f64>,
    pub c: Array1<f64>,
    pub x: Array2<f64>,
    pub labels: Vec<usize>,
    pub y: Array2<f64>,
}

impl Inputs {
    /// The lesson's numbers.
    pub fn lesson() -> Self {
        Inputs {
            w1: array![[1.0, -0.5], [-0.5, 1.0]],
            b1: array![0.5, -0.5],
            w2: array![[1.0, 1.0], [-1.0, 0.5]],
            b2: array![-0.5, 0.0],
            v: array![[1.0, -1.0]],
            c: array![0.0],
            x: array![[1.0, 2.0]],
            labels: vec![1],
            y: array![[1.0]],
        }
    }
}

/// The gradient field names, in order.
pub const NAMES: [&str; 6] = ["w1", "b1", "w2", "b2", "v", "c"];

/// The softmax cross-entropy of the rows of `logits`, computed in place:
/// `logits` becomes `(P − onehot) / n`, its gradient. Returns the mean loss.
pub fn softmax_xent_in_place(logits: &mut Array2<f64>, labels: &[usize]) -> f64 {
    let n = logits.nrows() as f64;
    let mut total = 0.0;
    for (mut r, &y) in logits.rows_mut().into_iter().zip(labels) {
        let m = r.fold(f64::NEG_INFINITY, |m, &v| m.max(v));
        let x_y = r[y];
        let mut s = 0.0;
        r.mapv_inplace(|v| {
            let e = (v - m).exp();
            s += e;
            e
        });
        total += s.ln() - (x_y - m);
        let k = 1.0 / (s * n);
        r.mapv_inplace(|e| e * k);
        r[y] -= 1.0 / n;
    }
    total / n
}

/// The loss only of the rows of `logits` (no buffer written).
pub fn softmax_xent_value(logits: &Array2<f64>, labels: &[usize]) -> f64 {
    let n = logits.nrows() as f64;
    let mut total = 0.0;
    for (r, &y) in logits.rows().into_iter().zip(labels) {
        let m = r.fold(f64::NEG_INFINITY, |m, &v| m.max(v));
        let s = r.fold(0.0, |s, &v| s + (v - m).exp());
        total += s.ln() - (r[y] - m);
    }
    total / n
}

/// (1) Forward only, by hand.
#[inline(never)]
pub fn forward(i: &Inputs) -> f64 {
    let mut a1 = i.x.dot(&i.w1.t());
    a1 += &i.b1;
    a1.mapv_inplace(|z| z.max(0.0));
    let mut logits = a1.dot(&i.w2.t());
    logits += &i.b2;
    let loss_a = softmax_xent_value(&logits, &i.labels);
    let pred = a1.dot(&i.v.t());
    let mut sq = 0.0;
    Zip::from(&pred)
        .and(&i.y)
        .and_broadcast(&i.c)
        .for_each(|&p, &y, &c| {
            let d = p + c - y;
            sq += d * d;
        });
    loss_a + sq / pred.len() as f64
}

/// The hand-written gradients.
#[derive(Clone, Debug)]
#[allow(missing_docs)]
pub struct HandGrad {
    pub w1: Array2<f64>,
    pub b1: Array1<f64>,
    pub w2: Array2<f64>,
    pub b2: Array1<f64>,
    pub v: Array2<f64>,
    pub c: Array1<f64>,
}

/// (2) Forward and backward by hand: every buffer updated in place, the fork
/// summed once.
#[inline(never)]
pub fn hand(i: &Inputs) -> (f64, HandGrad) {
    let mut a1 = i.x.dot(&i.w1.t());
    a1 += &i.b1;
    a1.mapv_inplace(|z| z.max(0.0));
    let mut d_logits = a1.dot(&i.w2.t());
    d_logits += &i.b2;
    let loss_a = softmax_xent_in_place(&mut d_logits, &i.labels);
    let mut d_pred = a1.dot(&i.v.t());
    d_pred += &i.c;
    d_pred -= &i.y;
    let n = d_pred.len() as f64;
    let loss_b = d_pred.fold(0.0, |s, &d| s + d * d) / n;
    d_pred *= 2.0 / n;
    // Head A and head B; the fork at a1.
    let w2 = d_logits.t().dot(&a1);
    let b2 = d_logits.sum_axis(Axis(0));
    let v = d_pred.t().dot(&a1);
    let c = d_pred.sum_axis(Axis(0));
    let mut d_a1 = d_logits.dot(&i.w2);
    ndarray_gemm_add(&mut d_a1, &d_pred, &i.v);
    // ReLU: a1 > 0 exactly where the pre-activation was.
    Zip::from(&mut d_a1).and(&a1).for_each(|d, &a| {
        if a <= 0.0 {
            *d = 0.0
        }
    });
    let w1 = d_a1.t().dot(&i.x);
    let b1 = d_a1.sum_axis(Axis(0));
    (
        loss_a + loss_b,
        HandGrad {
            w1,
            b1,
            w2,
            b2,
            v,
            c,
        },
    )
}

/// `acc += a · b`, without a temporary.
fn ndarray_gemm_add(acc: &mut Array2<f64>, a: &Array2<f64>, b: &Array2<f64>) {
    backprop::ndarray::linalg::general_mat_mul(1.0, a, b, 1.0, acc);
}

/// (3) The macro's `two_heads_backward` (of
/// [`crate::networks::two_heads`]).
#[inline(never)]
pub fn generated(i: &Inputs) -> (f64, TwoHeadsGrad) {
    two_heads_backward(
        &i.w1, &i.b1, &i.w2, &i.b2, &i.v, &i.c, &i.x, &i.labels, &i.y, 1.0,
    )
}

/// The parameters as candle variables and the example as constants.
#[allow(missing_docs)]
pub struct CandleInputs {
    pub w1: Var,
    pub b1: Var,
    pub w2: Var,
    pub b2: Var,
    pub v: Var,
    pub c: Var,
    pub x: Tensor,
    pub labels: Tensor,
    pub y: Tensor,
}

/// An ndarray matrix as a candle tensor.
pub fn tensor2(a: &Array2<f64>) -> Tensor {
    Tensor::from_vec(flat(a), a.dim(), &Device::Cpu).expect("a matrix")
}

/// An ndarray matrix as a candle variable.
pub fn var2(a: &Array2<f64>) -> Var {
    Var::from_vec(flat(a), a.dim(), &Device::Cpu).expect("a matrix")
}

/// An ndarray vector as a candle variable.
pub fn var1(a: &Array1<f64>) -> Var {
    Var::from_vec(flat(a), a.len(), &Device::Cpu).expect("a vector")
}

/// Class labels as an `(n, 1)` `u32` tensor, for `gather`.
pub fn labels_tensor(labels: &[usize]) -> Tensor {
    let l: Vec<u32> = labels.iter().map(|&l| l as u32).collect();
    Tensor::from_vec(l, (labels.len(), 1), &Device::Cpu).expect("labels")
}

impl CandleInputs {
    /// The same numbers on the CPU.
    pub fn new(i: &Inputs) -> Self {
        CandleInputs {
            w1: var2(&i.w1),
            b1: var1(&i.b1),
            w2: var2(&i.w2),
            b2: var1(&i.b2),
            v: var2(&i.v),
            c: var1(&i.c),
            x: tensor2(&i.x),
            labels: labels_tensor(&i.labels),
            y: tensor2(&i.y),
        }
    }

    /// The variables in [`NAMES`] order.
    pub fn vars(&self) -> [&Var; 6] {
        [&self.w1, &self.b1, &self.w2, &self.b2, &self.v, &self.c]
    }
}

/// Mean softmax cross-entropy in candle-core: `−mean(log_softmax(z)[label])`.
pub fn candle_xent(logits: &Tensor, labels: &Tensor) -> candle_core::Result<Tensor> {
    let lse = logits.log_sum_exp(1)?.unsqueeze(1)?;
    let log_p = logits.broadcast_sub(&lse)?;
    log_p.gather(labels, 1)?.mean_all()?.neg()
}

/// (4) candle-core: forward, then `backward()`.
#[inline(never)]
pub fn candle(i: &CandleInputs) -> candle_core::Result<(Tensor, candle_core::backprop::GradStore)> {
    let a1 = i.x.matmul(&i.w1.t()?)?.broadcast_add(&i.b1)?.relu()?;
    let loss_a = candle_xent(&a1.matmul(&i.w2.t()?)?.broadcast_add(&i.b2)?, &i.labels)?;
    let pred = a1.matmul(&i.v.t()?)?.broadcast_add(&i.c)?;
    let loss_b = (pred - &i.y)?.sqr()?.mean_all()?;
    let loss = (loss_a + loss_b)?;
    let grads = loss.backward()?;
    Ok((loss, grads))
}

/// Value and gradients of candle, in the comparison format.
pub fn candle_result(
    vars: &[&Var],
    names: &[&'static str],
    run: candle_core::Result<(Tensor, candle_core::backprop::GradStore)>,
) -> (f64, Grads) {
    let (loss, g) = run.expect("candle runs");
    assert_eq!(loss.dtype(), DType::F64);
    let value = loss.to_scalar::<f64>().expect("a scalar loss");
    let grads = names
        .iter()
        .zip(vars)
        .map(|(n, v)| {
            (
                *n,
                flat_candle(g.get(v.as_tensor()).expect("a gradient for every variable")),
            )
        })
        .collect();
    (value, grads)
}

/// The parameters as burn leaves and the example as constants, on the `f64`
/// autodiff ndarray device.
#[allow(missing_docs)]
pub struct BurnInputs {
    pub w1: burn::tensor::Tensor<2>,
    pub b1: burn::tensor::Tensor<1>,
    pub w2: burn::tensor::Tensor<2>,
    pub b2: burn::tensor::Tensor<1>,
    pub v: burn::tensor::Tensor<2>,
    pub c: burn::tensor::Tensor<1>,
    pub x: burn::tensor::Tensor<2>,
    pub labels: burn::tensor::Tensor<2, burn::tensor::Int>,
    pub y: burn::tensor::Tensor<2>,
}

impl BurnInputs {
    /// The same numbers.
    pub fn new(i: &Inputs) -> Self {
        BurnInputs {
            w1: param2(&i.w1),
            b1: param1(&i.b1),
            w2: param2(&i.w2),
            b2: param1(&i.b2),
            v: param2(&i.v),
            c: param1(&i.c),
            x: burn_ad::tensor2(&i.x),
            labels: burn_ad::labels(&i.labels),
            y: burn_ad::tensor2(&i.y),
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
                ("v", burn_ad::grad(&self.v, g)),
                ("c", burn_ad::grad(&self.c, g)),
            ]
        })
    }
}

/// (5) burn: forward, then `backward()`. The biases are `(H,)` leaves, made
/// `(1, H)` rows by `unsqueeze` and broadcast by `+` (candle's
/// `broadcast_add`).
#[inline(never)]
pub fn burn(i: &BurnInputs) -> (burn::tensor::Tensor<1>, burn_ad::Gradients) {
    use burn::tensor::activation::relu;
    let a1 = relu(i.x.clone().matmul(i.w1.clone().transpose()) + i.b1.clone().unsqueeze());
    let logits = a1.clone().matmul(i.w2.clone().transpose()) + i.b2.clone().unsqueeze();
    let loss_a = burn_ad::xent(logits, i.labels.clone());
    let pred = a1.matmul(i.v.clone().transpose()) + i.c.clone().unsqueeze();
    let loss_b = (pred - i.y.clone()).square().mean();
    let loss = loss_a + loss_b;
    let grads = loss.backward();
    (loss, grads)
}

/// Checks the five implementations agree on the lesson's network.
pub fn verify() -> Result<(), String> {
    const W: &str = "two heads";
    let i = Inputs::lesson();
    let (v, g) = hand(&i);
    let reference = (
        v,
        vec![
            ("w1", flat(&g.w1)),
            ("b1", flat(&g.b1)),
            ("w2", flat(&g.w2)),
            ("b2", flat(&g.b2)),
            ("v", flat(&g.v)),
            ("c", flat(&g.c)),
        ],
    );
    // The lesson prints W1's gradient rows (-1.538, -3.076) and (3.366, 6.731).
    let printed = [-1.538, -3.076, 3.366, 6.731];
    if reference.1[0]
        .1
        .iter()
        .zip(printed)
        .any(|(a, e)| (a - e).abs() > 5e-4)
    {
        return Err(format!(
            "two heads: hand-written dW1 {:?} is not the lesson's",
            reference.1[0].1
        ));
    }
    let (gv, gg) = generated(&i);
    let ci = CandleInputs::new(&i);
    agree(
        W,
        &reference,
        &(gv, backprop::Gradient::fields(&gg)),
        &candle_result(&ci.vars(), &NAMES, candle(&ci)),
        &BurnInputs::new(&i).result(),
        forward(&i),
        two_heads(
            &i.w1, &i.b1, &i.w2, &i.b2, &i.v, &i.c, &i.x, &i.labels, &i.y,
        ),
    )
}
