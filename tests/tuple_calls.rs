//! Calls of differentiable functions that return a tuple, from other
//! differentiable functions: `let (r, theta) = cart2polar(x, y);` is one
//! call in the forward pass, and one call of `cart2polar_vjp` in the
//! reverse sweep, passed one upstream gradient per component (the adjoint
//! of the component, every contribution summed, or a zero where the
//! component gets no gradient). Each caller's backward returns the
//! original's value bit for bit, and gradients that agree with the closed
//! form and with central differences.

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

/// Cartesian to polar coordinates: `r = √(x² + y²)`, `θ = atan2(y, x)`;
/// `∂r/∂x = x/r`, `∂r/∂y = y/r`, `∂θ/∂x = -y/r²`, `∂θ/∂y = x/r²`.
#[differentiable]
fn cart2polar(x: f64, y: f64) -> (f64, f64) {
    (x.hypot(y), y.atan2(x))
}

/// The gradient of `f(r, θ)` with respect to `(x, y)`, from `∂f/∂r` and
/// `∂f/∂θ` at `(x, y)`.
fn chain(x: f64, y: f64, d_r: f64, d_theta: f64) -> (f64, f64) {
    let r = x.hypot(y);
    (
        d_r * x / r - d_theta * y / (r * r),
        d_r * y / r + d_theta * x / (r * r),
    )
}

const POINTS: [(f64, f64); 3] = [(3.0, 4.0), (-1.0, 0.5), (0.2, -2.0)];

/// Both components, once each.
#[differentiable]
fn area(x: f64, y: f64) -> f64 {
    let (r, theta) = cart2polar(x, y);
    r * theta
}

/// Only the radius: the angle is not bound (`_`).
#[differentiable]
fn radius_squared(x: f64, y: f64) -> f64 {
    let (r, _) = cart2polar(x, y);
    r * r
}

/// Both components, each used twice: each adjoint sums two contributions
/// (the fork rule) before the one call of `cart2polar_vjp`.
#[differentiable]
fn twice(x: f64, y: f64) -> f64 {
    let (r, theta) = cart2polar(x, y);
    r * theta + r.sin() * theta.cos()
}

/// The angle is bound and used, but does not reach the value: it gets no
/// gradient, and `cart2polar_vjp` is passed a zero for it.
#[differentiable]
fn radius_exp(x: f64, y: f64) -> f64 {
    let (r, theta) = cart2polar(x, y);
    let _ignored = theta * 3.0;
    r.exp()
}

#[test]
fn polar_coordinates_in_a_loss() {
    for (x, y) in POINTS {
        let (r, theta) = cart2polar(x, y);

        let (value, g) = area_backward(x, y, 1.0);
        assert_eq!(value.to_bits(), area(x, y).to_bits());
        let (gx, gy) = chain(x, y, theta, r);
        assert_close!(g.x, gx, "area ∂x at ({x}, {y})");
        assert_close!(g.y, gy, "area ∂y at ({x}, {y})");
        gradcheck(&(x, y), |&(x, y)| area_backward(x, y, 1.0)).unwrap();

        let (value, g) = radius_squared_backward(x, y, 1.0);
        assert_eq!(value.to_bits(), radius_squared(x, y).to_bits());
        assert_close!(g.x, 2.0 * x, "r² ∂x at ({x}, {y})");
        assert_close!(g.y, 2.0 * y, "r² ∂y at ({x}, {y})");
        gradcheck(&(x, y), |&(x, y)| radius_squared_backward(x, y, 1.0)).unwrap();

        let (value, g) = twice_backward(x, y, 0.5);
        assert_eq!(value.to_bits(), twice(x, y).to_bits());
        let d_r = 0.5 * (theta + r.cos() * theta.cos());
        let d_theta = 0.5 * (r - r.sin() * theta.sin());
        let (gx, gy) = chain(x, y, d_r, d_theta);
        assert_close!(g.x, gx, "twice ∂x at ({x}, {y})");
        assert_close!(g.y, gy, "twice ∂y at ({x}, {y})");
        GradCheck::new()
            .upstream(&0.5)
            .check(&(x, y), |&(x, y)| twice_backward(x, y, 0.5))
            .unwrap();

        let (value, g) = radius_exp_backward(x, y, 1.0);
        assert_eq!(value.to_bits(), radius_exp(x, y).to_bits());
        let (gx, gy) = chain(x, y, r.exp(), 0.0);
        assert_close!(g.x, gx, "exp(r) ∂x at ({x}, {y})");
        assert_close!(g.y, gy, "exp(r) ∂y at ({x}, {y})");
        gradcheck(&(x, y), |&(x, y)| radius_exp_backward(x, y, 1.0)).unwrap();
    }
}

