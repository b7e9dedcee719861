use backprop::prelude::*;

#[differentiable(hvp)]
fn rosenbrock(x: &Array1<f64>) -> f64 {
    let mut s = 0.0;
    for i in 0..x.len() - 1 {
        let a = 1.0 - x[i];
        let b = x[i + 1] - x[i] * x[i];
        s = s + a * a + 100.0 * b * b;
    }
    s
}

#[differentiable(hvp, wrt(a, w))]
fn small(a: f64, w: &Array1<f64>, x: &Array1<f64>) -> f64 {
    let z = w.dot(x) * a;
    z.tanh() + w.mapv(|v| v * v).sum() * 0.5
}

#[test]
fn rosenbrock_hessian() {
    let x = array![-1.2, 1.0, 0.5];
    let v = array![1.0, 0.0, 0.0];
    let (value, g, hv) = rosenbrock_hvp(&x, &v);
    assert_eq!(value, rosenbrock(&x));
    let (_, g0) = rosenbrock_backward(&x, 1.0);
    assert_eq!(g.x, g0.x);
    println!("{hv:?}");
    // d²/dx0² = 2 - 400 (x1 - 3 x0²)
    let h00 = 2.0 - 400.0 * (x[1] - 3.0 * x[0] * x[0]);
    assert!((hv.x[0] - h00).abs() < 1e-9, "{} vs {h00}", hv.x[0]);
    let (y, t) = rosenbrock_jvp(&x, &v);
    assert_eq!(y, value);
    assert!((t - g0.x[0]).abs() < 1e-12);
}

#[test]
fn small_hvp_by_differences() {
    let w = array![0.5, -1.0, 2.0];
    let x = array![1.0, 0.25, -0.5];
    let (value, g, hv) = small_hvp(0.75, &w, &x, 1.0, &array![0.0, 0.0, 0.0]);
    let (v0, g0) = small_backward(0.75, &w, &x, 1.0);
    assert_eq!(value, v0);
    assert_eq!(g.a, g0.a);
    let h = 1e-6;
    let (_, gp) = small_backward(0.75 + h, &w, &x, 1.0);
    let (_, gm) = small_backward(0.75 - h, &w, &x, 1.0);
    assert!((hv.a - (gp.a - gm.a) / (2.0 * h)).abs() < 1e-7);
}
