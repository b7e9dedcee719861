//! Functions that return a tuple: `NAME_backward` takes one upstream
//! gradient per component and returns the gradient of their weighted sum
//! `Σ_k <d_out.k, out.k>`, each component's adjoint seeded with its own
//! upstream (the fork rule sums a value's contributions across components).
//! Each function's backward returns the original's value bit for bit, and
//! gradients that agree with the closed form and with central differences.

use backprop::prelude::*;
use backprop_testkit::random;

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

/// Cartesian to polar coordinates.
#[differentiable]
fn cart2polar(x: f64, y: f64) -> (f64, f64) {
    (x.hypot(y), y.atan2(x))
}

#[test]
fn cartesian_to_polar() {
    for (x, y) in [(3.0, 4.0), (-1.0, 0.5), (0.2, -2.0)] {
        let (d_r, d_theta) = (0.7, -1.3);
        let ((r, theta), g) = cart2polar_backward(x, y, (d_r, d_theta));
        let (r0, theta0) = cart2polar(x, y);
        assert_eq!(
            (r.to_bits(), theta.to_bits()),
            (r0.to_bits(), theta0.to_bits())
        );
        // ∂r/∂x = x/r, ∂θ/∂x = -y/r²; ∂r/∂y = y/r, ∂θ/∂y = x/r².
        assert_close!(g.x, d_r * x / r - d_theta * y / (r * r), "∂x at ({x}, {y})");
        assert_close!(g.y, d_r * y / r + d_theta * x / (r * r), "∂y at ({x}, {y})");
        // One upstream per component, the same for the backward and the check.
        GradCheck::new()
            .upstream(&(d_r, d_theta))
            .check(&(x, y), |&(x, y)| cart2polar_backward(x, y, (d_r, d_theta)))
            .unwrap();
        // Without an upstream, each component of a tuple of scalars weighs 1.
        gradcheck(&(x, y), |&(x, y)| cart2polar_backward(x, y, (1.0, 1.0))).unwrap();
    }
}

/// One value in two components: its adjoint sums both upstreams.
#[differentiable]
fn twice(a: f64) -> (f64, f64) {
    (2.0 * a, a)
}

/// The same node as both components.
#[differentiable]
fn both(a: f64, b: f64) -> (f64, f64) {
    let s = a * b;
    (s, s)
}

#[test]
fn fork_rule_across_components() {
    let (value, g) = twice_backward(1.5, (0.25, -4.0));
    assert_eq!(value, twice(1.5));
    assert_eq!(g.a, 2.0 * 0.25 + -4.0);
    GradCheck::new()
        .upstream(&(0.25, -4.0))
        .check(&(1.5,), |&(a,)| twice_backward(a, (0.25, -4.0)))
        .unwrap();

    let (value, g) = both_backward(3.0, -0.5, (0.75, 2.0));
    assert_eq!(value, both(3.0, -0.5));
    assert_eq!(value, (-1.5, -1.5));
    assert_eq!(g.a, (0.75 + 2.0) * -0.5);
    assert_eq!(g.b, (0.75 + 2.0) * 3.0);
    GradCheck::new()
        .upstream(&(0.75, 2.0))
        .check(&(3.0, -0.5), |&(a, b)| both_backward(a, b, (0.75, 2.0)))
        .unwrap();
}

/// A scalar and an array: the sum of `y`, and `y` itself, whose adjoint is
/// the array upstream plus the scalar one broadcast.
#[differentiable]
fn scaled(x: &Array1<f64>, s: f64) -> (f64, Array1<f64>) {
    let y = x * s;
    (y.sum(), y)
}

#[test]
fn scalar_and_array_components() {
    let x = array![0.5, -1.0, 2.0];
    let s = 1.5;
    let d1 = array![1.0, -2.0, 0.25];
    let ((total, y), g) = scaled_backward(&x, s, (0.5, &d1));
    assert_eq!((total, y.clone()), scaled(&x, s));
    // ∂y = d0 + d1 (exact in binary: every number is a short dyadic fraction).
    let d_y = &d1 + 0.5;
    assert_eq!(g.x, &d_y * s);
    assert_eq!(g.s, (&x * &d_y).sum());
    GradCheck::new()
        .upstream(&(0.5, &d1))
        .check(&(x.clone(), s), |(x, s)| scaled_backward(x, *s, (0.5, &d1)))
        .unwrap();
}

