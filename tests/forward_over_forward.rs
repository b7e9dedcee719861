//! Forward over forward: a function generic over its float type and marked
//! `jvp` has a generic `NAME_jvp`, which runs on `Dual<f64>` as on `f64`.
//! Run on duals whose tangents are `u` (the point's) and `v` (the
//! direction's, with zero tangents of their own), its derivative's tangent
//! is the second derivative `uᵀ·H·v`. Every second derivative here is
//! checked against its closed form and against the generated `NAME_hvp`
//! (forward over reverse), every gradient by `gradcheck`, and the Hessian-
//! vector products that forward over forward assembles by `hvpcheck`.

use backprop::dual::Dual;
use backprop::prelude::*;

/// `x³`.
#[differentiable(jvp)]
fn cube<T: backprop::Float>(x: T) -> T {
    x * x * x
}

/// `sin x`.
#[differentiable(jvp)]
fn wave<T: backprop::Float>(x: T) -> T {
    x.sin()
}

/// `e^(2x)`, a literal of the float type.
#[differentiable(jvp)]
fn growth<T: backprop::Float>(x: T) -> T {
    (T::from_f64(2.0) * x).exp()
}

/// The point `x` with tangent `u`, and the direction `v` as a constant of
/// the inner derivative: the arguments of a forward-over-forward `_jvp`.
fn nest(x: f64, u: f64, v: f64) -> (Dual<f64>, Dual<f64>) {
    (Dual::new(x, u), Dual::constant(v))
}

/// `f`, `f'` and `f''` at `x` from one forward-over-forward `_jvp`, and
/// the two first derivatives it computes on the way, which must agree.
fn derivatives(jvp: impl Fn(Dual<f64>, Dual<f64>) -> (Dual<f64>, Dual<f64>), x: f64) -> [f64; 3] {
    let (p, t) = nest(x, 1.0, 1.0);
    let (value, derivative) = jvp(p, t);
    assert_eq!(value.tangent, derivative.value);
    [value.value, derivative.value, derivative.tangent]
}

fn close(a: f64, b: f64, tol: f64) -> bool {
    (a - b).abs() <= tol * b.abs().max(1.0)
}

#[test]
fn second_derivatives_of_elementary_functions_are_exact() {
    for &x in &[-1.7, -0.3, 0.0, 0.8, 2.5] {
        let [f, d, dd] = derivatives(cube_jvp, x);
        assert_eq!(f, x * x * x);
        assert!(close(d, 3.0 * x * x, 1e-15) && close(dd, 6.0 * x, 1e-15));
        let [f, d, dd] = derivatives(wave_jvp, x);
        assert!(close(f, x.sin(), 1e-15) && close(d, x.cos(), 1e-15));
        assert!(close(dd, -x.sin(), 1e-15), "sin'' at {x}: {dd}");
        let e = (2.0 * x).exp();
        let [f, d, dd] = derivatives(growth_jvp, x);
        assert!(close(f, e, 1e-15) && close(d, 2.0 * e, 1e-15));
        assert!(close(dd, 4.0 * e, 1e-15), "exp(2x)'' at {x}: {dd}");
        // The same functions on `f64`: their first order.
        let [f, d, _] = derivatives(cube_jvp, x);
        assert_eq!(cube_jvp(x, 1.0), (f, d));
        gradcheck(&(x,), |&(x,)| cube_backward(x, 1.0)).unwrap();
        gradcheck(&(x,), |&(x,)| wave_backward(x, 1.0)).unwrap();
        gradcheck(&(x,), |&(x,)| growth_backward(x, 1.0)).unwrap();
    }
}

#[test]
fn forward_over_forward_in_single_precision() {
    let (p, t) = (Dual::new(1.5_f32, 1.0), Dual::constant(1.0_f32));
    let (value, derivative) = cube_jvp(p, t);
    assert_eq!(value.value, 3.375);
    assert_eq!(derivative.value, 6.75);
    assert_eq!(derivative.tangent, 9.0);
}

