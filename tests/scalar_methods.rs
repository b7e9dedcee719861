//! The differentiable `f64` methods in realistic scalar functions, in both
//! spellings (`x.sinh()` and `f64::sinh(x)`) and as the functions of
//! `backprop::ops`: each function's backward returns the original's value
//! bit for bit, gradients that agree with central differences (gradcheck)
//! and with the closed-form derivative worked out by hand.

use backprop::prelude::*;
use std::f64::consts::PI;

/// `|got − want| ≤ 1e-12 · max(1, |want|)`.
fn close(got: f64, want: f64) -> bool {
    (got - want).abs() <= 1e-12 * want.abs().max(1.0)
}

macro_rules! assert_close {
    ($got:expr, $want:expr, $($what:tt)*) => {{
        let (got, want): (f64, f64) = ($got, $want);
        assert!(close(got, want), "{}: {got:e}, by hand {want:e}", format!($($what)*));
    }};
}

/// Cartesian to polar, both coordinates in one loss: `ln(1 + r) + 2θ` with
/// `r = hypot(x, y)` and `θ = atan2(y, x)`.
#[differentiable]
fn polar_loss(x: f64, y: f64) -> f64 {
    let r = x.hypot(y);
    let theta = f64::atan2(y, x);
    r.ln_1p() + 2.0 * theta
}

#[test]
fn cartesian_to_polar() {
    for (x, y) in [(3.0, 4.0), (-1.0, 0.5), (0.2, -2.0), (-1.5, -1e-3)] {
        let (v, g) = polar_loss_backward(x, y, 1.0);
        assert_eq!(v.to_bits(), polar_loss(x, y).to_bits());
        let r = x.hypot(y);
        // ∂r/∂x = x/r, ∂θ/∂x = -y/r²; ∂r/∂y = y/r, ∂θ/∂y = x/r².
        assert_close!(
            g.x,
            x / r / (1.0 + r) - 2.0 * y / (r * r),
            "∂x at ({x}, {y})"
        );
        assert_close!(
            g.y,
            y / r / (1.0 + r) + 2.0 * x / (r * r),
            "∂y at ({x}, {y})"
        );
        gradcheck(&(x, y), |&(x, y)| polar_loss_backward(x, y, 1.0)).unwrap();
    }
}

/// The great-circle distance between two points given in degrees (the
/// haversine formula): `to_radians`, `sin`, `cos`, `sqrt`, `asin`.
#[differentiable]
fn haversine(lat1: f64, lon1: f64, lat2: f64, lon2: f64) -> f64 {
    let (p1, p2) = (lat1.to_radians(), f64::to_radians(lat2));
    let half_dlat = (p2 - p1) * 0.5;
    let half_dlon = (lon2 - lon1).to_radians() * 0.5;
    let a = half_dlat.sin().powi(2) + p1.cos() * p2.cos() * half_dlon.sin().powi(2);
    2.0 * 6371.0 * a.sqrt().asin()
}

#[test]
fn great_circle_distance() {
    // Paris to London, and two points across the date line.
    for (lat1, lon1, lat2, lon2) in [
        (48.8566, 2.3522, 51.5074, -0.1278),
        (-33.9, 151.2, 21.3, -157.9),
    ] {
        let (v, g) = haversine_backward(lat1, lon1, lat2, lon2, 1.0);
        assert_eq!(v.to_bits(), haversine(lat1, lon1, lat2, lon2).to_bits());
        let (p1, p2) = (lat1.to_radians(), lat2.to_radians());
        let (hp, hl) = ((p2 - p1) / 2.0, (lon2 - lon1).to_radians() / 2.0);
        let a = hp.sin().powi(2) + p1.cos() * p2.cos() * hl.sin().powi(2);
        // d = 2R asin(√a): ∂d/∂a = R / √(a (1 - a)); one degree is π/180.
        let dd_da = 6371.0 / (a * (1.0 - a)).sqrt();
        let deg = PI / 180.0;
        let (sp, cp) = (hp.sin() * hp.cos(), hl.sin() * hl.cos());
        let da_dp1 = -sp - p1.sin() * p2.cos() * hl.sin().powi(2);
        let da_dp2 = sp - p1.cos() * p2.sin() * hl.sin().powi(2);
        let da_dl2 = p1.cos() * p2.cos() * cp;
        assert_close!(g.lat1, dd_da * da_dp1 * deg, "∂lat1");
        assert_close!(g.lat2, dd_da * da_dp2 * deg, "∂lat2");
        assert_close!(g.lon2, dd_da * da_dl2 * deg, "∂lon2");
        assert_close!(g.lon1, -g.lon2, "∂lon1");
        gradcheck(&(lat1, lon1, lat2, lon2), |&(a, b, c, d)| {
            haversine_backward(a, b, c, d, 1.0)
        })
        .unwrap();
    }
}

