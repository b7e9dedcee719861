//! Every expansion snapshot (`backprop-codegen/tests/expand/NAME.expanded.rs`)
//! compiled as plain code, beside its input compiled through the macro: the
//! two `_backward`s give the same value and gradients, bit for bit, and the
//! snapshot's gradients agree with central differences. Clippy lints the
//! snapshots as it lints any code (CI runs it with `-D warnings`).

use backprop::prelude::*;
use backprop::Gradient;
use backprop_testkit::{random, rosenbrock_gradient};

macro_rules! snapshot {
    ($name:ident) => {
        #[allow(dead_code, reason = "each snapshot has items (`NAME_vjp`, for callers) this test does not call")]
        mod $name {
            #[allow(unused_imports, reason = "the `use` of the input serves `#[differentiable]`, which the expansion no longer has")]
            pub mod expanded {
                include!(concat!(
                    "../backprop-codegen/tests/expand/",
                    stringify!($name),
                    ".expanded.rs"
                ));
            }
            pub mod source {
                include!(concat!(
                    "../backprop-codegen/tests/expand/",
                    stringify!($name),
                    ".rs"
                ));
            }
        }
    };
}

snapshot!(broadcast_sub);
snapshot!(calls);
snapshot!(cartesian_each);
snapshot!(fixed_loops);
snapshot!(fork_rule);
snapshot!(huber);
snapshot!(linear_fit);
snapshot!(model_method);
snapshot!(nested_records);
snapshot!(polar);
snapshot!(polar_caller);
#[cfg(feature = "nalgebra")]
snapshot!(reprojection);
snapshot!(rnn);
snapshot!(rosenbrock_slice);
snapshot!(shadowing);
snapshot!(sigmoid_network);
snapshot!(state_buffer);
snapshot!(sum_of_squares);
snapshot!(tuple_output);
snapshot!(two_heads);

/// The two results are the same numbers, bit for bit.
fn same<V: PartialEq + std::fmt::Debug, G: Gradient, H: Gradient>(a: (V, G), b: (V, H)) {
    assert_eq!(a.0, b.0, "the values differ");
    assert_eq!(bits(&a.1), bits(&b.1), "the gradients differ");
}

/// A gradient's numbers as bits, by field.
fn bits(g: &impl Gradient) -> Vec<(&'static str, Vec<u64>)> {
    g.fields()
        .into_iter()
        .map(|(n, v)| (n, v.iter().map(|x| x.to_bits()).collect()))
        .collect()
}

#[test]
fn broadcast_sub() {
    use broadcast_sub::{expanded as e, source as s};
    let mut seed = 1;
    let (a, b) = (random((3, 4), &mut seed), random((3, 1), &mut seed));
    let up = random((3, 4), &mut seed);
    same(
        e::broadcast_sub_backward(&a, &b, &up),
        s::broadcast_sub_backward(&a, &b, &up),
    );
    GradCheck::new()
        .upstream(&up)
        .check(&(a, b), |(a, b)| e::broadcast_sub_backward(a, b, &up))
        .unwrap();
}

#[test]
fn calls() {
    use calls::{expanded as e, source as s};
    let mut seed = 2;
    let (w1, b1) = (random((4, 3), &mut seed), random(4, &mut seed));
    let (w2, b2) = (random((2, 4), &mut seed), random(2, &mut seed));
    let x = random((5, 3), &mut seed);
    let labels = [0, 1, 1, 0, 1];
    same(
        e::two_layers_backward(&w1, &b1, &w2, &b2, &x, &labels, 1.0),
        s::two_layers_backward(&w1, &b1, &w2, &b2, &x, &labels, 1.0),
    );
    gradcheck(&(w1, b1, w2, b2), |(w1, b1, w2, b2)| {
        e::two_layers_backward(w1, b1, w2, b2, &x, &labels, 1.0)
    })
    .unwrap();
}

#[test]
fn fork_rule() {
    use fork_rule::{expanded as e, source as s};
    same(
        e::fork_backward(0.5, 3.0, 1.0),
        s::fork_backward(0.5, 3.0, 1.0),
    );
    gradcheck(&(0.5, 3.0), |&(w, x)| e::fork_backward(w, x, 1.0)).unwrap();
}

#[test]
fn huber() {
    use huber::{expanded as e, source as s};
    for pred in [0.3, 2.5, -4.0] {
        same(
            e::huber_backward(pred, 0.5, 1.0, 1.0),
            s::huber_backward(pred, 0.5, 1.0, 1.0),
        );
        gradcheck(&(pred,), |&(p,)| e::huber_backward(p, 0.5, 1.0, 1.0)).unwrap();
    }
}

