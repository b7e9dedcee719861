//! Workload (e): the Elman RNN `crate::networks::rnn`, hidden 16,
//! input 8, T = 20 steps, one recurrent matrix `w` shared by every step and a
//! squared-error loss summed over the steps.

use crate::burn_ad::{self, param1, param2};
use crate::check::{agree, flat};
use crate::two_heads::{candle_result, var1, var2};
use crate::Grads;
use backprop::ndarray::linalg::general_mat_vec_mul;
use backprop::ndarray::{s, Array, Array1, Array2, Axis, ShapeBuilder, Zip};
use backprop_testkit::lcg;
// The function the macro differentiates.
use crate::networks::{rnn, rnn_backward, RnnGrad};
use candle_core::{Device, Tensor, Var};

/// Hidden width.
pub const HIDDEN: usize = 16;
/// Input width.
pub const INPUT: usize = 8;
/// Steps.
pub const STEPS: usize = 20;

/// Parameters, initial state and one sequence.
#[derive(Clone, Debug)]
#[allow(missing_docs)]
pub struct Inputs {
    pub w: Array2<f64>,
    pub u: Array2<f64>,
    pub b: Array1<f64>,
    pub v: Array1<f64>,
    pub h0: Array1<f64>,
    pub xs: Array2<f64>,
    pub ys: Array1<f64>,
}

/// Deterministic uniform numbers in [-0.5, 0.5), as in `tests/control_flow.rs`.
fn random<Sh: ShapeBuilder<Dim = D>, D: backprop::ndarray::Dimension>(
    shape: Sh,
    seed: &mut u64,
) -> Array<f64, D> {
    Array::from_shape_simple_fn(shape, || lcg(seed) * 0.5)
}

impl Inputs {
    /// Random parameters, state and sequence of the given sizes.
    pub fn new(hidden: usize, input: usize, steps: usize) -> Self {
        let mut s = 42;
        Inputs {
            w: random((hidden, hidden), &mut s),
            u: random((hidden, input), &mut s),
            b: random(hidden, &mut s),
            v: random(hidden, &mut s),
            h0: random(hidden, &mut s),
            xs: random((steps, input), &mut s),
            ys: random(steps, &mut s),
        }
    }

    /// The benchmarked sizes: hidden 16, input 8, 20 steps.
    pub fn bench() -> Self {
        Self::new(HIDDEN, INPUT, STEPS)
    }
}

/// The gradient field names, in order.
pub const NAMES: [&str; 4] = ["w", "u", "b", "v"];

/// (1) Forward only, by hand: two state buffers, the products accumulated in
/// place (`z = b; z += W h; z += U x_t; tanh in place`), then swapped.
#[inline(never)]
pub fn forward(i: &Inputs) -> f64 {
    let mut h = i.h0.to_owned();
    let mut z = Array1::zeros(h.len());
    let mut loss = 0.0;
    for t in 0..i.xs.nrows() {
        z.assign(&i.b);
        general_mat_vec_mul(1.0, &i.w, &h, 1.0, &mut z);
        general_mat_vec_mul(1.0, &i.u, &i.xs.row(t), 1.0, &mut z);
        z.mapv_inplace(f64::tanh);
        std::mem::swap(&mut h, &mut z);
        let e = i.v.dot(&h) - i.ys[t];
        loss += e * e;
    }
    loss
}

/// The hand-written gradients.
#[derive(Clone, Debug)]
#[allow(missing_docs)]
pub struct HandGrad {
    pub w: Array2<f64>,
    pub u: Array2<f64>,
    pub b: Array1<f64>,
    pub v: Array1<f64>,
}

