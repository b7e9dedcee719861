//! `#[differentiable(jvp)]` on functions whose value is a tuple:
//! `NAME_jvp` returns the tuple of values and the tuple of tangents,
//! `((v0, v1, ..), (t0, t1, ..))`. Each JVP is checked against central
//! differences of the value, component by component, and against its
//! closed form; each value part is bit for bit the function's; each
//! function's `NAME_backward` passes `gradcheck`. A function generic over
//! its float type has second derivatives by forward over forward.

use backprop::prelude::*;
use backprop_testkit::random;

/// The step of the central differences.
const H: f64 = 1e-6;

/// `|got − want| ≤ tol · max(1, |want|)`.
fn assert_close(got: f64, want: f64, tol: f64, what: &str) {
    assert!(
        (got - want).abs() <= tol * want.abs().max(1.0),
        "{what}: {got:e} against {want:e}"
    );
}

fn assert_all_close(got: &Array1<f64>, want: &Array1<f64>, tol: f64, what: &str) {
    assert_eq!(got.len(), want.len(), "{what}: length");
    for (i, (&g, &w)) in got.iter().zip(want).enumerate() {
        assert_close(g, w, tol, &format!("{what}[{i}]"));
    }
}

/// Cartesian to polar coordinates.
#[differentiable(jvp)]
fn polar(x: f64, y: f64) -> (f64, f64) {
    ((x * x + y * y).sqrt(), y.atan2(x))
}

const POINTS: [(f64, f64); 4] = [(3.0, 4.0), (-1.0, 0.5), (0.2, -2.0), (-0.7, -0.3)];
const DIRECTIONS: [(f64, f64); 3] = [(1.0, 0.0), (0.0, 1.0), (0.6, -1.3)];

#[test]
fn polar_jvp_against_closed_form_and_central_differences() {
    for (x, y) in POINTS {
        for (dx, dy) in DIRECTIONS {
            let ((r, theta), (dr, dtheta)) = polar_jvp(x, y, dx, dy);
            let (r0, theta0) = polar(x, y);
            assert_eq!(
                (r.to_bits(), theta.to_bits()),
                (r0.to_bits(), theta0.to_bits())
            );
            let at = format!("at ({x}, {y}) along ({dx}, {dy})");
            // dr = (x dx + y dy)/r, dθ = (x dy − y dx)/r².
            assert_close(dr, (x * dx + y * dy) / r, 1e-14, &format!("dr {at}"));
            assert_close(
                dtheta,
                (x * dy - y * dx) / (r * r),
                1e-14,
                &format!("dθ {at}"),
            );
            let (rp, tp) = polar(x + H * dx, y + H * dy);
            let (rm, tm) = polar(x - H * dx, y - H * dy);
            assert_close(
                dr,
                (rp - rm) / (2.0 * H),
                1e-8,
                &format!("dr by differences {at}"),
            );
            assert_close(
                dtheta,
                (tp - tm) / (2.0 * H),
                1e-8,
                &format!("dθ by differences {at}"),
            );
        }
        GradCheck::new()
            .upstream(&(0.7, -1.3))
            .check(&(x, y), |&(x, y)| polar_backward(x, y, (0.7, -1.3)))
            .unwrap();
    }
}

/// A float and an array: `(s |w|², s sin w)`.
#[differentiable(jvp)]
fn scaled_sines(w: &Array1<f64>, s: f64) -> (f64, Array1<f64>) {
    (w.dot(w) * s, w.mapv(|v| v.sin()) * s)
}

#[test]
fn mixed_float_and_array_tuple() {
    let mut seed = 11;
    let w: Array1<f64> = random(5, &mut seed);
    let dw: Array1<f64> = random(5, &mut seed);
    let (s, ds) = (1.5, -0.4);
    let ((total, sines), (d_total, d_sines)) = scaled_sines_jvp(&w, s, &dw, ds);
    let (total0, sines0) = scaled_sines(&w, s);
    assert_eq!(total.to_bits(), total0.to_bits());
    assert_eq!(sines.mapv(f64::to_bits), sines0.mapv(f64::to_bits));
    // d(s |w|²) = ds |w|² + 2 s w·dw; d(s sin w) = ds sin w + s cos w ⊙ dw.
    assert_close(
        d_total,
        ds * w.dot(&w) + 2.0 * s * w.dot(&dw),
        1e-14,
        "d total",
    );
    let exact = w.mapv(f64::sin) * ds + w.mapv(f64::cos) * &dw * s;
    assert_all_close(&d_sines, &exact, 1e-14, "d sines");
    let (tp, sp) = scaled_sines(&(&w + &(&dw * H)), s + H * ds);
    let (tm, sm) = scaled_sines(&(&w - &(&dw * H)), s - H * ds);
    assert_close(
        d_total,
        (tp - tm) / (2.0 * H),
        1e-8,
        "d total by differences",
    );
    assert_all_close(
        &d_sines,
        &((sp - sm) / (2.0 * H)),
        1e-8,
        "d sines by differences",
    );
    let d1: Array1<f64> = random(5, &mut seed);
    GradCheck::new()
        .upstream(&(0.5, &d1))
        .check(&(w.clone(), s), |(w, s)| {
            scaled_sines_backward(w, *s, (0.5, &d1))
        })
        .unwrap();
}