/// The callee's `_vjp` takes one upstream per component, owned or borrowed,
/// and returns the gradients by parameter position.
#[test]
fn the_callee_vjp() {
    let (x, y) = (3.0, 4.0);
    let (gx, gy) = cart2polar_vjp(x, y, (0.5, -2.0));
    let (_, g) = cart2polar_backward(x, y, (0.5, -2.0));
    assert_eq!((gx, gy), (g.x, g.y));
    assert_eq!(cart2polar_vjp(x, y, (&0.5, &-2.0)), (gx, gy));

    let x = array![0.5, -1.0, 2.0];
    let d1 = array![1.0, -2.0, 0.25];
    let (gx, gs) = scaled_vjp(&x, 1.5, (0.5, &d1));
    let (_, g) = scaled_backward(&x, 1.5, (0.5, &d1));
    assert_eq!((&gx, gs), (&g.x, g.s));
    assert_eq!(scaled_vjp(&x, 1.5, (&0.5, d1.clone())), (gx, gs));
}

/// A scalar and an array: `(Σ s·x, s·x)`.
#[differentiable]
fn scaled(x: &Array1<f64>, s: f64) -> (f64, Array1<f64>) {
    let y = x * s;
    (y.sum(), y)
}

/// `T · <y, w>` of `(T, y) = scaled(z, s)`, `z = 2x` a local passed by
/// reference.
#[differentiable]
fn weighted(x: &Array1<f64>, s: f64, w: &Array1<f64>) -> f64 {
    let z = x * 2.0;
    let (total, y) = scaled(&z, s);
    total * y.dot(w)
}

/// The array component unused: a zero of its shape is passed for it.
#[differentiable]
fn total_squared(x: &Array1<f64>, s: f64) -> f64 {
    let (total, _) = scaled(x, s);
    total * total
}

/// The scalar component unused.
#[differentiable]
fn projected(x: &Array1<f64>, s: f64, w: &Array1<f64>) -> f64 {
    let (_, y) = scaled(x, s);
    y.dot(w)
}

#[test]
fn scalar_and_array_components() {
    let mut seed = 31;
    let (x, w) = (random(4, &mut seed), random(4, &mut seed));
    let s = 0.75;

    // T = s Σz, y = s z, z = 2x: ∂x = 2 (s <y, w> + T s w), ∂s = Σz <y, w> + T <z, w>, ∂w = T y.
    let (value, g) = weighted_backward(&x, s, &w, 1.0);
    assert_eq!(value.to_bits(), weighted(&x, s, &w).to_bits());
    let z = &x * 2.0;
    let (t, y) = scaled(&z, s);
    let yw = y.dot(&w);
    for k in 0..4 {
        assert_close!(g.x[k], 2.0 * (s * yw + t * s * w[k]), "weighted ∂x[{k}]");
        assert_close!(g.w[k], t * y[k], "weighted ∂w[{k}]");
    }
    assert_close!(g.s, z.sum() * yw + t * z.dot(&w), "weighted ∂s");
    gradcheck(&(x.clone(), s, w.clone()), |(x, s, w)| {
        weighted_backward(x, *s, w, 1.0)
    })
    .unwrap();

    let (value, g) = total_squared_backward(&x, s, 1.0);
    assert_eq!(value.to_bits(), total_squared(&x, s).to_bits());
    let (t, _) = scaled(&x, s);
    for k in 0..4 {
        assert_close!(g.x[k], 2.0 * t * s, "T² ∂x[{k}]");
    }
    assert_close!(g.s, 2.0 * t * x.sum(), "T² ∂s");
    gradcheck(&(x.clone(), s), |(x, s)| total_squared_backward(x, *s, 1.0)).unwrap();

    let (value, g) = projected_backward(&x, s, &w, 1.0);
    assert_eq!(value.to_bits(), projected(&x, s, &w).to_bits());
    assert_eq!(g.x, &w * s);
    assert_close!(g.s, x.dot(&w), "<y, w> ∂s");
    assert_eq!(g.w, &x * s);
    gradcheck(&(x.clone(), s, w.clone()), |(x, s, w)| {
        projected_backward(x, *s, w, 1.0)
    })
    .unwrap();
}

