//! Plain Rust data as differentiable values: `&[f64]`, `&Vec<f64>`,
//! `Vec<f64>`, `[f64; N]`, `&[f64; N]`, `[[f64; M]; N]` as parameters (of
//! `f64`, `f32` and a generic float), locals made in the body (`vec![0.0;
//! n]`, `[0.0; 3]`, `[a, b]`), values returned (`-> Vec<f64>`, `-> [f64;
//! 3]`), read by index, `len()`, `iter()`, `enumerate`, `zip`, `windows`,
//! `chunks`, `map`/`fold`/`sum`/`product`, `copied()`, `for &xi in x`,
//! sub-slices, and written by index; in loops, branches, closures and
//! calls. Each function is checked against its derivative by hand,
//! `gradcheck`, forward mode against reverse mode (`jvpcheck`), and its
//! `hvp` where it has one.

use backprop::prelude::*;
use backprop_testkit::rosenbrock_gradient;

/// The classic Rosenbrock function over a slice.
#[differentiable(hvp)]
fn rosenbrock(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..x.len() - 1 {
        s += 100.0 * (x[i + 1] - x[i] * x[i]).powi(2) + (1.0 - x[i]).powi(2);
    }
    s
}

#[test]
fn rosenbrock_over_a_slice() {
    let x = vec![-1.2, 1.0, 0.5, 2.0];
    let (v, g) = rosenbrock_backward(&x, 1.0);
    assert_eq!(v, rosenbrock(&x));
    for (a, b) in g.x.iter().zip(rosenbrock_gradient(&x)) {
        assert!((a - b).abs() <= 1e-12 * b.abs().max(1.0), "{a} against {b}");
    }
    gradcheck(&(x.clone(),), |(x,)| rosenbrock_backward(x, 1.0)).unwrap();
    let dir = vec![0.3, -0.2, 1.0, 0.7];
    jvpcheck(
        &(x.clone(),),
        &(dir.clone(),),
        |(x,)| rosenbrock_backward(x, 1.0),
        |(x,), (t,)| rosenbrock_jvp(x, t),
    )
    .unwrap();
    hvpcheck(&(x.clone(),), &(dir,), |(x,), (t,)| rosenbrock_hvp(x, t)).unwrap();
}

/// The least-squares loss of a line, the most idiomatic Rust for it: the
/// data are constant slices (`wrt` names the line).
#[differentiable(hvp, wrt(w, b))]
fn linear_fit(w: f64, b: f64, xs: &[f64], ys: &[f64]) -> f64 {
    xs.iter()
        .zip(ys)
        .map(|(x, y)| (w * x + b - y).powi(2))
        .sum::<f64>()
        / xs.len() as f64
}

#[test]
fn a_least_squares_fit_over_constant_slices() {
    let xs = [0.0, 1.0, 2.0, 3.0];
    let ys = [1.1, 2.9, 5.2, 6.8];
    let (w, b) = (1.5, 0.5);
    let n = xs.len() as f64;
    let r: Vec<f64> = xs.iter().zip(&ys).map(|(x, y)| w * x + b - y).collect();
    let dw: f64 = r.iter().zip(&xs).map(|(r, x)| 2.0 * r * x).sum::<f64>() / n;
    let db: f64 = r.iter().map(|r| 2.0 * r).sum::<f64>() / n;
    let (v, g) = linear_fit_backward(w, b, &xs, &ys, 1.0);
    assert_eq!(v, linear_fit(w, b, &xs, &ys));
    assert!((g.w - dw).abs() < 1e-12 && (g.b - db).abs() < 1e-12);
    gradcheck(&(w, b), |&(w, b)| linear_fit_backward(w, b, &xs, &ys, 1.0)).unwrap();
    jvpcheck(
        &(w, b),
        &(0.5, -1.0),
        |&(w, b)| linear_fit_backward(w, b, &xs, &ys, 1.0),
        |&(w, b), &(tw, tb)| linear_fit_jvp(w, b, &xs, &ys, tw, tb),
    )
    .unwrap();
    // The Hessian: [[2 Σx²/n, 2 Σx/n], [2 Σx/n, 2]].
    let (_, _, h) = linear_fit_hvp(w, b, &xs, &ys, 1.0, 0.0);
    let sx2: f64 = xs.iter().map(|x| x * x).sum();
    assert!(
        (h.w - 2.0 * sx2 / n).abs() < 1e-12
            && (h.b - 2.0 * xs.iter().sum::<f64>() / n).abs() < 1e-12
    );
}

/// Every container type as a parameter.
#[allow(clippy::ptr_arg, reason = "`&Vec<f64>` is one of the forms tested")]
#[differentiable(hvp)]
fn containers(a: &Vec<f64>, b: Vec<f64>, c: [f64; 2], d: &[f64; 3], m: [[f64; 2]; 2]) -> f64 {
    let mut s = a[0] * b[1] + c[0] * c[1] * d[2];
    for i in 0..2 {
        for j in 0..2 {
            s += m[i][j] * c[i] * c[j];
        }
    }
    s + a.len() as f64 * d[0] + b.iter().sum::<f64>()
}