/// `n` turns by the angle whose cosine is 0.8, then a branch on the sign of
/// the first coordinate.
#[differentiable(jvp)]
fn turned(x: f64, y: f64, n: usize) -> (f64, f64) {
    let mut a = x;
    let mut b = y;
    for _ in 0..n {
        let c = a * 0.8 - b * 0.6;
        b = a * 0.6 + b * 0.8;
        a = c;
    }
    let mut first = a;
    let mut second = a * b;
    if a > 0.0 {
        first = a * b;
        second = b;
    }
    (first, second)
}

/// The turns of `turned`, which are linear: the tangent turns as the point.
fn turn(mut a: f64, mut b: f64, n: usize) -> (f64, f64) {
    for _ in 0..n {
        (a, b) = (a * 0.8 - b * 0.6, a * 0.6 + b * 0.8);
    }
    (a, b)
}

#[test]
fn loop_and_branch_returning_a_tuple() {
    let mut branches = [false; 2];
    // Away from `a = 0` after 0, 1 or 3 turns ((3, 4) turns onto it).
    for (x, y) in [(2.0, 1.0), (-1.0, 0.5), (0.2, -2.0), (-0.7, -0.3)] {
        for n in [0, 1, 3] {
            for (dx, dy) in DIRECTIONS {
                let (value, (d0, d1)) = turned_jvp(x, y, n, dx, dy);
                let (v0, v1) = turned(x, y, n);
                assert_eq!(
                    (value.0.to_bits(), value.1.to_bits()),
                    (v0.to_bits(), v1.to_bits())
                );
                let (a, b) = turn(x, y, n);
                let (da, db) = turn(dx, dy, n);
                let exact = if a > 0.0 {
                    (da * b + a * db, db)
                } else {
                    (da, da * b + a * db)
                };
                branches[usize::from(a > 0.0)] = true;
                let at = format!("at ({x}, {y}), {n} turns, along ({dx}, {dy})");
                assert_close(d0, exact.0, 1e-14, &format!("d0 {at}"));
                assert_close(d1, exact.1, 1e-14, &format!("d1 {at}"));
                let (p0, p1) = turned(x + H * dx, y + H * dy, n);
                let (m0, m1) = turned(x - H * dx, y - H * dy, n);
                assert_close(
                    d0,
                    (p0 - m0) / (2.0 * H),
                    1e-8,
                    &format!("d0 by differences {at}"),
                );
                assert_close(
                    d1,
                    (p1 - m1) / (2.0 * H),
                    1e-8,
                    &format!("d1 by differences {at}"),
                );
            }
            GradCheck::new()
                .upstream(&(0.25, -2.0))
                .check(&(x, y), |&(x, y)| turned_backward(x, y, n, (0.25, -2.0)))
                .unwrap();
        }
    }
    assert_eq!(branches, [true, true], "both branches taken");
}

/// `wrt(w)`: `x` and `b` are constants, and `NAME_jvp` takes `t_w` alone.
#[differentiable(jvp, wrt(w))]
fn affine(w: &Array1<f64>, x: &Array1<f64>, b: f64) -> (Array1<f64>, f64) {
    let y = (w * x + b).mapv(|v| v.tanh());
    let s = w.dot(x);
    (y, s * s)
}

#[test]
fn wrt_subset_of_a_tuple_value() {
    let mut seed = 13;
    let w: Array1<f64> = random(4, &mut seed);
    let x: Array1<f64> = random(4, &mut seed);
    let dw: Array1<f64> = random(4, &mut seed);
    let b = 0.3;
    let ((y, sq), (dy, dsq)) = affine_jvp(&w, &x, b, &dw);
    let (y0, sq0) = affine(&w, &x, b);
    assert_eq!(y.mapv(f64::to_bits), y0.mapv(f64::to_bits));
    assert_eq!(sq.to_bits(), sq0.to_bits());
    // dy = (1 − y²) ⊙ x ⊙ dw; d(s²) = 2 s x·dw.
    let exact = (1.0 - &y * &y) * &x * &dw;
    assert_all_close(&dy, &exact, 1e-14, "dy");
    assert_close(dsq, 2.0 * w.dot(&x) * x.dot(&dw), 1e-14, "d s²");
    let (yp, sp) = affine(&(&w + &(&dw * H)), &x, b);
    let (ym, sm) = affine(&(&w - &(&dw * H)), &x, b);
    assert_all_close(&dy, &((yp - ym) / (2.0 * H)), 1e-8, "dy by differences");
    assert_close(dsq, (sp - sm) / (2.0 * H), 1e-8, "d s² by differences");
    let d0: Array1<f64> = random(4, &mut seed);
    GradCheck::new()
        .upstream(&(&d0, -0.5))
        .check(&(w.clone(),), |(w,)| affine_backward(w, &x, b, (&d0, -0.5)))
        .unwrap();
}