/// (2) Forward and backward by hand, storing the hidden states: the states
/// are the rows of one `(T + 1, H)` matrix written in place, the reverse
/// sweep writes each step's pre-activation gradient into a row of one
/// `(T, H)` matrix and carries `∂h` in one buffer, and the shared weights'
/// gradients are summed over the steps by one product each at the end
/// (`∂W = Δᵀ H_prev`, `∂U = Δᵀ X`, `∂b = Σ_t Δ_t`).
#[inline(never)]
pub fn hand(i: &Inputs) -> (f64, HandGrad) {
    let (steps, hidden) = (i.xs.nrows(), i.h0.len());
    let mut hs = Array2::zeros((steps + 1, hidden));
    hs.row_mut(0).assign(&i.h0);
    let mut errs = Vec::with_capacity(steps);
    let mut loss = 0.0;
    for t in 0..steps {
        let (prev, mut next) = hs.multi_slice_mut((s![t, ..], s![t + 1, ..]));
        next.assign(&i.b);
        general_mat_vec_mul(1.0, &i.w, &prev, 1.0, &mut next);
        general_mat_vec_mul(1.0, &i.u, &i.xs.row(t), 1.0, &mut next);
        next.mapv_inplace(f64::tanh);
        let e = i.v.dot(&next) - i.ys[t];
        loss += e * e;
        errs.push(e);
    }
    let mut dz = Array2::zeros((steps, hidden));
    let mut dh = Array1::zeros(hidden);
    let mut dv = Array1::zeros(hidden);
    for t in (0..steps).rev() {
        let h = hs.row(t + 1);
        let g = 2.0 * errs[t];
        dv.scaled_add(g, &h);
        dh.scaled_add(g, &i.v);
        let mut d = dz.row_mut(t);
        Zip::from(&mut d)
            .and(&dh)
            .and(&h)
            .for_each(|d, &dh, &h| *d = dh * (1.0 - h * h));
        if t > 0 {
            general_mat_vec_mul(1.0, &i.w.t(), &d, 0.0, &mut dh);
        }
    }
    let w = dz.t().dot(&hs.slice(s![..steps, ..]));
    let u = dz.t().dot(&i.xs);
    let b = dz.sum_axis(Axis(0));
    (loss, HandGrad { w, u, b, v: dv })
}

/// (3) The macro's `rnn_backward` (of [`crate::networks::rnn`]).
#[inline(never)]
pub fn generated(i: &Inputs) -> (f64, RnnGrad) {
    rnn_backward(&i.w, &i.u, &i.b, &i.v, &i.h0, &i.xs, &i.ys, 1.0)
}

/// Value and gradients `(loss, w, u, b, v)`, for comparing edited variants.
pub type RnnOut = (f64, Array2<f64>, Array2<f64>, Array1<f64>, Array1<f64>);

/// [`generated`], its gradient struct taken apart.
pub fn generated_out(i: &Inputs) -> RnnOut {
    let (v, g) = generated(i);
    (v, g.w, g.u, g.b, g.v)
}

/// [`hand`], its gradient struct taken apart.
pub fn hand_out(i: &Inputs) -> RnnOut {
    let (v, g) = hand(i);
    (v, g.w, g.u, g.b, g.v)
}

/// The parameters as candle variables, the state and sequence as constants.
#[allow(missing_docs)]
pub struct CandleInputs {
    pub w: Var,
    pub u: Var,
    pub b: Var,
    pub v: Var,
    /// `h0` as a `(1, H)` row.
    pub h0: Tensor,
    /// `xs`, `(T, I)`.
    pub xs: Tensor,
    pub ys: Vec<f64>,
}

impl CandleInputs {
    /// The same numbers on the CPU.
    pub fn new(i: &Inputs) -> Self {
        CandleInputs {
            w: var2(&i.w),
            u: var2(&i.u),
            b: var1(&i.b),
            v: var1(&i.v),
            h0: Tensor::from_vec(flat(&i.h0), (1, i.h0.len()), &Device::Cpu).expect("a row"),
            xs: Tensor::from_vec(flat(&i.xs), i.xs.dim(), &Device::Cpu).expect("a matrix"),
            ys: i.ys.to_vec(),
        }
    }

    /// The variables in [`NAMES`] order.
    pub fn vars(&self) -> [&Var; 4] {
        [&self.w, &self.u, &self.b, &self.v]
    }
}