/// A cubic by Horner's rule with fused multiply-adds: every coefficient
/// and the point are differentiable.
#[differentiable]
fn horner(x: f64, c0: f64, c1: f64, c2: f64, c3: f64) -> f64 {
    let p = c3.mul_add(x, c2);
    let p = p.mul_add(x, c1);
    f64::mul_add(p, x, c0)
}

#[test]
fn horner_with_fused_multiply_adds() {
    let (c0, c1, c2, c3) = (0.5, -1.25, 2.0, 0.75);
    for x in [0.1, -1.3, 2.0] {
        let (v, g) = horner_backward(x, c0, c1, c2, c3, 1.0);
        // The value of the fused steps, not of x·a + b.
        assert_eq!(
            v.to_bits(),
            c3.mul_add(x, c2).mul_add(x, c1).mul_add(x, c0).to_bits()
        );
        assert_eq!(v.to_bits(), horner(x, c0, c1, c2, c3).to_bits());
        // ∂p/∂cᵢ = xⁱ (exact), ∂p/∂x = c1 + 2c2x + 3c3x².
        assert_eq!((g.c0, g.c1), (1.0, x));
        assert_eq!((g.c2, g.c3), (x * x, x * x * x));
        assert_close!(g.x, c1 + 2.0 * c2 * x + 3.0 * c3 * x * x, "∂x at {x}");
        gradcheck(&(x, c0, c1, c2, c3), |&(x, a, b, c, d)| {
            horner_backward(x, a, b, c, d, 1.0)
        })
        .unwrap();
    }
}

/// `log₂(2ᵃ + 2ᵇ)`: `exp2` and `log2`, and `log` with a differentiable
/// base: the same in base `2` through `x.log(b)`.
#[differentiable]
fn log_add_exp2(a: f64, b: f64, base: f64) -> f64 {
    let s = a.exp2() + f64::exp2(b);
    s.log2() + s.log(base)
}

#[test]
fn log_add_exp_in_base_two() {
    for (a, b, base) in [(1.0, 2.0, 2.0), (-3.0, 0.5, 10.0), (10.0, 9.5, 1.5)] {
        let (v, g) = log_add_exp2_backward(a, b, base, 1.0);
        assert_eq!(v.to_bits(), log_add_exp2(a, b, base).to_bits());
        let s = a.exp2() + b.exp2();
        // ∂/∂a log₂ s = 2ᵃ / s; ∂/∂a log_base s = 2ᵃ ln 2 / (s ln base);
        // ∂/∂base log_base s = -ln s / (base ln² base).
        let k = 1.0 + 2f64.ln() / base.ln();
        assert_close!(g.a, a.exp2() / s * k, "∂a");
        assert_close!(g.b, b.exp2() / s * k, "∂b");
        assert_close!(g.base, -s.ln() / (base * base.ln().powi(2)), "∂base");
        gradcheck(&(a, b, base), |&(a, b, c)| {
            log_add_exp2_backward(a, b, c, 1.0)
        })
        .unwrap();
    }
}

/// The hyperbolic functions and their inverses: `asinh(sinh x) = x` and
/// `atanh(tanh x) = x` have derivative 1; `cosh² - sinh² = 1` has 0.
#[differentiable]
fn hyperbolic(x: f64, y: f64) -> f64 {
    let inverses = x.sinh().asinh() + f64::atanh(y.tanh());
    let one = x.cosh() * f64::cosh(x) - x.sinh() * sinh(x);
    let up = (x * x + 1.0).acosh();
    inverses * 2.0 + one * y + up
}

#[test]
fn hyperbolic_identities() {
    for (x, y) in [(0.3, -0.4), (1.2, 0.7), (-2.0, 2.5)] {
        let (v, g) = hyperbolic_backward(x, y, 1.0);
        assert_eq!(v.to_bits(), hyperbolic(x, y).to_bits());
        // d/dx acosh(x² + 1) = 2x / √((x² + 1)² − 1) = 2x / (|x| √(x² + 2)).
        let one = x.cosh() * x.cosh() - x.sinh() * x.sinh();
        assert_close!(g.x, 2.0 + 2.0 * x / (x.abs() * (x * x + 2.0).sqrt()), "∂x");
        assert_close!(g.y, 2.0 + one, "∂y");
        assert!((g.y - 3.0).abs() < 1e-12);
        gradcheck(&(x, y), |&(x, y)| hyperbolic_backward(x, y, 1.0)).unwrap();
    }
}