/// A second-order function that calls a tuple-valued one: `r² θ`.
#[differentiable(hvp)]
fn spread(x: f64, y: f64) -> f64 {
    let (r, theta) = polar(x, y);
    r * r * theta
}

/// A tuple-valued function that calls one: back to Cartesian coordinates.
#[differentiable(jvp)]
fn round_trip(x: f64, y: f64) -> (f64, f64) {
    let (r, theta) = polar(x, y);
    (r * theta.cos(), r * theta.sin())
}

#[test]
fn calls_of_a_tuple_valued_jvp_function() {
    for (x, y) in POINTS {
        for (dx, dy) in DIRECTIONS {
            let at = format!("at ({x}, {y}) along ({dx}, {dy})");
            // ∂(r²θ)/∂x = 2xθ − y, ∂(r²θ)/∂y = 2yθ + x.
            let (value, d) = spread_jvp(x, y, dx, dy);
            assert_eq!(value.to_bits(), spread(x, y).to_bits());
            let theta = y.atan2(x);
            let exact = (2.0 * x * theta - y) * dx + (2.0 * y * theta + x) * dy;
            assert_close(d, exact, 1e-13, &format!("d spread {at}"));
            let fd = (spread(x + H * dx, y + H * dy) - spread(x - H * dx, y - H * dy)) / (2.0 * H);
            assert_close(d, fd, 1e-7, &format!("d spread by differences {at}"));

            let (value, (d0, d1)) = round_trip_jvp(x, y, dx, dy);
            let (v0, v1) = round_trip(x, y);
            assert_eq!(
                (value.0.to_bits(), value.1.to_bits()),
                (v0.to_bits(), v1.to_bits())
            );
            assert_close(d0, dx, 1e-14, &format!("d x {at}"));
            assert_close(d1, dy, 1e-14, &format!("d y {at}"));
            let (p0, p1) = round_trip(x + H * dx, y + H * dy);
            let (m0, m1) = round_trip(x - H * dx, y - H * dy);
            assert_close(
                d0,
                (p0 - m0) / (2.0 * H),
                1e-8,
                &format!("d x by differences {at}"),
            );
            assert_close(
                d1,
                (p1 - m1) / (2.0 * H),
                1e-8,
                &format!("d y by differences {at}"),
            );
        }
        // Its Hessian, through the callee's reverse sweep on duals.
        hvpcheck(&(x, y), &(0.6, -1.3), |&(x, y), &(dx, dy)| {
            spread_hvp(x, y, dx, dy)
        })
        .unwrap();
        gradcheck(&(x, y), |&(x, y)| spread_backward(x, y, 1.0)).unwrap();
        GradCheck::new()
            .upstream(&(0.7, -1.3))
            .check(&(x, y), |&(x, y)| round_trip_backward(x, y, (0.7, -1.3)))
            .unwrap();
    }
}

/// Generic over its float type: forward over forward.
#[differentiable(jvp)]
fn generic_polar<T: backprop::Float>(x: T, y: T) -> (T, T) {
    ((x * x + y * y).sqrt(), y.atan2(x))
}

#[test]
fn forward_over_forward_of_a_tuple_value() {
    use backprop::dual::Dual;
    for (x, y) in POINTS {
        let ((r, theta), (dr, dtheta)) = generic_polar_jvp(x, y, 1.0, 0.0);
        assert_eq!((r, theta), polar(x, y));
        assert_eq!((dr, dtheta), polar_jvp(x, y, 1.0, 0.0).1);
        // Along x twice: ∂²r/∂x² = y²/r³, ∂²θ/∂x² = 2xy/r⁴.
        let (_, (dr, dtheta)) = generic_polar_jvp(
            Dual::new(x, 1.0),
            Dual::new(y, 0.0),
            Dual::constant(1.0),
            Dual::constant(0.0),
        );
        let at = format!("at ({x}, {y})");
        assert_close(dr.value, x / r, 1e-14, &format!("∂r/∂x {at}"));
        assert_close(
            dr.tangent,
            y * y / (r * r * r),
            1e-14,
            &format!("∂²r/∂x² {at}"),
        );
        assert_close(dtheta.value, -y / (r * r), 1e-14, &format!("∂θ/∂x {at}"));
        let exact = 2.0 * x * y / (r * r * r * r);
        assert_close(dtheta.tangent, exact, 1e-14, &format!("∂²θ/∂x² {at}"));
        let (p, _) = generic_polar_jvp(x + H, y, 1.0, 0.0).1;
        let (m, _) = generic_polar_jvp(x - H, y, 1.0, 0.0).1;
        assert_close(
            dr.tangent,
            (p - m) / (2.0 * H),
            1e-8,
            &format!("∂²r/∂x² by differences {at}"),
        );
        GradCheck::new()
            .upstream(&(0.7, -1.3))
            .check(&(x, y), |&(x, y)| generic_polar_backward(x, y, (0.7, -1.3)))
            .unwrap();
    }
}
