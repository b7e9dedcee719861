//! The optimisers: one step against a step worked out by hand (numbers
//! chosen so that every intermediate is exact in binary), with weight
//! decay, momentum and Nesterov; convergence on a logistic regression
//! (convex), whose gradient struct `LogisticGrad` is the model; `f32`
//! models; the errors.

use backprop::optim::{Adam, AdamW, Optimizer, Sgd};
use backprop::prelude::*;
use backprop_testkit::random;
use std::panic::{catch_unwind, AssertUnwindSafe};

#[derive(Clone, Debug, PartialEq, Differentiable)]
struct Point {
    x: Array1<f64>,
    name: &'static str,
}

fn point(x: Array1<f64>) -> Point {
    Point { x, name: "p" }
}

#[test]
fn sgd_plain_and_with_weight_decay() {
    // p − γ g = [1 − 0.5·0.25, −2 − 0.5·1]
    let mut p = point(array![1.0, -2.0]);
    Sgd::new(0.5).step(&mut p, &point(array![0.25, 1.0]));
    assert_eq!(p, point(array![0.875, -2.5]));
    // g + λ p = [0.25 + 0.5, 1 − 1] = [0.75, 0]; p − 0.5 · that
    let mut p = point(array![1.0, -2.0]);
    Sgd::new(0.5)
        .weight_decay(0.5)
        .step(&mut p, &point(array![0.25, 1.0]));
    assert_eq!(p, point(array![0.625, -2.0]));
}

#[test]
fn sgd_momentum_takes_the_gradient_whole_at_the_first_step() {
    // μ = 0.5, τ = 0.5, γ = 0.5 on x = 1.
    let mut opt = Sgd::new(0.5).momentum(0.5).dampening(0.5);
    let mut x = point(array![1.0]);
    // b = g = 1 (no dampening at the first step); x = 1 − 0.5
    opt.step(&mut x, &point(array![1.0]));
    assert_eq!(x.x[0], 0.5);
    // b = 0.5·1 + 0.5·2 = 1.5; x = 0.5 − 0.75
    opt.step(&mut x, &point(array![2.0]));
    assert_eq!(x.x[0], -0.25);
}

#[test]
fn sgd_nesterov() {
    let mut opt = Sgd::new(0.5).momentum(0.5).nesterov(true);
    let mut x = point(array![1.0]);
    // b = 1; d = 1 + 0.5·1 = 1.5; x = 1 − 0.75
    opt.step(&mut x, &point(array![1.0]));
    assert_eq!(x.x[0], 0.25);
    // b = 0.5·1 + 2 = 2.5; d = 2 + 0.5·2.5 = 3.25; x = 0.25 − 1.625
    opt.step(&mut x, &point(array![2.0]));
    assert_eq!(x.x[0], -1.375);
    // With weight decay 0.5: d = 1 + 0.5 = 1.5, b = 1.5, d = 1.5 + 0.75 = 2.25.
    let mut opt = Sgd::new(0.5).momentum(0.5).nesterov(true).weight_decay(0.5);
    let mut x = point(array![1.0]);
    opt.step(&mut x, &point(array![1.0]));
    assert_eq!(x.x[0], -0.125);
    assert_eq!(opt.lr(), 0.5);
}

#[test]
fn adam_first_step_with_bias_correction() {
    // β = (0.5, 0.75), γ = 0.25, ε = 0: m = 0.5 g = [1, −0.25],
    // v = 0.25 g² = [1, 0.0625]; γ/(1 − β₁) = 0.5, √(1 − β₂) = 0.5;
    // denominators √v/0.5 = [2, 0.5]; p − 0.5 m/denominator.
    let mut opt = Adam::new(0.25).betas(0.5, 0.75).eps(0.0);
    let mut p = point(array![1.0, 1.0]);
    opt.step(&mut p, &point(array![2.0, -0.5]));
    assert_eq!(p, point(array![0.75, 1.25]));
    assert_eq!(opt.steps(), 1);
    // ε = 2 adds to the denominator: 1 − 0.5·1/(2 + 2).
    let mut opt = Adam::new(0.25).betas(0.5, 0.75).eps(2.0);
    let mut p = point(array![1.0]);
    opt.step(&mut p, &point(array![2.0]));
    assert_eq!(p.x[0], 0.875);
}

