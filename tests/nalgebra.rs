//! Statically sized nalgebra values (`Vector3<f64>`, `Matrix3<f64>`,
//! `Matrix2x3<f64>`, `SVector<f64, N>`, `SMatrix<f64, R, C>`, `Point3<f64>`)
//! as parameters, locals and values: the operators, nalgebra's methods, in
//! loops, branches and closures. Every function's value is the original's
//! bit for bit (the macro writes nalgebra's arithmetic in nalgebra's order);
//! its gradient is checked against the closed form where there is one,
//! against central differences (`gradcheck`), forward mode against reverse
//! mode (`jvpcheck`), and its `hvp` against differences of its gradient.
#![cfg(feature = "nalgebra")]

use backprop::nalgebra::{
    Matrix2, Matrix2x3, Matrix3, Point3, Rotation3, RowVector3, SMatrix, SVector, UnitQuaternion,
    Vector2, Vector3, Vector4,
};
use backprop::prelude::*;

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-12 * (1.0 + b.abs())
}

fn close_all<'a>(a: impl IntoIterator<Item = &'a f64>, b: impl IntoIterator<Item = &'a f64>) {
    let (a, b): (Vec<f64>, Vec<f64>) = (
        a.into_iter().copied().collect(),
        b.into_iter().copied().collect(),
    );
    assert_eq!(a.len(), b.len());
    for (x, y) in a.iter().zip(&b) {
        assert!(close(*x, *y), "{a:?} against {b:?}");
    }
}

/// The triple product `(a × b) · c`.
#[differentiable(hvp)]
fn triple(a: &Vector3<f64>, b: &Vector3<f64>, c: &Vector3<f64>) -> f64 {
    a.cross(b).dot(c)
}

#[test]
fn the_triple_product_and_its_closed_form() {
    let (a, b, c) = (
        Vector3::new(0.3, -1.2, 2.0),
        Vector3::new(1.5, 0.25, -0.5),
        Vector3::new(-0.7, 0.9, 1.1),
    );
    let (v, g) = triple_backward(&a, &b, &c, 1.0);
    assert_eq!(v.to_bits(), triple(&a, &b, &c).to_bits());
    close_all(g.a.iter(), b.cross(&c).iter());
    close_all(g.b.iter(), c.cross(&a).iter());
    close_all(g.c.iter(), a.cross(&b).iter());
    let p = (a, b, c);
    gradcheck(&p, |(a, b, c)| triple_backward(a, b, c, 1.0)).unwrap();
    let t = (
        Vector3::new(0.1, 0.2, -0.3),
        Vector3::new(1.0, 0.0, 0.5),
        Vector3::new(0.0, -0.4, 0.2),
    );
    jvpcheck(
        &p,
        &t,
        |(a, b, c)| triple_backward(a, b, c, 1.0),
        |(a, b, c), (ta, tb, tc)| triple_jvp(a, b, c, ta, tb, tc),
    )
    .unwrap();
    hvpcheck(&p, &t, |(a, b, c), (ta, tb, tc)| {
        triple_hvp(a, b, c, ta, tb, tc)
    })
    .unwrap();
}

/// A norm, a normalised vector, a sum of squares.
#[differentiable(hvp)]
fn lengths(u: &Vector3<f64>, v: &Vector3<f64>) -> f64 {
    let n = v.normalize();
    u.dot(&n) + v.norm() + 0.5 * u.norm_squared()
}

#[test]
fn norms_and_normalize() {
    let (u, v) = (Vector3::new(0.4, -0.3, 1.2), Vector3::new(2.0, 1.0, -0.5));
    let (val, g) = lengths_backward(&u, &v, 1.0);
    assert_eq!(val.to_bits(), lengths(&u, &v).to_bits());
    let n = v.normalize();
    let len = v.norm();
    // d(u·v/|v|)/dv = (u − (u·n) n)/|v|; d|v|/dv = n.
    let gv = (u - n * u.dot(&n)) / len + n;
    close_all(g.v.iter(), gv.iter());
    close_all(g.u.iter(), (n + u).iter());
    let p = (u, v);
    let t = (Vector3::new(0.3, 0.1, -0.2), Vector3::new(-0.5, 0.7, 0.25));
    gradcheck(&p, |(u, v)| lengths_backward(u, v, 1.0)).unwrap();
    jvpcheck(
        &p,
        &t,
        |(u, v)| lengths_backward(u, v, 1.0),
        |(u, v), (tu, tv)| lengths_jvp(u, v, tu, tv),
    )
    .unwrap();
    hvpcheck(&p, &t, |(u, v), (tu, tv)| lengths_hvp(u, v, tu, tv)).unwrap();
}