/// Three components, an array first: a layer's activations, their mean and
/// a weight penalty.
#[differentiable]
fn layer(w: &Array2<f64>, b: &Array1<f64>, x: &Array2<f64>) -> (Array2<f64>, f64, f64) {
    let h = tanh(&(x.dot(w) + b));
    let m = mean(&h);
    (h, m, sum(&square(w)))
}

#[test]
fn array_and_two_scalars() {
    let mut seed = 16;
    let (w, b, x) = (
        random((3, 2), &mut seed),
        random(2, &mut seed),
        random((4, 3), &mut seed),
    );
    let d_h = random((4, 2), &mut seed);
    let up = (&d_h, 0.3, -0.8);
    let ((h, m, p), g) = layer_backward(&w, &b, &x, up);
    let (h0, m0, p0) = layer(&w, &b, &x);
    assert_eq!(h, h0);
    assert_eq!((m.to_bits(), p.to_bits()), (m0.to_bits(), p0.to_bits()));
    // By hand: ∂h = d_h + d_m / n, through tanh, then the affine map; the
    // penalty adds 2 d_p w.
    let n = h.len() as f64;
    let d_z = (&d_h + up.1 / n) * h.mapv(|v| 1.0 - v * v);
    let want_w = x.t().dot(&d_z) + &w * (2.0 * up.2);
    let want_b = d_z.sum_axis(Axis(0));
    for (got, want) in g.w.iter().zip(&want_w) {
        assert_close!(*got, *want, "∂w");
    }
    for (got, want) in g.b.iter().zip(&want_b) {
        assert_close!(*got, *want, "∂b");
    }
    GradCheck::new()
        .upstream(&up)
        .check(&(w.clone(), b.clone(), x.clone()), |(w, b, x)| {
            layer_backward(w, b, x, up)
        })
        .unwrap();
}

/// A component that depends on no differentiable parameter: its upstream
/// is never read.
#[differentiable]
fn with_count(x: &Array1<f64>, n: usize) -> (f64, f64, f64) {
    (sum(&square(x)), n as f64, 1.0)
}

#[test]
fn constant_components() {
    let x = array![1.0, -2.0, 0.5];
    let (value, g) = with_count_backward(&x, 3, (0.5, 7.0, -1.0));
    assert_eq!(value, with_count(&x, 3));
    assert_eq!(value, (5.25, 3.0, 1.0));
    assert_eq!(g.x, &x * (2.0 * 0.5));
    GradCheck::new()
        .upstream(&(0.5, 7.0, -1.0))
        .check(&(x.clone(),), |(x,)| {
            with_count_backward(x, 3, (0.5, 7.0, -1.0))
        })
        .unwrap();
}

/// A parameter as a component, and single precision.
#[differentiable]
fn pass_through(x: f32, y: f32) -> (f32, f32) {
    (x, x * y)
}

#[test]
fn parameter_component_in_single_precision() {
    let (value, g) = pass_through_backward(1.5, -2.0, (0.5, 0.25));
    assert_eq!(value, pass_through(1.5, -2.0));
    assert_eq!(g.x, 0.5 + 0.25 * -2.0);
    assert_eq!(g.y, 0.25 * 1.5);
    GradCheck::new()
        .upstream(&(0.5_f32, 0.25_f32))
        .check(&(1.5_f32, -2.0_f32), |&(x, y)| {
            pass_through_backward(x, y, (0.5, 0.25))
        })
        .unwrap();
}

/// The check reads one upstream per component: a tuple value with a single
/// upstream, or as many as it has components but one, is reported.
#[test]
fn gradcheck_wants_one_upstream_per_component() {
    let err = GradCheck::new()
        .upstream(&0.5)
        .check(&(3.0, 4.0), |&(x, y)| cart2polar_backward(x, y, (0.5, 0.5)))
        .unwrap_err();
    assert!(
        err.to_string().contains("2 component(s) but 1 upstream(s)"),
        "{err}"
    );
    let d1 = array![1.0, 2.0, 3.0];
    let err = GradCheck::new()
        .upstream(&(&d1,))
        .check(&(d1.clone(), 1.0), |(x, s)| {
            scaled_backward(x, *s, (1.0, &d1))
        })
        .unwrap_err();
    assert!(
        err.to_string().contains("2 component(s) but 1 upstream(s)"),
        "{err}"
    );
}

/// Components made by a loop and a branch: the loop's carried array is
/// the first component, and the branch's value the second.
#[differentiable]
fn rolled(w: &Array2<f64>, h0: &Array1<f64>, c: f64) -> (Array1<f64>, f64) {
    let mut h = h0.to_owned();
    for _ in 0..3 {
        h = tanh(&w.dot(&h));
    }
    let s = if c > 0.0 { c * sum(&h) } else { sum(&h) };
    (h, s)
}