/// The parameters of `containers`, as `gradcheck` takes them.
type Containers = (Vec<f64>, Vec<f64>, [f64; 2], [f64; 3], [[f64; 2]; 2]);

#[test]
fn every_container_as_a_parameter() {
    let (a, b, c, d, m) = (
        vec![0.5, -1.0],
        vec![2.0, 0.25],
        [1.5, -0.5],
        [0.1, 0.2, 0.3],
        [[1.0, 2.0], [3.0, 4.0]],
    );
    let (v, g) = containers_backward(&a, b.clone(), c, &d, m, 1.0);
    assert_eq!(v, containers(&a, b.clone(), c, &d, m));
    assert_eq!(g.a, vec![b[1], 0.0]);
    assert_eq!(g.b, vec![1.0, a[0] + 1.0]);
    assert_eq!(g.d, [2.0, 0.0, c[0] * c[1]]);
    assert_eq!(
        g.m,
        [[c[0] * c[0], c[0] * c[1]], [c[1] * c[0], c[1] * c[1]]]
    );
    let mc = [
        c[1] * d[2] + 2.0 * m[0][0] * c[0] + (m[0][1] + m[1][0]) * c[1],
        c[0] * d[2] + 2.0 * m[1][1] * c[1] + (m[0][1] + m[1][0]) * c[0],
    ];
    assert!((g.c[0] - mc[0]).abs() < 1e-12 && (g.c[1] - mc[1]).abs() < 1e-12);
    let params = (a.clone(), b.clone(), c, d, m);
    let backward = |(a, b, c, d, m): &Containers| containers_backward(a, b.clone(), *c, d, *m, 1.0);
    gradcheck(&params, backward).unwrap();
    let dir = (
        vec![1.0, 0.5],
        vec![-0.5, 1.0],
        [0.25, 1.0],
        [1.0, -1.0, 0.5],
        [[0.5, 0.0], [1.0, -0.5]],
    );
    jvpcheck(
        &params,
        &dir,
        backward,
        |(a, b, c, d, m), (ta, tb, tc, td, tm)| {
            containers_jvp(a, b.clone(), *c, d, *m, ta, tb.clone(), *tc, td, *tm)
        },
    )
    .unwrap();
    hvpcheck(&params, &dir, |(a, b, c, d, m), (ta, tb, tc, td, tm)| {
        containers_hvp(a, b.clone(), *c, d, *m, ta, tb.clone(), *tc, td, *tm)
    })
    .unwrap();
}

/// Locals made in the body and written by index, and a container returned.
#[differentiable(jvp)]
fn cumulative(x: &[f64], k: f64) -> Vec<f64> {
    let mut y = vec![0.0; x.len()];
    let mut acc = 0.0;
    for i in 0..x.len() {
        acc += x[i] * k;
        y[i] = acc;
    }
    y
}

/// A fixed array made and returned, and a vector of floats.
#[differentiable(jvp)]
fn rotate(p: [f64; 2], theta: f64) -> [f64; 2] {
    let (s, c) = (theta.sin(), theta.cos());
    let mut q = [0.0; 2];
    q[0] = c * p[0] - s * p[1];
    q[1] = s * p[0] + c * p[1];
    q
}

/// `[a, b, c]` of differentiable floats.
#[differentiable(jvp)]
fn features(x: f64, y: f64) -> [f64; 3] {
    [x * y, x + y, x.sin()]
}

#[test]
fn containers_made_written_and_returned() {
    let x = vec![0.5, -1.0, 2.0];
    let up = vec![1.0, 0.5, -0.25];
    let (v, g) = cumulative_backward(&x, 1.5, &up);
    assert_eq!(v, cumulative(&x, 1.5));
    assert_eq!(v, vec![0.75, -0.75, 2.25]);
    // ∂/∂x_j = k Σ_{i ≥ j} up_i.
    assert_eq!(g.x, vec![1.5 * 1.25, 1.5 * 0.25, 1.5 * -0.25]);
    GradCheck::new()
        .upstream(&up)
        .check(&(x.clone(), 1.5), |(x, k)| cumulative_backward(x, *k, &up))
        .unwrap();
    GradCheck::new()
        .upstream(&up)
        .check_jvp(
            &(x.clone(), 1.5),
            &(vec![1.0, 0.0, -1.0], 0.5),
            |(x, k)| cumulative_backward(x, *k, &up),
            |(x, k), (tx, tk)| cumulative_jvp(x, *k, tx, *tk),
        )
        .unwrap();

    let up2 = [1.0, -2.0];
    let (q, g) = rotate_backward([1.0, 0.0], 0.5, &up2);
    assert_eq!(q, rotate([1.0, 0.0], 0.5));
    assert!((q[0] - 0.5f64.cos()).abs() < 1e-15 && (q[1] - 0.5f64.sin()).abs() < 1e-15);
    let (s, c) = 0.5f64.sin_cos();
    assert!((g.theta - (-s * up2[0] + c * up2[1])).abs() < 1e-15);
    GradCheck::new()
        .upstream(&up2)
        .check(&([1.0, 0.0], 0.5), |(p, t)| rotate_backward(*p, *t, &up2))
        .unwrap();
    GradCheck::new()
        .upstream(&up2)
        .check_jvp(
            &([1.0, 0.0], 0.5),
            &([0.5, 1.0], -1.0),
            |(p, t)| rotate_backward(*p, *t, &up2),
            |(p, t), (tp, tt)| rotate_jvp(*p, *t, *tp, *tt),
        )
        .unwrap();

    let up3 = [1.0, 1.0, 1.0];
    let (v, g) = features_backward(0.5, 2.0, &up3);
    assert_eq!(v, [1.0, 2.5, 0.5f64.sin()]);
    assert_eq!((g.x, g.y), (2.0 + 1.0 + 0.5f64.cos(), 0.5 + 1.0));
}

