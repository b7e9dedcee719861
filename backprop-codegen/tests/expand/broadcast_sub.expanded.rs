use backprop::prelude::*;
pub fn broadcast_sub(a: &Array2<f64>, b: &Array2<f64>) -> Array2<f64> {
    a - b
}
/// The gradient of [`broadcast_sub`] with respect to its differentiable parameters, one field each, written by `#[differentiable]`.
#[derive(Debug, Clone)]
pub struct BroadcastSubGrad {
    /// The gradient with respect to `a`.
    pub a: ::backprop::ndarray::Array2<f64>,
    /// The gradient with respect to `b`.
    pub b: ::backprop::ndarray::Array2<f64>,
}
#[automatically_derived]
impl ::backprop::__private::Differentiable for BroadcastSubGrad {
    fn visit<'__bp>(
        &'__bp self,
        path: &mut ::backprop::__private::Path,
        visitor: &mut dyn ::backprop::__private::Visitor<'__bp>,
    ) {
        ::backprop::__private::visit_field(path, "a", &self.a, visitor);
        ::backprop::__private::visit_field(path, "b", &self.b, visitor);
    }
    fn visit_mut<'__bp>(
        &'__bp mut self,
        path: &mut ::backprop::__private::Path,
        visitor: &mut dyn ::backprop::__private::VisitorMut<'__bp>,
    ) {
        ::backprop::__private::visit_field_mut(path, "a", &mut self.a, visitor);
        ::backprop::__private::visit_field_mut(path, "b", &mut self.b, visitor);
    }
}
/// The gradients of [`broadcast_sub`] by parameter position (`NotDifferentiable` for a constant), for differentiable functions that call `broadcast_sub`. Written by `#[differentiable]`.
#[doc(hidden)]
#[allow(clippy::type_complexity, reason = "one gradient per parameter, by position")]
pub fn broadcast_sub_vjp(
    a: &Array2<f64>,
    b: &Array2<f64>,
    d_out: impl ::backprop::__private::Cot<Array2<f64>>,
) -> (::backprop::ndarray::Array2<f64>, ::backprop::ndarray::Array2<f64>) {
    let (_, grad) = broadcast_sub_backward(
        a,
        b,
        ::backprop::__private::Cot::get(&d_out),
    );
    (grad.a, grad.b)
}
/// Runs [`broadcast_sub`] and its reverse sweep: returns the value and the gradient of `d_out · broadcast_sub(..)` with respect to every differentiable parameter (pass `d_out = 1.0` for a scalar loss). Written by `#[differentiable]`.
pub fn broadcast_sub_backward(
    a: &Array2<f64>,
    b: &Array2<f64>,
    d_out: &Array2<f64>,
) -> (Array2<f64>, BroadcastSubGrad) {
    #[allow(unused_imports, reason = "plain arithmetic calls nothing of the runtime")]
    use ::backprop::__private as bp;
    let _ = broadcast_sub;
    let out = bp::sub(a, b);
    let (d_a, d_b) = bp::zip_vjp_both(d_out, a, b, bp::Sub);
    let grad = BroadcastSubGrad { a: d_a, b: d_b };
    (out, grad)
}