/// (4) candle-core: the state as a `(1, H)` row, `h ← tanh(h Wᵀ + x_t Uᵀ + b)`,
/// the loss summed over the steps, then `backward()`.
#[inline(never)]
pub fn candle(i: &CandleInputs) -> candle_core::Result<(Tensor, candle_core::backprop::GradStore)> {
    let hidden = i.b.dims()[0];
    let w_t = i.w.t()?;
    let u_t = i.u.t()?;
    let v = i.v.reshape((hidden, 1))?;
    let mut h = i.h0.clone();
    let mut loss: Option<Tensor> = None;
    for (t, &y) in i.ys.iter().enumerate() {
        let x = i.xs.narrow(0, t, 1)?;
        h = (h.matmul(&w_t)? + x.matmul(&u_t)?)?
            .broadcast_add(&i.b)?
            .tanh()?;
        let e = h.matmul(&v)?.affine(1.0, -y)?.sqr()?;
        loss = Some(match loss {
            Some(l) => (l + e)?,
            None => e,
        });
    }
    let loss = loss.expect("at least one step").sum_all()?;
    let grads = loss.backward()?;
    Ok((loss, grads))
}

/// The parameters as burn leaves, the state and sequence as constants, on
/// the `f64` autodiff ndarray device.
#[allow(missing_docs)]
pub struct BurnInputs {
    pub w: burn::tensor::Tensor<2>,
    pub u: burn::tensor::Tensor<2>,
    pub b: burn::tensor::Tensor<1>,
    pub v: burn::tensor::Tensor<1>,
    /// `h0` as a `(1, H)` row.
    pub h0: burn::tensor::Tensor<2>,
    /// `xs`, `(T, I)`.
    pub xs: burn::tensor::Tensor<2>,
    pub ys: Vec<f64>,
}

impl BurnInputs {
    /// The same numbers.
    pub fn new(i: &Inputs) -> Self {
        BurnInputs {
            w: param2(&i.w),
            u: param2(&i.u),
            b: param1(&i.b),
            v: param1(&i.v),
            h0: burn_ad::tensor1(&i.h0).unsqueeze(),
            xs: burn_ad::tensor2(&i.xs),
            ys: i.ys.to_vec(),
        }
    }

    /// Value and gradients of [`burn`], in [`NAMES`] order.
    pub fn result(&self) -> (f64, Grads) {
        burn_ad::result(burn(self), |g| {
            vec![
                ("w", burn_ad::grad(&self.w, g)),
                ("u", burn_ad::grad(&self.u, g)),
                ("b", burn_ad::grad(&self.b, g)),
                ("v", burn_ad::grad(&self.v, g)),
            ]
        })
    }
}

/// (5) burn: as candle, the state a `(1, H)` row,
/// `h ← tanh(h Wᵀ + x_t Uᵀ + b)` with `b` a `(1, H)` row broadcast by `+`,
/// the loss summed over the steps, then `backward()`.
#[inline(never)]
pub fn burn(i: &BurnInputs) -> (burn::tensor::Tensor<1>, burn_ad::Gradients) {
    let hidden = i.b.dims()[0];
    let w_t = i.w.clone().transpose();
    let u_t = i.u.clone().transpose();
    let b = i.b.clone().unsqueeze::<2>();
    let v = i.v.clone().reshape([hidden, 1]);
    let mut h = i.h0.clone();
    let mut loss: Option<burn::tensor::Tensor<2>> = None;
    for (t, &y) in i.ys.iter().enumerate() {
        let x = i.xs.clone().narrow(0, t, 1);
        h = (h.matmul(w_t.clone()) + x.matmul(u_t.clone()) + b.clone()).tanh();
        let e = h.clone().matmul(v.clone()).sub_scalar(y).square();
        loss = Some(match loss {
            Some(l) => l + e,
            None => e,
        });
    }
    let loss = loss.expect("at least one step").sum();
    let grads = loss.backward();
    (loss, grads)
}

/// Checks the five implementations agree.
pub fn verify() -> Result<(), String> {
    const W: &str = "rnn";
    let i = Inputs::bench();
    let (value, g) = hand(&i);
    let reference = (
        value,
        vec![
            ("w", flat(&g.w)),
            ("u", flat(&g.u)),
            ("b", flat(&g.b)),
            ("v", flat(&g.v)),
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
        rnn(&i.w, &i.u, &i.b, &i.v, &i.h0, &i.xs, &i.ys),
    )
}
