//! Second order: `#[differentiable(jvp)]` and `#[differentiable(hvp)]`.
//! Every HVP is checked by `hvpcheck` (central differences of the
//! gradient) and, where the Hessian is known in closed form, against it;
//! every JVP against central differences of the value.

use backprop::prelude::*;
use backprop_testkit::networks::{
    network, network_backward, network_hvp, two_heads_backward, two_heads_hvp,
};
use backprop_testkit::random;

/// The Rosenbrock function in n dimensions, written with a loop.
#[differentiable(hvp)]
fn rosenbrock(x: &Array1<f64>) -> f64 {
    let mut s = 0.0;
    for i in 0..x.len() - 1 {
        let a = 1.0 - x[i];
        let b = x[i + 1] - x[i] * x[i];
        s += a * a + 100.0 * b * b;
    }
    s
}

/// Rosenbrock's Hessian, by hand.
fn rosenbrock_hessian(x: &Array1<f64>) -> Array2<f64> {
    let n = x.len();
    let mut h = Array2::zeros((n, n));
    for i in 0..n - 1 {
        h[[i, i]] += 2.0 - 400.0 * (x[i + 1] - 3.0 * x[i] * x[i]);
        h[[i, i + 1]] -= 400.0 * x[i];
        h[[i + 1, i]] -= 400.0 * x[i];
        h[[i + 1, i + 1]] += 200.0;
    }
    h
}

#[test]
fn rosenbrock_hvp_is_its_hessian_times_the_direction() {
    let x = array![-1.2, 1.0, 0.5, 2.0];
    let h = rosenbrock_hessian(&x);
    for k in 0..4 {
        let mut e = Array1::zeros(4);
        e[k] = 1.0;
        let (value, g, hv) = rosenbrock_hvp(&x, &e);
        let (v0, g0) = rosenbrock_backward(&x, 1.0);
        assert_eq!(value, v0);
        assert_eq!(g.x, g0.x);
        for i in 0..4 {
            assert!(
                (hv.x[i] - h[[i, k]]).abs() <= 1e-12 * h[[i, k]].abs().max(1.0),
                "H[{i}, {k}] = {} against {}",
                hv.x[i],
                h[[i, k]]
            );
        }
    }
    let v = array![0.3, -0.2, 1.0, 0.7];
    hvpcheck(&(x.clone(),), &(v.clone(),), |(x,), (v,)| {
        rosenbrock_hvp(x, v)
    })
    .unwrap();
    // The JVP is the gradient along the direction.
    let (value, t) = rosenbrock_jvp(&x, &v);
    assert_eq!(value, rosenbrock(&x));
    let (_, g) = rosenbrock_backward(&x, 1.0);
    assert!((t - g.x.dot(&v)).abs() < 1e-10);
}

/// A quadratic form `½ xᵀ A x + bᵀ x` whose Hessian is `(A + Aᵀ)/2`... times 2:
/// the Hessian of `½ xᵀ A x` is `(A + Aᵀ) / 2`.
#[differentiable(hvp, wrt(x))]
fn quadratic(x: &Array1<f64>, a: &Array2<f64>, b: &Array1<f64>) -> f64 {
    0.5 * x.dot(&a.dot(x)) + b.dot(x)
}

#[test]
fn a_quadratic_has_its_constant_hessian() {
    let mut seed = 3;
    let a: Array2<f64> = random((5, 5), &mut seed);
    let b: Array1<f64> = random(5, &mut seed);
    let x: Array1<f64> = random(5, &mut seed);
    let v: Array1<f64> = random(5, &mut seed);
    let (_, _, hv) = quadratic_hvp(&x, &a, &b, &v);
    let exact = (&a + &a.t()).dot(&v) * 0.5;
    for (h, e) in hv.x.iter().zip(&exact) {
        assert!((h - e).abs() < 1e-14, "{h} against {e}");
    }
    // The same at any other point.
    let (_, _, hv2) = quadratic_hvp(&(&x * 3.0 - 1.0), &a, &b, &v);
    for (h, e) in hv2.x.iter().zip(&exact) {
        assert!((h - e).abs() < 1e-14);
    }
}

