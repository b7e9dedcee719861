//! Optimisers, written once over [`Differentiable`]: [`Sgd`] (with
//! momentum, dampening, weight decay, Nesterov), [`Adam`] and [`AdamW`],
//! each as PyTorch defines it (`torch.optim.SGD`, `Adam`, `AdamW`, with
//! `maximize`, `amsgrad` and the fused forms left out).
//!
//! An optimiser is made with its learning rate and optional settings,
//! then `step(&mut model, &grad)` updates the model in place from a
//! gradient of the same type. Its state (momentum buffer, moments) is held
//! as values of the model's type, made at the first step; a later step
//! with a model of another shape panics, naming the path. Hyperparameters
//! are `f64`; an `f32` leaf is updated in `f32` with each constant rounded
//! to `f32`, as PyTorch does for a `float32` parameter.
//!
//! ```
//! use backprop_runtime::model::optim::Adam;
//! use ndarray::array;
//!
//! // Minimise Σ (w - c)², whose gradient is 2 (w - c).
//! let c = array![1.0_f64, -2.0];
//! let mut w = array![0.0, 0.0];
//! let mut opt = Adam::new(0.1);
//! for _ in 0..500 {
//!     let grad = (&w - &c) * 2.0;
//!     opt.step(&mut w, &grad);
//! }
//! assert!((&w - &c).iter().all(|e: &f64| e.abs() < 1e-3), "{w}");
//! ```

use super::{zip_mut, Differentiable, Leaf, LeafMut};
use crate::value::Float;
use ndarray::{ArrayViewD, ArrayViewMutD, Zip};

/// What every optimiser does, for training loops generic over the optimiser.
///
/// ```
/// use backprop_runtime::model::optim::{Adam, Optimizer, Sgd};
///
/// fn train<O: Optimizer<f64>>(opt: &mut O, x: &mut f64) {
///     for _ in 0..200 {
///         let grad = 2.0 * (*x - 3.0);
///         opt.step(x, &grad);
///     }
/// }
/// let (mut a, mut b) = (0.0, 0.0);
/// train(&mut Sgd::new(0.1), &mut a);
/// train(&mut Adam::new(0.1), &mut b);
/// assert!((a - 3.0).abs() < 1e-9 && (b - 3.0).abs() < 1e-2, "{a} {b}");
/// ```
pub trait Optimizer<M: Differentiable> {
    /// Updates `model` in place from its gradient `grad`.
    fn step(&mut self, model: &mut M, grad: &M);
    /// The learning rate.
    fn lr(&self) -> f64;
    /// Sets the learning rate (for a schedule).
    fn set_lr(&mut self, lr: f64);
}

/// `match` over a writable leaf's precision, `$F` naming the element type.
macro_rules! by_precision {
    ($p:ident, |$F:ident| $body:expr) => {
        match $p {
            LeafMut::F32($p) => {
                type $F = f32;
                $body
            }
            LeafMut::F64($p) => {
                type $F = f64;
                $body
            }
        }
    };
}