/// The walks of a slice: `enumerate`, `chunks`, `copied` with a `fold`,
/// `product`, `zip` with a `map`, `windows`, `for &xi in`.
#[allow(clippy::ptr_arg, reason = "`&Vec<f64>` is one of the forms tested")]
#[differentiable(hvp)]
fn walks(x: &[f64], ys: &Vec<f64>) -> f64 {
    let mut s = 0.0;
    for (i, &xi) in x.iter().enumerate() {
        s += xi * (i as f64 + 1.0);
    }
    for c in x.chunks(2) {
        s += c[0] * c[0];
    }
    for w in x.windows(2) {
        s += w[0] * w[1];
    }
    for &xi in x {
        s += xi.sin();
    }
    s += x.iter().copied().fold(0.0, |acc, v| acc * 0.5 + v);
    s += x.iter().product::<f64>();
    s + x.iter().zip(ys.iter()).map(|(a, b)| a * b).sum::<f64>()
}

/// Sub-slices: `&x[1..]`, `&x[..n - 1]`.
#[differentiable(hvp)]
fn differences(x: &[f64]) -> f64 {
    let n = x.len();
    x[1..]
        .iter()
        .zip(&x[..n - 1])
        .map(|(a, b)| (a - b).powi(2))
        .sum::<f64>()
}

/// A map collected into a `Vec`.
#[differentiable(jvp)]
fn scaled(x: &[f64], k: f64) -> Vec<f64> {
    x.iter().map(|v| (v * k).tanh()).collect()
}

#[test]
fn walks_sub_slices_and_collected_maps() {
    let x = vec![0.5, 1.0, 1.5];
    let ys = vec![1.0, 2.0, 3.0];
    let (v, g) = walks_backward(&x, &ys, 1.0);
    assert_eq!(v, walks(&x, &ys));
    // By hand: index weights, chunk heads, windows, sines, the fold
    // (0.25, 0.5, 1), the product, the dot.
    let by_hand = [
        1.0 + 2.0 * x[0] + x[1] + x[0].cos() + 0.25 + x[1] * x[2] + ys[0],
        2.0 + x[0] + x[2] + x[1].cos() + 0.5 + x[0] * x[2] + ys[1],
        3.0 + 2.0 * x[2] + x[1] + x[2].cos() + 1.0 + x[0] * x[1] + ys[2],
    ];
    for (a, b) in g.x.iter().zip(by_hand) {
        assert!((a - b).abs() < 1e-12, "{a} against {b}");
    }
    assert_eq!(g.ys, x);
    let dir = (vec![1.0, -0.5, 0.25], vec![0.5, 0.5, -1.0]);
    gradcheck(&(x.clone(), ys.clone()), |(x, ys)| {
        walks_backward(x, ys, 1.0)
    })
    .unwrap();
    jvpcheck(
        &(x.clone(), ys.clone()),
        &dir,
        |(x, ys)| walks_backward(x, ys, 1.0),
        |(x, ys), (tx, ty)| walks_jvp(x, ys, tx, ty),
    )
    .unwrap();
    hvpcheck(&(x.clone(), ys.clone()), &dir, |(x, ys), (tx, ty)| {
        walks_hvp(x, ys, tx, ty)
    })
    .unwrap();

    let (v, g) = differences_backward(&x, 1.0);
    assert_eq!((v, g.x.clone()), (0.5, vec![-1.0, 0.0, 1.0]));
    gradcheck(&(x.clone(),), |(x,)| differences_backward(x, 1.0)).unwrap();
    hvpcheck(&(x.clone(),), &(dir.0.clone(),), |(x,), (t,)| {
        differences_hvp(x, t)
    })
    .unwrap();

    let up = vec![1.0, -1.0, 0.5];
    let (v, _) = scaled_backward(&x, 0.7, &up);
    assert_eq!(v, scaled(&x, 0.7));
    GradCheck::new()
        .upstream(&up)
        .check(&(x.clone(), 0.7), |(x, k)| scaled_backward(x, *k, &up))
        .unwrap();
}

