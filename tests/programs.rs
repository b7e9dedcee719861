//! Programs as a Rust user writes them, with the spellings that come to
//! hand (iterator folds with `f64::max`, `from_shape_fn`, `while`, `match`,
//! a model's methods, slices of windows): each compiles unchanged under
//! `#[differentiable]`, returns the original's value bit for bit, and
//! agrees with central differences.

// A user crate that denies warnings: the generated code must not trip
// rustc's lints on the user's spellings (`for j in (i + 1)..n`).
#![deny(warnings)]

use backprop::prelude::*;
use backprop_testkit::random;

#[differentiable(wrt(w, b))]
pub fn logreg(w: &Array1<f64>, b: f64, x: &Array2<f64>, y: &Array1<f64>, lambda: f64) -> f64 {
    let z = x.dot(w) + b;
    let p = z.mapv(|v| 1.0 / (1.0 + (-v).exp()));
    let eps = 1e-12;
    let ll = y
        .iter()
        .zip(p.iter())
        .map(|(&yi, &pi)| yi * (pi + eps).ln() + (1.0 - yi) * (1.0 - pi + eps).ln())
        .sum::<f64>();
    -ll / x.nrows() as f64 + 0.5 * lambda * w.dot(w)
}

#[differentiable]
pub fn accel(x: f64, v: f64, k: f64, c: f64) -> f64 {
    -k * x - c * v
}