/// A bilinear form `xᵀ A y` through matrix products of three shapes.
#[differentiable(hvp)]
fn bilinear(x: &Vector2<f64>, a: &Matrix2x3<f64>, y: &SVector<f64, 3>) -> f64 {
    let ay = a * y;
    let xa: RowVector3<f64> = x.transpose() * a;
    x.dot(&ay) + 0.25 * (xa * y)[0]
}

#[test]
fn matrix_products_and_their_closed_form() {
    let x = Vector2::new(0.5, -1.5);
    let a = Matrix2x3::new(0.1, 0.2, -0.3, 0.4, 0.5, 0.6);
    let y = SVector::<f64, 3>::new(1.0, -2.0, 0.75);
    let (v, g) = bilinear_backward(&x, &a, &y, 1.0);
    assert_eq!(v.to_bits(), bilinear(&x, &a, &y).to_bits());
    close_all(g.a.iter(), (x * y.transpose() * 1.25).iter());
    close_all(g.x.iter(), (a * y * 1.25).iter());
    close_all(g.y.iter(), (a.transpose() * x * 1.25).iter());
    let p = (x, a, y);
    let t = (
        Vector2::new(0.2, 0.1),
        Matrix2x3::new(0.0, 1.0, 0.5, -0.5, 0.25, 0.0),
        SVector::<f64, 3>::new(0.3, 0.0, -0.1),
    );
    gradcheck(&p, |(x, a, y)| bilinear_backward(x, a, y, 1.0)).unwrap();
    jvpcheck(
        &p,
        &t,
        |(x, a, y)| bilinear_backward(x, a, y, 1.0),
        |(x, a, y), (tx, ta, ty)| bilinear_jvp(x, a, y, tx, ta, ty),
    )
    .unwrap();
    hvpcheck(&p, &t, |(x, a, y), (tx, ta, ty)| {
        bilinear_hvp(x, a, y, tx, ta, ty)
    })
    .unwrap();
}

/// Determinants of 1 × 1 to 3 × 3 matrices.
#[differentiable(hvp)]
fn dets(m: &Matrix3<f64>, n: &Matrix2<f64>) -> f64 {
    let one = SMatrix::<f64, 1, 1>::new(m[(2, 2)]);
    m.determinant() + n.determinant() * one.determinant()
}

#[test]
fn determinants_and_the_cofactors() {
    let m = Matrix3::new(2.0, 0.5, -1.0, 0.3, 1.5, 0.2, -0.4, 0.8, 3.0);
    let n = Matrix2::new(1.0, 2.0, 3.0, 5.0);
    let (v, g) = dets_backward(&m, &n, 1.0);
    assert_eq!(v.to_bits(), dets(&m, &n).to_bits());
    // d det(M)/dM = det(M) M⁻ᵀ; here with det(N) at (2, 2).
    let mut cof = m.determinant() * m.try_inverse().unwrap().transpose();
    cof[(2, 2)] += n.determinant();
    close_all(g.m.iter(), cof.iter());
    close_all(
        g.n.iter(),
        (n.determinant() * m[(2, 2)] * n.try_inverse().unwrap().transpose()).iter(),
    );
    let p = (m, n);
    let t = (
        Matrix3::from_fn(|i, j| 0.1 * (i as f64) - 0.2 * j as f64),
        Matrix2::new(0.5, -0.5, 0.25, 1.0),
    );
    gradcheck(&p, |(m, n)| dets_backward(m, n, 1.0)).unwrap();
    jvpcheck(
        &p,
        &t,
        |(m, n)| dets_backward(m, n, 1.0),
        |(m, n), (tm, tn)| dets_jvp(m, n, tm, tn),
    )
    .unwrap();
    hvpcheck(&p, &t, |(m, n), (tm, tn)| dets_hvp(m, n, tm, tn)).unwrap();
}

