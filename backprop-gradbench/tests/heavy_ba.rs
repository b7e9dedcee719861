//! `ba`: the residual's derivatives against central differences, both
//! branches of the rotation, and the sparse Jacobian against the `manual` tool.

use backprop_gradbench::evals::ba::{prepare, reprojection_error, reprojection_error_backward};
use serde_json::{json, Value};

/// ADBench's `ba1` camera, point, weight and feature, repeated over 2
/// cameras, 3 points and 5 observations.
fn small(rotation: [f64; 3]) -> Value {
    let mut cam = vec![
        -0.758453, -1.109613, -0.845551, 34.556073, 39.676747, 53.881673, 419.194514, 5.864426,
        -8.51887, 0.087812, 0.002739,
    ];
    cam[..3].copy_from_slice(&rotation);
    json!({"n": 2, "m": 3, "p": 5, "cam": cam, "x": [7.203245, 0.001144, 3.023326],
           "w": 0.417022, "feat": [271.760969, 834.209256]})
}

const ROTATION: [f64; 3] = [-0.758453, -1.109613, -0.845551];

/// One observation's 15 inputs, as `reprojection_error` takes them.
fn inputs(v: &Value) -> [f64; 15] {
    let mut out = [0.0; 15];
    for (o, c) in out.iter_mut().zip(
        v["cam"]
            .as_array()
            .unwrap()
            .iter()
            .chain(v["x"].as_array().unwrap()),
    ) {
        *o = c.as_f64().unwrap();
    }
    out[14] = v["w"].as_f64().unwrap();
    out
}

fn call(p: &[f64; 15]) -> (f64, f64) {
    let feat = (271.760969, 834.209256);
    reprojection_error(
        p[0], p[1], p[2], p[3], p[4], p[5], p[6], p[7], p[8], p[9], p[10], p[11], p[12], p[13],
        p[14], feat,
    )
}

fn vjp(p: &[f64; 15], d_out: (f64, f64)) -> [f64; 15] {
    let feat = (271.760969, 834.209256);
    let (value, g) = reprojection_error_backward(
        p[0], p[1], p[2], p[3], p[4], p[5], p[6], p[7], p[8], p[9], p[10], p[11], p[12], p[13],
        p[14], feat, d_out,
    );
    assert_eq!(value, call(p));
    [
        g.r0, g.r1, g.r2, g.c0, g.c1, g.c2, g.f, g.u0, g.u1, g.k0, g.k1, g.x0, g.x1, g.x2, g.w,
    ]
}

/// Each row of the 2 x 15 Jacobian against central differences, for a
/// general rotation and for the exact zero rotation (the first order branch,
/// whose derivative in `r` is that of `p + r × p`).
#[test]
fn residual_rows_match_central_differences() {
    for rotation in [ROTATION, [0.0; 3]] {
        let p = inputs(&small(rotation));
        for (component, d_out) in [(0, (1.0, 0.0)), (1, (0.0, 1.0))] {
            let row = vjp(&p, d_out);
            for j in 0..15 {
                if rotation == [0.0; 3] && j < 3 {
                    // Differences across r = 0 leave the branch; check below.
                    continue;
                }
                let h = 1e-6 * p[j].abs().max(1.0);
                let (mut plus, mut minus) = (p, p);
                plus[j] += h;
                minus[j] -= h;
                let pick = |v: (f64, f64)| if component == 0 { v.0 } else { v.1 };
                let numeric = (pick(call(&plus)) - pick(call(&minus))) / (2.0 * h);
                let tolerance = 1e-6 * numeric.abs().max(1.0);
                assert!(
                    (row[j] - numeric).abs() <= tolerance,
                    "row {component}, input {j}: {} against {numeric}",
                    row[j]
                );
            }
        }
    }
}

/// At r = 0 the first order branch is `y = q + r × q` (`q = X − C`); the
/// derivative in `r1` is checked against that formula's differences.
#[test]
fn zero_rotation_branch_has_the_cross_product_derivative() {
    let p = inputs(&small([0.0; 3]));
    let (x, c) = ([p[11], p[12], p[13]], [p[3], p[4], p[5]]);
    let q = [x[0] - c[0], x[1] - c[1], x[2] - c[2]];
    // Move r1 by ±h inside the branch's formula, written out here: with
    // r = (0, r1, 0), y = q + r × q = (q0 + r1 q2, q1, q2 − r1 q0).
    let row = vjp(&p, (1.0, 0.0));
    let h = 1e-7;
    let residual_at = |r1: f64| {
        let y = [q[0] + r1 * q[2], q[1], q[2] - r1 * q[0]];
        let (q0, q1) = (y[0] / y[2], y[1] / y[2]);
        let rsq = q0 * q0 + q1 * q1;
        let l = 1.0 + p[9] * rsq + p[10] * rsq * rsq;
        p[14] * (q0 * l * p[6] + p[7] - 271.760969)
    };
    let numeric = (residual_at(h) - residual_at(-h)) / (2.0 * h);
    assert!(
        (row[1] - numeric).abs() <= 1e-6 * numeric.abs().max(1.0),
        "{} against {numeric}",
        row[1]
    );
}