#[differentiable(wrt(k, c))]
pub fn simulate(k: f64, c: f64, x0: f64, v0: f64, dt: f64, target: &[f64]) -> f64 {
    let (mut x, mut v) = (x0, v0);
    let mut loss = 0.0;
    let mut t = 0;
    while t < target.len() {
        let a1 = accel(x, v, k, c);
        let xm = x + 0.5 * dt * v;
        let vm = v + 0.5 * dt * a1;
        let a2 = accel(xm, vm, k, c);
        x += dt * vm;
        v += dt * a2;
        loss += (x - target[t]).powi(2);
        t += 1;
    }
    loss / target.len() as f64
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Act {
    Relu,
    Tanh,
}

#[derive(Clone, Debug, Differentiable)]
pub struct Dense {
    pub w: Array2<f64>,
    pub b: Array1<f64>,
}

#[derive(Clone, Debug, Differentiable)]
pub struct Mlp {
    pub layers: Vec<Dense>,
    pub act: Act,
}

#[differentiable]
impl Mlp {
    #[differentiable]
    pub fn logits(&self, x: &Array2<f64>) -> Array2<f64> {
        let mut h = x.to_owned();
        let n = self.layers.len();
        for (i, layer) in self.layers.iter().enumerate() {
            let z = h.dot(&layer.w) + &layer.b;
            h = if i + 1 == n {
                z
            } else {
                match self.act {
                    Act::Relu => z.mapv(|v| v.max(0.0)),
                    Act::Tanh => z.mapv(f64::tanh),
                }
            };
        }
        h
    }

    #[differentiable]
    pub fn loss(&self, x: &Array2<f64>, labels: &[usize]) -> f64 {
        let logits = self.logits(x);
        let m = logits.fold_axis(Axis(1), f64::NEG_INFINITY, |a, &b| a.max(b));
        let shifted = &logits - &m.insert_axis(Axis(1));
        let lse = shifted.mapv(f64::exp).sum_axis(Axis(1)).mapv(f64::ln);
        let mut total = 0.0;
        for (i, &l) in labels.iter().enumerate() {
            total += lse[i] - shifted[[i, l]];
        }
        total / labels.len() as f64
    }
}

#[differentiable(wrt(mu, log_sigma, logit_w))]
pub fn gmm_nll(
    mu: &Array1<f64>,
    log_sigma: &Array1<f64>,
    logit_w: &Array1<f64>,
    data: &[f64],
) -> f64 {
    let k = mu.len();
    let mx = logit_w.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
    let lse_w = mx + logit_w.iter().map(|&l| (l - mx).exp()).sum::<f64>().ln();
    let mut nll = 0.0;
    for &x in data {
        let terms = Array1::from_shape_fn(k, |j| {
            let s = log_sigma[j].exp();
            logit_w[j] - lse_w - log_sigma[j] - 0.5 * ((x - mu[j]) / s).powi(2)
        });
        let m = terms.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
        nll -= m + terms.mapv(|t| (t - m).exp()).sum().ln();
    }
    nll
}

#[differentiable(wrt(phi, c))]
pub fn ar_loss(phi: &Array1<f64>, c: f64, y: &Array1<f64>) -> f64 {
    let p = phi.len();
    let n = y.len();
    let mut loss = 0.0;
    for t in p..n {
        let window = y.slice(s![t - p..t]);
        let pred = c + phi.dot(&window.slice(s![..;-1]));
        loss += (y[t] - pred).powi(2);
    }
    loss / (n - p) as f64
}

#[differentiable]
pub fn huber(r: &Array1<f64>, delta: f64) -> f64 {
    r.iter()
        .map(|&x| {
            let a = x.abs();
            if a <= delta {
                0.5 * x * x
            } else {
                delta * (a - 0.5 * delta)
            }
        })
        .sum::<f64>()
}

#[differentiable(wrt(wq, wk, wv))]
pub fn attention(x: &Array2<f64>, wq: &Array2<f64>, wk: &Array2<f64>, wv: &Array2<f64>) -> f64 {
    let q = x.dot(wq);
    let k = x.dot(wk);
    let v = x.dot(wv);
    let d = q.ncols() as f64;
    let scores = q.dot(&k.t()) / d.sqrt();
    let max = scores
        .fold_axis(Axis(1), f64::NEG_INFINITY, |&a, &b| a.max(b))
        .insert_axis(Axis(1));
    let e = (&scores - &max).mapv(f64::exp);
    let attn = &e / &e.sum_axis(Axis(1)).insert_axis(Axis(1));
    attn.dot(&v).mapv(|t| t * t).sum()
}

#[differentiable(wrt(coef))]
pub fn poly_fit(coef: &Array1<f64>, xs: &[f64], ys: &[f64]) -> f64 {
    let mut err = 0.0;
    for (&x, &y) in xs.iter().zip(ys) {
        let p = coef.iter().rev().fold(0.0, |acc, &c| acc * x + c);
        err += (p - y) * (p - y);
    }
    err.sqrt()
}

#[differentiable]
pub fn pairwise(points: &Array2<f64>) -> f64 {
    let n = points.nrows();
    let mut e = 0.0;
    for i in 0..n {
        for j in (i + 1)..n {
            let d = &points.row(i) - &points.row(j);
            let r2 = d.dot(&d);
            e += 1.0 / r2.powi(6) - 1.0 / r2.powi(3);
        }
    }
    e
}

#[test]
fn logistic_regression_with_an_iterator_sum() {
    let mut seed = 91;
    let x = random((6, 3), &mut seed);
    let y = array![1.0, 0.0, 1.0, 1.0, 0.0, 0.0];
    let w = random(3, &mut seed);
    let (v, _) = logreg_backward(&w, 0.1, &x, &y, 0.01, 1.0);
    assert_eq!(v.to_bits(), logreg(&w, 0.1, &x, &y, 0.01).to_bits());
    gradcheck(&(w, 0.1), |(w, b)| {
        logreg_backward(w, *b, &x, &y, 0.01, 1.0)
    })
    .unwrap();
}

#[test]
fn a_spring_fitted_through_a_while_loop_and_calls() {
    let target: Vec<f64> = (0..20).map(|t| (t as f64 * 0.1).cos()).collect();
    let (v, _) = simulate_backward(1.3, 0.2, 1.0, 0.0, 0.1, &target, 1.0);
    assert_eq!(
        v.to_bits(),
        simulate(1.3, 0.2, 1.0, 0.0, 0.1, &target).to_bits()
    );
    gradcheck(&(1.3, 0.2), |(k, c)| {
        simulate_backward(*k, *c, 1.0, 0.0, 0.1, &target, 1.0)
    })
    .unwrap();
}

#[test]
fn an_mlp_with_a_match_on_its_activation() {
    let mut seed = 92;
    for act in [Act::Relu, Act::Tanh] {
        let mlp = Mlp {
            layers: vec![
                Dense {
                    w: random((3, 4), &mut seed),
                    b: random(4, &mut seed),
                },
                Dense {
                    w: random((4, 3), &mut seed),
                    b: random(3, &mut seed),
                },
            ],
            act,
        };
        let x = random((5, 3), &mut seed);
        let labels = [0, 2, 1, 1, 0];
        let (v, _) = mlp.loss_backward(&x, &labels, 1.0);
        assert_eq!(v.to_bits(), mlp.loss(&x, &labels).to_bits());
        gradcheck(&mlp, |m| m.loss_backward(&x, &labels, 1.0)).unwrap();
    }
}

#[test]
fn a_mixture_likelihood_with_folded_maxima() {
    let mut seed = 93;
    let mu = random(3, &mut seed);
    let log_sigma = random(3, &mut seed) * 0.3;
    let logit_w = random(3, &mut seed);
    let data = [0.3, -1.2, 0.8, 2.0, -0.1];
    let (v, _) = gmm_nll_backward(&mu, &log_sigma, &logit_w, &data, 1.0);
    assert_eq!(
        v.to_bits(),
        gmm_nll(&mu, &log_sigma, &logit_w, &data).to_bits()
    );
    gradcheck(&(mu, log_sigma, logit_w), |(m, s, w)| {
        gmm_nll_backward(m, s, w, &data, 1.0)
    })
    .unwrap();
}

#[test]
fn an_autoregression_over_reversed_windows() {
    let mut seed = 94;
    let y = random(12, &mut seed);
    let phi = random(3, &mut seed) * 0.5;
    let (v, _) = ar_loss_backward(&phi, 0.1, &y, 1.0);
    assert_eq!(v.to_bits(), ar_loss(&phi, 0.1, &y).to_bits());
    gradcheck(&(phi, 0.1), |(p, c)| ar_loss_backward(p, *c, &y, 1.0)).unwrap();
}

#[test]
fn huber_attention_polynomial_and_pairs() {
    let mut seed = 95;
    let r = random(7, &mut seed) * 3.0;
    assert_eq!(
        huber_backward(&r, 1.0, 1.0).0.to_bits(),
        huber(&r, 1.0).to_bits()
    );
    gradcheck(&(r, 1.0), |(r, d)| huber_backward(r, *d, 1.0)).unwrap();

    let x = random((4, 3), &mut seed);
    let (wq, wk, wv) = (
        random((3, 2), &mut seed),
        random((3, 2), &mut seed),
        random((3, 2), &mut seed),
    );
    let (v, _) = attention_backward(&x, &wq, &wk, &wv, 1.0);
    assert_eq!(v.to_bits(), attention(&x, &wq, &wk, &wv).to_bits());
    gradcheck(&(wq, wk, wv), |(q, k, v)| {
        attention_backward(&x, q, k, v, 1.0)
    })
    .unwrap();

    let coef = random(4, &mut seed);
    let (xs, ys) = ([0.1, 0.5, -0.7, 1.2], [1.0, 0.2, -0.3, 0.9]);
    assert_eq!(
        poly_fit_backward(&coef, &xs, &ys, 1.0).0.to_bits(),
        poly_fit(&coef, &xs, &ys).to_bits()
    );
    gradcheck(&(coef,), |(c,)| poly_fit_backward(c, &xs, &ys, 1.0)).unwrap();

    let points = array![[0.0, 0.0], [1.1, 0.1], [0.2, 1.3], [1.4, 1.2]];
    assert_eq!(
        pairwise_backward(&points, 1.0).0.to_bits(),
        pairwise(&points).to_bits()
    );
    gradcheck(&(points,), |(p,)| pairwise_backward(p, 1.0)).unwrap();
}

/// A model read through named layers, its rows' norms by `map_axis` of a
/// fold, filtered and summed.
#[derive(Clone, Debug, Differentiable)]
pub struct Net {
    pub layers: Vec<Dense>,
    pub scale: f64,
}

#[differentiable]
impl Net {
    #[differentiable]
    pub fn energy(&self, x: &Array2<f64>) -> f64 {
        let mut h = x.to_owned();
        for i in 0..self.layers.len() {
            let layer = &self.layers[i];
            let z = h.dot(&layer.w) + &layer.b;
            h = z.mapv(|v| v.tanh());
        }
        let norms = h.map_axis(Axis(1), |r| r.iter().fold(0.0, |a, &v| a + v * v).sqrt());
        let s: f64 = self.scale;
        norms
            .iter()
            .filter(|&&n| n > 0.1)
            .map(|&n| n * s)
            .sum::<f64>()
    }
}

/// Horner's rule and a maximum folded with `T::max`, generic over the
/// float type.
#[differentiable]
fn generic_fold<T: backprop::Float>(x: &Array1<T>, c: T) -> T {
    let p = x.iter().fold(T::zero(), |acc, &v| acc * c + v);
    let y = Array1::from_shape_fn(x.len(), |i| x[i] * c);
    p + y.iter().copied().fold(T::neg_infinity(), T::max)
}

#[test]
fn a_model_read_through_named_layers_and_a_generic_fold() {
    let mut seed = 5;
    let net = Net {
        layers: vec![
            Dense {
                w: random((3, 4), &mut seed),
                b: random(4, &mut seed),
            },
            Dense {
                w: random((4, 2), &mut seed),
                b: random(2, &mut seed),
            },
        ],
        scale: 1.5,
    };
    let x = random((5, 3), &mut seed);
    let (v, _) = net.energy_backward(&x, 1.0);
    assert_eq!(v.to_bits(), net.energy(&x).to_bits());
    gradcheck(&net, |n| n.energy_backward(&x, 1.0)).unwrap();

    let x = random(4, &mut seed);
    let (v, _) = generic_fold_backward(&x, 0.7, 1.0);
    assert_eq!(v.to_bits(), generic_fold(&x, 0.7).to_bits());
    gradcheck(&(x, 0.7), |(x, c)| generic_fold_backward(x, *c, 1.0)).unwrap();
}

/// Softplus regression with an explicit while loop and early-exit flag.
#[differentiable(wrt(w))]
fn softplus_fit(w: &Array1<f64>, x: &Array2<f64>, y: &[f64]) -> f64 {
    let mut loss = 0.0;
    let mut i = 0;
    while i < y.len() {
        let z = x.row(i).dot(w);
        let p = if z > 20.0 { z } else { (1.0 + z.exp()).ln() };
        loss += (p - y[i]).powi(2);
        i += 1;
    }
    loss / y.len() as f64
}

/// A total-variation penalty with windows, a product of ratios, and
/// a nested closure-free fold over rows of a slice.
#[differentiable]
fn tv(x: &Array1<f64>, m: &Array2<f64>) -> f64 {
    let tv = x
        .windows(2)
        .into_iter()
        .map(|w| (w[1] - w[0]).abs())
        .sum::<f64>();
    let ratios = x
        .iter()
        .zip(x.iter().skip(1))
        .map(|(a, b)| b / a)
        .product::<f64>();
    let sub = m.slice(s![1.., ..]);
    let rows = sub
        .rows()
        .into_iter()
        .fold(0.0, |acc, r| acc + r.sum().powi(2));
    tv + ratios + rows
}

/// Angles from a matrix of points, with atan2 and hypot via from_shape_fn.
#[differentiable]
fn angles(p: &Array2<f64>) -> f64 {
    let n = p.nrows();
    let theta = Array1::from_shape_fn(n, |i| p[[i, 1]].atan2(p[[i, 0]]));
    let r = Array1::from_shape_fn(n, |i| p[[i, 0]].hypot(p[[i, 1]]));
    (&theta * &r).sum() + theta.iter().cloned().fold(f64::INFINITY, f64::min)
}

#[test]
fn softplus_total_variation_and_angles() {
    let mut seed = 8;
    let x = random((6, 3), &mut seed);
    let w = random(3, &mut seed);
    let y = [0.1, 0.5, 0.9, 0.2, 0.4, 0.3];
    assert_eq!(
        softplus_fit_backward(&w, &x, &y, 1.0).0.to_bits(),
        softplus_fit(&w, &x, &y).to_bits()
    );
    gradcheck(&(w,), |(w,)| softplus_fit_backward(w, &x, &y, 1.0)).unwrap();

    let v = random(5, &mut seed) + 2.0;
    let m = random((4, 3), &mut seed);
    assert_eq!(tv_backward(&v, &m, 1.0).0.to_bits(), tv(&v, &m).to_bits());
    gradcheck(&(v, m), |(v, m)| tv_backward(v, m, 1.0)).unwrap();

    let p = random((4, 2), &mut seed) + 0.5;
    assert_eq!(angles_backward(&p, 1.0).0.to_bits(), angles(&p).to_bits());
    gradcheck(&(p,), |(p,)| angles_backward(p, 1.0)).unwrap();
}