/// A pinhole projection with a focal length: a vector value.
#[differentiable(jvp)]
fn project(p: &Vector3<f64>, f: f64) -> Vector2<f64> {
    let mut uv = Vector2::new(p.x / p.z, p.y / p.z);
    uv *= f;
    uv
}

#[test]
fn a_projection_and_its_jacobian() {
    let (p, f) = (Vector3::new(0.4, -0.2, 2.5), 1.5);
    let d = Vector2::new(1.0, -0.5);
    let (v, g) = project_backward(&p, f, &d);
    assert_eq!(v, project(&p, f));
    // The Jacobian of f (x/z, y/z), transposed, times d.
    let z = p.z;
    let jt_d = Vector3::new(
        f / z * d.x,
        f / z * d.y,
        -f * (p.x * d.x + p.y * d.y) / (z * z),
    );
    close_all(g.p.iter(), jt_d.iter());
    assert!(close(g.f, d.dot(&Vector2::new(p.x / z, p.y / z))));
    let check = GradCheck::new().upstream(&d);
    check
        .check(&(p, f), |(p, f)| project_backward(p, *f, &d))
        .unwrap();
    let t = (Vector3::new(0.1, 0.3, -0.2), 0.5);
    check
        .check_jvp(
            &(p, f),
            &t,
            |(p, f)| project_backward(p, *f, &d),
            |(p, f), (tp, tf)| project_jvp(p, *f, tp, *tf),
        )
        .unwrap();
}

/// A loop carrying a vector, written in place and mapped; a branch whose
/// arms are vectors; points; elements read by literal and computed index.
#[differentiable(hvp)]
fn carried(a: &Matrix2x3<f64>, b: &Vector3<f64>, c: &Point3<f64>, n: usize) -> f64 {
    let mut acc = Vector2::zeros();
    for i in 0..n {
        acc += a * b * (i as f64 + 1.0);
        acc = acc.map(|v| v.tanh());
    }
    let w = c - Point3::origin();
    let s = if acc.x > 0.0 { acc * 2.0 } else { -acc };
    let mut t = 0.0;
    for k in 0..3 {
        t += b[k] * c[k];
    }
    s.norm_squared() + w.component_mul(b).sum() + b[1] * a[(1, 2)] + t
}

#[test]
fn loops_branches_and_points() {
    let a = Matrix2x3::new(0.1, 0.2, 0.3, 0.4, -0.5, 0.6);
    let b = Vector3::new(0.5, -0.3, 0.2);
    let c = Point3::new(1.0, 2.0, 3.0);
    for n in [0, 1, 3] {
        let (v, _) = carried_backward(&a, &b, &c, n, 1.0);
        assert_eq!(v.to_bits(), carried(&a, &b, &c, n).to_bits());
        let p = (a, b, c);
        let t = (
            Matrix2x3::new(0.3, 0.0, -0.1, 0.2, 0.1, 0.0),
            Vector3::new(0.0, 1.0, -0.5),
            Point3::new(0.1, 0.2, 0.3),
        );
        gradcheck(&p, |(a, b, c)| carried_backward(a, b, c, n, 1.0)).unwrap();
        jvpcheck(
            &p,
            &t,
            |(a, b, c)| carried_backward(a, b, c, n, 1.0),
            |(a, b, c), (ta, tb, tc)| carried_jvp(a, b, c, n, ta, tb, tc),
        )
        .unwrap();
        hvpcheck(&p, &t, |(a, b, c), (ta, tb, tc)| {
            carried_hvp(a, b, c, n, ta, tb, tc)
        })
        .unwrap();
    }
}