/// An array first, then a scalar: a layer's activations and a weight
/// penalty.
#[differentiable]
fn layer(w: &Array2<f64>, x: &Array2<f64>) -> (Array2<f64>, f64) {
    let h = tanh(&x.dot(w));
    (h, sum(&square(w)))
}

/// The caller differentiates `w` only: `x` is a constant argument.
#[differentiable(wrt(w))]
fn regularised(w: &Array2<f64>, x: &Array2<f64>, y: &Array2<f64>) -> f64 {
    let (h, penalty) = layer(w, x);
    mse(&h, y) + 0.1 * penalty
}

/// The scalar component unused.
#[differentiable]
fn activations(w: &Array2<f64>, x: &Array2<f64>) -> f64 {
    let (h, _) = layer(w, x);
    sum(&h)
}

#[test]
fn array_and_scalar_components() {
    let mut seed = 7;
    let (w, x, y) = (
        random((3, 2), &mut seed),
        random((4, 3), &mut seed),
        random((4, 2), &mut seed),
    );
    let (value, g) = regularised_backward(&w, &x, &y, 1.0);
    assert_eq!(value.to_bits(), regularised(&w, &x, &y).to_bits());
    // ∂w = xᵀ (2 (h − y) / n ⊙ (1 − h²)) + 0.2 w.
    let (h, _) = layer(&w, &x);
    let d_z = (&h - &y) * (2.0 / h.len() as f64) * h.mapv(|v| 1.0 - v * v);
    let want = x.t().dot(&d_z) + &w * 0.2;
    for (got, want) in g.w.iter().zip(&want) {
        assert_close!(*got, *want, "regularised ∂w");
    }
    gradcheck(&(w.clone(),), |(w,)| regularised_backward(w, &x, &y, 1.0)).unwrap();

    let (value, g) = activations_backward(&w, &x, 1.0);
    assert_eq!(value.to_bits(), activations(&w, &x).to_bits());
    let d_z = h.mapv(|v| 1.0 - v * v);
    for (got, want) in g.w.iter().zip(&x.t().dot(&d_z)) {
        assert_close!(*got, *want, "Σh ∂w");
    }
    for (got, want) in g.x.iter().zip(&d_z.dot(&w.t())) {
        assert_close!(*got, *want, "Σh ∂x");
    }
    gradcheck(&(w.clone(), x.clone()), |(w, x)| {
        activations_backward(w, x, 1.0)
    })
    .unwrap();
}

/// A call in a loop that carries both arguments: each iteration's reverse
/// step calls `cart2polar_vjp` with the arguments it kept.
#[differentiable]
fn spiral(x: f64, y: f64, n: usize) -> f64 {
    let mut a = x;
    let mut b = y;
    let mut total = 0.0;
    for _ in 0..n {
        let (r, theta) = cart2polar(a, b);
        total += r;
        a = r * theta.cos() * 0.9;
        b = r * theta.sin() * 0.9 + 0.1;
    }
    total + a * b
}