#[test]
fn model_method() {
    use model_method::expanded::{Dense as EDense, Net as ENet};
    use model_method::source::{Dense, Net};
    let mut seed = 9;
    let sizes = [3, 4, 2];
    let dense: Vec<(Array2<f64>, Array1<f64>)> = (0..2)
        .map(|k| {
            let w = random((sizes[k], sizes[k + 1]), &mut seed);
            (w, random(sizes[k + 1], &mut seed))
        })
        .collect();
    let x = random((5, 3), &mut seed);
    let labels = [0, 1, 1, 0, 1];
    let net = Net {
        layers: dense
            .iter()
            .map(|(w, b)| Dense {
                w: w.clone(),
                b: b.clone(),
            })
            .collect(),
        scale: 0.8,
    };
    let e_net = ENet {
        layers: dense
            .iter()
            .map(|(w, b)| EDense {
                w: w.clone(),
                b: b.clone(),
            })
            .collect(),
        scale: 0.8,
    };
    let (v, g) = net.loss_backward(&x, &labels, 1.0);
    let (ev, eg) = e_net.loss_backward(&x, &labels, 1.0);
    assert_eq!(v.to_bits(), ev.to_bits());
    assert_eq!(g.to_flat(), eg.to_flat(), "bit for bit");
    gradcheck(&e_net, |n| n.loss_backward(&x, &labels, 1.0)).unwrap();
}

#[test]
fn cartesian_each() {
    use cartesian_each::{expanded as e, source as s};
    let d_outs = [(1.0, 0.0), (0.0, 1.0), (0.7, -1.3)];
    for (r, t) in [(3.0, 0.4), (-1.0, 2.5)] {
        let (value, rows) = e::cartesian_backward_each(r, t, d_outs);
        let (value_s, rows_s) = s::cartesian_backward_each(r, t, d_outs);
        for k in 0..d_outs.len() {
            same((value, rows[k].clone()), (value_s, rows_s[k].clone()));
            same(
                (value, rows[k].clone()),
                e::cartesian_backward(r, t, d_outs[k]),
            );
            GradCheck::new()
                .upstream(&d_outs[k])
                .check(&(r, t), |&(r, t)| {
                    let (v, g) = e::cartesian_backward_each(r, t, [d_outs[k]]);
                    (v, g[0].clone())
                })
                .unwrap();
        }
    }
}

#[test]
fn polar() {
    use polar::{expanded as e, source as s};
    for (x, y) in [(3.0, 4.0), (-1.0, 0.5)] {
        same(
            e::cart2polar_backward(x, y, (0.7, -1.3)),
            s::cart2polar_backward(x, y, (0.7, -1.3)),
        );
        GradCheck::new()
            .upstream(&(0.7, -1.3))
            .check(&(x, y), |&(x, y)| e::cart2polar_backward(x, y, (0.7, -1.3)))
            .unwrap();
    }
}

#[test]
fn polar_caller() {
    use polar_caller::{expanded as e, source as s};
    for (x, y) in [(3.0, 4.0), (-1.0, 0.5)] {
        same(
            e::radius_times_angle_backward(x, y, 1.0),
            s::radius_times_angle_backward(x, y, 1.0),
        );
        gradcheck(&(x, y), |&(x, y)| e::radius_times_angle_backward(x, y, 1.0)).unwrap();
        same(
            e::polar_backward(x, y, (0.7, -1.3)),
            s::polar_backward(x, y, (0.7, -1.3)),
        );
    }
}

#[test]
fn rnn() {
    use rnn::{expanded as e, source as s};
    let mut seed = 3;
    let (w, u) = (random((4, 4), &mut seed), random((4, 3), &mut seed));
    let (v, h0) = (random(4, &mut seed), random(4, &mut seed));
    let xs = random((6, 3), &mut seed);
    same(
        e::rnn_backward(&w, &u, &v, &h0, &xs, 1.0),
        s::rnn_backward(&w, &u, &v, &h0, &xs, 1.0),
    );
    gradcheck(&(w, u, v), |(w, u, v)| {
        e::rnn_backward(w, u, v, &h0, &xs, 1.0)
    })
    .unwrap();
}

#[test]
fn state_buffer() {
    use state_buffer::{expanded as e, source as s};
    let mut seed = 5;
    let w = random((4, 4), &mut seed) * 0.5;
    let xs = random((6, 4), &mut seed);
    same(
        e::rnn_buffer_backward(&w, &xs, 1.0),
        s::rnn_buffer_backward(&w, &xs, 1.0),
    );
    gradcheck(&(w,), |(w,)| e::rnn_buffer_backward(w, &xs, 1.0)).unwrap();
}

#[test]
fn shadowing() {
    use shadowing::{expanded as e, source as s};
    same(
        e::shadow_backward(0.7, 2.0, 1.0),
        s::shadow_backward(0.7, 2.0, 1.0),
    );
    gradcheck(&(0.7, 2.0), |&(x, u)| e::shadow_backward(x, u, 1.0)).unwrap();
}