/// Constructors, rows and columns, transposes, scaling, element writes,
/// a closure that captures a norm, and a 4-vector.
#[differentiable(hvp, wrt(m, q))]
fn assorted(m: &Matrix3<f64>, q: &Vector4<f64>, xs: &[f64]) -> f64 {
    let e = Matrix3::identity() * 2.0 + m.transpose();
    let col = e.column(1);
    let row = e.row(2);
    let top = q.fixed_rows::<2>(1);
    let mut v = Vector3::new(q.w, top.x, top.y).scale(0.5);
    v[2] *= v[0];
    v.y -= 0.25;
    let k = v.component_div(&Vector3::from_element(2.0)).abs();
    let len = k.norm();
    let s: f64 = xs.iter().map(|x| x * len).sum();
    col.dot(&v) + (row * k)[0] + s + q.dot(q) / 4.0 - (m * col).unscale(3.0).sum()
}

#[test]
fn constructors_views_and_writes() {
    let m = Matrix3::new(2.0, 0.5, -1.0, 0.3, 1.5, 0.2, -0.4, 0.8, 3.0);
    let q = Vector4::new(0.3, -0.6, 0.9, 1.2);
    let xs = [0.5, -1.0, 2.0];
    let (v, _) = assorted_backward(&m, &q, &xs, 1.0);
    assert_eq!(v.to_bits(), assorted(&m, &q, &xs).to_bits());
    let p = (m, q);
    let t = (
        Matrix3::from_fn(|i, j| 0.05 * (i + 2 * j) as f64),
        Vector4::new(0.1, 0.0, -0.2, 0.3),
    );
    gradcheck(&p, |(m, q)| assorted_backward(m, q, &xs, 1.0)).unwrap();
    jvpcheck(
        &p,
        &t,
        |(m, q)| assorted_backward(m, q, &xs, 1.0),
        |(m, q), (tm, tq)| assorted_jvp(m, q, &xs, tm, tq),
    )
    .unwrap();
    hvpcheck(&p, &t, |(m, q), (tm, tq)| assorted_hvp(m, q, &xs, tm, tq)).unwrap();
}

/// A matrix value: an outer product plus a scaled matrix.
#[differentiable]
fn outer(u: &Vector2<f64>, v: &Vector2<f64>, s: f64) -> Matrix2<f64> {
    u * v.transpose() + Matrix2::identity() * s
}

#[test]
fn a_matrix_value() {
    let (u, v, s) = (Vector2::new(1.0, 2.0), Vector2::new(-0.5, 0.25), 0.75);
    let d = Matrix2::new(1.0, 0.5, -1.0, 2.0);
    let (val, g) = outer_backward(&u, &v, s, &d);
    assert_eq!(val, outer(&u, &v, s));
    close_all(g.u.iter(), (d * v).iter());
    close_all(g.v.iter(), (d.transpose() * u).iter());
    assert!(close(g.s, d.trace()));
    GradCheck::new()
        .upstream(&d)
        .check(&(u, v, s), |(u, v, s)| outer_backward(u, v, *s, &d))
        .unwrap();
}

/// Single precision, and a constant nalgebra parameter (`wrt`).
#[differentiable(wrt(x))]
fn single(x: &Vector3<f32>, target: &Vector3<f32>) -> f32 {
    (x - target).norm_squared()
}

#[test]
fn single_precision_and_constant_data() {
    let (x, target) = (
        Vector3::new(1.0_f32, 2.0, 3.0),
        Vector3::new(0.5_f32, 0.5, 0.5),
    );
    let (v, g) = single_backward(&x, &target, 1.0);
    assert_eq!(v, single(&x, &target));
    assert_eq!(g.x, (x - target) * 2.0);
    gradcheck(&(x,), |(x,)| single_backward(x, &target, 1.0)).unwrap();
}

/// A model whose parameters are nalgebra values, trained by an optimiser.
#[derive(Clone, Debug, Differentiable)]
struct Line {
    w: Vector2<f64>,
    b: f64,
}