/// A loss over a batch: broadcasting, softmax cross-entropy, logsumexp,
/// a mean square error, in one function.
#[differentiable(hvp, wrt(w, b))]
fn classifier(
    w: &Array2<f64>,
    b: &Array1<f64>,
    x: &Array2<f64>,
    labels: &[usize],
    y: &Array2<f64>,
) -> f64 {
    let z = x.dot(w) + b;
    let h = z.mapv(|v| v.tanh());
    softmax_cross_entropy(&h, labels) + mse(&z, y) * 0.1 + logsumexp(&h.sum_axis(Axis(0))) * 0.01
}

#[test]
fn a_classifier_hvp_passes_hvpcheck() {
    let mut seed = 11;
    let w: Array2<f64> = random((3, 4), &mut seed);
    let b: Array1<f64> = random(4, &mut seed);
    let x: Array2<f64> = random((6, 3), &mut seed);
    let y: Array2<f64> = random((6, 4), &mut seed);
    let labels = [0, 3, 1, 2, 2, 0];
    let (dw, db) = (random((3, 4), &mut seed), random(4, &mut seed));
    let f = |(w, b): &(Array2<f64>, Array1<f64>), (dw, db): &(Array2<f64>, Array1<f64>)| {
        classifier_hvp(w, b, &x, &labels, &y, dw, db)
    };
    hvpcheck(&(w.clone(), b.clone()), &(dw.clone(), db.clone()), f).unwrap();
    let (value, g, _) = f(&(w.clone(), b.clone()), &(dw.clone(), db.clone()));
    let (v0, g0) = classifier_backward(&w, &b, &x, &labels, &y, 1.0);
    assert!((value - v0).abs() <= 1e-14 * v0.abs());
    for (a, e) in g.w.iter().zip(&g0.w) {
        assert!((a - e).abs() <= 1e-13);
    }
}

/// A branch, a `while` loop and an early return.
#[differentiable(hvp)]
fn control(x: f64, y: f64) -> f64 {
    if x > 2.0 {
        return x * y * y;
    }
    let mut a = x * y;
    let mut k = 0;
    while k < 3 {
        a = (a * 0.5).sin() + y;
        k += 1;
    }
    a * x
}

#[test]
fn control_flow_hvp_passes_hvpcheck() {
    for (x, y) in [(0.7, -0.4), (2.5, 1.5)] {
        for d in [(1.0, 0.0), (0.0, 1.0), (0.6, -0.8)] {
            hvpcheck(&(x, y), &d, |&(x, y), &(dx, dy)| control_hvp(x, y, dx, dy)).unwrap();
        }
    }
    // x y² past the branch: ∂²/∂x∂y = 2y, ∂²/∂y² = 2x.
    let (_, _, hv) = control_hvp(2.5, 1.5, 0.0, 1.0);
    assert_eq!((hv.x, hv.y), (3.0, 5.0));
}

/// A call of another `hvp` function, twice (the fork rule at second order).
#[differentiable(hvp)]
fn softplus_sum(v: &Array1<f64>) -> f64 {
    v.mapv(|a| (1.0 + a.exp()).ln()).sum()
}

#[differentiable(hvp, wrt(w))]
fn calls(w: &Array1<f64>, x: &Array1<f64>) -> f64 {
    let u = w * x;
    softplus_sum(&u) * softplus_sum(&(&u * 2.0)) + rosenbrock(w)
}

#[test]
fn calls_between_hvp_functions() {
    let w = array![0.3, -0.5, 0.8];
    let x = array![1.5, 0.25, -2.0];
    for d in [array![1.0, 0.0, 0.0], array![0.2, 0.4, -0.6]] {
        hvpcheck(&(w.clone(),), &(d.clone(),), |(w,), (d,)| {
            calls_hvp(w, &x, d)
        })
        .unwrap();
    }
}

/// A function with a hand-written adjoint rule, both generic over the float
/// type: `#[adjoint(.., hvp)]` gives its second order by forward mode
/// through the rule.
fn logcosh<T: backprop::Float>(x: T) -> T {
    x.abs() + (T::from_f64(-2.0) * x.abs()).exp().ln_1p() - T::LN_2()
}

#[adjoint(logcosh, hvp)]
fn logcosh_rule<T: backprop::Float>(x: T, d_out: T) -> T {
    d_out * x.tanh()
}

#[differentiable(hvp)]
fn smooth(x: f64, y: f64) -> f64 {
    logcosh(x * y) + y * y
}