/// The angle between two vectors of the plane by `acos`, and `asin`,
/// `atan` of its parts.
#[differentiable]
fn angles(a: f64, b: f64) -> f64 {
    let n = (a * a + b * b + 1.0).sqrt();
    let c = (a + b) / (n * 2.0_f64.sqrt());
    c.acos() + f64::asin(a / n) + b.atan() + atan(a)
}

#[test]
fn angles_by_the_inverse_trigonometric_functions() {
    for (a, b) in [(0.3, 0.4), (-0.5, 1.5), (2.0, -0.25)] {
        let (v, g) = angles_backward(a, b, 1.0);
        assert_eq!(v.to_bits(), angles(a, b).to_bits());
        let n2 = a * a + b * b + 1.0;
        let n = n2.sqrt();
        let c = (a + b) / (n * 2f64.sqrt());
        // c = (a + b) / (√2 n): ∂c/∂a = (n² − a(a + b)) / (√2 n³).
        let dc_da = (n2 - a * (a + b)) / (2f64.sqrt() * n2 * n);
        let dc_db = (n2 - b * (a + b)) / (2f64.sqrt() * n2 * n);
        let acos_d = -1.0 / (1.0 - c * c).sqrt();
        // u = a / n: ∂u/∂a = (b² + 1) / n³, ∂u/∂b = −ab / n³.
        let u = a / n;
        let asin_d = 1.0 / (1.0 - u * u).sqrt();
        assert_close!(
            g.a,
            acos_d * dc_da + asin_d * (b * b + 1.0) / (n2 * n) + 1.0 / (1.0 + a * a),
            "∂a"
        );
        assert_close!(
            g.b,
            acos_d * dc_db - asin_d * a * b / (n2 * n) + 1.0 / (1.0 + b * b),
            "∂b"
        );
        gradcheck(&(a, b), |&(a, b)| angles_backward(a, b, 1.0)).unwrap();
    }
}

/// The Huber loss written with `clamp`: `c (r − c/2)` with `c = clamp(r,
/// −δ, δ)` is `r²/2` inside and `δ(|r| − δ/2)` outside; its gradient is
/// `clamp(r, −δ, δ)`.
#[differentiable(wrt(pred))]
fn huber(pred: f64, target: f64, delta: f64) -> f64 {
    let r = pred - target;
    let c = r.clamp(-delta, delta);
    c * (r - 0.5 * c)
}

#[test]
fn huber_loss_by_clamp() {
    let delta = 1.0;
    for pred in [-3.0, -1.0, -0.25, 0.0, 0.5, 1.0, 4.0] {
        let (v, g) = huber_backward(pred, 0.0, delta, 1.0);
        assert_eq!(v.to_bits(), huber(pred, 0.0, delta).to_bits());
        let want = if pred.abs() <= delta {
            0.5 * pred * pred
        } else {
            delta * (pred.abs() - 0.5 * delta)
        };
        assert_eq!(v, want);
        assert_eq!(g.pred, pred.clamp(-delta, delta), "at {pred}");
        if (pred.abs() - delta).abs() > 1e-3 {
            gradcheck(&(pred,), |&(p,)| huber_backward(p, 0.0, delta, 1.0)).unwrap();
        }
    }
}

/// Accurate forms near 0: `ln_1p`, `exp_m1`, `cbrt`, `log10`, and the
/// piecewise constant methods as weights (gradient 0 through them).
#[differentiable]
fn small_and_steps(x: f64, y: f64) -> f64 {
    let near_zero = x.exp_m1() * f64::ln_1p(y) + y.cbrt() + log10(x * x + 1.0);
    let bucket = (x * 4.0).floor() + f64::round(y * 3.0) + x.signum() + y.ceil() + x.trunc();
    near_zero * (bucket + 10.0) + x.fract()
}

#[test]
fn accurate_small_forms_and_step_weights() {
    for (x, y) in [(0.3, 0.2), (-0.45, 1.6), (1.7, -0.3)] {
        let (v, g) = small_and_steps_backward(x, y, 1.0);
        assert_eq!(v.to_bits(), small_and_steps(x, y).to_bits());
        let w = (x * 4.0).floor() + (y * 3.0).round() + x.signum() + y.ceil() + x.trunc() + 10.0;
        let ln10 = 10f64.ln();
        let dx = x.exp() * y.ln_1p() + 2.0 * x / ((x * x + 1.0) * ln10);
        let dy = x.exp_m1() / (1.0 + y) + 1.0 / (3.0 * y.cbrt().powi(2));
        assert_close!(g.x, dx * w + 1.0, "∂x");
        assert_close!(g.y, dy * w, "∂y");
        gradcheck(&(x, y), |&(x, y)| small_and_steps_backward(x, y, 1.0)).unwrap();
    }
}

