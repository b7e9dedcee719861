//! `ht`: each stage's VJP against central differences, and the assembled
//! Jacobian against central differences of the objective, on a small
//! synthetic hand (22 bones, a few vertices).

use backprop::prelude::*;
use backprop_gradbench::evals::ht::prepare;
use serde_json::{json, Value};

fn lcg(seed: u64) -> impl FnMut() -> f64 {
    let mut s = seed;
    move || {
        s = s
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (s >> 11) as f64 / (1u64 << 53) as f64 - 0.5
    }
}

/// A rigid-ish 4 × 4 transform: a rotation about z and x, and a shift.
fn transform(next: &mut impl FnMut() -> f64) -> Vec<Vec<f64>> {
    let (a, b) = (next() * 2.0, next() * 2.0);
    let (ca, sa, cb, sb) = (a.cos(), a.sin(), b.cos(), b.sin());
    vec![
        vec![ca, -sa * cb, sa * sb, next()],
        vec![sa, ca * cb, -ca * sb, next()],
        vec![0.0, sb, cb, next()],
        vec![0.0, 0.0, 0.0, 1.0],
    ]
}

/// 22 bones with the hand's parents, 8 vertices each weighted on 2 bones,
/// 6 triangles, 5 correspondences; `us` empty for the simple variant.
fn hand(complicated: bool, mirrored: bool) -> Value {
    let mut next = lcg(5);
    let parents: Vec<i64> = vec![
        -1, 0, 1, 2, 3, 0, 5, 6, 7, 0, 9, 10, 11, 0, 13, 14, 15, 0, 17, 18, 19, 0,
    ];
    let base_relatives: Vec<_> = (0..22).map(|_| transform(&mut next)).collect();
    let inverse_base_absolutes: Vec<_> = (0..22).map(|_| transform(&mut next)).collect();
    let vertices = 8;
    let base_positions: Vec<_> = (0..vertices)
        .map(|_| vec![next(), next(), next(), 1.0])
        .collect();
    let weights: Vec<Vec<f64>> = (0..vertices)
        .map(|v| {
            let mut w = vec![0.0; 22];
            let (b1, b2) = ((3 * v + 2) % 22, (7 * v + 4) % 22);
            let share = 0.5 + next() * 0.5;
            w[b1] += share;
            w[b2] += 1.0 - share;
            w
        })
        .collect();
    let triangles: Vec<[usize; 3]> = (0..6)
        .map(|t| [t, (t + 1) % vertices, (t + 3) % vertices])
        .collect();
    let theta: Vec<f64> = (0..26).map(|_| next()).collect();
    let correspondences: Vec<usize> = if complicated {
        vec![0, 2, 5, 1, 3]
    } else {
        vec![7, 2, 5, 0, 3]
    };
    let points: Vec<Vec<f64>> = (0..5).map(|_| vec![next(), next(), next()]).collect();
    let us: Vec<Vec<f64>> = if complicated {
        (0..5)
            .map(|_| vec![0.3 + next() * 0.2, 0.3 + next() * 0.2])
            .collect()
    } else {
        vec![]
    };
    json!({"theta": theta, "us": us, "data": {"correspondences": correspondences, "points": points,
        "model": {"bone_count": 22, "bone_names": vec!["bone"; 22], "parents": parents,
            "base_relatives": base_relatives, "inverse_base_absolutes": inverse_base_absolutes,
            "base_positions": base_positions, "weights": weights, "triangles": triangles,
            "is_mirrored": mirrored}}})
}

fn residuals(input: &Value) -> Vec<f64> {
    let out = prepare("objective", input).unwrap()().json();
    out.as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_f64().unwrap())
        .collect()
}

/// Every column of the Jacobian (each angle of `theta`, and each
/// correspondence's `us`, which only its own 3 rows read) against central
/// differences of the objective.
#[test]
fn jacobian_matches_central_differences_of_the_objective() {
    for (complicated, mirrored) in [(true, false), (false, false), (true, true)] {
        let input = hand(complicated, mirrored);
        let jac = prepare("jacobian", &input).unwrap()().json();
        let jac: Vec<Vec<f64>> = jac
            .as_array()
            .unwrap()
            .iter()
            .map(|r| {
                r.as_array()
                    .unwrap()
                    .iter()
                    .map(|v| v.as_f64().unwrap())
                    .collect()
            })
            .collect();
        assert_eq!(jac.len(), 15);
        let offset = if complicated { 2 } else { 0 };
        assert!(jac.iter().all(|r| r.len() == 26 + offset));
        let h = 1e-6;
        let check = |column: usize, plus: &Value, minus: &Value, rows: std::ops::Range<usize>| {
            let (ep, em) = (residuals(plus), residuals(minus));
            for r in rows {
                let numeric = (ep[r] - em[r]) / (2.0 * h);
                let ours = jac[r][column];
                assert!((ours - numeric).abs() <= 1e-6 * numeric.abs().max(1.0),
                    "row {r}, column {column}: {ours} against {numeric} (complicated {complicated})");
            }
        };
        for j in 0..26 {
            let (mut plus, mut minus) = (input.clone(), input.clone());
            plus["theta"][j] = json!(input["theta"][j].as_f64().unwrap() + h);
            minus["theta"][j] = json!(input["theta"][j].as_f64().unwrap() - h);
            check(offset + j, &plus, &minus, 0..15);
        }
        if complicated {
            for i in 0..5 {
                for k in 0..2 {
                    let (mut plus, mut minus) = (input.clone(), input.clone());
                    plus["us"][i][k] = json!(input["us"][i][k].as_f64().unwrap() + h);
                    minus["us"][i][k] = json!(input["us"][i][k].as_f64().unwrap() - h);
                    check(k, &plus, &minus, 3 * i..3 * i + 3);
                }
            }
        }
    }
}

