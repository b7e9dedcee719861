//! Workload (k): a bundle-adjustment residual over nalgebra values, the
//! squared reprojection error of a point seen by a camera (a rotation
//! matrix, a translation, a focal length), against the fused backward a
//! person writes with the same nalgebra types. Issue 32 asks the
//! generated backward of statically sized values to allocate nothing and
//! to be within 1.2× of the hand-written one.

use crate::check::same;
use backprop::nalgebra::{Matrix3, Point3, Vector2, Vector3};
use backprop::prelude::*;

/// (k): `‖f (q_x, q_y) / q_z − o‖²` with `q = R p + t`.
#[differentiable(wrt(r, t, p, f))]
pub fn reprojection(
    r: &Matrix3<f64>,
    t: &Vector3<f64>,
    p: &Point3<f64>,
    f: f64,
    observed: &Vector2<f64>,
) -> f64 {
    let q = r * p.coords + t;
    let uv = Vector2::new(q.x / q.z, q.y / q.z) * f;
    (uv - observed).norm_squared()
}

/// The camera, the point and the observation of (k).
pub type Input = (Matrix3<f64>, Vector3<f64>, Point3<f64>, f64, Vector2<f64>);

/// The point of (k).
pub fn point() -> Input {
    (
        Matrix3::new(0.9, -0.1, 0.2, 0.1, 0.95, -0.05, -0.2, 0.1, 0.97),
        Vector3::new(0.1, -0.2, 3.0),
        Point3::new(0.5, 0.3, 1.0),
        1.2,
        Vector2::new(0.2, 0.05),
    )
}

/// (k) by hand: the forward, then the chain rule once through the
/// projection and the rigid motion; its gradient in the generated struct,
/// so that both return the same type.
#[inline(never)]
pub fn hand(i: &Input) -> (f64, ReprojectionGrad) {
    let (r, t, p, f, o) = i;
    let q = r * p.coords + t;
    let (u, v) = (f * q.x / q.z, f * q.y / q.z);
    let (eu, ev) = (u - o.x, v - o.y);
    let value = eu * eu + ev * ev;
    let (gu, gv) = (2.0 * eu, 2.0 * ev);
    let iz = 1.0 / q.z;
    let dq = Vector3::new(gu * f * iz, gv * f * iz, -(gu * u + gv * v) * iz);
    let df = (gu * q.x + gv * q.y) * iz;
    let grad = ReprojectionGrad {
        r: dq * p.coords.transpose(),
        t: dq,
        p: Point3::from(r.transpose() * dq),
        f: df,
    };
    (value, grad)
}

/// (k) through the generated backward.
#[inline(never)]
pub fn generated(i: &Input) -> (f64, ReprojectionGrad) {
    let (r, t, p, f, o) = i;
    reprojection_backward(r, t, p, *f, o, 1.0)
}

fn fields(g: &ReprojectionGrad) -> Vec<(&'static str, Vec<f64>)> {
    vec![
        ("r", g.r.iter().copied().collect()),
        ("t", g.t.iter().copied().collect()),
        ("p", g.p.iter().copied().collect()),
        ("f", vec![g.f]),
    ]
}

/// The hand-written and generated backward agree.
pub fn verify() -> Result<(), String> {
    let i = point();
    let (hv, hg) = hand(&i);
    let (gv, gg) = generated(&i);
    if gv != reprojection(&i.0, &i.1, &i.2, i.3, &i.4) {
        return Err("(k) the backward's value is not the function's".to_owned());
    }
    same(
        "(k) reprojection over nalgebra",
        "generated",
        &(hv, fields(&hg)),
        &(gv, fields(&gg)),
    )
}

/// Allocations per call of (k): hand-written, generated.
pub fn allocations() -> (usize, usize) {
    use crate::alloc::measure;
    use std::hint::black_box;
    let i = point();
    (
        measure(|| hand(black_box(&i))).allocs,
        measure(|| generated(black_box(&i))).allocs,
    )
}