#[test]
fn adam_second_step() {
    // β = (0.5, 0), γ = 0.75, ε = 0, x = 1.
    let mut opt = Adam::new(0.75).betas(0.5, 0.0).eps(0.0);
    let mut x = point(array![1.0]);
    // g = 2: m = 1, v = 4, step size 0.75/0.5 = 1.5, denominator 2: x = 1 − 0.75
    opt.step(&mut x, &point(array![2.0]));
    assert_eq!(x.x[0], 0.25);
    // g = 1: m = 0.5 + 0.5 = 1, v = 1, step size 0.75/(1 − 0.25) = 1: x = 0.25 − 1
    opt.step(&mut x, &point(array![1.0]));
    assert_eq!(x.x[0], -0.75);
}

#[test]
fn adam_weight_decay_is_added_to_the_gradient() {
    // g = 1 + 0.5·1 = 1.5: m = 0.75, v = 0.5625, denominator 0.75/0.5 + 0.5 = 2;
    // x = 1 − 0.5·0.75/2
    let mut opt = Adam::new(0.25).betas(0.5, 0.75).eps(0.5).weight_decay(0.5);
    let mut x = point(array![1.0]);
    opt.step(&mut x, &point(array![1.0]));
    assert_eq!(x.x[0], 0.8125);
}

#[test]
fn adamw_decays_the_parameter_before_the_step() {
    // p · (1 − 0.5·0.5) = [1.5, −3]; m = [0.5, 1.5], v = [0.25, 2.25],
    // step size 1, denominators √v/0.5 + 1 = [2, 4]: [1.5 − 0.25, −3 − 0.375]
    let mut opt = AdamW::new(0.5).betas(0.5, 0.75).eps(1.0).weight_decay(0.5);
    let mut p = point(array![2.0, -4.0]);
    opt.step(&mut p, &point(array![1.0, 3.0]));
    assert_eq!(p, point(array![1.25, -3.375]));
    assert_eq!((opt.lr(), opt.steps()), (0.5, 1));
}

/// One model for `f32`: the same steps, in single precision.
#[derive(Clone, Debug, Differentiable)]
struct Small<T: backprop::Float> {
    w: Array1<T>,
    b: T,
}

#[test]
fn f32_models_are_updated_in_f32() {
    let mut m = Small::<f32> {
        w: array![1.0, 1.0],
        b: 1.0,
    };
    let g = Small::<f32> {
        w: array![2.0, -0.5],
        b: 2.0,
    };
    Adam::new(0.25).betas(0.5, 0.75).eps(0.0).step(&mut m, &g);
    assert_eq!((m.w, m.b), (array![0.75_f32, 1.25], 0.75_f32));
    let mut m = Small::<f32> {
        w: array![1.0, -2.0],
        b: 0.0,
    };
    let mut opt = Sgd::new(0.5).momentum(0.5);
    opt.step(&mut m, &g);
    assert_eq!((m.w.clone(), m.b), (array![0.0_f32, -1.75], -1.0_f32));
    // b = 0.5·2 + 2 = 3 for w[0]: 0 − 1.5
    opt.step(&mut m, &g);
    assert_eq!(m.w[0], -1.5_f32);
}

/// A logistic regression with an L2 penalty (strongly convex): its
/// gradient struct is the model the optimisers update.
#[differentiable(wrt(w, b))]
fn logistic(w: &Array1<f64>, b: f64, x: &Array2<f64>, y: &Array1<f64>, l2: f64) -> f64 {
    let margins = (x.dot(w) + b) * y;
    -mean(&log_sigmoid(&margins)) + 0.5 * l2 * w.dot(w)
}

struct Data {
    x: Array2<f64>,
    y: Array1<f64>,
}

fn data() -> Data {
    let mut seed = 7;
    let x = random((200, 3), &mut seed);
    let noise = random(200, &mut seed);
    let truth = array![1.5, -2.0, 0.5];
    let y = (x.dot(&truth) + 0.3 * noise).mapv(|v: f64| v.signum());
    Data { x, y }
}

