//! `lstm`: the loss against independent values, and its gradient against
//! central differences.

use backprop::prelude::*;
use backprop_gradbench::evals::lstm::{objective, objective_backward};

/// One layer of 2 bits, 4 characters: small enough to check by hand.
fn small() -> (Array2<f64>, Array2<f64>, Array2<f64>, Array2<f64>) {
    let main_params = array![
        [0.1, -0.2, 0.3, 0.4, -0.5, 0.6, 0.7, -0.8],
        [0.05, 0.15, -0.25, 0.35, 0.45, -0.55, 0.65, 0.75]
    ];
    let extra_params = array![[0.9, -1.1], [1.2, 0.8], [-0.3, 0.2]];
    let state = array![[0.2, -0.4], [0.6, 0.1]];
    let sequence = array![[1.0, 0.0], [0.0, 1.0], [1.0, 1.0], [0.0, 0.0]];
    (main_params, extra_params, state, sequence)
}

#[test]
fn gradient_matches_central_differences() {
    let (main_params, extra_params, state, sequence) = small();
    gradcheck(&(main_params, extra_params), |(m, e)| {
        objective_backward(m, e, &state, &sequence, 1.0)
    })
    .unwrap();
}

/// The `manual` C++ tool of GradBench, run once (outside this repository) on
/// the input of `small()`: `bin/lstm fixture.json objective` and `jacobian`.
const MANUAL_LOSS: f64 = 0.6229629099785107;
const MANUAL_GRADIENT: [f64; 22] = [
    -0.001141433426050541,
    0.001089578295874424,
    -0.0022478123683987617,
    0.0022353443695358366,
    0.004624256441378347,
    0.005640155519443998,
    -0.0032290960693773193,
    0.001964750952685456,
    -0.007759035912969304,
    -0.0017590311338768073,
    -0.00854634317528771,
    -0.007157324411765233,
    -0.008172533639583056,
    -0.014432043056042142,
    -0.012328529817850492,
    -0.009922094214388662,
    -0.002695857292549141,
    -0.0028783433204468294,
    -0.017802590058965097,
    -0.027155237617550846,
    -0.04455354280068393,
    -0.1800074697513139,
];

#[test]
fn loss_and_gradient_match_the_manual_tool() {
    let (main_params, extra_params, state, sequence) = small();
    let loss = objective(&main_params, &extra_params, &state, &sequence);
    assert!((loss - MANUAL_LOSS).abs() <= 1e-14, "{loss}");
    let (value, g) = objective_backward(&main_params, &extra_params, &state, &sequence, 1.0);
    assert_eq!(value, loss);
    let ours: Vec<f64> = g
        .main_params
        .iter()
        .chain(&g.extra_params)
        .copied()
        .collect();
    for (i, (a, b)) in ours.iter().zip(MANUAL_GRADIENT).enumerate() {
        assert!(
            (a - b).abs() <= 1e-14 + 1e-12 * b.abs(),
            "element {i}: {a} against {b}"
        );
    }
}

#[test]
fn the_protocol_layout_is_the_manual_tools() {
    let input = serde_json::json!({
        "main_params": [[0.1, -0.2, 0.3, 0.4, -0.5, 0.6, 0.7, -0.8],
                        [0.05, 0.15, -0.25, 0.35, 0.45, -0.55, 0.65, 0.75]],
        "extra_params": [[0.9, -1.1], [1.2, 0.8], [-0.3, 0.2]],
        "state": [[0.2, -0.4], [0.6, 0.1]],
        "sequence": [[1.0, 0.0], [0.0, 1.0], [1.0, 1.0], [0.0, 0.0]],
    });
    let mut f = backprop_gradbench::evals::lstm::prepare("objective", &input).unwrap();
    assert!((f().json().as_f64().unwrap() - MANUAL_LOSS).abs() <= 1e-14);
    let mut j = backprop_gradbench::evals::lstm::prepare("jacobian", &input).unwrap();
    let out = j().json();
    let out = out.as_array().unwrap();
    assert_eq!(out.len(), MANUAL_GRADIENT.len());
    for (a, b) in out.iter().zip(MANUAL_GRADIENT) {
        assert!((a.as_f64().unwrap() - b).abs() <= 1e-14 + 1e-12 * b.abs());
    }
}

#[test]
fn malformed_input_is_an_error() {
    use backprop_gradbench::evals::lstm::prepare;
    let ok = |v| prepare("jacobian", &v).is_ok();
    assert!(!ok(serde_json::json!({})));
    assert!(!ok(
        serde_json::json!({"main_params": [[1.0]], "extra_params": [[1.0]],
        "state": [[1.0]], "sequence": [[1.0], [0.0]]})
    ));
    assert!(!ok(
        serde_json::json!({"main_params": [[1.0, 2.0, 3.0, 4.0], [1.0, 2.0, 3.0]],
        "extra_params": [[1.0], [1.0], [1.0]], "state": [[1.0], [1.0]], "sequence": [[1.0], [0.0]]})
    ));
    assert!(prepare("hessian", &serde_json::json!({})).is_err());
}