/// The view of a leaf that [`zip_mut`] checked has the precision `F`.
fn typed<F: Float>(leaf: Leaf<'_>) -> ArrayViewD<'_, F> {
    leaf.downcast()
        .expect("zip_mut checks that the precisions agree")
}

/// [`typed`], writable.
fn typed_mut<F: Float>(leaf: LeafMut<'_>) -> ArrayViewMutD<'_, F> {
    leaf.downcast()
        .expect("zip_mut checks that the precisions agree")
}

fn check_lr(lr: f64) {
    assert!(
        lr >= 0.0,
        "invalid learning rate {lr}: it must be at least 0"
    );
}

/// Stochastic gradient descent, `torch.optim.SGD`:
///
/// ```text
/// g ← ∇ + λ p                      (weight decay λ, if not 0)
/// b ← g at the first step, else μ b + (1 − τ) g     (momentum μ, dampening τ, if μ ≠ 0)
/// g ← g + μ b with Nesterov, else b                 (if μ ≠ 0)
/// p ← p − γ g
/// ```
///
/// ```
/// use backprop_runtime::model::optim::Sgd;
/// let mut opt = Sgd::new(0.5).momentum(0.5);
/// let mut x = 1.0;
/// opt.step(&mut x, &1.0); // b = 1,   x = 1 - 0.5
/// opt.step(&mut x, &1.0); // b = 1.5, x = 0.5 - 0.75
/// assert_eq!(x, -0.25);
/// ```
#[derive(Clone, Debug)]
pub struct Sgd<M> {
    lr: f64,
    momentum: f64,
    dampening: f64,
    weight_decay: f64,
    nesterov: bool,
    buffer: Option<M>,
}

impl<M> Sgd<M> {
    /// Plain SGD with learning rate `lr`: no momentum, no weight decay.
    ///
    /// # Panics
    ///
    /// If `lr` is negative or NaN.
    pub fn new(lr: f64) -> Self {
        check_lr(lr);
        Sgd {
            lr,
            momentum: 0.0,
            dampening: 0.0,
            weight_decay: 0.0,
            nesterov: false,
            buffer: None,
        }
    }

    /// The momentum factor μ (default 0: none).
    ///
    /// # Panics
    ///
    /// If `momentum` is negative or NaN.
    pub fn momentum(mut self, momentum: f64) -> Self {
        assert!(
            momentum >= 0.0,
            "invalid momentum {momentum}: it must be at least 0"
        );
        self.momentum = momentum;
        self
    }

    /// The dampening τ of the momentum (default 0).
    pub fn dampening(mut self, dampening: f64) -> Self {
        self.dampening = dampening;
        self
    }

    /// The weight decay λ, an L2 penalty added to the gradient (default 0).
    ///
    /// # Panics
    ///
    /// If `weight_decay` is negative or NaN.
    pub fn weight_decay(mut self, weight_decay: f64) -> Self {
        assert!(
            weight_decay >= 0.0,
            "invalid weight decay {weight_decay}: it must be at least 0"
        );
        self.weight_decay = weight_decay;
        self
    }

    /// Nesterov momentum (default off); needs a momentum and no dampening.
    pub fn nesterov(mut self, nesterov: bool) -> Self {
        self.nesterov = nesterov;
        self
    }

    /// The learning rate.
    pub fn lr(&self) -> f64 {
        self.lr
    }

    /// Sets the learning rate (for a schedule); the state is kept.
    pub fn set_lr(&mut self, lr: f64) {
        check_lr(lr);
        self.lr = lr;
    }
}

/// The constants of one SGD step.
#[derive(Clone, Copy)]
struct SgdStep {
    lr: f64,
    momentum: f64,
    dampening: f64,
    weight_decay: f64,
    nesterov: bool,
    first: bool,
}

impl<M: Differentiable> Sgd<M> {
    /// Updates `model` from its gradient `grad` (see [`Sgd`]).
    ///
    /// # Panics
    ///
    /// If Nesterov is on without a momentum or with a dampening, or if
    /// `grad` or the momentum buffer does not have the model's structure.
    pub fn step(&mut self, model: &mut M, grad: &M) {
        assert!(
            !self.nesterov || (self.momentum > 0.0 && self.dampening == 0.0),
            "Nesterov momentum requires a momentum and zero dampening"
        );
        let c = SgdStep {
            lr: self.lr,
            momentum: self.momentum,
            dampening: self.dampening,
            weight_decay: self.weight_decay,
            nesterov: self.nesterov,
            first: self.buffer.is_none(),
        };
        if c.momentum == 0.0 {
            zip_mut(model, [("the gradient", grad)], [], |_, p, [g], []| {
                by_precision!(p, |F| sgd_leaf::<F>(p, typed(g), None, c))
            });
            return;
        }
        let buffer = self.buffer.get_or_insert_with(|| grad.zeros_like());
        let state = "SGD's momentum buffer (made at the first step: did the model change shape?)";
        zip_mut(
            model,
            [("the gradient", grad)],
            [(state, buffer)],
            |_, p, [g], [b]| {
                by_precision!(p, |F| sgd_leaf::<F>(p, typed(g), Some(typed_mut(b)), c))
            },
        );
    }
}

fn sgd_leaf<F: Float>(
    p: ArrayViewMutD<'_, F>,
    g: ArrayViewD<'_, F>,
    buffer: Option<ArrayViewMutD<'_, F>>,
    c: SgdStep,
) {
    let lr = F::from_f64(c.lr);
    let wd = F::from_f64(c.weight_decay);
    let decay = c.weight_decay != 0.0;
    let decayed = move |g: F, p: F| if decay { g + wd * p } else { g };
    let Some(buffer) = buffer else {
        Zip::from(p).and(&g).for_each(|p, &g| {
            let d = decayed(g, *p);
            *p -= lr * d;
        });
        return;
    };
    let mu = F::from_f64(c.momentum);
    let keep = F::from_f64(1.0 - c.dampening);
    Zip::from(p).and(&g).and(buffer).for_each(|p, &g, b| {
        let d = decayed(g, *p);
        *b = if c.first { d } else { *b * mu + keep * d };
        let d = if c.nesterov { d + mu * *b } else { *b };
        *p -= lr * d;
    });
}

impl<M: Differentiable> Optimizer<M> for Sgd<M> {
    fn step(&mut self, model: &mut M, grad: &M) {
        Sgd::step(self, model, grad);
    }
    fn lr(&self) -> f64 {
        self.lr
    }
    fn set_lr(&mut self, lr: f64) {
        Sgd::set_lr(self, lr);
    }
}

/// What Adam and AdamW share; `decoupled` says which one it is.
#[derive(Clone, Debug)]
struct AdamCore<M> {
    lr: f64,
    betas: (f64, f64),
    eps: f64,
    weight_decay: f64,
    decoupled: bool,
    steps: u64,
    moments: Option<(M, M)>,
}

/// The constants of one Adam step.
#[derive(Clone, Copy)]
struct AdamStep {
    betas: (f64, f64),
    eps: f64,
    /// `λ` added to the gradient (Adam), or 0.
    l2: f64,
    /// `1 − γλ` multiplying the parameter first (AdamW), or 1.
    shrink: f64,
    /// `γ / (1 − β₁ᵗ)`.
    step_size: f64,
    /// `√(1 − β₂ᵗ)`.
    bias_correction2_sqrt: f64,
}

impl<M> AdamCore<M> {
    fn new(lr: f64, weight_decay: f64, decoupled: bool) -> Self {
        check_lr(lr);
        AdamCore {
            lr,
            betas: (0.9, 0.999),
            eps: 1e-8,
            weight_decay,
            decoupled,
            steps: 0,
            moments: None,
        }
    }
}

impl<M: Differentiable> AdamCore<M> {
    fn step(&mut self, model: &mut M, grad: &M) {
        self.steps += 1;
        let (beta1, beta2) = self.betas;
        // PyTorch's `beta ** step` in double precision.
        let t = self.steps as f64;
        let bias_correction1 = 1.0 - beta1.powf(t);
        let bias_correction2 = 1.0 - beta2.powf(t);
        let c = AdamStep {
            betas: self.betas,
            eps: self.eps,
            l2: if self.decoupled {
                0.0
            } else {
                self.weight_decay
            },
            shrink: if self.decoupled {
                1.0 - self.lr * self.weight_decay
            } else {
                1.0
            },
            step_size: self.lr / bias_correction1,
            bias_correction2_sqrt: bias_correction2.sqrt(),
        };
        let (m, v) = self
            .moments
            .get_or_insert_with(|| (grad.zeros_like(), grad.zeros_like()));
        let name = if self.decoupled { "AdamW" } else { "Adam" };
        let first =
            format!("{name}'s first moment (made at the first step: did the model change shape?)");
        let second =
            format!("{name}'s second moment (made at the first step: did the model change shape?)");
        zip_mut(
            model,
            [("the gradient", grad)],
            [(&first, m), (&second, v)],
            |_, p, [g], [m, v]| {
                by_precision!(p, |F| adam_leaf::<F>(
                    p,
                    typed(g),
                    typed_mut(m),
                    typed_mut(v),
                    c
                ))
            },
        );
    }
}

/// One Adam step over a leaf, in the order of PyTorch's single-tensor loop:
/// `m ← β₁ m + (1 − β₁) g`, `v ← β₂ v + (1 − β₂) g g`,
/// `p ← p − (γ / (1 − β₁ᵗ)) m / (√v / √(1 − β₂ᵗ) + ε)`.
fn adam_leaf<F: Float>(
    p: ArrayViewMutD<'_, F>,
    g: ArrayViewD<'_, F>,
    m: ArrayViewMutD<'_, F>,
    v: ArrayViewMutD<'_, F>,
    c: AdamStep,
) {
    let f = F::from_f64;
    let (beta1, beta2) = (f(c.betas.0), f(c.betas.1));
    let (rest1, rest2) = (f(1.0 - c.betas.0), f(1.0 - c.betas.1));
    let (l2, shrink, eps) = (f(c.l2), f(c.shrink), f(c.eps));
    let (step_size, bias_correction2_sqrt) = (f(c.step_size), f(c.bias_correction2_sqrt));
    let (has_l2, has_shrink) = (c.l2 != 0.0, c.shrink != 1.0);
    Zip::from(p).and(&g).and(m).and(v).for_each(|p, &g, m, v| {
        if has_shrink {
            *p *= shrink;
        }
        let g = if has_l2 { g + l2 * *p } else { g };
        *m = *m * beta1 + rest1 * g;
        *v = *v * beta2 + rest2 * g * g;
        let denom = v.sqrt() / bias_correction2_sqrt + eps;
        *p -= step_size * *m / denom;
    });
}

/// The settings Adam and AdamW share, on each of them.
macro_rules! adam_settings {
    ($name:ident) => {
        impl<M> $name<M> {
            /// The decay rates `(β₁, β₂)` of the moments (default `(0.9, 0.999)`).
            ///
            /// # Panics
            ///
            /// If either is outside `[0, 1)`.
            pub fn betas(mut self, beta1: f64, beta2: f64) -> Self {
                for (i, beta) in [beta1, beta2].into_iter().enumerate() {
                    assert!(
                        (0.0..1.0).contains(&beta),
                        "invalid beta parameter at index {i}: {beta} is not in [0, 1)"
                    );
                }
                self.core.betas = (beta1, beta2);
                self
            }

            /// `ε`, added to the denominator (default `1e-8`).
            ///
            /// # Panics
            ///
            /// If `eps` is negative or NaN.
            pub fn eps(mut self, eps: f64) -> Self {
                assert!(eps >= 0.0, "invalid epsilon {eps}: it must be at least 0");
                self.core.eps = eps;
                self
            }

            /// The weight decay `λ`.
            ///
            /// # Panics
            ///
            /// If `weight_decay` is negative or NaN.
            pub fn weight_decay(mut self, weight_decay: f64) -> Self {
                assert!(
                    weight_decay >= 0.0,
                    "invalid weight decay {weight_decay}: it must be at least 0"
                );
                self.core.weight_decay = weight_decay;
                self
            }

            /// The learning rate.
            pub fn lr(&self) -> f64 {
                self.core.lr
            }

            /// Sets the learning rate (for a schedule); the moments are kept.
            pub fn set_lr(&mut self, lr: f64) {
                check_lr(lr);
                self.core.lr = lr;
            }

            /// The number of steps taken (`t` of the bias corrections).
            pub fn steps(&self) -> u64 {
                self.core.steps
            }
        }

        impl<M: Differentiable> $name<M> {
            /// Updates `model` from its gradient `grad` (see the type's
            /// documentation).
            ///
            /// # Panics
            ///
            /// If `grad` or the moments do not have the model's structure.
            pub fn step(&mut self, model: &mut M, grad: &M) {
                self.core.step(model, grad);
            }
        }

        impl<M: Differentiable> Optimizer<M> for $name<M> {
            fn step(&mut self, model: &mut M, grad: &M) {
                self.core.step(model, grad);
            }
            fn lr(&self) -> f64 {
                self.core.lr
            }
            fn set_lr(&mut self, lr: f64) {
                $name::set_lr(self, lr);
            }
        }
    };
}

/// Adam, `torch.optim.Adam` (weight decay as an L2 term of the gradient):
///
/// ```text
/// t ← t + 1
/// g ← ∇ + λ p                        (if λ ≠ 0)
/// m ← β₁ m + (1 − β₁) g
/// v ← β₂ v + (1 − β₂) g²
/// p ← p − γ/(1 − β₁ᵗ) · m / (√v / √(1 − β₂ᵗ) + ε)
/// ```
///
/// with the moments zero before the first step. Defaults: `β = (0.9,
/// 0.999)`, `ε = 1e-8`, `λ = 0`.
///
/// ```
/// use backprop_runtime::model::optim::Adam;
/// // The first step moves every element by the learning rate, against
/// // the sign of its gradient (up to ε).
/// let mut opt = Adam::new(0.5).betas(0.5, 0.75).eps(0.0);
/// let mut x = [1.0, 1.0];
/// opt.step(&mut x, &[3.0, -0.25]);
/// assert_eq!(x, [0.5, 1.5]);
/// assert_eq!(opt.steps(), 1);
/// ```
#[derive(Clone, Debug)]
pub struct Adam<M> {
    core: AdamCore<M>,
}

impl<M> Adam<M> {
    /// Adam with learning rate `lr` and the default settings.
    ///
    /// # Panics
    ///
    /// If `lr` is negative or NaN.
    pub fn new(lr: f64) -> Self {
        Adam {
            core: AdamCore::new(lr, 0.0, false),
        }
    }
}

adam_settings!(Adam);

/// AdamW, `torch.optim.AdamW`: Adam with the weight decay decoupled from
/// the gradient, `p ← p · (1 − γλ)` before the Adam step (whose gradient
/// has no decay term). Defaults: `β = (0.9, 0.999)`, `ε = 1e-8`,
/// `λ = 0.01`.
///
/// ```
/// use backprop_runtime::model::optim::AdamW;
/// let mut opt = AdamW::new(0.5).weight_decay(0.5).betas(0.5, 0.75).eps(0.0);
/// let mut x = 2.0;
/// opt.step(&mut x, &1.0); // 2 · (1 - 0.5 · 0.5), then the Adam step of 0.5
/// assert_eq!(x, 1.0);
/// ```
#[derive(Clone, Debug)]
pub struct AdamW<M> {
    core: AdamCore<M>,
}

impl<M> AdamW<M> {
    /// AdamW with learning rate `lr` and the default settings.
    ///
    /// # Panics
    ///
    /// If `lr` is negative or NaN.
    pub fn new(lr: f64) -> Self {
        AdamW {
            core: AdamCore::new(lr, 0.01, true),
        }
    }
}

adam_settings!(AdamW);