/// A differentiable function with container parameters called by another,
/// with a slice, a sub-slice and an array.
#[differentiable(hvp)]
fn norm2(x: &[f64]) -> f64 {
    x.iter().map(|v| v * v).sum()
}

#[differentiable(hvp)]
fn product2(p: [f64; 2]) -> f64 {
    p[0] * p[1]
}

#[differentiable(hvp)]
fn calls(x: &[f64], p: [f64; 2]) -> f64 {
    norm2(x) * 2.0 + norm2(&x[1..]) + product2(p)
}

#[test]
fn calls_of_functions_over_containers() {
    let (x, p) = (vec![1.0, 2.0, -0.5], [0.5, 1.5]);
    let (v, g) = calls_backward(&x, p, 1.0);
    assert_eq!(v, calls(&x, p));
    assert_eq!(g.x, vec![4.0, 12.0, -3.0]);
    assert_eq!(g.p, [1.5, 0.5]);
    let dir = (vec![1.0, 0.0, 0.5], [0.0, 1.0]);
    gradcheck(&(x.clone(), p), |(x, p)| calls_backward(x, *p, 1.0)).unwrap();
    hvpcheck(&(x.clone(), p), &dir, |(x, p), (tx, tp)| {
        calls_hvp(x, *p, tx, *tp)
    })
    .unwrap();
}

/// `f32` and a generic float.
#[differentiable(jvp)]
fn single(x: &[f32]) -> f32 {
    x.iter().map(|v| v * v * 0.5).sum()
}

#[differentiable(jvp)]
fn generic<T: backprop::Float>(x: &[T], w: [T; 2]) -> T {
    x[0] * w[0] + x[1] * w[1]
}

#[test]
fn single_precision_and_generic_floats() {
    let x = vec![1.0f32, -2.0];
    let (v, g) = single_backward(&x, 1.0);
    assert_eq!((v, g.x), (2.5, x.clone()));
    let (v, g) = generic_backward(&[1.0f64, 2.0], [0.5, -1.0], 1.0);
    assert_eq!((v, g.x, g.w), (-1.5, vec![0.5, -1.0], [1.0, 2.0]));
    let (v, g) = generic_backward(&[1.0f32, 2.0], [0.5, -1.0], 1.0);
    assert_eq!((v, g.x, g.w), (-1.5, vec![0.5, -1.0], [1.0, 2.0]));
}

/// Edge sizes: an empty slice and one of one element.
#[differentiable(jvp)]
fn total(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for &v in x {
        s += v * v;
    }
    s + x.iter().sum::<f64>()
}

#[test]
fn empty_and_one_element() {
    let (v, g) = total_backward(&[], 1.0);
    assert_eq!((v, g.x), (0.0, Vec::new()));
    let (v, g) = total_backward(&[1.5], 1.0);
    assert_eq!((v, g.x), (3.75, vec![4.0]));
    let (v, t) = total_jvp(&[1.5], &[2.0]);
    assert_eq!((v, t), (3.75, 8.0));
}

/// Constant data as Rust holds it, walked as Rust walks it: rows of a flat
/// slice by `chunks(3)`, zipped with the labels (the constants stay slices in
/// `_backward`; in the copy over duals they are the macro's arrays).
#[differentiable(hvp, wrt(p))]
fn rows_of_constants(p: &[f64], x: &[f64], y: &[f64]) -> f64 {
    let mut s = 0.0;
    for (row, &label) in x.chunks(3).zip(y) {
        let z = p[0] * row[0] + p[1] * row[1] + p[2] * row[2];
        s += (z - label).powi(2);
    }
    s + x.len() as f64 * p[0]
}

#[test]
fn constant_rows_by_chunks() {
    let (p, x, y) = (
        vec![0.5, -1.0, 2.0],
        vec![1.0, 2.0, 3.0, -1.0, 0.5, 0.25],
        vec![1.0, -2.0],
    );
    let (v, g) = rows_of_constants_backward(&p, &x, &y, 1.0);
    assert_eq!(v, rows_of_constants(&p, &x, &y));
    let mut by_hand = vec![6.0, 0.0, 0.0];
    for (row, label) in x.chunks(3).zip(&y) {
        let z: f64 = (0..3).map(|j| p[j] * row[j]).sum();
        for j in 0..3 {
            by_hand[j] += 2.0 * (z - label) * row[j];
        }
    }
    for (a, b) in g.p.iter().zip(&by_hand) {
        assert!((a - b).abs() <= 1e-12 * b.abs().max(1.0), "{a} against {b}");
    }
    let params = (p.clone(),);
    let dir = (vec![0.3, 1.0, -0.5],);
    gradcheck(&params, |(p,)| rows_of_constants_backward(p, &x, &y, 1.0)).unwrap();
    jvpcheck(
        &params,
        &dir,
        |(p,)| rows_of_constants_backward(p, &x, &y, 1.0),
        |(p,), (t,)| rows_of_constants_jvp(p, &x, &y, t),
    )
    .unwrap();
    hvpcheck(&params, &dir, |(p,), (t,)| {
        rows_of_constants_hvp(p, &x, &y, t)
    })
    .unwrap();
}

