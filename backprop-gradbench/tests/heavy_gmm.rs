//! `gmm`: the log posterior against the `manual` tool and a closed form, its
//! gradient against central differences.

use backprop::prelude::*;
use backprop_gradbench::evals::gmm::{objective, objective_backward, prepare};
use serde_json::{json, Value};

/// `gmm_small.json`: GradBench's `generate(seed=7, d=3, k=2, n=4, m=2,
/// gamma=1.5)` (numpy's `default_rng`), written out.
fn small() -> Value {
    json!({"d": 3, "k": 2, "n": 4, "m": 2, "gamma": 1.5,
      "x": [[0.0012301533574825742, 0.2987455375084699, -0.2741378553622176],
            [-0.8905918387572742, -0.45467078517172255, -0.9916465549964624],
            [0.060143602597438485, 1.3402152455545335, -0.49220651855132963],
            [-0.6204748998199404, 0.4898420501851982, 0.35688700816006075]],
      "alpha": [0.10541424899789856, -0.9304680447082047],
      "mu": [[0.5045482589579533, 0.5534973520744925, 0.9955002834343927],
             [0.7926619192137531, 0.6221792294411627, 0.9889601476818849]],
      "q": [[-1.8417350377917323, -0.23509113107468127, -1.2674464814437032],
            [0.2712643588217015, 0.15675108662422516, -0.18693094462995438]],
      "l": [[-2.516759710820513, -0.5386928958466366, -0.048500945401071985],
            [0.11330898600330756, -1.5301357655053935, -0.47775327603393064]]})
}

/// GradBench's `manual` C++ tool, run once outside this repository on
/// `small()`: `bin/gmm gmm_small.json objective` and `jacobian`.
const MANUAL_OBJECTIVE: f64 = -49.306421090311744;

fn manual_jacobian() -> Value {
    json!({"alpha": [-2.6500045599156676, 2.6500045599156676],
      "l": [[6.405994712299005, 1.2721422844223953, 0.1509541254671344],
            [-2.5710236755324862, 7.7509184657095505, 3.025857020283859]],
      "mu": [[-1.6677799992983287, 0.5134823452109671, 0.010293322090804266],
             [-11.597842559324572, -2.7571267182435917, 2.266535845486464]],
      "q": [[2.236594328722122, 1.1979129576405194, 2.1409388150271917],
            [-7.518803040646295, 0.2413780506151848, 6.808750686782066]]})
}

fn numbers(v: &Value) -> Vec<f64> {
    match v {
        Value::Array(items) => items.iter().flat_map(numbers).collect(),
        Value::Object(map) => {
            let mut keys: Vec<_> = map.keys().collect();
            keys.sort();
            keys.into_iter().flat_map(|k| numbers(&map[k])).collect()
        }
        v => vec![v.as_f64().unwrap()],
    }
}

fn assert_close(ours: &Value, theirs: &Value, rtol: f64) {
    let (a, b) = (numbers(ours), numbers(theirs));
    assert_eq!(a.len(), b.len());
    for (i, (x, y)) in a.iter().zip(&b).enumerate() {
        assert!(
            (x - y).abs() <= rtol * y.abs().max(1.0),
            "number {i}: {x} against {y}"
        );
    }
}

#[test]
fn objective_and_jacobian_match_the_manual_tool() {
    let mut f = prepare("objective", &small()).unwrap();
    assert_close(&f().json(), &json!(MANUAL_OBJECTIVE), 1e-13);
    let mut j = prepare("jacobian", &small()).unwrap();
    let out = j().json();
    let mut keys: Vec<_> = out.as_object().unwrap().keys().cloned().collect();
    keys.sort();
    assert_eq!(keys, ["alpha", "l", "mu", "q"]);
    assert_close(&out, &manual_jacobian(), 1e-13);
}

fn params(d: usize, k: usize, seed: u64) -> (Array1<f64>, Array2<f64>, Array2<f64>, Array2<f64>) {
    let mut s = seed;
    let mut next = move || {
        s = s
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (s >> 11) as f64 / (1u64 << 53) as f64 - 0.5
    };
    let alpha = Array1::from_shape_simple_fn(k, &mut next);
    let mu = Array2::from_shape_simple_fn((k, d), &mut next);
    let q = Array2::from_shape_simple_fn((k, d), &mut next);
    let l = Array2::from_shape_simple_fn((k, d * (d - 1) / 2), &mut next);
    (alpha, mu, q, l)
}

#[test]
fn gradient_matches_central_differences() {
    for (d, k, n, m) in [(1, 1, 3, 0), (2, 3, 5, 1), (4, 3, 6, 2)] {
        let (alpha, mu, q, l) = params(d, k, 11 + d as u64);
        let x = params(d, n, 99).1 * 3.0;
        gradcheck(&(alpha, mu, q, l), |(a, mu, q, l)| {
            objective_backward(a, mu, q, l, &x, 0.7, m, 1.0)
        })
        .unwrap();
    }
}

#[test]
fn one_component_in_one_dimension_is_a_closed_form() {
    // K = D = 1, m = 0 (so n = 2 and ln Γ_1(1) = 0):
    // F = −N/2 ln 2π + Σ_i (q − ½ e^{2q} (x_i − μ)²) + 2 ln(γ/√2) − γ²/2 e^{2q},
    // ∂F/∂μ = e^{2q} Σ_i (x_i − μ), ∂F/∂α = 0.
    let (mu, q, gamma): (f64, f64, f64) = (0.3, -0.4, 1.3);
    let xs = [0.5, -1.0, 2.0];
    let x = Array2::from_shape_vec((3, 1), xs.to_vec()).unwrap();
    let e2q = (2.0 * q).exp();
    let pi2 = 2.0 * std::f64::consts::PI;
    let expected = -1.5 * pi2.ln()
        + xs.iter()
            .map(|xi| q - 0.5 * e2q * (xi - mu) * (xi - mu))
            .sum::<f64>()
        + 2.0 * (gamma / 2f64.sqrt()).ln()
        - 0.5 * gamma * gamma * e2q;
    let (alpha, mu_a, q_a, l) = (
        array![0.8],
        array![[mu]],
        array![[q]],
        Array2::zeros((1, 0)),
    );
    let (value, g) = objective_backward(&alpha, &mu_a, &q_a, &l, &x, gamma, 0, 1.0);
    assert!(
        (value - expected).abs() < 1e-13,
        "{value} against {expected}"
    );
    assert_eq!(objective(&alpha, &mu_a, &q_a, &l, &x, gamma, 0), value);
    let d_mu = e2q * xs.iter().map(|xi| xi - mu).sum::<f64>();
    assert!((g.mu[[0, 0]] - d_mu).abs() < 1e-13);
    assert!(g.alpha[0].abs() < 1e-15);
}

#[test]
fn malformed_input_is_an_error() {
    let mut bad = small();
    bad["l"] = json!([[1.0], [2.0]]);
    assert!(prepare("jacobian", &bad).is_err());
    let mut bad = small();
    bad["d"] = json!(-1);
    assert!(prepare("objective", &bad).is_err());
    assert!(prepare("objective", &json!("gmm")).is_err());
    assert!(prepare("hessian", &small()).is_err());
}
