use backprop::prelude::*;
pub fn polar(x: f64, y: f64) -> (f64, f64) {
    (x.hypot(y), y.atan2(x))
}
/// The gradient of [`polar`] with respect to its differentiable parameters, one field each, written by `#[differentiable]`.
#[derive(Debug, Clone)]
pub struct PolarGrad {
    /// The gradient with respect to `x`.
    pub x: f64,
    /// The gradient with respect to `y`.
    pub y: f64,
}
#[automatically_derived]
impl ::backprop::__private::Differentiable for PolarGrad {
    fn visit<'__bp>(
        &'__bp self,
        path: &mut ::backprop::__private::Path,
        visitor: &mut dyn ::backprop::__private::Visitor<'__bp>,
    ) {
        ::backprop::__private::visit_field(path, "x", &self.x, visitor);
        ::backprop::__private::visit_field(path, "y", &self.y, visitor);
    }
    fn visit_mut<'__bp>(
        &'__bp mut self,
        path: &mut ::backprop::__private::Path,
        visitor: &mut dyn ::backprop::__private::VisitorMut<'__bp>,
    ) {
        ::backprop::__private::visit_field_mut(path, "x", &mut self.x, visitor);
        ::backprop::__private::visit_field_mut(path, "y", &mut self.y, visitor);
    }
}
/// The gradients of [`polar`] by parameter position (`NotDifferentiable` for a constant), given one upstream gradient per component of its value, for differentiable functions that call `polar`. Written by `#[differentiable]`.
#[doc(hidden)]
#[allow(clippy::type_complexity, reason = "one gradient per parameter, by position")]
pub fn polar_vjp(
    x: f64,
    y: f64,
    d_out: (impl ::backprop::__private::Cot<f64>, impl ::backprop::__private::Cot<f64>),
) -> (f64, f64) {
    let (d_out_0, d_out_1) = d_out;
    let (_, grad) = polar_backward(
        x,
        y,
        (
            *::backprop::__private::Cot::get(&d_out_0),
            *::backprop::__private::Cot::get(&d_out_1),
        ),
    );
    (grad.x, grad.y)
}
/// Runs [`polar`] and its reverse sweep: returns the value and the gradient of `Σ_k d_out.k · polar(..).k` (one upstream gradient per component of the value) with respect to every differentiable parameter. Written by `#[differentiable]`.
pub fn polar_backward(x: f64, y: f64, d_out: (f64, f64)) -> ((f64, f64), PolarGrad) {
    #[allow(unused_imports, reason = "plain arithmetic calls nothing of the runtime")]
    use ::backprop::__private as bp;
    let _ = polar;
    let (d_out_0, d_out_1) = d_out;
    let out_0 = x.hypot(y);
    let out_1 = y.atan2(x);
    let (d_y_from_out_1, d_x_from_out_1) = bp::zip_vjp_both(d_out_1, &y, &x, bp::Atan2);
    let (d_x_from_out_0, d_y_from_out_0) = bp::zip_vjp_both(d_out_0, &x, &y, bp::Hypot);
    let d_y = d_y_from_out_1 + d_y_from_out_0;
    let d_x = d_x_from_out_1 + d_x_from_out_0;
    let grad = PolarGrad { x: d_x, y: d_y };
    ((out_0, out_1), grad)
}
pub fn radius_times_angle(x: f64, y: f64) -> f64 {
    let (r, theta) = polar(2.0 * x, y);
    let (s, _) = polar(r, theta);
    r * theta + s
}
/// The gradient of [`radius_times_angle`] with respect to its differentiable parameters, one field each, written by `#[differentiable]`.
#[derive(Debug, Clone)]
pub struct RadiusTimesAngleGrad {
    /// The gradient with respect to `x`.
    pub x: f64,
    /// The gradient with respect to `y`.
    pub y: f64,
}
#[automatically_derived]
impl ::backprop::__private::Differentiable for RadiusTimesAngleGrad {
    fn visit<'__bp>(
        &'__bp self,
        path: &mut ::backprop::__private::Path,
        visitor: &mut dyn ::backprop::__private::Visitor<'__bp>,
    ) {
        ::backprop::__private::visit_field(path, "x", &self.x, visitor);
        ::backprop::__private::visit_field(path, "y", &self.y, visitor);
    }
    fn visit_mut<'__bp>(
        &'__bp mut self,
        path: &mut ::backprop::__private::Path,
        visitor: &mut dyn ::backprop::__private::VisitorMut<'__bp>,
    ) {
        ::backprop::__private::visit_field_mut(path, "x", &mut self.x, visitor);
        ::backprop::__private::visit_field_mut(path, "y", &mut self.y, visitor);
    }
}
/// The gradients of [`radius_times_angle`] by parameter position (`NotDifferentiable` for a constant), for differentiable functions that call `radius_times_angle`. Written by `#[differentiable]`.
#[doc(hidden)]
#[allow(clippy::type_complexity, reason = "one gradient per parameter, by position")]
pub fn radius_times_angle_vjp(
    x: f64,
    y: f64,
    d_out: impl ::backprop::__private::Cot<f64>,
) -> (f64, f64) {
    let (_, grad) = radius_times_angle_backward(
        x,
        y,
        *::backprop::__private::Cot::get(&d_out),
    );
    (grad.x, grad.y)
}
/// Runs [`radius_times_angle`] and its reverse sweep: returns the value and the gradient of `d_out · radius_times_angle(..)` with respect to every differentiable parameter (pass `d_out = 1.0` for a scalar loss). Written by `#[differentiable]`.
pub fn radius_times_angle_backward(
    x: f64,
    y: f64,
    d_out: f64,
) -> (f64, RadiusTimesAngleGrad) {
    #[allow(unused_imports, reason = "plain arithmetic calls nothing of the runtime")]
    use ::backprop::__private as bp;
    let _ = radius_times_angle;
    let r_theta_1 = 2.0_f64 * x;
    let (r, theta) = polar(r_theta_1, y);
    let (s, polar_1) = polar(
        ::core::clone::Clone::clone(&r),
        ::core::clone::Clone::clone(&theta),
    );
    let out_1 = bp::mul(&r, &theta);
    let out_1_shape = bp::shape_of(&out_1);
    let out = bp::add(out_1, &s);
    let (d_out_1, d_s) = bp::zip_vjp_both(
        d_out,
        &bp::stand_in(&out_1_shape),
        &s,
        bp::Add,
    );
    let (d_r_from_out_1, d_theta_from_out_1) = bp::zip_vjp_both(
        d_out_1,
        &r,
        &theta,
        bp::Mul,
    );
    let (d_r_from_s, d_theta_from_s) = polar_vjp(
        ::core::clone::Clone::clone(&r),
        ::core::clone::Clone::clone(&theta),
        (d_s, bp::zeros_like(&polar_1)),
    );
    let d_r = d_r_from_out_1 + d_r_from_s;
    let d_theta = d_theta_from_out_1 + d_theta_from_s;
    let (d_r_theta_1, d_y) = polar_vjp(r_theta_1, y, (d_r, d_theta));
    let d_x = d_r_theta_1 * 2.0_f64;
    let grad = RadiusTimesAngleGrad {
        x: d_x,
        y: d_y,
    };
    (out, grad)
}