/// GradBench's `manual` C++ tool, run once outside this repository on
/// `small(ROTATION)` and `small([0.0; 3])`: `bin/ba ba_small.json objective`
/// and `jacobian`. The tool copies 30 entries of `rows` even when it has
/// fewer (16 here); only the real ones are compared.
fn manual(rotation: [f64; 3]) -> (Value, Value) {
    if rotation == ROTATION {
        (
            json!({"reproj_error":{"elements":[0.10133583791450886,-0.06896776592424401],"repeated":5},"w_err":{"element":0.826092651516,"repeated":5}}),
            json!({"cols":[0,1,2,3,4,5,6,7,8,9,10,22,23,24,31,0,1,2,3,4,5,6,7,8,9,10,22,23,24,31,35],"rows":[0,15,30,45,60,75,90,105,120,135,150,151,152,153,154,155],"vals":[-461.4463210015993,178.8679280144455,-19.423916472206248,-3.0615983420410315,6.392457556226442,-3.340282281299017,0.26476024920703156,0.417022,0.0,243.62824566083003,676.4867782658688,3.0615983420410315,-6.392457556226442,3.340282281299017,0.24299878163378708,-803.7436233648792,-309.5954175234488,604.7802846625028,-15.049628170340545,6.248486312079824,3.2194799516049235,0.8381960857313306,0.0,0.417022,771.2949451366334,2141.6680611599554,15.049628170340545,-6.248486312079824,-3.2194799516049235,-0.16538160078960118,-0.834044]}),
        )
    } else {
        (
            json!({"reproj_error":{"elements":[-9.245795375138208,-204.00771425969276],"repeated":5},"w_err":{"element":0.826092651516,"repeated":5}}),
            json!({"cols":[0,1,2,3,4,5,6,7,8,9,10,22,23,24,31,0,1,2,3,4,5,6,7,8,9,10,22,23,24,31,35],"rows":[0,15,30,45,60,75,90,105,120,135,150,151,152,153,154,155],"vals":[-105.1064557985854,261.4434440647629,-147.42845430107923,3.9002395455778616,0.26746417277834733,-2.306295636876804,0.24246241156631115,0.417022,0.0,84.41393162027443,75.79031381705572,-3.9002395455778616,-0.26746417277834733,2.306295636876804,-22.171001470277844,-341.43998228848295,105.10645579858539,101.63891277980778,0.2674641727783474,4.103806564925751,-3.345309307299276,0.35169461759959775,0.0,0.417022,122.44341384500188,109.93475344673385,-0.2674641727783474,-4.103806564925751,3.345309307299276,-489.20132333472276,-0.834044]}),
        )
    }
}

fn close(a: &Value, b: &Value) {
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            assert_eq!(x.len(), y.len());
            for (k, v) in y {
                close(&x[k], v);
            }
        }
        (Value::Array(x), Value::Array(y)) => {
            assert_eq!(x.len(), y.len());
            x.iter().zip(y).for_each(|(p, q)| close(p, q));
        }
        _ => {
            let (x, y) = (a.as_f64().unwrap(), b.as_f64().unwrap());
            assert!((x - y).abs() <= 1e-11 * y.abs().max(1.0), "{x} against {y}");
        }
    }
}

#[test]
fn outputs_match_the_manual_tool() {
    for rotation in [ROTATION, [0.0; 3]] {
        let (objective, jacobian) = manual(rotation);
        close(
            &prepare("objective", &small(rotation)).unwrap()().json(),
            &objective,
        );
        let mut ours = prepare("jacobian", &small(rotation)).unwrap()().json();
        // 16 rows in all: ours sends them and the last again.
        let rows = ours["rows"].as_array_mut().unwrap();
        assert_eq!(rows.len(), 17);
        assert_eq!(rows[16], rows[15]);
        rows.pop();
        close(&ours, &jacobian);
    }
}

#[test]
fn malformed_input_is_an_error() {
    let mut bad = small(ROTATION);
    bad["cam"] = json!([1.0, 2.0]);
    assert!(prepare("jacobian", &bad).is_err());
    let mut bad = small(ROTATION);
    bad["p"] = json!(0);
    assert!(prepare("objective", &bad).is_err());
    assert!(prepare("hessian", &small(ROTATION)).is_err());
}