#[test]
fn loop_and_branch_components() {
    let mut seed = 21;
    let (w, h0) = (random((3, 3), &mut seed), random(3, &mut seed));
    let d_h = random(3, &mut seed);
    for c in [0.5, -0.5] {
        let (value, _) = rolled_backward(&w, &h0, c, (&d_h, 0.3));
        assert_eq!(value, rolled(&w, &h0, c));
        GradCheck::new()
            .upstream(&(&d_h, 0.3))
            .check(&(w.clone(), h0.clone(), c), |(w, h0, c)| {
                rolled_backward(w, h0, *c, (&d_h, 0.3))
            })
            .unwrap();
    }
}

/// An array component that is also a copy in another component.
#[differentiable]
fn copies(x: &Array1<f64>) -> (Array1<f64>, Array1<f64>) {
    let y = x * 2.0;
    (y.clone(), y)
}

#[test]
fn one_array_in_two_components() {
    let x = array![1.0, -0.5];
    let (d0, d1) = (array![0.5, 1.0], array![-2.0, 0.25]);
    let (value, g) = copies_backward(&x, (&d0, &d1));
    assert_eq!(value, copies(&x));
    assert_eq!(g.x, (&d0 + &d1) * 2.0);
}

/// An early return of a tuple, from a branch and from a loop: a clipped
/// running sum and the step it stopped at, with the array it summed.
#[differentiable]
fn clipped(x: &Array1<f64>, limit: f64) -> (f64, Array1<f64>) {
    if limit <= 0.0 {
        return (0.0, x * 0.0);
    }
    let mut total = 0.0;
    for i in 0..x.len() {
        total += x[i] * x[i];
        if total > limit {
            return (total, x * limit);
        }
    }
    (total, x.to_owned())
}

#[test]
fn early_returns_of_tuples() {
    let x = array![1.0, 2.0, 3.0];
    let d1 = array![0.5, -1.0, 0.25];
    // Stops at i = 1 (1 + 4 > 4): (x0² + x1², limit · x).
    let ((total, y), g) = clipped_backward(&x, 4.0, (2.0, &d1));
    assert_eq!((total, y.clone()), clipped(&x, 4.0));
    assert_eq!((total, y), (5.0, &x * 4.0));
    // ∂x = 2·2 x (first two) + limit d1; ∂limit = <x, d1>.
    assert_eq!(g.x, array![4.0 + 2.0, 8.0 - 4.0, 1.0]);
    assert_eq!(g.limit, (&x * &d1).sum());
    // Runs to the end: (Σ x², x).
    let ((total, y), g) = clipped_backward(&x, 100.0, (2.0, &d1));
    assert_eq!((total, y.clone()), (14.0, x.clone()));
    assert_eq!(g.x, &x * 4.0 + &d1);
    assert_eq!(g.limit, 0.0);
    // The first return: nothing depends on x or the limit.
    let (value, g) = clipped_backward(&x, -1.0, (2.0, &d1));
    assert_eq!(value, clipped(&x, -1.0));
    assert_eq!(g.x, array![0.0, 0.0, 0.0]);
    for limit in [4.0, 100.0] {
        GradCheck::new()
            .upstream(&(2.0, &d1))
            .check(&(x.clone(), limit), |(x, l)| {
                clipped_backward(x, *l, (2.0, &d1))
            })
            .unwrap();
    }
}

/// A tuple written out and bound to a name: read by its components, and
/// returned early whole (formerly rejected).
#[differentiable]
fn named_pair(x: f64, y: f64) -> (f64, f64) {
    let t = (x * y, y);
    if x > 1.0 {
        return t;
    }
    let pair = (x * 2.0, t.1);
    (pair.0 + pair.1, t.0)
}

#[test]
fn a_tuple_bound_to_a_name_read_and_returned() {
    for (x, y) in [(2.0, 3.0), (0.5, -1.5)] {
        let (v, g) = named_pair_backward(x, y, (1.0, 1.0));
        assert_eq!(v, named_pair(x, y));
        if x > 1.0 {
            assert_eq!(v, (x * y, y));
            assert_eq!((g.x, g.y), (y, x + 1.0));
        } else {
            assert_eq!(v, (2.0 * x + y, x * y));
            assert_eq!((g.x, g.y), (2.0 + y, 1.0 + x));
        }
        gradcheck(&(x, y), |&(x, y)| named_pair_backward(x, y, (1.0, 1.0))).unwrap();
    }
}
