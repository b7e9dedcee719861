use backprop::prelude::*;
pub fn cart2polar(x: f64, y: f64) -> (f64, f64) {
    (x.hypot(y), y.atan2(x))
}
/// The gradient of [`cart2polar`] with respect to its differentiable parameters, one field each, written by `#[differentiable]`.
#[derive(Debug, Clone)]
pub struct Cart2polarGrad {
    /// The gradient with respect to `x`.
    pub x: f64,
    /// The gradient with respect to `y`.
    pub y: f64,
}
#[automatically_derived]
impl ::backprop::__private::Differentiable for Cart2polarGrad {
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
/// The gradients of [`cart2polar`] by parameter position (`NotDifferentiable` for a constant), given one upstream gradient per component of its value, for differentiable functions that call `cart2polar`. Written by `#[differentiable]`.
#[doc(hidden)]
#[allow(clippy::type_complexity, reason = "one gradient per parameter, by position")]
pub fn cart2polar_vjp(
    x: f64,
    y: f64,
    d_out: (impl ::backprop::__private::Cot<f64>, impl ::backprop::__private::Cot<f64>),
) -> (f64, f64) {
    let (d_out_0, d_out_1) = d_out;
    let (_, grad) = cart2polar_backward(
        x,
        y,
        (
            *::backprop::__private::Cot::get(&d_out_0),
            *::backprop::__private::Cot::get(&d_out_1),
        ),
    );
    (grad.x, grad.y)
}
/// Runs [`cart2polar`] and its reverse sweep: returns the value and the gradient of `Σ_k d_out.k · cart2polar(..).k` (one upstream gradient per component of the value) with respect to every differentiable parameter. Written by `#[differentiable]`.
pub fn cart2polar_backward(
    x: f64,
    y: f64,
    d_out: (f64, f64),
) -> ((f64, f64), Cart2polarGrad) {
    #[allow(unused_imports, reason = "plain arithmetic calls nothing of the runtime")]
    use ::backprop::__private as bp;
    let _ = cart2polar;
    let (d_out_0, d_out_1) = d_out;
    let out_0 = x.hypot(y);
    let out_1 = y.atan2(x);
    let (d_y_from_out_1, d_x_from_out_1) = bp::zip_vjp_both(d_out_1, &y, &x, bp::Atan2);
    let (d_x_from_out_0, d_y_from_out_0) = bp::zip_vjp_both(d_out_0, &x, &y, bp::Hypot);
    let d_y = d_y_from_out_1 + d_y_from_out_0;
    let d_x = d_x_from_out_1 + d_x_from_out_0;
    let grad = Cart2polarGrad { x: d_x, y: d_y };
    ((out_0, out_1), grad)
}