/// A problem struct holding its data as `Vec`s, an array, an ndarray
/// array and a float: a method differentiates its arguments (`wrt(w, b)`),
/// `self` a constant, in first and second order.
pub struct LineFit {
    xs: Vec<f64>,
    ys: Vec<f64>,
    k: f64,
    c: [f64; 2],
    m: Array1<f64>,
}

#[differentiable]
impl LineFit {
    #[differentiable(hvp, wrt(w, b))]
    fn loss(&self, w: f64, b: f64) -> f64 {
        self.xs
            .iter()
            .zip(&self.ys)
            .map(|(x, y)| (w * x + b - y).powi(2))
            .sum::<f64>()
            / self.xs.len() as f64
    }

    /// The same by index, in a loop.
    #[differentiable(hvp, wrt(w, b))]
    fn loss_by_index(&self, w: f64, b: f64) -> f64 {
        let mut s = 0.0;
        for i in 0..self.xs.len() {
            s += (w * self.xs[i] + b - self.ys[i]).powi(2);
        }
        s / self.xs.len() as f64
    }

    /// Every kind of field, in arithmetic, under functions and in a loop:
    /// `k (w² + b²) + Σᵢ cᵢ sin(w mᵢ) + cos(w b)`.
    #[differentiable(hvp, wrt(w, b))]
    fn curved(&self, w: f64, b: f64) -> f64 {
        let mut s = self.k * (w * w + b * b);
        for i in 0..2 {
            s += self.c[i] * (w * self.m[i]).sin();
        }
        s + (w * b).cos()
    }
}

#[test]
fn second_order_of_methods_of_a_constant_problem_struct() {
    let fit = LineFit {
        xs: vec![1.0, 2.0, 3.0, 4.0],
        ys: vec![2.5, 3.0, 5.5, 6.0],
        k: 0.25,
        c: [1.5, -0.5],
        m: array![0.5, 2.0],
    };
    let (w, b) = (0.75, 0.5);
    let (tw, tb) = (1.0, -0.5);
    let close = |a: f64, e: f64| (a - e).abs() <= 1e-12 * e.abs().max(1.0);
    // The mean squared error's Hessian: (2/n) [[Σx², Σx], [Σx, n]].
    let (n, sx, sxx) = (4.0, 10.0, 30.0);
    let hw = 2.0 / n * (sxx * tw + sx * tb);
    let hb = 2.0 / n * (sx * tw + n * tb);
    let (v1, g1) = fit.loss_backward(w, b, 1.0);
    let (v, g, h) = fit.loss_hvp(w, b, tw, tb);
    assert_eq!((v, g.w, g.b), (v1, g1.w, g1.b));
    assert!(close(h.w, hw) && close(h.b, hb), "{h:?} against {hw}, {hb}");
    let (v, g, h) = fit.loss_by_index_hvp(w, b, tw, tb);
    assert!(close(v, v1) && close(g.w, g1.w) && close(g.b, g1.b));
    assert!(close(h.w, hw) && close(h.b, hb), "{h:?} against {hw}, {hb}");
    let (v, g, h) = fit.curved_hvp(w, b, tw, tb);
    assert_eq!(v, fit.curved(w, b));
    let (k, c, m) = (fit.k, fit.c, &fit.m);
    let gw = 2.0 * k * w + c[0] * m[0] * (w * m[0]).cos() + c[1] * m[1] * (w * m[1]).cos()
        - b * (w * b).sin();
    let gb = 2.0 * k * b - w * (w * b).sin();
    assert!(close(g.w, gw) && close(g.b, gb));
    let hww = 2.0 * k
        - c[0] * m[0] * m[0] * (w * m[0]).sin()
        - c[1] * m[1] * m[1] * (w * m[1]).sin()
        - b * b * (w * b).cos();
    let hwb = -(w * b).sin() - w * b * (w * b).cos();
    let hbb = 2.0 * k - w * w * (w * b).cos();
    assert!(
        close(h.w, hww * tw + hwb * tb),
        "{} against {}",
        h.w,
        hww * tw + hwb * tb
    );
    assert!(
        close(h.b, hwb * tw + hbb * tb),
        "{} against {}",
        h.b,
        hwb * tw + hbb * tb
    );
    let backward = |&(w, b): &(f64, f64)| fit.curved_backward(w, b, 1.0);
    gradcheck(&(w, b), backward).unwrap();
    jvpcheck(&(w, b), &(tw, tb), backward, |&(w, b), &(tw, tb)| {
        fit.curved_jvp(w, b, tw, tb)
    })
    .unwrap();
    hvpcheck(&(w, b), &(tw, tb), |&(w, b), &(tw, tb)| {
        fit.curved_hvp(w, b, tw, tb)
    })
    .unwrap();
    hvpcheck(&(w, b), &(tw, tb), |&(w, b), &(tw, tb)| {
        fit.loss_hvp(w, b, tw, tb)
    })
    .unwrap();
}

