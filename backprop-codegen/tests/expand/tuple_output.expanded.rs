use backprop::prelude::*;
pub fn scaled(x: &Array1<f64>, s: f64) -> (f64, Array1<f64>) {
    let y = x * s;
    (y.sum(), y)
}
/// The gradient of [`scaled`] with respect to its differentiable parameters, one field each, written by `#[differentiable]`.
#[derive(Debug, Clone)]
pub struct ScaledGrad {
    /// The gradient with respect to `x`.
    pub x: ::backprop::ndarray::Array1<f64>,
    /// The gradient with respect to `s`.
    pub s: f64,
}
#[automatically_derived]
impl ::backprop::__private::Differentiable for ScaledGrad {
    fn visit<'__bp>(
        &'__bp self,
        path: &mut ::backprop::__private::Path,
        visitor: &mut dyn ::backprop::__private::Visitor<'__bp>,
    ) {
        ::backprop::__private::visit_field(path, "x", &self.x, visitor);
        ::backprop::__private::visit_field(path, "s", &self.s, visitor);
    }
    fn visit_mut<'__bp>(
        &'__bp mut self,
        path: &mut ::backprop::__private::Path,
        visitor: &mut dyn ::backprop::__private::VisitorMut<'__bp>,
    ) {
        ::backprop::__private::visit_field_mut(path, "x", &mut self.x, visitor);
        ::backprop::__private::visit_field_mut(path, "s", &mut self.s, visitor);
    }
}
/// The gradients of [`scaled`] by parameter position (`NotDifferentiable` for a constant), given one upstream gradient per component of its value, for differentiable functions that call `scaled`. Written by `#[differentiable]`.
#[doc(hidden)]
#[allow(clippy::type_complexity, reason = "one gradient per parameter, by position")]
pub fn scaled_vjp(
    x: &Array1<f64>,
    s: f64,
    d_out: (
        impl ::backprop::__private::Cot<f64>,
        impl ::backprop::__private::Cot<Array1<f64>>,
    ),
) -> (::backprop::ndarray::Array1<f64>, f64) {
    let (d_out_0, d_out_1) = d_out;
    let (_, grad) = scaled_backward(
        x,
        s,
        (
            *::backprop::__private::Cot::get(&d_out_0),
            ::backprop::__private::Cot::get(&d_out_1),
        ),
    );
    (grad.x, grad.s)
}
/// Runs [`scaled`] and its reverse sweep: returns the value and the gradient of `Σ_k d_out.k · scaled(..).k` (one upstream gradient per component of the value) with respect to every differentiable parameter. Written by `#[differentiable]`.
pub fn scaled_backward(
    x: &Array1<f64>,
    s: f64,
    d_out: (f64, &Array1<f64>),
) -> ((f64, Array1<f64>), ScaledGrad) {
    #[allow(unused_imports, reason = "plain arithmetic calls nothing of the runtime")]
    use ::backprop::__private as bp;
    let _ = scaled;
    let (d_out_0, d_out_1) = d_out;
    let y = bp::mul(x, &s);
    let out_0 = bp::sum(&y);
    let d_y_from_out_0 = bp::sum_vjp(d_out_0, &y);
    let d_y = d_out_1 + d_y_from_out_0;
    let (d_x, d_s) = bp::zip_vjp_both(d_y, x, &s, bp::Mul);
    let grad = ScaledGrad { x: d_x, s: d_s };
    ((out_0, y), grad)
}