/// In a loop, a component that gets no gradient: its value is kept for
/// the zero each iteration passes.
#[differentiable]
fn radii(x: f64, y: f64, n: usize) -> f64 {
    let mut a = x;
    let mut total = 0.0;
    for i in 0..n {
        let (r, theta) = cart2polar(a, y);
        let _unused = theta * 2.0;
        total += r * (i as f64 + 1.0);
        a = r * 0.5;
    }
    total
}

/// One step of a recurrence returning its state's mean and the state.
#[differentiable]
fn step(w: &Array2<f64>, h: &Array1<f64>) -> (f64, Array1<f64>) {
    let z = tanh(&w.dot(h));
    (mean(&z), z)
}

/// A carried array passed to the call and replaced by its array component.
#[differentiable]
fn rolled(w: &Array2<f64>, h0: &Array1<f64>, n: usize) -> f64 {
    let mut h = h0.to_owned();
    let mut acc = 0.0;
    for _ in 0..n {
        let (m, next) = step(w, &h);
        acc += m;
        h = next;
    }
    acc + sum(&h)
}

#[test]
fn calls_in_loops() {
    for (x, y) in POINTS {
        for n in [0, 1, 4] {
            let (value, _) = spiral_backward(x, y, n, 1.0);
            assert_eq!(value.to_bits(), spiral(x, y, n).to_bits());
            gradcheck(&(x, y), |&(x, y)| spiral_backward(x, y, n, 1.0)).unwrap();
        }
    }
    // radii: r_i = |a_i, y|, a_{i+1} = r_i / 2; after one step, ∂x = x / r.
    let (value, g) = radii_backward(3.0, 4.0, 1, 1.0);
    assert_eq!(value, radii(3.0, 4.0, 1));
    assert_close!(g.x, 3.0 / 5.0, "one radius ∂x");
    assert_close!(g.y, 4.0 / 5.0, "one radius ∂y");
    for (x, y) in POINTS {
        let (value, _) = radii_backward(x, y, 3, 1.0);
        assert_eq!(value.to_bits(), radii(x, y, 3).to_bits());
        gradcheck(&(x, y), |&(x, y)| radii_backward(x, y, 3, 1.0)).unwrap();
    }

    let mut seed = 5;
    let (w, h0) = (random((3, 3), &mut seed), random(3, &mut seed));
    for n in [0, 1, 3] {
        let (value, g) = rolled_backward(&w, &h0, n, 1.0);
        assert_eq!(value.to_bits(), rolled(&w, &h0, n).to_bits());
        if n == 0 {
            assert_eq!(g.h0, Array1::ones(3));
            assert_eq!(g.w, Array2::zeros((3, 3)));
        }
        gradcheck(&(w.clone(), h0.clone()), |(w, h0)| {
            rolled_backward(w, h0, n, 1.0)
        })
        .unwrap();
    }
}

/// A call in a `while` loop, one component reassigned after the call.
#[differentiable]
fn halvings(x: f64, y: f64) -> f64 {
    let mut a = x;
    let mut k = 0;
    while k < 3 {
        let (mut r, theta) = cart2polar(a, y);
        r *= 0.5;
        a = r + theta;
        k += 1;
    }
    a
}

/// A call in a closure mapped over an array, whose body is differentiated
/// as a scalar function: `f(v) = r θ` of `(r, θ) = cart2polar(v, 1)`.
#[differentiable]
fn mapped(x: &Array1<f64>) -> f64 {
    let z = x.mapv(|v| {
        let (r, theta) = cart2polar(v, 1.0);
        r * theta
    });
    z.sum()
}

#[test]
fn calls_in_while_loops_and_closures() {
    for (x, y) in POINTS {
        let (value, _) = halvings_backward(x, y, 1.0);
        assert_eq!(value.to_bits(), halvings(x, y).to_bits());
        gradcheck(&(x, y), |&(x, y)| halvings_backward(x, y, 1.0)).unwrap();
    }
    let x = array![0.5, -1.5, 2.0];
    let (value, g) = mapped_backward(&x, 1.0);
    assert_eq!(value.to_bits(), mapped(&x).to_bits());
    for k in 0..3 {
        let (r, theta) = cart2polar(x[k], 1.0);
        let (want, _) = chain(x[k], 1.0, theta, r);
        assert_close!(g.x[k], want, "mapped ∂x[{k}]");
    }
    gradcheck(&(x.clone(),), |(x,)| mapped_backward(x, 1.0)).unwrap();
}