/// Rosenbrock's function of two variables.
#[differentiable(hvp)]
fn rosenbrock<T: backprop::Float>(x: T, y: T) -> T {
    let a = T::one() - x;
    let b = y - x * x;
    a * a + T::from_f64(100.0) * b * b
}

/// Its Hessian, by hand.
fn rosenbrock_hessian(x: f64, y: f64) -> [[f64; 2]; 2] {
    [
        [1200.0 * x * x - 400.0 * y + 2.0, -400.0 * x],
        [-400.0 * x, 200.0],
    ]
}

#[test]
fn a_rosenbrock_hessian_entry_by_forward_over_forward() {
    let (x, y) = (-1.2, 1.0);
    let h = rosenbrock_hessian(x, y);
    let (t, s) = ([0.6, -0.8], [0.3, 1.1]);
    let (px, sx) = nest(x, t[0], s[0]);
    let (py, sy) = nest(y, t[1], s[1]);
    let (_, derivative) = rosenbrock_jvp(px, py, sx, sy);
    let exact: f64 = (0..2)
        .map(|i| (0..2).map(|j| t[i] * h[i][j] * s[j]).sum::<f64>())
        .sum();
    assert!(
        close(derivative.tangent, exact, 1e-13),
        "{} against {exact}",
        derivative.tangent
    );
    // Against forward over reverse: tᵀ·(H·s).
    let (_, _, hs) = rosenbrock_hvp(x, y, s[0], s[1]);
    assert!(close(derivative.tangent, t[0] * hs.x + t[1] * hs.y, 1e-13));
    // Every entry of the Hessian.
    let e = |k: usize, l: usize| if k == l { 1.0 } else { 0.0 };
    for (i, row) in h.iter().enumerate() {
        for (j, &exact) in row.iter().enumerate() {
            let (px, sx) = nest(x, e(i, 0), e(j, 0));
            let (py, sy) = nest(y, e(i, 1), e(j, 1));
            let (_, d) = rosenbrock_jvp(px, py, sx, sy);
            assert!(
                close(d.tangent, exact, 1e-13),
                "H[{i}][{j}] = {}",
                d.tangent
            );
        }
    }
    gradcheck(&(x, y), |&(x, y)| rosenbrock_backward(x, y, 1.0)).unwrap();
    hvpcheck(&(x, y), &(s[0], s[1]), |&(x, y), &(a, b)| {
        rosenbrock_hvp(x, y, a, b)
    })
    .unwrap();
}

/// Rosenbrock's function in n dimensions, with a loop over an array.
#[differentiable(hvp)]
fn chain<T: backprop::Float>(x: &Array1<T>) -> T {
    let mut s = T::zero();
    for i in 0..x.len() - 1 {
        let a = T::one() - x[i];
        let b = x[i + 1] - x[i] * x[i];
        s += a * a + T::from_f64(100.0) * b * b;
    }
    s
}

/// An array of duals: values `x`, tangents `t`.
fn duals(x: &Array1<f64>, t: &Array1<f64>) -> Array1<Dual<f64>> {
    Zip::from(x).and(t).map_collect(|&x, &t| Dual::new(x, t))
}

/// `H·d` of [`chain`] by forward over forward, one unit vector `eᵢ` of
/// the point's tangent at a time (`eᵢᵀ·H·d`), with the gradient (`∇f·eᵢ`)
/// that the same runs compute: the shape of `chain_hvp`'s answer.
fn chain_ff_hvp(x: &Array1<f64>, d: &Array1<f64>) -> (f64, ChainGrad<f64>, ChainGrad<f64>) {
    let n = x.len();
    let (mut g, mut hd) = (Array1::zeros(n), Array1::zeros(n));
    let mut value = 0.0;
    for i in 0..n {
        let mut e = Array1::zeros(n);
        e[i] = 1.0;
        let (v, t) = chain_jvp(&duals(x, &e), &d.mapv(Dual::constant));
        value = v.value;
        g[i] = v.tangent;
        hd[i] = t.tangent;
    }
    (value, ChainGrad { x: g }, ChainGrad { x: hd })
}