#[differentiable(wrt(w, b))]
fn line_loss(w: &Vector2<f64>, b: f64, xs: &[f64], ys: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..xs.len() {
        let r = w.x * xs[i] + w.y * xs[i] * xs[i] + b - ys[i];
        s += r * r;
    }
    s / xs.len() as f64
}

#[test]
fn an_optimiser_steps_nalgebra_parameters() {
    use backprop::optim::Adam;
    let xs = [-1.0, 0.0, 1.0, 2.0];
    let ys: Vec<f64> = xs.iter().map(|x| 0.5 * x - 0.25 * x * x + 1.0).collect();
    let mut model = Line {
        w: Vector2::zeros(),
        b: 0.0,
    };
    let mut opt = Adam::new(0.05);
    let first = line_loss(&model.w, model.b, &xs, &ys);
    for _ in 0..2000 {
        let (_, g) = line_loss_backward(&model.w, model.b, &xs, &ys, 1.0);
        opt.step(&mut model, &Line { w: g.w, b: g.b });
    }
    let last = line_loss(&model.w, model.b, &xs, &ys);
    assert!(last < 1e-6 * first, "{first} → {last}");
    close_all(model.w.iter(), [0.5, -0.25].iter());
}

/// `[v]×`, the matrix of `x ↦ v × x`.
fn skew(v: &Vector3<f64>) -> Matrix3<f64> {
    Matrix3::new(0.0, -v.z, v.y, v.z, 0.0, -v.x, -v.y, v.x, 0.0)
}

/// The residual of one observation in bundle adjustment: the point rotated
/// by an axis-angle (Rodrigues), translated, projected, with radial
/// distortion `1 + k₁ r² + k₂ r⁴`, against the observed pixel.
#[differentiable(backward_each, wrt(w, t, x, f, k1, k2))]
fn residual(
    w: &Vector3<f64>,
    t: &Vector3<f64>,
    x: &Point3<f64>,
    f: f64,
    k1: f64,
    k2: f64,
    observed: &Vector2<f64>,
) -> (f64, f64) {
    let rot = Rotation3::from_scaled_axis(*w);
    let q = rot * x + t;
    let m = Vector2::new(q.x / q.z, q.y / q.z);
    let r2 = m.norm_squared();
    let d = 1.0 + r2 * (k1 + k2 * r2);
    let uv = m * (f * d) - observed;
    (uv.x, uv.y)
}

#[test]
fn a_bundle_adjustment_jacobian_and_its_closed_form() {
    let (t, x) = (Vector3::new(0.1, -0.2, 4.0), Point3::new(0.5, 0.3, 1.0));
    let (f, k1, k2) = (1.2, -0.05, 0.01);
    let observed = Vector2::new(0.2, 0.05);
    for w in [Vector3::new(0.2, -0.1, 0.3), Vector3::zeros()] {
        let (value, [gu, gv]) =
            residual_backward_each(&w, &t, &x, f, k1, k2, &observed, [(1.0, 0.0), (0.0, 1.0)]);
        assert_eq!(value, residual(&w, &t, &x, f, k1, k2, &observed));
        // The closed form: the projection's chain, and the derivative of
        // the rotated point by the axis-angle (Gallego and Yezzi 2015):
        // ∂(R x)/∂w = −R [x]× (w wᵀ + (Rᵀ − I) [w]×) / |w|², −[x]× at 0.
        let r = Rotation3::from_scaled_axis(w);
        let theta2 = w.norm_squared();
        let d_rx_dw = if theta2 == 0.0 {
            -skew(&x.coords)
        } else {
            -(r.matrix() * skew(&x.coords))
                * (w * w.transpose() + (r.matrix().transpose() - Matrix3::identity()) * skew(&w))
                / theta2
        };
        let q = r * x.coords + t;
        let m = Vector2::new(q.x / q.z, q.y / q.z);
        let r2 = m.norm_squared();
        let d = 1.0 + r2 * (k1 + k2 * r2);
        // ∂m/∂q, and ∂(f d m)/∂m = f (d I + m (∂d/∂m)ᵀ), ∂d/∂m = 2 m (k₁ + 2 k₂ r²).
        let dm_dq = SMatrix::<f64, 2, 3>::new(
            1.0 / q.z,
            0.0,
            -q.x / (q.z * q.z),
            0.0,
            1.0 / q.z,
            -q.y / (q.z * q.z),
        );
        let dd_dm = m * (2.0 * (k1 + 2.0 * k2 * r2));
        let duv_dm = (Matrix2::identity() * d + m * dd_dm.transpose()) * f;
        let duv_dq = duv_dm * dm_dq;
        let jw = duv_dq * d_rx_dw;
        let jx = duv_dq * r.matrix();
        for (row, g) in [(0, &gu), (1, &gv)] {
            close_all(g.w.iter(), jw.row(row).iter());
            close_all(g.t.iter(), duv_dq.row(row).iter());
            close_all(g.x.iter(), jx.row(row).iter());
            assert!(close(g.f, (m * d)[row]));
            assert!(close(g.k1, f * m[row] * r2));
            assert!(close(g.k2, f * m[row] * r2 * r2));
        }
        for d_out in [(1.0, 0.0), (0.0, 1.0), (0.5, -2.0)] {
            GradCheck::new()
                .upstream(&(d_out.0, d_out.1))
                .check(&(w, t, x, f, k1, k2), |(w, t, x, f, k1, k2)| {
                    let (v, [g]) =
                        residual_backward_each(w, t, x, *f, *k1, *k2, &observed, [d_out]);
                    (v, g)
                })
                .unwrap();
        }
    }
}