#[test]
fn a_method_of_a_constant_problem_struct() {
    let fit = LineFit {
        xs: vec![1.0, 2.0, 3.0, 4.0],
        ys: vec![2.5, 3.0, 5.5, 6.0],
        k: 0.0,
        c: [0.0; 2],
        m: Array1::zeros(2),
    };
    let (w, b) = (0.75, 0.5);
    let n = fit.xs.len() as f64;
    let (mut gw, mut gb) = (0.0, 0.0);
    for (x, y) in fit.xs.iter().zip(&fit.ys) {
        let r = w * x + b - y;
        gw += 2.0 * r * x / n;
        gb += 2.0 * r / n;
    }
    let (v, g) = fit.loss_backward(w, b, 1.0);
    assert_eq!(v, fit.loss(w, b));
    assert!((g.w - gw).abs() < 1e-12 && (g.b - gb).abs() < 1e-12);
    let (v, g) = fit.loss_by_index_backward(w, b, 1.0);
    assert_eq!(v, fit.loss_by_index(w, b));
    assert!((g.w - gw).abs() < 1e-12 && (g.b - gb).abs() < 1e-12);
    gradcheck(&(w, b), |&(w, b)| fit.loss_backward(w, b, 1.0)).unwrap();
    gradcheck(&(w, b), |&(w, b)| fit.loss_by_index_backward(w, b, 1.0)).unwrap();
}

/// A problem struct whose differentiable methods call its other methods
/// and functions over its data alone (constants of the copy over duals).
pub struct Helped {
    xs: Vec<f64>,
    k: f64,
}

#[differentiable]
impl Helped {
    fn scale(&self) -> f64 {
        self.k * 2.0
    }

    fn scale_by(&self, a: f64, n: usize) -> f64 {
        self.k * a + n as f64
    }

    /// `f(w) = L w + 4 w² + 2 sin w`, `L = 2 + 3 + 6.5 + 7/3` at `k = 0.5`,
    /// `xs = [1, 2, 4]`.
    #[differentiable(hvp, wrt(w))]
    fn whole(&self, w: f64) -> f64 {
        let c = self.scale() * 2.0;
        let d = self.scale_by(2.0, self.xs.len());
        let mut s = c * w + d * w * w + average(&self.xs[1..]) * w;
        if self.scale() > 0.5 {
            s += self.scale_by(c, 1) * w.sin();
        }
        for i in 0..self.xs.len() {
            s += self.scale_by(self.xs[i], i) * w;
        }
        s + average(&self.xs) * w
    }
}

fn average(xs: &[f64]) -> f64 {
    xs.iter().sum::<f64>() / xs.len() as f64
}

#[test]
fn second_order_of_a_method_calling_methods_and_functions_of_its_data() {
    let h = Helped {
        xs: vec![1.0, 2.0, 4.0],
        k: 0.5,
    };
    let lin = 2.0 + 3.0 + 6.5 + 7.0 / 3.0;
    for w in [0.3, -1.2] {
        let (v, g) = h.whole_backward(w, 1.0);
        assert_eq!(v, h.whole(w));
        assert!((v - (lin * w + 4.0 * w * w + 2.0 * w.sin())).abs() < 1e-12);
        assert!((g.w - (lin + 8.0 * w + 2.0 * w.cos())).abs() < 1e-12);
        gradcheck(&(w,), |&(w,)| h.whole_backward(w, 1.0)).unwrap();
        let (hv, hg, hw) = h.whole_hvp(w, 1.0);
        assert_eq!((hv, hg.w), (v, g.w));
        assert!((hw.w - (8.0 - 2.0 * w.sin())).abs() < 1e-12, "{}", hw.w);
        hvpcheck(&(w,), &(1.0,), |&(w,), &(t,)| h.whole_hvp(w, t)).unwrap();
        jvpcheck(
            &(w,),
            &(0.5,),
            |&(w,)| h.whole_backward(w, 1.0),
            |&(w,), &(t,)| h.whole_jvp(w, t),
        )
        .unwrap();
    }
}

/// Constant slices read by Rust's own spellings in passed-through code:
/// a sub-slice, `first`, `last`, `to_vec`, `chunks_exact`, in first and
/// second order.
#[differentiable(hvp, wrt(k))]
fn constant_slice_spellings(k: f64, ys: &[f64]) -> f64 {
    let mut s = 0.0;
    for &y in &ys[1..ys.len() - 1] {
        s += k * y;
    }
    for pair in ys.chunks_exact(2) {
        s += k * k * pair[0] * pair[1];
    }
    let ends = ys.first().unwrap() + ys.last().unwrap();
    s + k * ends * ys.to_vec().len() as f64
}

