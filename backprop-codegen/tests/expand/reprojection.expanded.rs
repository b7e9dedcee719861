use backprop::nalgebra::{Matrix3, Point3, Vector2, Vector3};
use backprop::prelude::*;
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
/// The gradient of [`reprojection`] with respect to its differentiable parameters, one field each, written by `#[differentiable]`.
#[derive(Debug, Clone)]
pub struct ReprojectionGrad {
    /// The gradient with respect to `r`.
    pub r: Matrix3<f64>,
    /// The gradient with respect to `t`.
    pub t: Vector3<f64>,
    /// The gradient with respect to `p`.
    pub p: Point3<f64>,
    /// The gradient with respect to `f`.
    pub f: f64,
}
#[automatically_derived]
#[allow(
    clippy::needless_borrow,
    reason = "the borrow of a probe picks the impl: a model's visit, or a constant's"
)]
impl ::backprop::__private::Differentiable for ReprojectionGrad {
    fn visit<'__bp>(
        &'__bp self,
        path: &mut ::backprop::__private::Path,
        visitor: &mut dyn ::backprop::__private::Visitor<'__bp>,
    ) {
        use ::backprop::__private::{ViaConstant as _, ViaModel as _};
        (&::backprop::__private::Probe::<Matrix3<f64>>::new())
            .backprop_field()
            .visit(path, "r", &self.r, visitor);
        (&::backprop::__private::Probe::<Vector3<f64>>::new())
            .backprop_field()
            .visit(path, "t", &self.t, visitor);
        (&::backprop::__private::Probe::<Point3<f64>>::new())
            .backprop_field()
            .visit(path, "p", &self.p, visitor);
        ::backprop::__private::visit_field(path, "f", &self.f, visitor);
    }
    fn visit_mut<'__bp>(
        &'__bp mut self,
        path: &mut ::backprop::__private::Path,
        visitor: &mut dyn ::backprop::__private::VisitorMut<'__bp>,
    ) {
        use ::backprop::__private::{ViaConstant as _, ViaModel as _};
        (&::backprop::__private::Probe::<Matrix3<f64>>::new())
            .backprop_field()
            .visit_mut(path, "r", &mut self.r, visitor);
        (&::backprop::__private::Probe::<Vector3<f64>>::new())
            .backprop_field()
            .visit_mut(path, "t", &mut self.t, visitor);
        (&::backprop::__private::Probe::<Point3<f64>>::new())
            .backprop_field()
            .visit_mut(path, "p", &mut self.p, visitor);
        ::backprop::__private::visit_field_mut(path, "f", &mut self.f, visitor);
    }
}
/// The gradients of [`reprojection`] by parameter position (`NotDifferentiable` for a constant), for differentiable functions that call `reprojection`. Written by `#[differentiable]`.
#[doc(hidden)]
#[allow(clippy::type_complexity, reason = "one gradient per parameter, by position")]
pub fn reprojection_vjp(
    r: &Matrix3<f64>,
    t: &Vector3<f64>,
    p: &Point3<f64>,
    f: f64,
    observed: &Vector2<f64>,
    d_out: impl ::backprop::__private::Cot<f64>,
) -> (
    ::backprop::ndarray::Array<f64, ::backprop::ndarray::Ix1>,
    ::backprop::ndarray::Array<f64, ::backprop::ndarray::Ix1>,
    ::backprop::ndarray::Array<f64, ::backprop::ndarray::Ix1>,
    f64,
    ::backprop::__private::NotDifferentiable,
) {
    let (_, grad) = reprojection_backward(
        r,
        t,
        p,
        f,
        observed,
        *::backprop::__private::Cot::get(&d_out),
    );
    (
        ::backprop::__private::plain_owned(&grad.r),
        ::backprop::__private::plain_owned(&grad.t),
        ::backprop::__private::plain_owned(&grad.p),
        grad.f,
        ::backprop::__private::NotDifferentiable,
    )
}
/// Runs [`reprojection`] and its reverse sweep: returns the value and the gradient of `d_out · reprojection(..)` with respect to every differentiable parameter (pass `d_out = 1.0` for a scalar loss). Written by `#[differentiable]`.
pub fn reprojection_backward(
    r: &Matrix3<f64>,
    t: &Vector3<f64>,
    p: &Point3<f64>,
    f: f64,
    observed: &Vector2<f64>,
    d_out: f64,
) -> (f64, ReprojectionGrad) {
    #[allow(unused_imports, reason = "plain arithmetic calls nothing of the runtime")]
    use ::backprop::__private as bp;
    let r = bp::fixed_view::<_, 9>(&r);
    let t = bp::fixed_view::<_, 3>(&t);
    let p = bp::fixed_view::<_, 3>(&p);
    let observed = bp::fixed_view::<_, 2>(&observed);
    let _ = reprojection;
    let q_x_1 = bp::fixed_index(&r, 0);
    let q_x_2 = bp::fixed_index(&p, 0);
    let q_x_3 = q_x_1 * q_x_2;
    let q_x_4 = bp::fixed_index(&r, 3);
    let q_x_5 = bp::fixed_index(&p, 1);
    let q_x_6 = q_x_4 * q_x_5;
    let q_x_7 = q_x_3 + q_x_6;
    let q_x_8 = bp::fixed_index(&r, 6);
    let q_x_9 = bp::fixed_index(&p, 2);
    let q_x_10 = q_x_8 * q_x_9;
    let q_x_11 = q_x_7 + q_x_10;
    let q_x_12 = bp::fixed_index(&t, 0);
    let q_x = q_x_11 + q_x_12;
    let q_y_1 = bp::fixed_index(&r, 1);
    let q_y_2 = bp::fixed_index(&p, 0);
    let q_y_3 = q_y_1 * q_y_2;
    let q_y_4 = bp::fixed_index(&r, 4);
    let q_y_5 = bp::fixed_index(&p, 1);
    let q_y_6 = q_y_4 * q_y_5;
    let q_y_7 = q_y_3 + q_y_6;
    let q_y_8 = bp::fixed_index(&r, 7);
    let q_y_9 = bp::fixed_index(&p, 2);
    let q_y_10 = q_y_8 * q_y_9;
    let q_y_11 = q_y_7 + q_y_10;
    let q_y_12 = bp::fixed_index(&t, 1);
    let q_y = q_y_11 + q_y_12;
    let q_z_1 = bp::fixed_index(&r, 2);
    let q_z_2 = bp::fixed_index(&p, 0);
    let q_z_3 = q_z_1 * q_z_2;
    let q_z_4 = bp::fixed_index(&r, 5);
    let q_z_5 = bp::fixed_index(&p, 1);
    let q_z_6 = q_z_4 * q_z_5;
    let q_z_7 = q_z_3 + q_z_6;
    let q_z_8 = bp::fixed_index(&r, 8);
    let q_z_9 = bp::fixed_index(&p, 2);
    let q_z_10 = q_z_8 * q_z_9;
    let q_z_11 = q_z_7 + q_z_10;
    let q_z_12 = bp::fixed_index(&t, 2);
    let q_z = q_z_11 + q_z_12;
    let uv_x_1 = q_x / q_z;
    let uv_x = uv_x_1 * f;
    let uv_y_1 = q_y / q_z;
    let uv_y = uv_y_1 * f;
    let out_elem_x_1 = bp::fixed_index(&observed, 0);
    let out_elem_x = uv_x - out_elem_x_1;
    let out_elem_y_1 = bp::fixed_index(&observed, 1);
    let out_elem_y = uv_y - out_elem_y_1;
    let out_1 = bp::square(out_elem_x);
    let out_2 = bp::square(out_elem_y);
    let out = out_1 + out_2;
    let d_out_1 = d_out;
    let d_out_2 = d_out;
    let d_out_elem_y = bp::map_vjp_x(d_out_2, &out_elem_y, bp::Square);
    let d_out_elem_x = bp::map_vjp_x(d_out_1, &out_elem_x, bp::Square);
    let d_uv_y = d_out_elem_y;
    let d_uv_x = d_out_elem_x;
    let d_uv_y_1 = d_uv_y * f;
    let d_f_from_uv_y = d_uv_y * uv_y_1;
    let d_q_y = d_uv_y_1 / q_z;
    let d_q_z_from_uv_y_1 = -(d_uv_y_1 * uv_y_1) / q_z;
    let d_uv_x_1 = d_uv_x * f;
    let d_f_from_uv_x = d_uv_x * uv_x_1;
    let d_q_x = d_uv_x_1 / q_z;
    let d_q_z_from_uv_x_1 = -(d_uv_x_1 * uv_x_1) / q_z;
    let d_q_z = d_q_z_from_uv_y_1 + d_q_z_from_uv_x_1;
    let d_q_z_11 = d_q_z;
    let d_q_z_12 = d_q_z;
    let d_t_from_q_z_12 = bp::fixed_index_vjp(d_q_z_12, &t, 2).value();
    let d_q_z_7 = d_q_z_11;
    let d_q_z_10 = d_q_z_11;
    let d_q_z_8 = d_q_z_10 * q_z_9;
    let d_q_z_9 = d_q_z_10 * q_z_8;
    let d_p_from_q_z_9 = bp::fixed_index_vjp(d_q_z_9, &p, 2).value();
    let d_r_from_q_z_8 = bp::fixed_index_vjp(d_q_z_8, &r, 8).value();
    let d_q_z_3 = d_q_z_7;
    let d_q_z_6 = d_q_z_7;
    let d_q_z_4 = d_q_z_6 * q_z_5;
    let d_q_z_5 = d_q_z_6 * q_z_4;
    let d_p_from_q_z_5 = bp::fixed_index_vjp(d_q_z_5, &p, 1).added_to(d_p_from_q_z_9);
    let d_r_from_q_z_4 = bp::fixed_index_vjp(d_q_z_4, &r, 5).added_to(d_r_from_q_z_8);
    let d_q_z_1 = d_q_z_3 * q_z_2;
    let d_q_z_2 = d_q_z_3 * q_z_1;
    let d_p_from_q_z_2 = bp::fixed_index_vjp(d_q_z_2, &p, 0).added_to(d_p_from_q_z_5);
    let d_r_from_q_z_1 = bp::fixed_index_vjp(d_q_z_1, &r, 2).added_to(d_r_from_q_z_4);
    let d_q_y_11 = d_q_y;
    let d_q_y_12 = d_q_y;
    let d_t_from_q_y_12 = bp::fixed_index_vjp(d_q_y_12, &t, 1).added_to(d_t_from_q_z_12);
    let d_q_y_7 = d_q_y_11;
    let d_q_y_10 = d_q_y_11;
    let d_q_y_8 = d_q_y_10 * q_y_9;
    let d_q_y_9 = d_q_y_10 * q_y_8;
    let d_p_from_q_y_9 = bp::fixed_index_vjp(d_q_y_9, &p, 2).added_to(d_p_from_q_z_2);
    let d_r_from_q_y_8 = bp::fixed_index_vjp(d_q_y_8, &r, 7).added_to(d_r_from_q_z_1);
    let d_q_y_3 = d_q_y_7;
    let d_q_y_6 = d_q_y_7;
    let d_q_y_4 = d_q_y_6 * q_y_5;
    let d_q_y_5 = d_q_y_6 * q_y_4;
    let d_p_from_q_y_5 = bp::fixed_index_vjp(d_q_y_5, &p, 1).added_to(d_p_from_q_y_9);
    let d_r_from_q_y_4 = bp::fixed_index_vjp(d_q_y_4, &r, 4).added_to(d_r_from_q_y_8);
    let d_q_y_1 = d_q_y_3 * q_y_2;
    let d_q_y_2 = d_q_y_3 * q_y_1;
    let d_p_from_q_y_2 = bp::fixed_index_vjp(d_q_y_2, &p, 0).added_to(d_p_from_q_y_5);
    let d_r_from_q_y_1 = bp::fixed_index_vjp(d_q_y_1, &r, 1).added_to(d_r_from_q_y_4);
    let d_q_x_11 = d_q_x;
    let d_q_x_12 = d_q_x;
    let d_t = bp::fixed_index_vjp(d_q_x_12, &t, 0).added_to(d_t_from_q_y_12);
    let d_q_x_7 = d_q_x_11;
    let d_q_x_10 = d_q_x_11;
    let d_q_x_8 = d_q_x_10 * q_x_9;
    let d_q_x_9 = d_q_x_10 * q_x_8;
    let d_p_from_q_x_9 = bp::fixed_index_vjp(d_q_x_9, &p, 2).added_to(d_p_from_q_y_2);
    let d_r_from_q_x_8 = bp::fixed_index_vjp(d_q_x_8, &r, 6).added_to(d_r_from_q_y_1);
    let d_q_x_3 = d_q_x_7;
    let d_q_x_6 = d_q_x_7;
    let d_q_x_4 = d_q_x_6 * q_x_5;
    let d_q_x_5 = d_q_x_6 * q_x_4;
    let d_p_from_q_x_5 = bp::fixed_index_vjp(d_q_x_5, &p, 1).added_to(d_p_from_q_x_9);
    let d_r_from_q_x_4 = bp::fixed_index_vjp(d_q_x_4, &r, 3).added_to(d_r_from_q_x_8);
    let d_q_x_1 = d_q_x_3 * q_x_2;
    let d_q_x_2 = d_q_x_3 * q_x_1;
    let d_p = bp::fixed_index_vjp(d_q_x_2, &p, 0).added_to(d_p_from_q_x_5);
    let d_r = bp::fixed_index_vjp(d_q_x_1, &r, 0).added_to(d_r_from_q_x_4);
    let d_f = d_f_from_uv_y + d_f_from_uv_x;
    let grad = ReprojectionGrad {
        r: bp::plain_from(d_r),
        t: bp::plain_from(d_t),
        p: bp::plain_from(d_p),
        f: d_f,
    };
    (out, grad)
}