/// A rotation by a quaternion and by a matrix, their inverses, a point.
#[differentiable(hvp)]
fn rotations(w: &Vector3<f64>, p: &Point3<f64>) -> f64 {
    let q = UnitQuaternion::from_scaled_axis(*w);
    let r = Rotation3::new(*w);
    let a = q * p;
    let b = r.transform_point(p);
    let back = q.inverse() * a.coords;
    let m = r.matrix();
    (a - b).norm_squared() * 1e3 + a.x + 2.0 * b.y - a.z * b.z
        + back.dot(&p.coords) * 0.1
        + r.inverse_transform_vector(&a.coords).x
        + m[(0, 1)]
}

#[test]
fn rotations_by_quaternions_and_matrices_at_and_away_from_zero() {
    let p = Point3::new(0.3, -1.2, 2.0);
    let t = (Vector3::new(0.3, 0.1, -0.2), Point3::new(0.5, 0.2, 0.1));
    for w in [
        Vector3::new(0.2, -0.5, 0.9),
        Vector3::new(2.5, 1.0, -1.5),
        Vector3::zeros(),
        Vector3::new(1e-9, 0.0, 3e-10),
    ] {
        let (v, g) = rotations_backward(&w, &p, 1.0);
        assert_eq!(v.to_bits(), rotations(&w, &p).to_bits());
        gradcheck(&(w, p), |(w, p)| rotations_backward(w, p, 1.0)).unwrap();
        // Central differences of the gradient at 1e-6 lose digits to the
        // exact formula's division by the angle near zero: a larger step.
        GradCheck::new()
            .eps(1e-4)
            .check_hvp(&(w, p), &t, |(w, p), (tw, tp)| rotations_hvp(w, p, tw, tp))
            .unwrap();
        jvpcheck(
            &(w, p),
            &t,
            |(w, p)| rotations_backward(w, p, 1.0),
            |(w, p), (tw, tp)| rotations_jvp(w, p, tw, tp),
        )
        .unwrap();
        if w == Vector3::zeros() {
            // At zero: d(a.x + 2 b.y − a.z b.z + ..)/dw from `−[p]×`.
            let (_, near) = rotations_backward(&Vector3::new(1e-7, -1e-7, 1e-7), &p, 1.0);
            for (a, b) in g.w.iter().zip(near.w.iter()) {
                assert!((a - b).abs() < 1e-5, "{:?} against {:?}", g.w, near.w);
            }
        }
    }
}