/// A call in one arm of a branch.
#[differentiable]
fn branchy(x: f64, y: f64) -> f64 {
    if x > 0.0 {
        let (r, theta) = cart2polar(x, y);
        r * theta
    } else {
        x * y
    }
}

/// A call in each arm of a `match`, binding different components.
#[differentiable]
fn by_mode(x: f64, y: f64, mode: u8) -> f64 {
    match mode {
        0 => {
            let (r, _) = cart2polar(x, y);
            r
        }
        1 => {
            let (_, theta) = cart2polar(x, y);
            theta
        }
        _ => {
            let (r, theta) = cart2polar(x, y);
            r + theta * theta
        }
    }
}

#[test]
fn calls_in_branches() {
    for (x, y) in POINTS {
        let (r, theta) = cart2polar(x, y);
        let (value, g) = branchy_backward(x, y, 1.0);
        assert_eq!(value.to_bits(), branchy(x, y).to_bits());
        let (gx, gy) = if x > 0.0 {
            chain(x, y, theta, r)
        } else {
            (y, x)
        };
        assert_close!(g.x, gx, "branch ∂x at ({x}, {y})");
        assert_close!(g.y, gy, "branch ∂y at ({x}, {y})");
        gradcheck(&(x, y), |&(x, y)| branchy_backward(x, y, 1.0)).unwrap();

        for (mode, d_r, d_theta) in [(0, 1.0, 0.0), (1, 0.0, 1.0), (2, 1.0, 2.0 * theta)] {
            let (value, g) = by_mode_backward(x, y, mode, 1.0);
            assert_eq!(value.to_bits(), by_mode(x, y, mode).to_bits());
            let (gx, gy) = chain(x, y, d_r, d_theta);
            assert_close!(g.x, gx, "mode {mode} ∂x at ({x}, {y})");
            assert_close!(g.y, gy, "mode {mode} ∂y at ({x}, {y})");
            gradcheck(&(x, y), |&(x, y)| by_mode_backward(x, y, mode, 1.0)).unwrap();
        }
    }
}

/// A tuple function that calls a tuple function, and gives one of its
/// components back as its own.
#[differentiable]
fn scaled_polar(x: f64, y: f64, k: f64) -> (f64, f64) {
    let (r, theta) = cart2polar(x, y);
    (k * r, theta)
}

/// Its caller.
#[differentiable]
fn nested(x: f64, y: f64, k: f64) -> f64 {
    let (kr, theta) = scaled_polar(x, y, k);
    kr * theta
}

/// Components given back in another order, one of them twice.
#[differentiable]
fn swapped(x: f64, y: f64) -> (f64, f64, f64) {
    let (r, theta) = cart2polar(x, y);
    (theta, r, theta)
}

#[test]
fn nested_calls() {
    for (x, y) in POINTS {
        let k = 1.5;
        let (r, theta) = cart2polar(x, y);
        let up = (0.5, -2.0);
        let (value, g) = scaled_polar_backward(x, y, k, up);
        assert_eq!(value, scaled_polar(x, y, k));
        let (gx, gy) = chain(x, y, up.0 * k, up.1);
        assert_close!(g.x, gx, "scaled polar ∂x");
        assert_close!(g.y, gy, "scaled polar ∂y");
        assert_close!(g.k, up.0 * r, "scaled polar ∂k");
        GradCheck::new()
            .upstream(&up)
            .check(&(x, y, k), |&(x, y, k)| scaled_polar_backward(x, y, k, up))
            .unwrap();

        let (value, g) = nested_backward(x, y, k, 1.0);
        assert_eq!(value.to_bits(), nested(x, y, k).to_bits());
        let (gx, gy) = chain(x, y, k * theta, k * r);
        assert_close!(g.x, gx, "nested ∂x");
        assert_close!(g.y, gy, "nested ∂y");
        assert_close!(g.k, r * theta, "nested ∂k");
        gradcheck(&(x, y, k), |&(x, y, k)| nested_backward(x, y, k, 1.0)).unwrap();

        let up = (0.25, -1.0, 3.0);
        let (value, g) = swapped_backward(x, y, up);
        assert_eq!(value, swapped(x, y));
        let (gx, gy) = chain(x, y, up.1, up.0 + up.2);
        assert_close!(g.x, gx, "swapped ∂x");
        assert_close!(g.y, gy, "swapped ∂y");
        GradCheck::new()
            .upstream(&up)
            .check(&(x, y), |&(x, y)| swapped_backward(x, y, up))
            .unwrap();
    }
}