#[test]
fn constant_slices_in_rust_spellings() {
    let ys = [1.0, 2.0, 3.0, 4.0, 5.0];
    let k = 0.5;
    let value = k * (2.0 + 3.0 + 4.0) + k * k * (1.0 * 2.0 + 3.0 * 4.0) + k * 6.0 * 5.0;
    let (v, g) = constant_slice_spellings_backward(k, &ys, 1.0);
    assert_eq!(v, constant_slice_spellings(k, &ys));
    assert!((v - value).abs() < 1e-12);
    let slope = 9.0 + 2.0 * k * 14.0 + 30.0;
    assert!((g.k - slope).abs() < 1e-12, "{} against {slope}", g.k);
    gradcheck(&(k,), |&(k,)| {
        constant_slice_spellings_backward(k, &ys, 1.0)
    })
    .unwrap();
    let (hv, hg, h) = constant_slice_spellings_hvp(k, &ys, 1.0);
    assert_eq!((hv, hg.k), (v, g.k));
    assert!((h.k - 28.0).abs() < 1e-12, "{} against 28", h.k);
    hvpcheck(&(k,), &(0.5,), |&(k,), &(t,)| {
        constant_slice_spellings_hvp(k, &ys, t)
    })
    .unwrap();
}

/// A local container of constants (`vec![0.0; n]` written by index, an
/// array literal) read by Rust's own spellings: `windows`, `chunks`, a
/// sub-slice, in first and second order.
#[differentiable(hvp)]
fn local_constant_spellings(x: f64, n: usize) -> f64 {
    let mut c = vec![0.0; n];
    for i in 0..n {
        c[i] = i as f64 * 0.5;
    }
    let d = [1.0, 2.0, 4.0];
    let mut s = 0.0;
    for w in c.windows(2) {
        s += x * (w[1] - w[0]);
    }
    for ch in c.chunks(2) {
        s += x * x * ch[0];
    }
    s + c[1..].iter().sum::<f64>() * x + d[1..].iter().product::<f64>() * x
}

#[test]
fn local_constant_containers_in_rust_spellings() {
    let x = 0.7;
    // c = [0, 0.5, 1, 1.5, 2]: windows 4 × 0.5, chunks 0 + 1 + 2, c[1..] 5.
    let value = 2.0 * x + 3.0 * x * x + 5.0 * x + 8.0 * x;
    let (v, g) = local_constant_spellings_backward(x, 5, 1.0);
    assert_eq!(v, local_constant_spellings(x, 5));
    assert!((v - value).abs() < 1e-12, "{v} against {value}");
    let slope = 2.0 + 6.0 * x + 5.0 + 8.0;
    assert!((g.x - slope).abs() < 1e-12, "{} against {slope}", g.x);
    gradcheck(&(x,), |&(x,)| local_constant_spellings_backward(x, 5, 1.0)).unwrap();
    let (hv, hg, h) = local_constant_spellings_hvp(x, 5, 1.0);
    assert_eq!((hv, hg.x), (v, g.x));
    assert!((h.x - 6.0).abs() < 1e-12, "{} against 6", h.x);
    hvpcheck(&(x,), &(0.5,), |&(x,), &(t,)| {
        local_constant_spellings_hvp(x, 5, t)
    })
    .unwrap();
    // One element: no windows, one chunk, an empty sub-slice.
    let (v, g) = local_constant_spellings_backward(x, 1, 1.0);
    assert_eq!((v, g.x), (8.0 * x, 8.0));
}

/// Each way of reading a container at edge sizes: windows, chunks (a
/// shorter last chunk), zip of unequal lengths, index, on empty and
/// one-element slices.
#[differentiable(jvp)]
fn edges(x: &[f64], y: &[f64]) -> f64 {
    let mut s = 0.0;
    for w in x.windows(2) {
        s += w[0] * w[1];
    }
    for c in x.chunks(2) {
        s += c[0] * 3.0;
    }
    s + x.iter().zip(y).map(|(a, b)| a * b).sum::<f64>()
}

/// The same by hand.
fn edges_by_hand(x: &[f64], y: &[f64]) -> (f64, Vec<f64>, Vec<f64>) {
    let (mut s, mut gx, mut gy) = (0.0, vec![0.0; x.len()], vec![0.0; y.len()]);
    for i in 0..x.len().saturating_sub(1) {
        s += x[i] * x[i + 1];
        gx[i] += x[i + 1];
        gx[i + 1] += x[i];
    }
    for i in (0..x.len()).step_by(2) {
        s += x[i] * 3.0;
        gx[i] += 3.0;
    }
    for i in 0..x.len().min(y.len()) {
        s += x[i] * y[i];
        gx[i] += y[i];
        gy[i] += x[i];
    }
    (s, gx, gy)
}

