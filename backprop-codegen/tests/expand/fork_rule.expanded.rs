use backprop::prelude::*;
pub fn fork(w: f64, x: f64) -> f64 {
    let u = w * x;
    u.powi(2) + w
}
/// The gradient of [`fork`] with respect to its differentiable parameters, one field each, written by `#[differentiable]`.
#[derive(Debug, Clone)]
pub struct ForkGrad {
    /// The gradient with respect to `w`.
    pub w: f64,
    /// The gradient with respect to `x`.
    pub x: f64,
}
#[automatically_derived]
impl ::backprop::__private::Differentiable for ForkGrad {
    fn visit<'__bp>(
        &'__bp self,
        path: &mut ::backprop::__private::Path,
        visitor: &mut dyn ::backprop::__private::Visitor<'__bp>,
    ) {
        ::backprop::__private::visit_field(path, "w", &self.w, visitor);
        ::backprop::__private::visit_field(path, "x", &self.x, visitor);
    }
    fn visit_mut<'__bp>(
        &'__bp mut self,
        path: &mut ::backprop::__private::Path,
        visitor: &mut dyn ::backprop::__private::VisitorMut<'__bp>,
    ) {
        ::backprop::__private::visit_field_mut(path, "w", &mut self.w, visitor);
        ::backprop::__private::visit_field_mut(path, "x", &mut self.x, visitor);
    }
}
/// The gradients of [`fork`] by parameter position (`NotDifferentiable` for a constant), for differentiable functions that call `fork`. Written by `#[differentiable]`.
#[doc(hidden)]
#[allow(clippy::type_complexity, reason = "one gradient per parameter, by position")]
pub fn fork_vjp(
    w: f64,
    x: f64,
    d_out: impl ::backprop::__private::Cot<f64>,
) -> (f64, f64) {
    let (_, grad) = fork_backward(w, x, *::backprop::__private::Cot::get(&d_out));
    (grad.w, grad.x)
}
/// Runs [`fork`] and its reverse sweep: returns the value and the gradient of `d_out · fork(..)` with respect to every differentiable parameter (pass `d_out = 1.0` for a scalar loss). Written by `#[differentiable]`.
pub fn fork_backward(w: f64, x: f64, d_out: f64) -> (f64, ForkGrad) {
    #[allow(unused_imports, reason = "plain arithmetic calls nothing of the runtime")]
    use ::backprop::__private as bp;
    let _ = fork;
    let u = w * x;
    let out_1 = u.powi(2);
    let out = out_1 + w;
    let d_out_1 = d_out;
    let d_w_from_out = d_out;
    let d_u = bp::map_vjp_x(d_out_1, &u, bp::Powi(2));
    let d_w_from_u = d_u * x;
    let d_x = d_u * w;
    let d_w = d_w_from_out + d_w_from_u;
    let grad = ForkGrad { w: d_w, x: d_x };
    (out, grad)
}