/// Degrees in, degrees out, in `f32`: the new ops work on either float
/// type.
#[differentiable]
fn bearing(x: f32, y: f32) -> f32 {
    let angle = y.atan2(x).to_degrees();
    let r = f32::hypot(x, y).cbrt();
    angle * 0.01 + r.clamp(0.0, 10.0) + x.sinh().ln_1p()
}

#[test]
fn f32_methods() {
    // Opaque to the optimiser: LLVM folds a call of `bearing` on constants
    // with its own `sinhf`, one ulp away from the library's at run time.
    let (x, y) = std::hint::black_box((0.6_f32, 0.8_f32));
    let (v, g) = bearing_backward(x, y, 1.0);
    assert_eq!(v.to_bits(), bearing(x, y).to_bits());
    let (xd, yd) = (f64::from(x), f64::from(y));
    let r = xd.hypot(yd);
    let deg = 180.0 / PI;
    let dr = r.powf(-2.0 / 3.0) / 3.0;
    let dx = -yd / (r * r) * deg * 0.01 + dr * xd / r + xd.cosh() / (1.0 + xd.sinh());
    let dy = xd / (r * r) * deg * 0.01 + dr * yd / r;
    assert!((f64::from(g.x) - dx).abs() < 1e-5, "∂x {} vs {dx}", g.x);
    assert!((f64::from(g.y) - dy).abs() < 1e-5, "∂y {} vs {dy}", g.y);
    gradcheck(&(x, y), |&(x, y)| bearing_backward(x, y, 1.0)).unwrap();
}

/// The same methods on arrays (ndarray has them as array methods): mapped
/// over the elements, the scalar operands' gradients summed back.
#[differentiable]
fn on_arrays(z: &Array1<f64>, s: f64) -> f64 {
    let a = z.sinh() + z.ln_1p() + z.clamp(-0.5, 0.5) + sinh(z);
    let b = z.hypot(s) + (z + 2.0).log(s + 2.0) + asinh(&z.to_degrees());
    sum(&(&a * &b))
}

#[test]
fn the_methods_on_arrays() {
    let z = array![0.3, -0.2, 0.75, 1.5];
    let s = 0.4;
    let (v, g) = on_arrays_backward(&z, s, 1.0);
    assert_eq!(v.to_bits(), on_arrays(&z, s).to_bits());
    let deg = 180.0 / PI;
    for (k, &x) in z.iter().enumerate() {
        let inside = if (-0.5..=0.5).contains(&x) { 1.0 } else { 0.0 };
        let a = 2.0 * x.sinh() + x.ln_1p() + x.clamp(-0.5, 0.5);
        let da = 2.0 * x.cosh() + 1.0 / (1.0 + x) + inside;
        let b = x.hypot(s) + (x + 2.0).log(s + 2.0) + (x * deg).asinh();
        let db = x / x.hypot(s) + 1.0 / ((x + 2.0) * (s + 2.0).ln()) + deg / (x * deg).hypot(1.0);
        assert_close!(g.z[k], da * b + a * db, "∂z[{k}]");
    }
    let ds: f64 = z
        .iter()
        .map(|&x| {
            let a = 2.0 * x.sinh() + x.ln_1p() + x.clamp(-0.5, 0.5);
            let lb = (s + 2.0).ln();
            a * (s / x.hypot(s) - (x + 2.0).ln() / ((s + 2.0) * lb * lb))
        })
        .sum();
    assert_close!(g.s, ds, "∂s");
    gradcheck(&(z.clone(), s), |(z, s)| on_arrays_backward(z, *s, 1.0)).unwrap();
}

/// Softplus as people write it, `ln(1 + eˣ)` with `ln_1p`, on a scalar and
/// mapped over an array: the gradient is the logistic function.
#[differentiable]
fn softplus_by_hand(x: &Array1<f64>, s: f64) -> f64 {
    x.mapv(|v| v.exp().ln_1p()).sum() + f64::ln_1p(s.exp())
}

#[test]
fn softplus_with_ln_1p() {
    let x = array![-2.0, 0.0, 1.5];
    let s = 0.7;
    let (v, g) = softplus_by_hand_backward(&x, s, 1.0);
    assert_eq!(v, softplus_by_hand(&x, s));
    let sigmoid = |t: f64| 1.0 / (1.0 + (-t).exp());
    assert!(
        g.x.iter()
            .zip(&x)
            .all(|(d, &t)| (d - sigmoid(t)).abs() < 1e-15),
        "{}",
        g.x
    );
    assert!((g.s - sigmoid(s)).abs() < 1e-15);
    gradcheck(&(x.clone(), s), |(x, s)| {
        softplus_by_hand_backward(x, *s, 1.0)
    })
    .unwrap();
}