#[test]
fn container_reads_at_edge_sizes() {
    let cases: [(&[f64], &[f64]); 6] = [
        (&[], &[]),
        (&[1.5], &[]),
        (&[], &[2.0]),
        (&[1.5], &[2.0]),
        (&[1.5, -0.5, 2.0], &[2.0, 1.0]),
        (
            &[1.5, -0.5, 2.0, 0.25, 1.0],
            &[2.0, 1.0, -1.0, 0.5, 3.0, 7.0],
        ),
    ];
    for (x, y) in cases {
        let (v, g) = edges_backward(x, y, 1.0);
        let (s, gx, gy) = edges_by_hand(x, y);
        assert_eq!(v, edges(x, y));
        assert!((v - s).abs() < 1e-12, "{x:?} {y:?}: {v} against {s}");
        assert_eq!((g.x.len(), g.y.len()), (x.len(), y.len()));
        for (a, b) in g.x.iter().zip(&gx).chain(g.y.iter().zip(&gy)) {
            assert!((a - b).abs() < 1e-12, "{x:?} {y:?}: {a} against {b}");
        }
        let (tx, ty): (Vec<f64>, Vec<f64>) = (
            x.iter().map(|v| 0.5 - v).collect(),
            y.iter().map(|v| v * 0.25 + 1.0).collect(),
        );
        let (value, t) = edges_jvp(x, y, &tx, &ty);
        assert_eq!(value, v);
        let by_reverse: f64 =
            g.x.iter()
                .zip(&tx)
                .chain(g.y.iter().zip(&ty))
                .map(|(a, b)| a * b)
                .sum();
        assert!(
            (t - by_reverse).abs() < 1e-12,
            "{x:?} {y:?}: {t} against {by_reverse}"
        );
        if !x.is_empty() && !y.is_empty() {
            gradcheck(&(x.to_vec(), y.to_vec()), |(x, y)| {
                edges_backward(x, y, 1.0)
            })
            .unwrap();
        }
    }
}

/// A model whose parameters are a `Vec` and a fixed-size array.
#[derive(Clone, Debug, Differentiable)]
struct Poly {
    c: Vec<f64>,
    k: [f64; 2],
}

/// Horner's rule over the model's coefficients, by index, in loops.
#[differentiable(wrt(m))]
fn poly_fit(m: &Poly, xs: &[f64], ys: &[f64]) -> f64 {
    let mut s = 0.0;
    for (x, y) in xs.iter().zip(ys) {
        let mut p = 0.0;
        for i in 0..m.c.len() {
            p = p * x + m.c[i];
        }
        s += (p * m.k[0] + m.k[1] - y).powi(2);
    }
    s
}

/// A walk over a model's `Vec` field by a `for` loop.
#[differentiable(wrt(m))]
fn poly_norm(m: &Poly) -> f64 {
    let mut s = 0.0;
    for &v in m.c.iter() {
        s += v * v;
    }
    s + m.k[0] * m.k[1]
}

#[differentiable]
impl Poly {
    /// Closures walking the model's `Vec` and array fields.
    #[differentiable]
    fn walked_norm(&self) -> f64 {
        self.c.iter().map(|v| v * v).sum::<f64>() + self.k.iter().map(|v| v * 3.0).sum::<f64>()
    }
}

#[test]
fn a_model_of_plain_containers() {
    let m = Poly {
        c: vec![0.5, -1.0, 2.0],
        k: [1.5, 0.25],
    };
    let (xs, ys) = ([0.1, 0.7, -0.3], [1.0, 2.0, 0.5]);
    let (v, g) = poly_fit_backward(&m, &xs, &ys, 1.0);
    assert_eq!(v, poly_fit(&m, &xs, &ys));
    let (mut gc, mut gk) = (vec![0.0; 3], [0.0; 2]);
    for (x, y) in xs.iter().zip(&ys) {
        let p = (m.c[0] * x + m.c[1]) * x + m.c[2];
        let r = 2.0 * (p * m.k[0] + m.k[1] - y);
        for (i, power) in [x * x, *x, 1.0].into_iter().enumerate() {
            gc[i] += r * m.k[0] * power;
        }
        gk[0] += r * p;
        gk[1] += r;
    }
    for (a, b) in g.m.c.iter().chain(&g.m.k).zip(gc.iter().chain(&gk)) {
        assert!((a - b).abs() < 1e-12, "{a} against {b}");
    }
    gradcheck(&(m.clone(),), |(m,)| poly_fit_backward(m, &xs, &ys, 1.0)).unwrap();
    let (v, g) = poly_norm_backward(&m, 1.0);
    assert_eq!(v, poly_norm(&m));
    assert_eq!((g.m.c, g.m.k), (vec![1.0, -2.0, 4.0], [0.25, 1.5]));
    gradcheck(&(m.clone(),), |(m,)| poly_norm_backward(m, 1.0)).unwrap();
    let (v, g) = m.walked_norm_backward(1.0);
    assert_eq!(v, m.walked_norm());
    assert_eq!((g.c, g.k), (vec![1.0, -2.0, 4.0], [3.0, 3.0]));
    gradcheck(&m, |m| m.walked_norm_backward(1.0)).unwrap();
}
