//! `#[differentiable(backward_each)]` writes `NAME_backward_each`: one
//! forward pass, then one reverse sweep per upstream gradient. Each sweep
//! returns what `NAME_backward` returns with that upstream gradient, bit for
//! bit (so each row agrees with central differences and, where there is
//! one, with the closed form), and the value is the original's.

use backprop::prelude::*;
use backprop::Gradient;

/// Polar to Cartesian: the Jacobian is `[[cos t, −r sin t], [sin t, r cos t]]`.
#[differentiable(backward_each)]
fn cartesian(r: f64, t: f64) -> (f64, f64) {
    (r * t.cos(), r * t.sin())
}

/// A rotation about `axis` by its length (Rodrigues), of a point less a
/// constant offset, with a branch at the zero rotation, and a division:
/// the reverse sweep reads what the taken arm kept.
#[allow(unused_assignments, reason = "both arms assign")]
#[differentiable(backward_each, wrt(a0, a1, x0, x1))]
fn rotate(a0: f64, a1: f64, x0: f64, x1: f64, offset: (f64, f64)) -> (f64, f64, f64) {
    let (p0, p1) = (x0 - offset.0, x1 - offset.1);
    let sq = a0 * a0 + a1 * a1;
    let (mut y0, mut y1, mut y2) = (0.0, 0.0, 0.0);
    if sq != 0.0 {
        let theta = sq.sqrt();
        let (cos, sin) = (theta.cos(), theta.sin());
        let (n0, n1) = (a0 / theta, a1 / theta);
        let dot = (n0 * p0 + n1 * p1) * (1.0 - cos);
        y0 = p0 * cos + n0 * dot;
        y1 = p1 * cos + n1 * dot;
        y2 = (n0 * p1 - n1 * p0) * sin;
    } else {
        y0 = p0;
        y1 = p1;
        y2 = a0 * p1 - a1 * p0;
    }
    (y0 / (1.0 + y2 * y2), y1 * y2, y0 + y1)
}

/// The same numbers, bit for bit.
fn same_bits(a: &impl Gradient, b: &impl Gradient) {
    let bits = |g: &dyn Fn() -> Vec<(&'static str, Vec<f64>)>| -> Vec<(&'static str, Vec<u64>)> {
        g().into_iter()
            .map(|(n, v)| (n, v.iter().map(|x| x.to_bits()).collect()))
            .collect()
    };
    assert_eq!(bits(&|| a.fields()), bits(&|| b.fields()));
}

#[test]
fn each_row_of_cartesian_is_its_closed_form() {
    for (r, t) in [(2.0, 0.3), (0.5, -2.0), (1.5, 4.0)] {
        let (value, [dx, dy]) = cartesian_backward_each(r, t, [(1.0, 0.0), (0.0, 1.0)]);
        assert_eq!(value, cartesian(r, t));
        let close =
            |got: f64, want: f64| assert!((got - want).abs() <= 1e-15 * want.abs().max(1.0));
        close(dx.r, t.cos());
        close(dx.t, -r * t.sin());
        close(dy.r, t.sin());
        close(dy.t, r * t.cos());
    }
}

#[test]
fn each_sweep_is_the_backward_of_its_upstream() {
    let d_outs = [(1.0, 0.0), (0.0, 1.0), (0.7, -1.3)];
    for (r, t) in [(2.0, 0.3), (0.5, -2.0)] {
        let (value, grads) = cartesian_backward_each(r, t, d_outs);
        assert_eq!(value, cartesian(r, t));
        for (k, &d_out) in d_outs.iter().enumerate() {
            same_bits(&grads[k], &cartesian_backward(r, t, d_out).1);
            GradCheck::new()
                .upstream(&d_out)
                .check(&(r, t), |&(r, t)| {
                    let (v, g) = cartesian_backward_each(r, t, [d_out]);
                    (v, g[0].clone())
                })
                .unwrap();
        }
    }
}

#[test]
fn each_sweep_reads_what_the_taken_arm_kept() {
    let d_outs = [(1.0, 0.0, 0.0), (0.0, 1.0, 0.0), (0.0, 0.0, 1.0)];
    let offset = (0.25, -0.5);
    // The rotation's arm, then the zero rotation's.
    for (a0, a1) in [(0.4, -0.9), (0.0, 0.0)] {
        let (x0, x1) = (1.5, 0.75);
        let (value, rows) = rotate_backward_each(a0, a1, x0, x1, offset, d_outs);
        assert_eq!(value, rotate(a0, a1, x0, x1, offset));
        for (row, &d_out) in rows.iter().zip(&d_outs) {
            same_bits(row, &rotate_backward(a0, a1, x0, x1, offset, d_out).1);
        }
        // Central differences step off the zero rotation; check the other arm only.
        if a0 != 0.0 {
            for &d_out in &d_outs {
                GradCheck::new()
                    .upstream(&d_out)
                    .check(&(a0, a1, x0, x1), |&(a0, a1, x0, x1)| {
                        let (v, g) = rotate_backward_each(a0, a1, x0, x1, offset, [d_out]);
                        (v, g[0].clone())
                    })
                    .unwrap();
            }
        }
    }
    // No upstream gradient: no sweep.
    let (value, rows) = rotate_backward_each(0.4, -0.9, 1.5, 0.75, offset, []);
    assert_eq!(value, rotate(0.4, -0.9, 1.5, 0.75, offset));
    assert!(rows.is_empty());
}

/// A fixed-size array read by element, also in a branch's arm (each sweep
/// reads the parameter's elements; the array is held on the stack).
#[differentiable(backward_each)]
fn planar(p: &[f64; 3], x: f64) -> (f64, f64) {
    let s = if p[2] > 0.0 {
        p[0] * x + p[2]
    } else {
        p[0] - p[2] * x
    };
    (s * p[1], s + x)
}

#[test]
fn each_sweep_reads_a_fixed_size_array() {
    let d_outs = [(1.0, 0.0), (0.0, 1.0)];
    for p in [[0.5, -1.5, 2.0], [0.5, -1.5, -2.0]] {
        let (value, rows) = planar_backward_each(&p, 0.75, d_outs);
        assert_eq!(value, planar(&p, 0.75));
        for (row, &d_out) in rows.iter().zip(&d_outs) {
            let (_, g) = planar_backward(&p, 0.75, d_out);
            assert_eq!((row.p, row.x), (g.p, g.x));
            GradCheck::new()
                .upstream(&d_out)
                .check(&(p, 0.75), |(p, x)| {
                    let (v, g) = planar_backward_each(p, *x, [d_out]);
                    (v, g[0].clone())
                })
                .unwrap();
        }
    }
}