#[test]
fn an_array_function_hessian_by_forward_over_forward() {
    let x = array![-1.2, 1.0, 0.5, 2.0];
    let d = array![0.3, -0.2, 1.0, 0.7];
    let (value, g, hd) = chain_ff_hvp(&x, &d);
    let (value_r, g_r, hd_r) = chain_hvp(&x, &d);
    assert_eq!(value, value_r);
    for i in 0..4 {
        assert!(close(g.x[i], g_r.x[i], 1e-13), "∂f/∂x{i}");
        assert!(
            close(hd.x[i], hd_r.x[i], 1e-13),
            "(H·d)[{i}]: {} against {}",
            hd.x[i],
            hd_r.x[i]
        );
    }
    hvpcheck(&(x.clone(),), &(d.clone(),), |(x,), (d,)| {
        chain_ff_hvp(x, d)
    })
    .unwrap();
    gradcheck(&(x.clone(),), |(x,)| chain_backward(x, 1.0)).unwrap();
}

/// `½ xᵀ·A·x + sin(b·x)`: matrix products of duals of duals.
#[differentiable(jvp, wrt(x))]
fn quadratic<T: backprop::Float>(a: &Array2<T>, b: &Array1<T>, x: &Array1<T>) -> T {
    x.dot(&a.dot(x)) * T::from_f64(0.5) + b.dot(x).sin()
}

#[test]
fn a_quadratic_form_hessian_by_forward_over_forward() {
    let a = array![[2.0, 0.5, -1.0], [0.3, 1.0, 0.2], [-0.4, 0.8, 3.0]];
    let b = array![0.5, -0.25, 1.0];
    let x = array![0.7, -1.1, 0.4];
    let s = f64::sin(b.dot(&x));
    let a_c = a.mapv(Dual::constant);
    let b_c = b.mapv(Dual::constant);
    for i in 0..3 {
        for j in 0..3 {
            let (mut e_i, mut e_j) = (Array1::zeros(3), Array1::zeros(3));
            e_i[i] = 1.0;
            e_j[j] = 1.0;
            let (_, t) = quadratic_jvp(&a_c, &b_c, &duals(&x, &e_i), &e_j.mapv(Dual::constant));
            // H = (A + Aᵀ)/2 − sin(b·x)·b·bᵀ.
            let exact = 0.5 * (a[[i, j]] + a[[j, i]]) - s * b[i] * b[j];
            assert!(
                close(t.tangent, exact, 1e-13),
                "H[{i}][{j}] = {} against {exact}",
                t.tangent
            );
        }
    }
    gradcheck(&(x.clone(),), |(x,)| quadratic_backward(&a, &b, x, 1.0)).unwrap();
}

/// A generic `jvp` function calling another: the copies call each other.
#[differentiable(jvp)]
fn cube_of_wave<T: backprop::Float>(x: T) -> T {
    cube(wave(x))
}

#[test]
fn calls_between_generic_jvp_functions() {
    for &x in &[-0.9, 0.0, 0.4, 2.0] {
        let [f, d, dd] = derivatives(cube_of_wave_jvp, x);
        let (s, c) = x.sin_cos();
        assert!(close(f, s * s * s, 1e-15));
        assert!(close(d, 3.0 * s * s * c, 1e-14));
        // (3 s² c)' = 6 s c² − 3 s³.
        assert!(
            close(dd, 6.0 * s * c * c - 3.0 * s * s * s, 1e-14),
            "at {x}: {dd}"
        );
        gradcheck(&(x,), |&(x,)| cube_of_wave_backward(x, 1.0)).unwrap();
    }
}