/// Single precision.
#[differentiable]
fn polar32(x: f32, y: f32) -> (f32, f32) {
    (x.hypot(y), y.atan2(x))
}

#[differentiable]
fn area32(x: f32, y: f32) -> f32 {
    let (r, theta) = polar32(x, y);
    let (_, again) = polar32(theta, r);
    r * theta + again
}

#[test]
fn single_precision() {
    for (x, y) in [(3.0_f32, 4.0_f32), (-1.0, 0.5)] {
        let (value, g) = area32_backward(x, y, 1.0);
        assert_eq!(value.to_bits(), area32(x, y).to_bits());
        // With `again` = atan2(r, θ): ∂/∂r = θ / (r² + θ²) and ∂/∂θ = -r / (r² + θ²).
        let (r, theta) = polar32(x, y);
        let q = r * r + theta * theta;
        let (d_r, d_theta) = (theta + theta / q, r - r / q);
        let (gx, gy) = chain(
            f64::from(x),
            f64::from(y),
            f64::from(d_r),
            f64::from(d_theta),
        );
        assert!(
            (f64::from(g.x) - gx).abs() < 1e-5 * gx.abs().max(1.0),
            "∂x {} by hand {gx}",
            g.x
        );
        assert!(
            (f64::from(g.y) - gy).abs() < 1e-5 * gy.abs().max(1.0),
            "∂y {} by hand {gy}",
            g.y
        );
        gradcheck(&(x, y), |&(x, y)| area32_backward(x, y, 1.0)).unwrap();
    }
}

/// A function the macro does not see into that returns a tuple, with its
/// rule written by hand: `d_out` has one upstream per component, here a
/// float and an array by reference.
fn norm_and_unit(v: &Array1<f64>) -> (f64, Array1<f64>) {
    let n = v.dot(v).sqrt();
    (n, v / n)
}

/// `∂n/∂v = u`; `∂u/∂v = (I − u uᵀ) / n`, so `∂v = d_n u + (d_u − (d_u·u) u) / n`.
#[adjoint(norm_and_unit)]
fn norm_and_unit_adjoint(v: &Array1<f64>, d_out: (f64, &Array1<f64>)) -> Array1<f64> {
    let (d_n, d_u) = d_out;
    let n = v.dot(v).sqrt();
    let u = v / n;
    &u * d_n + (d_u - &u * d_u.dot(&u)) / n
}

#[differentiable]
fn through_a_tuple_rule(v: &Array1<f64>, w: &Array1<f64>) -> f64 {
    let (n, u) = norm_and_unit(&(v * 2.0));
    let (_, u2) = norm_and_unit(w);
    n * u.dot(w) + u2.sum()
}

#[test]
fn an_adjoint_rule_for_a_function_that_returns_a_tuple() {
    let v = array![1.0, -2.0, 0.5];
    let w = array![0.3, 0.7, -1.1];
    let (value, g) = through_a_tuple_rule_backward(&v, &w, 1.0);
    assert_eq!(value, through_a_tuple_rule(&v, &w));
    // n u = 2v, so the first term is 2 v·w: ∂v = 2w.
    for k in 0..3 {
        assert_close!(g.v[k], 2.0 * w[k], "∂v[{k}]");
    }
    gradcheck(&(v.clone(), w.clone()), |(v, w)| {
        through_a_tuple_rule_backward(v, w, 1.0)
    })
    .unwrap();
    // The rule's `_vjp` takes each component's upstream owned or borrowed.
    let (d_v,) = norm_and_unit_vjp(&v, (1.0, array![0.0, 0.0, 0.0]));
    let n = v.dot(&v).sqrt();
    assert_eq!(d_v, &v / n);
}

