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
impl ::backprop::__private::Gradient for HuberGrad {
    fn fields(&self) -> ::std::vec::Vec<(&'static str, ::std::vec::Vec<f64>)> {
        ::std::vec![("pred", ::backprop::__private::flatten(& self.pred)),]
    }
}
/// The gradients of [`huber`] by parameter position (`NotDifferentiable` for a constant), for differentiable functions that call `huber`. Written by `#[differentiable]`.
#[doc(hidden)]
#[allow(clippy::all)]
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
#[allow(unused_variables, unused_imports, clippy::all)]
pub fn huber_backward(
    pred: f64,
    target: f64,
    delta: f64,
    d_out: f64,
) -> (f64, HuberGrad) {
    use ::backprop::__private as bp;
    let _ = huber;
    let r = bp::sub(&pred, &target);
    let cond = r.abs() <= delta;
    let (out, then_saved, else_saved) = if cond {
        let out_1 = bp::mul(&0.5_f64, &r);
        let out_2 = bp::mul(&out_1, &r);
        let then_saved = ::core::option::Option::Some((
            out_1,
            ::core::clone::Clone::clone(&out_2),
        ));
        (out_2, then_saved, ::core::option::Option::None)
    } else {
        let out_3 = bp::abs(&r);
        let out_4 = bp::mul(&0.5_f64, &delta);
        let out_5 = bp::sub(&out_3, &out_4);
        let out_6 = bp::mul(&delta, &out_5);
        let else_saved = ::core::option::Option::Some((
            out_3,
            out_4,
            out_5,
            ::core::clone::Clone::clone(&out_6),
        ));
        (out_6, ::core::option::Option::None, else_saved)
    };
    let (d_r,) = if cond {
        let (out_1, out_2) = ::core::option::Option::unwrap(then_saved);
        let d_out_2 = d_out;
        let (d_out_1, d_r_step_from_out_2) = bp::mul_vjp_both(d_out_2, &out_1, &r);
        let d_r_step_from_out_1 = bp::mul_vjp_rhs(d_out_1, &0.5_f64, &r);
        let d_r_step = d_r_step_from_out_2 + d_r_step_from_out_1;
        (d_r_step,)
    } else {
        let (out_3, out_4, out_5, out_6) = ::core::option::Option::unwrap(else_saved);
        let d_out_6 = d_out;
        let d_out_5 = bp::mul_vjp_rhs(d_out_6, &delta, &out_5);
        let d_out_3 = bp::sub_vjp_lhs(d_out_5, &out_3, &out_4);
        let d_r_step_1 = bp::abs_vjp(d_out_3, &r, &out_3);
        (d_r_step_1,)
    };
    let d_pred = bp::sub_vjp_lhs(d_r, &pred, &target);
    let grad = HuberGrad { pred: d_pred };
    (out, grad)
}
