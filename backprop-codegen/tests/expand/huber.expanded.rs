use backprop::prelude::*;
pub fn huber(pred: f64, target: f64, delta: f64) -> f64 {
    let r = pred - target;
    if r.abs() <= delta { 0.5 * r * r } else { delta * (r.abs() - 0.5 * delta) }
}
/// The gradient of [`huber`] with respect to its differentiable parameters, one field each, written by `#[differentiable]`.
#[derive(Debug, Clone)]
pub struct HuberGrad {
    /// The gradient with respect to `pred`.
    pub pred: f64,
}
#[automatically_derived]
impl ::backprop::__private::Differentiable for HuberGrad {
    fn visit<'__bp>(
        &'__bp self,
        path: &mut ::backprop::__private::Path,
        visitor: &mut dyn ::backprop::__private::Visitor<'__bp>,
    ) {
        ::backprop::__private::visit_field(path, "pred", &self.pred, visitor);
    }
    fn visit_mut<'__bp>(
        &'__bp mut self,
        path: &mut ::backprop::__private::Path,
        visitor: &mut dyn ::backprop::__private::VisitorMut<'__bp>,
    ) {
        ::backprop::__private::visit_field_mut(path, "pred", &mut self.pred, visitor);
    }
}
/// The gradients of [`huber`] by parameter position (`NotDifferentiable` for a constant), for differentiable functions that call `huber`. Written by `#[differentiable]`.
#[doc(hidden)]
#[allow(clippy::type_complexity, reason = "one gradient per parameter, by position")]
pub fn huber_vjp(
    pred: f64,
    target: f64,
    delta: f64,
    d_out: impl ::backprop::__private::Cot<f64>,
) -> (
    f64,
    ::backprop::__private::NotDifferentiable,
    ::backprop::__private::NotDifferentiable,
) {
    let (_, grad) = huber_backward(
        pred,
        target,
        delta,
        *::backprop::__private::Cot::get(&d_out),
    );
    (
        grad.pred,
        ::backprop::__private::NotDifferentiable,
        ::backprop::__private::NotDifferentiable,
    )
}
/// Runs [`huber`] and its reverse sweep: returns the value and the gradient of `d_out · huber(..)` with respect to every differentiable parameter (pass `d_out = 1.0` for a scalar loss). Written by `#[differentiable]`.
pub fn huber_backward(
    pred: f64,
    target: f64,
    delta: f64,
    d_out: f64,
) -> (f64, HuberGrad) {
    #[allow(unused_imports, reason = "plain arithmetic calls nothing of the runtime")]
    use ::backprop::__private as bp;
    let _ = huber;
    let r = pred - target;
    let cond = r.abs() <= delta;
    let (out, then_saved) = if cond {
        let out_1 = 0.5_f64 * r;
        let out_2 = out_1 * r;
        let then_saved = ::core::option::Option::Some((out_1,));
        (out_2, then_saved)
    } else {
        let out_3 = r.abs();
        let out_4 = 0.5_f64 * delta;
        let out_5 = out_3 - out_4;
        let out_6 = delta * out_5;
        (out_6, ::core::option::Option::None)
    };
    let (d_r,) = if cond {
        let (out_1,) = ::core::option::Option::unwrap(then_saved);
        let d_out_2 = d_out;
        let d_out_1 = d_out_2 * r;
        let d_r_step_from_out_2 = d_out_2 * out_1;
        let d_r_step_from_out_1 = d_out_1 * 0.5_f64;
        let d_r_step = d_r_step_from_out_2 + d_r_step_from_out_1;
        (d_r_step,)
    } else {
        let d_out_6 = d_out;
        let d_out_5 = d_out_6 * delta;
        let d_out_3 = d_out_5;
        let d_r_step_1 = bp::map_vjp_x(d_out_3, &r, bp::Abs);
        (d_r_step_1,)
    };
    let d_pred = d_r;
    let grad = HuberGrad { pred: d_pred };
    (out, grad)
}