#[test]
fn sigmoid_network() {
    use sigmoid_network::{expanded as e, source as s};
    let p = [0.3, -0.7, 0.2, 1.1, 0.4, -0.5, 0.9, -1.3, 0.25];
    let (x1, x2, y) = (0.5, -1.5, 0.3);
    same(
        e::network_backward(
            p[0], p[1], p[2], p[3], p[4], p[5], p[6], p[7], p[8], x1, x2, y, 1.0,
        ),
        s::network_backward(
            p[0], p[1], p[2], p[3], p[4], p[5], p[6], p[7], p[8], x1, x2, y, 1.0,
        ),
    );
    let params = (p[0], p[1], p[2], p[3], p[4], p[5], p[6], p[7], p[8]);
    gradcheck(&params, |&(a, b, c, d, f, g, h, i, j)| {
        e::network_backward(a, b, c, d, f, g, h, i, j, x1, x2, y, 1.0)
    })
    .unwrap();
}

#[test]
fn sum_of_squares() {
    use sum_of_squares::{expanded as e, source as s};
    let mut seed = 4;
    let (a, b) = (random((3, 4), &mut seed), random((3, 1), &mut seed));
    same(
        e::broadcast_sub_sq_backward(&a, &b, 1.0),
        s::broadcast_sub_sq_backward(&a, &b, 1.0),
    );
    gradcheck(&(a, b), |(a, b)| e::broadcast_sub_sq_backward(a, b, 1.0)).unwrap();
    let (w, bias) = (random((3, 2), &mut seed), random(2, &mut seed));
    let (x, y) = (random((5, 3), &mut seed), random((5, 2), &mut seed));
    same(
        e::regression_backward(&w, &bias, &x, &y, 1.0),
        s::regression_backward(&w, &bias, &x, &y, 1.0),
    );
    gradcheck(&(w, bias), |(w, b)| {
        e::regression_backward(w, b, &x, &y, 1.0)
    })
    .unwrap();
}

#[test]
fn tuple_output() {
    use tuple_output::{expanded as e, source as s};
    let mut seed = 5;
    let (x, d1) = (random(4, &mut seed), random(4, &mut seed));
    same(
        e::scaled_backward(&x, 1.5, (0.5, &d1)),
        s::scaled_backward(&x, 1.5, (0.5, &d1)),
    );
    GradCheck::new()
        .upstream(&(0.5, &d1))
        .check(&(x, 1.5), |(x, s)| e::scaled_backward(x, *s, (0.5, &d1)))
        .unwrap();
}

#[test]
fn two_heads() {
    use two_heads::{expanded as e, source as s};
    let mut seed = 5;
    let (w1, b1) = (random((4, 3), &mut seed), random(4, &mut seed));
    let (w2, b2) = (random((2, 4), &mut seed), random(2, &mut seed));
    let (v, c) = (random((2, 4), &mut seed), random(2, &mut seed));
    let (x, y) = (random((5, 3), &mut seed), random((5, 2), &mut seed));
    let labels = [0, 1, 1, 0, 1];
    same(
        e::two_heads_backward(&w1, &b1, &w2, &b2, &v, &c, &x, &labels, &y, 1.0),
        s::two_heads_backward(&w1, &b1, &w2, &b2, &v, &c, &x, &labels, &y, 1.0),
    );
    gradcheck(&(w1, b1, w2, b2, v, c), |(w1, b1, w2, b2, v, c)| {
        e::two_heads_backward(w1, b1, w2, b2, v, c, &x, &labels, &y, 1.0)
    })
    .unwrap();
}

#[test]
fn rosenbrock_slice() {
    use rosenbrock_slice::{expanded as e, source as s};
    for n in [2, 3, 10] {
        let x: Vec<f64> = (0..n).map(|i| (i as f64 * 0.37).sin()).collect();
        same(
            e::rosenbrock_backward(&x, 1.0),
            s::rosenbrock_backward(&x, 1.0),
        );
        let (_, g) = e::rosenbrock_backward(&x, 1.0);
        for (a, b) in g.x.iter().zip(&rosenbrock_gradient(&x)) {
            assert!((a - b).abs() <= 1e-12 * b.abs().max(1.0), "{a} against {b}");
        }
        gradcheck(&(x.clone(),), |(x,)| e::rosenbrock_backward(x, 1.0)).unwrap();
    }
}