fn train(opt: &mut impl Optimizer<LogisticGrad>, steps: usize) -> (f64, LogisticGrad) {
    let d = data();
    let mut params = LogisticGrad {
        w: Array1::zeros(3),
        b: 0.0,
    };
    for _ in 0..steps {
        let (_, grad) = logistic_backward(&params.w, params.b, &d.x, &d.y, 0.01, 1.0);
        opt.step(&mut params, &grad);
    }
    let (loss, grad) = logistic_backward(&params.w, params.b, &d.x, &d.y, 0.01, 1.0);
    let norm = grad.to_flat().iter().map(|g| g * g).sum::<f64>().sqrt();
    assert!(norm < 1e-6, "gradient norm {norm} after {steps} steps");
    (loss, params)
}

#[test]
fn every_optimiser_converges_on_a_logistic_regression() {
    let (sgd, p) = train(&mut Sgd::new(1.0), 3000);
    let (momentum, _) = train(&mut Sgd::new(0.5).momentum(0.9), 1000);
    let (nesterov, _) = train(&mut Sgd::new(0.5).momentum(0.9).nesterov(true), 1000);
    let (adam, _) = train(&mut Adam::new(0.05), 3000);
    for loss in [momentum, nesterov, adam] {
        assert!((loss - sgd).abs() < 1e-12, "{loss} against {sgd}");
    }
    assert!(p.w[0] > 0.0 && p.w[1] < 0.0, "{p:?}");
}

#[test]
fn adamw_decay_pulls_the_weights_in() {
    let d = data();
    let run = |decay: f64| {
        let mut opt = AdamW::new(0.05).weight_decay(decay);
        let mut params = LogisticGrad {
            w: Array1::zeros(3),
            b: 0.0,
        };
        for _ in 0..2000 {
            let (_, grad) = logistic_backward(&params.w, params.b, &d.x, &d.y, 0.0, 1.0);
            opt.step(&mut params, &grad);
        }
        params.w.dot(&params.w).sqrt()
    };
    let (free, decayed) = (run(0.0), run(0.5));
    assert!(decayed < 0.8 * free, "{decayed} against {free}");
}

fn panic_message(f: impl FnOnce()) -> String {
    let err = catch_unwind(AssertUnwindSafe(f)).unwrap_err();
    err.downcast_ref::<String>()
        .cloned()
        .or_else(|| err.downcast_ref::<&str>().map(|s| s.to_string()))
        .unwrap_or_default()
}

#[test]
fn a_model_that_changes_shape_is_named() {
    let mut opt = Adam::new(0.1);
    let mut p = point(array![1.0, 2.0]);
    opt.step(&mut p, &point(array![1.0, 1.0]));
    let mut bigger = point(array![1.0, 2.0, 3.0]);
    let msg = panic_message(|| opt.step(&mut bigger, &point(array![1.0, 1.0, 1.0])));
    assert!(
        msg.contains("Adam's first moment") && msg.contains("at `x`") && msg.contains("[3]"),
        "{msg}"
    );
    let mut sgd = Sgd::new(0.1).momentum(0.9);
    sgd.step(&mut p, &point(array![1.0, 1.0]));
    let msg = panic_message(|| sgd.step(&mut bigger, &point(array![1.0, 1.0, 1.0])));
    assert!(msg.contains("momentum buffer"), "{msg}");
    let msg = panic_message(|| Sgd::new(0.1).step(&mut p.clone(), &bigger));
    assert!(msg.contains("the gradient does not fit"), "{msg}");
}

#[test]
fn invalid_settings_are_refused() {
    let msg = panic_message(|| {
        let _ = Sgd::<f64>::new(-1.0);
    });
    assert!(msg.contains("learning rate"), "{msg}");
    let msg = panic_message(|| {
        let _ = Adam::<f64>::new(0.1).betas(0.9, 1.0);
    });
    assert!(msg.contains("beta parameter at index 1"), "{msg}");
    let msg = panic_message(|| {
        let _ = AdamW::<f64>::new(0.1).eps(-1.0);
    });
    assert!(msg.contains("epsilon"), "{msg}");
    let msg = panic_message(|| Sgd::new(0.1).nesterov(true).step(&mut 1.0, &1.0));
    assert!(msg.contains("Nesterov"), "{msg}");
    let mut opt = Adam::<f64>::new(0.1);
    opt.set_lr(0.01);
    assert_eq!(opt.lr(), 0.01);
}