/// A call's tuple bound to a name, read by its components.
#[differentiable]
fn named_tuple(x: f64, y: f64) -> f64 {
    let p = cart2polar(x, y);
    let q = cart2polar(p.0, 2.0 * p.1);
    p.0 * p.1 + q.0 + q.1
}

/// A call's tuple bound to a name and returned, whole and early.
#[differentiable]
fn passed_through(x: f64, y: f64) -> (f64, f64) {
    let p = cart2polar(x * 2.0, y);
    if x > 10.0 {
        return p;
    }
    p
}

/// A tuple written out, bound to a name, read and returned.
#[differentiable]
fn written_out(x: &Array1<f64>, s: f64) -> (f64, Array1<f64>) {
    let t = (x.sum() * s, x * s);
    let total = t.0 + t.1.sum();
    (total, t.1)
}

#[test]
fn a_tuple_bound_to_a_name() {
    let (x, y) = (0.6, -0.8);
    let (v, g) = named_tuple_backward(x, y, 1.0);
    assert_eq!(v, named_tuple(x, y));
    // q is the polar form of (r, 2θ) as a point: value r θ + |(r, 2θ)| + atan2(2θ, r).
    let r = x.hypot(y);
    let theta = y.atan2(x);
    let (q0, q1) = (r.hypot(2.0 * theta), (2.0 * theta).atan2(r));
    assert_close!(v, r * theta + q0 + q1, "value");
    // ∂value/∂r and ∂value/∂θ, then through (r, θ)(x, y).
    let d_r = theta + r / q0 - 2.0 * theta / (q0 * q0);
    let d_t = r + 2.0 * 2.0 * theta / q0 + 2.0 * r / (q0 * q0);
    let (dr_dx, dr_dy) = (x / r, y / r);
    let (dt_dx, dt_dy) = (-y / (r * r), x / (r * r));
    assert_close!(g.x, d_r * dr_dx + d_t * dt_dx, "∂x");
    assert_close!(g.y, d_r * dr_dy + d_t * dt_dy, "∂y");
    gradcheck(&(x, y), |&(x, y)| named_tuple_backward(x, y, 1.0)).unwrap();

    for x in [0.5, 11.0] {
        let (v, g) = passed_through_backward(x, y, (1.0, 0.0));
        assert_eq!(v, passed_through(x, y));
        assert_close!(g.x, 2.0 * (2.0 * x) / (2.0 * x).hypot(y), "∂x of r");
        GradCheck::new()
            .upstream(&(0.3, -0.7))
            .check(&(x, y), |&(x, y)| {
                passed_through_backward(x, y, (0.3, -0.7))
            })
            .unwrap();
    }

    let xs = array![1.0, 2.0, -0.5];
    let s = 1.5;
    let dt1 = array![0.1, 0.2, 0.3];
    let (v, g) = written_out_backward(&xs, s, (1.0, &dt1));
    assert_eq!(v, written_out(&xs, s));
    // total = 2 s Σx, t.1 = s x: ∂x = 2 s + s dt1; ∂s = 2 Σx + dt1·x.
    for k in 0..3 {
        assert_close!(g.x[k], 2.0 * s + s * dt1[k], "∂x[{k}]");
    }
    assert_close!(g.s, 2.0 * 2.5 + dt1.dot(&xs), "∂s");
    GradCheck::new()
        .upstream(&(0.5, &dt1))
        .check(&(xs.clone(), s), |(x, s)| {
            written_out_backward(x, *s, (0.5, &dt1))
        })
        .unwrap();
}