#[test]
fn an_adjoint_rule_gets_its_second_order_from_forward_mode() {
    let (x, y) = (0.8, -1.3);
    // ∂²/∂x² ln cosh(xy) = y² (1 − tanh²(xy)).
    let (_, g, hv) = smooth_hvp(x, y, 1.0, 0.0);
    let t = (x * y).tanh();
    assert!((g.x - y * t).abs() < 1e-15);
    assert!((hv.x - y * y * (1.0 - t * t)).abs() < 1e-14);
    hvpcheck(&(x, y), &(0.3, 0.9), |&(x, y), &(dx, dy)| {
        smooth_hvp(x, y, dx, dy)
    })
    .unwrap();
}

/// An array-valued function has a JVP.
#[differentiable(jvp, wrt(w))]
fn layer(w: &Array2<f64>, x: &Array1<f64>) -> Array1<f64> {
    (w.dot(x) + 0.5).mapv(|v| v.tanh())
}

#[test]
fn jvp_of_an_array_value_against_central_differences() {
    let mut seed = 5;
    let w: Array2<f64> = random((3, 4), &mut seed);
    let x: Array1<f64> = random(4, &mut seed);
    let dw: Array2<f64> = random((3, 4), &mut seed);
    let (value, t) = layer_jvp(&w, &x, &dw);
    assert_eq!(value, layer(&w, &x));
    let h = 1e-6;
    let fd = (layer(&(&w + &(&dw * h)), &x) - layer(&(&w - &(&dw * h)), &x)) / (2.0 * h);
    for (a, e) in t.iter().zip(&fd) {
        assert!((a - e).abs() < 1e-8, "{a} against {e}");
    }
}

/// `hvp` over callees that have `jvp` only (an array value, its own
/// `wrt`), or live in a module: each
/// call reaches the callee's copy over duals through its gradient struct.
#[differentiable(hvp, wrt(w, v))]
fn head(w: &Array2<f64>, v: &Array1<f64>, x: &Array1<f64>) -> f64 {
    let h = layer(w, x);
    quartic(v.dot(&h)) + shapes::bump(v[0], h[1])
}

#[differentiable(hvp)]
fn quartic(s: f64) -> f64 {
    s * s * s * s * 0.25
}

mod shapes {
    use backprop::prelude::*;

    #[differentiable(jvp)]
    pub fn bump(a: f64, b: f64) -> f64 {
        (a * b).sin() + a * a * b
    }
}

#[test]
fn hvp_through_jvp_and_module_callees() {
    let mut seed = 7;
    let w: Array2<f64> = random((3, 4), &mut seed);
    let v: Array1<f64> = random(3, &mut seed);
    let x: Array1<f64> = random(4, &mut seed);
    let dw: Array2<f64> = random((3, 4), &mut seed);
    let dv: Array1<f64> = random(3, &mut seed);
    let (value, grad, _) = head_hvp(&w, &v, &x, &dw, &dv);
    let (first, first_grad) = head_backward(&w, &v, &x, 1.0);
    assert_eq!(value, first);
    assert_eq!((grad.w, grad.v), (first_grad.w, first_grad.v));
    hvpcheck(&(w, v), &(dw, dv), |(w, v), (dw, dv)| {
        head_hvp(w, v, &x, dw, dv)
    })
    .unwrap();
    // ∂²/∂s² s⁴/4 = 3s².
    let (_, _, hv) = quartic_hvp(0.5, 1.0);
    assert_eq!(hv.s, 0.75);
}

/// Single precision: `Dual<f32>`.
#[differentiable(hvp)]
fn cubic32(x: f32, y: f32) -> f32 {
    x * x * x * y + (x * y).sin()
}

#[test]
fn single_precision_hvp() {
    let (x, y) = (0.5_f32, -1.5_f32);
    let (_, _, hv) = cubic32_hvp(x, y, 1.0, 0.0);
    // ∂²/∂x² = 6xy − y² sin(xy)
    let exact = 6.0 * x * y - y * y * (x * y).sin();
    assert!((hv.x - exact).abs() < 1e-5);
    hvpcheck(&(x, y), &(0.25, 1.0), |&(x, y), &(dx, dy)| {
        cubic32_hvp(x, y, dx, dy)
    })
    .unwrap();
}

/// The full Hessian of a function of `n` parameters, one HVP per unit
/// vector, as columns.
fn hessian(n: usize, hvp: impl Fn(&[f64]) -> Vec<f64>) -> Array2<f64> {
    let mut h = Array2::zeros((n, n));
    for k in 0..n {
        let mut e = vec![0.0; n];
        e[k] = 1.0;
        for (i, v) in hvp(&e).into_iter().enumerate() {
            h[[i, k]] = v;
        }
    }
    h
}