#[test]
fn simple_residuals_are_the_points_minus_the_vertices() {
    // With us = [], the residual is exactly point − vertex: moving a point by
    // δ moves its residual by δ and nothing else.
    let input = hand(false, false);
    let base = residuals(&input);
    let mut moved = input.clone();
    moved["data"]["points"][2][1] = json!(input["data"]["points"][2][1].as_f64().unwrap() + 0.25);
    let after = residuals(&moved);
    for (r, (a, b)) in after.iter().zip(&base).enumerate() {
        let expected = if r == 7 { b + 0.25 } else { *b };
        assert!((a - expected).abs() < 1e-12);
    }
}

#[test]
fn stages_match_central_differences() {
    use backprop_gradbench::evals::ht::{correspondence_error_backward, skin_vertex_backward};
    let mut next = lcg(9);
    let d_out = (0.7, -1.3, 0.4);
    let pts: Vec<f64> = (0..11).map(|_| next()).collect();
    let point = (0.1, 0.2, 0.3);
    let f = |p: &[f64]| {
        correspondence_error_backward(
            p[0], p[1], p[2], p[3], p[4], p[5], p[6], p[7], p[8], p[9], p[10], point, d_out,
        )
    };
    let (_, g) = f(&pts);
    let ours = [
        g.a0, g.a1, g.a2, g.b0, g.b1, g.b2, g.c0, g.c1, g.c2, g.u0, g.u1,
    ];
    for j in 0..11 {
        let (mut plus, mut minus) = (pts.clone(), pts.clone());
        plus[j] += 1e-6;
        minus[j] -= 1e-6;
        let dot = |v: (f64, f64, f64)| v.0 * d_out.0 + v.1 * d_out.1 + v.2 * d_out.2;
        let numeric = (dot(f(&plus).0) - dot(f(&minus).0)) / 2e-6;
        assert!(
            (ours[j] - numeric).abs() < 1e-8,
            "{j}: {} against {numeric}",
            ours[j]
        );
    }
    // skin_vertex: through gradcheck, for a random transforms array.
    let model = backprop_gradbench::evals::ht::Model {
        parents: vec![-1, 0, 1],
        base_relatives: Array3::zeros((3, 4, 4)),
        inverse_base_absolutes: Array3::zeros((3, 4, 4)),
        base_positions: array![[0.3, -0.2, 0.5, 1.0], [0.1, 0.4, -0.3, 1.0]],
        weights: array![[0.2, 0.0, 0.8], [0.5, 0.5, 0.0]],
        triangles: vec![],
        is_mirrored: true,
    };
    let transforms = Array2::from_shape_simple_fn((4, 12), &mut next);
    for v in 0..2 {
        GradCheck::new()
            .upstream(&d_out)
            .check(&(transforms.clone(),), |(t,)| {
                skin_vertex_backward(t, &model, v, d_out)
            })
            .unwrap();
    }
}

#[test]
fn pose_transforms_match_central_differences() {
    use backprop_gradbench::evals::ht::pose_transforms_backward;
    let input = hand(true, false);
    let m = &input["data"]["model"];
    let to3 = |name: &str| {
        let flat: Vec<f64> = m[name]
            .as_array()
            .unwrap()
            .iter()
            .flat_map(|t| {
                t.as_array()
                    .unwrap()
                    .iter()
                    .flat_map(|r| r.as_array().unwrap().iter().map(|v| v.as_f64().unwrap()))
                    .collect::<Vec<_>>()
            })
            .collect();
        Array3::from_shape_vec((22, 4, 4), flat).unwrap()
    };
    let model = backprop_gradbench::evals::ht::Model {
        parents: vec![
            -1, 0, 1, 2, 3, 0, 5, 6, 7, 0, 9, 10, 11, 0, 13, 14, 15, 0, 17, 18, 19, 0,
        ],
        base_relatives: to3("base_relatives"),
        inverse_base_absolutes: to3("inverse_base_absolutes"),
        base_positions: Array2::zeros((0, 4)),
        weights: Array2::zeros((0, 22)),
        triangles: vec![],
        is_mirrored: false,
    };
    let mut next = lcg(3);
    let theta = Array1::from_shape_simple_fn(26, &mut next);
    let upstream = Array2::from_shape_simple_fn((23, 12), &mut next);
    GradCheck::new()
        .upstream(&upstream)
        .check(&(theta,), |(t,)| {
            pose_transforms_backward(t, &model, &upstream)
        })
        .unwrap();
    // Near the identity the global rotation switches to the identity matrix
    // (angle below 1e-4): the angle-axis part then has no derivative.
    let small = Array1::from_shape_fn(26, |i| if i < 3 { 1e-5 } else { 0.1 });
    let (_, g) = pose_transforms_backward(&small, &model, &upstream);
    assert!(g.theta.iter().all(|v| v.is_finite()));
}

#[test]
fn malformed_input_is_an_error() {
    let mut bad = hand(true, false);
    bad["theta"] = json!([1.0, 2.0]);
    assert!(prepare("jacobian", &bad).is_err());
    let mut bad = hand(true, false);
    bad["data"]["correspondences"][0] = json!(100);
    assert!(prepare("objective", &bad).is_err());
    let mut bad = hand(true, false);
    bad["data"]["model"]["parents"][3] = json!(7);
    assert!(prepare("objective", &bad).is_err());
    assert!(prepare("hessian", &hand(true, false)).is_err());
}
