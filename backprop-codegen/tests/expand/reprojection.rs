// A squared reprojection error over nalgebra values (workload (k) of
// `BENCHMARKS.md`): the macro writes the matrix product, the projection and
// the norm on the elements (`q_x`, `uv_y`, ...), in nalgebra's order; each
// parameter is read by element from the stack (`bp::fixed_view`), and its
// gradient is an array on the stack given back in its own type.
use backprop::nalgebra::{Matrix3, Point3, Vector2, Vector3};
use backprop::prelude::*;

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