/// A projection that other functions call with nalgebra values.
#[differentiable(hvp)]
fn squared_projection(q: &Vector3<f64>, f: f64) -> f64 {
    (Vector2::new(q.x / q.z, q.y / q.z) * f).norm_squared()
}

/// The residuals of two observations of one point, through a call per
/// observation: the rotated point is made again as a `Vector3` for the
/// callee, whose gradient comes back into its elements.
#[differentiable(hvp)]
fn two_views(w: &Vector3<f64>, x: &Point3<f64>, f: f64) -> f64 {
    let q = Rotation3::from_scaled_axis(*w) * x;
    let moved = q.coords + Vector3::new(0.5, 0.0, 0.0);
    squared_projection(&q.coords, f) + squared_projection(&moved, f) * 0.5
}

#[test]
fn calls_with_nalgebra_arguments() {
    let (w, x, f) = (
        Vector3::new(0.1, -0.2, 0.3),
        Point3::new(0.5, 0.3, 2.0),
        1.5,
    );
    let (v, g) = two_views_backward(&w, &x, f, 1.0);
    assert_eq!(v, two_views(&w, &x, f));
    // The same function written in one body.
    let one = |w: &Vector3<f64>, x: &Point3<f64>, f: f64| {
        let q = Rotation3::from_scaled_axis(*w) * x;
        let m = q.coords + Vector3::new(0.5, 0.0, 0.0);
        (Vector2::new(q.x / q.z, q.y / q.z) * f).norm_squared()
            + (Vector2::new(m.x / m.z, m.y / m.z) * f).norm_squared() * 0.5
    };
    assert_eq!(v, one(&w, &x, f));
    let (_, gq) = squared_projection_backward(&(Rotation3::from_scaled_axis(w) * x).coords, f, 1.0);
    assert!(gq.q.norm() > 0.0 && g.w.norm() > 0.0);
    let p = (w, x, f);
    let t = (
        Vector3::new(0.3, 0.1, -0.2),
        Point3::new(0.1, 0.2, 0.3),
        0.5,
    );
    gradcheck(&p, |(w, x, f)| two_views_backward(w, x, *f, 1.0)).unwrap();
    jvpcheck(
        &p,
        &t,
        |(w, x, f)| two_views_backward(w, x, *f, 1.0),
        |(w, x, f), (tw, tx, tf)| two_views_jvp(w, x, *f, tw, tx, *tf),
    )
    .unwrap();
    hvpcheck(&p, &t, |(w, x, f), (tw, tx, tf)| {
        two_views_hvp(w, x, *f, tw, tx, *tf)
    })
    .unwrap();
}

/// Constant nalgebra data (outside `wrt`) under second order: read by
/// element from the stack like a parameter.
#[differentiable(hvp, wrt(p))]
fn against_data(p: &Vector3<f64>, seen: &Vector2<f64>) -> f64 {
    (Vector2::new(p.x / p.z, p.y / p.z) - seen).norm_squared() + seen.x * p.x
}

#[test]
fn constant_nalgebra_data_in_first_and_second_order() {
    let (p, seen) = (Vector3::new(0.3, 0.2, 2.0), Vector2::new(0.1, 0.05));
    let (v, g) = against_data_backward(&p, &seen, 1.0);
    assert_eq!(v, against_data(&p, &seen));
    let e = Vector2::new(p.x / p.z - seen.x, p.y / p.z - seen.y) * 2.0;
    let by_hand = Vector3::new(
        e.x / p.z + seen.x,
        e.y / p.z,
        -(e.x * p.x + e.y * p.y) / (p.z * p.z),
    );
    close_all(g.p.iter(), by_hand.iter());
    let t = (Vector3::new(0.1, 0.2, 0.3),);
    gradcheck(&(p,), |(p,)| against_data_backward(p, &seen, 1.0)).unwrap();
    jvpcheck(
        &(p,),
        &t,
        |(p,)| against_data_backward(p, &seen, 1.0),
        |(p,), (t,)| against_data_jvp(p, &seen, t),
    )
    .unwrap();
    hvpcheck(&(p,), &t, |(p,), (t,)| against_data_hvp(p, &seen, t)).unwrap();
}