#[test]
fn fixed_loops() {
    use fixed_loops::{expanded as e, source as s};
    let (x, c) = ([0.3, -0.5, 0.8, 1.1], 0.7);
    same(e::pairs_backward(x, c, 1.0), s::pairs_backward(x, c, 1.0));
    // By hand: `s = c Σ_{i ≤ j} x_i x_j`.
    let (_, g) = e::pairs_backward(x, c, 1.0);
    let (mut pairs, mut by_hand) = (0.0, [0.0; 4]);
    for i in 0..4 {
        for j in i..4 {
            pairs += x[i] * x[j];
            by_hand[i] += c * x[j];
            by_hand[j] += c * x[i];
        }
    }
    for (a, b) in g.x.iter().zip(by_hand) {
        assert!((a - b).abs() < 1e-14, "{a} against {b}");
    }
    assert!((g.c - pairs).abs() < 1e-14);
    gradcheck(&(x, c), |&(x, c)| e::pairs_backward(x, c, 1.0)).unwrap();
}

#[test]
fn nested_records() {
    use nested_records::{expanded as e, source as s};
    let (x, k) = (vec![0.3, -0.5, 0.8, 1.1], 0.7);
    same(
        e::damped_backward(&x, k, 1.0),
        s::damped_backward(&x, k, 1.0),
    );
    // By hand: the recurrence forward, then backwards.
    let mut steps = Vec::new();
    let mut s = 1.0_f64;
    for i in 0..4 {
        for j in 0..i {
            let next = (s * k + x[i] * x[j]).tanh();
            steps.push((i, j, s, next));
            s = next;
        }
    }
    let (v, g) = e::damped_backward(&x, k, 1.0);
    assert_eq!(v, s);
    let (mut ds, mut dk, mut dx) = (1.0, 0.0, [0.0; 4]);
    for &(i, j, prev, next) in steps.iter().rev() {
        let dz = ds * (1.0 - next * next);
        dk += dz * prev;
        dx[i] += dz * x[j];
        dx[j] += dz * x[i];
        ds = dz * k;
    }
    for (a, b) in g.x.iter().zip(dx) {
        assert!((a - b).abs() < 1e-14, "{a} against {b}");
    }
    assert!((g.k - dk).abs() < 1e-14);
    gradcheck(&(x.clone(), k), |(x, k)| e::damped_backward(x, *k, 1.0)).unwrap();
}

#[test]
fn linear_fit() {
    use linear_fit::{expanded as e, source as s};
    let (xs, ys) = ([0.5, 1.0, 2.0, 3.5], [1.2, 1.9, 4.1, 6.8]);
    let (w, b) = (1.7, 0.3);
    same(
        e::linear_fit_backward(w, b, &xs, &ys, 1.0),
        s::linear_fit_backward(w, b, &xs, &ys, 1.0),
    );
    // By hand: the mean of 2 r x and of 2 r, r = w x + b - y.
    let (_, g) = e::linear_fit_backward(w, b, &xs, &ys, 1.0);
    let (mut dw, mut db) = (0.0, 0.0);
    for (x, y) in xs.iter().zip(&ys) {
        let r = w * x + b - y;
        dw += 2.0 * r * x / 4.0;
        db += 2.0 * r / 4.0;
    }
    assert!((g.w - dw).abs() < 1e-14 && (g.b - db).abs() < 1e-14);
    gradcheck(&(w, b), |&(w, b)| {
        e::linear_fit_backward(w, b, &xs, &ys, 1.0)
    })
    .unwrap();
}

#[cfg(feature = "nalgebra")]
#[test]
fn reprojection() {
    use backprop::nalgebra::{Matrix3, Point3, Vector2, Vector3};
    use reprojection::{expanded as e, source as s};
    let r = Matrix3::new(0.9, -0.1, 0.2, 0.1, 0.95, -0.05, -0.2, 0.1, 0.97);
    let (t, p) = (Vector3::new(0.1, -0.2, 3.0), Point3::new(0.5, 0.3, 1.0));
    let o = Vector2::new(0.2, 0.05);
    same(
        e::reprojection_backward(&r, &t, &p, 1.2, &o, 1.0),
        s::reprojection_backward(&r, &t, &p, 1.2, &o, 1.0),
    );
    let (v, g) = e::reprojection_backward(&r, &t, &p, 1.2, &o, 1.0);
    assert_eq!(v, s::reprojection(&r, &t, &p, 1.2, &o));
    // By hand: the residual's gradient through the projection.
    let q = r * p.coords + t;
    let e2 = Vector2::new(1.2 * q.x / q.z - o.x, 1.2 * q.y / q.z - o.y) * 2.0;
    let dq = Vector3::new(
        e2.x * 1.2 / q.z,
        e2.y * 1.2 / q.z,
        -1.2 * (e2.x * q.x + e2.y * q.y) / (q.z * q.z),
    );
    for (a, b) in g.t.iter().zip(dq.iter()) {
        assert!((a - b).abs() < 1e-14, "{a} against {b}");
    }
    gradcheck(&(r, t, p, 1.2), |(r, t, p, f)| {
        e::reprojection_backward(r, t, p, *f, &o, 1.0)
    })
    .unwrap();
}