fn assert_symmetric(h: &Array2<f64>, tol: f64) {
    let n = h.nrows();
    for i in 0..n {
        for j in 0..i {
            assert!(
                (h[[i, j]] - h[[j, i]]).abs() <= tol,
                "H[{i}, {j}] = {} but H[{j}, {i}] = {}",
                h[[i, j]],
                h[[j, i]]
            );
        }
    }
}

#[test]
fn the_nine_parameter_network_has_a_symmetric_hessian() {
    let p = [1.0, 1.0, -3.0, 1.0, -1.0, 1.0, 1.0, -1.0, 0.0];
    let (x1, x2, y) = (1.0, 2.0, 1.0);
    let h = hessian(9, |e| {
        let (value, g, hv) = network_hvp(
            p[0], p[1], p[2], p[3], p[4], p[5], p[6], p[7], p[8], x1, x2, y, e[0], e[1], e[2],
            e[3], e[4], e[5], e[6], e[7], e[8],
        );
        assert_eq!(
            value,
            network(p[0], p[1], p[2], p[3], p[4], p[5], p[6], p[7], p[8], x1, x2, y)
        );
        let (_, g0) = network_backward(
            p[0], p[1], p[2], p[3], p[4], p[5], p[6], p[7], p[8], x1, x2, y, 1.0,
        );
        assert_eq!((g.w11, g.v1, g.c), (g0.w11, g0.v1, g0.c));
        vec![
            hv.w11, hv.w12, hv.b1, hv.w21, hv.w22, hv.b2, hv.v1, hv.v2, hv.c,
        ]
    });
    assert_symmetric(&h, 1e-12);
    // ∂²L/∂c² = σ'(u)² + (p − y) σ''(u) at the output's pre-activation u.
    let sig = |u: f64| 1.0 / (1.0 + (-u).exp());
    let (h1, h2) = (sig(1.0 + 2.0 - 3.0), sig(1.0 - 2.0 + 1.0));
    let u = h1 - h2;
    let s = sig(u);
    let ds = s * (1.0 - s);
    let exact = ds * ds + (s - y) * ds * (1.0 - 2.0 * s);
    assert!(
        (h[[8, 8]] - exact).abs() < 1e-15,
        "{} against {exact}",
        h[[8, 8]]
    );
}

#[test]
fn the_two_head_network_has_a_symmetric_hessian() {
    let mut seed = 17;
    let w1: Array2<f64> = random((3, 2), &mut seed);
    let b1: Array1<f64> = random(3, &mut seed);
    let w2: Array2<f64> = random((2, 3), &mut seed);
    let b2: Array1<f64> = random(2, &mut seed);
    let v: Array2<f64> = random((2, 3), &mut seed);
    let c: Array1<f64> = random(2, &mut seed);
    let x: Array2<f64> = random((4, 2), &mut seed);
    let y: Array2<f64> = random((4, 2), &mut seed);
    let labels = [0, 1, 1, 0];
    let sizes = [6, 3, 6, 2, 6, 2];
    let n: usize = sizes.iter().sum();
    let (_, g0) = two_heads_backward(&w1, &b1, &w2, &b2, &v, &c, &x, &labels, &y, 1.0);
    let h = hessian(n, |e| {
        let part = |k: usize, shape: &[usize]| {
            let start: usize = sizes[..k].iter().sum();
            ArrayD::from_shape_vec(shape.to_vec(), e[start..start + sizes[k]].to_vec()).unwrap()
        };
        let d2 = |k, r, c| part(k, &[r, c]).into_dimensionality::<Ix2>().unwrap();
        let d1 = |k, r| part(k, &[r]).into_dimensionality::<Ix1>().unwrap();
        let (_, g, hv) = two_heads_hvp(
            &w1,
            &b1,
            &w2,
            &b2,
            &v,
            &c,
            &x,
            &labels,
            &y,
            &d2(0, 3, 2),
            &d1(1, 3),
            &d2(2, 2, 3),
            &d1(3, 2),
            &d2(4, 2, 3),
            &d1(5, 2),
        );
        for (a, e) in g.w1.iter().zip(&g0.w1) {
            assert!((a - e).abs() <= 1e-14);
        }
        let mut column: Vec<f64> = Vec::with_capacity(n);
        column.extend(hv.w1.iter());
        column.extend(hv.b1.iter());
        column.extend(hv.w2.iter());
        column.extend(hv.b2.iter());
        column.extend(hv.v.iter());
        column.extend(hv.c.iter());
        column
    });
    assert_symmetric(&h, 1e-12);
}

/// Models as structs: a struct generic over its float type, taken as
/// `&Mlp<f64>`; its directions and its HVP are values of its own type.
#[derive(Clone, Debug, Differentiable)]
struct Dense<T: backprop::Float> {
    w: Array2<T>,
    b: Array1<T>,
}

#[derive(Clone, Debug, Differentiable)]
struct Mlp<T: backprop::Float> {
    layers: Vec<Dense<T>>,
    scale: T,
    depth: usize,
}

#[differentiable(hvp, wrt(model))]
fn mlp_loss(model: &Mlp<f64>, x: &Array2<f64>, y: &Array2<f64>) -> f64 {
    let mut h = x.to_owned();
    for layer in &model.layers {
        h = (h.dot(&layer.w) + &layer.b).mapv(|v| v.tanh());
    }
    mse(&(h * model.scale), y)
}

#[test]
fn a_model_struct_has_an_hvp_of_its_own_type() {
    let mut seed = 23;
    let dense = |i, o, seed: &mut u64| Dense {
        w: random((i, o), seed),
        b: random(o, seed),
    };
    let model = Mlp {
        layers: vec![dense(3, 4, &mut seed), dense(4, 2, &mut seed)],
        scale: 1.5,
        depth: 2,
    };
    let direction = Mlp {
        layers: vec![dense(3, 4, &mut seed), dense(4, 2, &mut seed)],
        scale: -0.5,
        depth: 2,
    };
    let x: Array2<f64> = random((5, 3), &mut seed);
    let y: Array2<f64> = random((5, 2), &mut seed);
    let (value, g, hv) = mlp_loss_hvp(&model, &x, &y, &direction);
    let (v0, g0) = mlp_loss_backward(&model, &x, &y, 1.0);
    assert!((value - v0).abs() <= 1e-15 * v0.abs());
    assert!((g.model.scale - g0.model.scale).abs() <= 1e-14);
    assert_eq!(hv.model.depth, 2);
    hvpcheck(&model, &direction, |m, d| {
        let (v, g, hv) = mlp_loss_hvp(m, &x, &y, d);
        (v, g.model, hv.model)
    })
    .unwrap();
}

/// `Σ x_i³ y_i` as a `Zip` of three arrays, `x` twice.
#[differentiable(hvp)]
fn zip_cubes(x: &Array1<f64>, y: &Array1<f64>) -> f64 {
    Zip::from(x)
        .and(x)
        .and(y)
        .map_collect(|&a, &b, &c| a * a * b * c)
        .sum()
}

#[test]
fn a_zip_of_three_arrays_to_second_order() {
    let (x, y) = (array![0.5, -1.2, 2.0], array![1.5, 0.3, -0.7]);
    let (u, w) = (array![1.0, -0.5, 0.25], array![0.3, 2.0, -1.0]);
    let (value, g, hv) = zip_cubes_hvp(&x, &y, &u, &w);
    assert_eq!(value, zip_cubes(&x, &y));
    // ∂x = 3 x² y, ∂y = x³; H (u, w): ∂x = 6 x y u + 3 x² w, ∂y = 3 x² u.
    let x2 = &x * &x;
    assert!(g
        .x
        .iter()
        .zip(&(3.0 * &x2 * &y))
        .all(|(a, b)| (a - b).abs() < 1e-14));
    assert!(g
        .y
        .iter()
        .zip(&(&x2 * &x))
        .all(|(a, b)| (a - b).abs() < 1e-14));
    let hx = 6.0 * &x * &y * &u + 3.0 * &x2 * &w;
    let hy = 3.0 * &x2 * &u;
    assert!(
        hv.x.iter().zip(&hx).all(|(a, b)| (a - b).abs() < 1e-13),
        "{} {hx}",
        hv.x
    );
    assert!(
        hv.y.iter().zip(&hy).all(|(a, b)| (a - b).abs() < 1e-13),
        "{} {hy}",
        hv.y
    );
    hvpcheck(
        &(x.clone(), y.clone()),
        &(u.clone(), w.clone()),
        |(x, y), (u, w)| zip_cubes_hvp(x, y, u, w),
    )
    .unwrap();
}
