use backprop::prelude::*;
pub fn shadow(x: f64, _unused: f64) -> f64 {
    let x = x * 2.0;
    let y = {
        let x = x + 1.0;
        x * x * x
    };
    y / x
}
/// The gradient of [`shadow`] with respect to its differentiable parameters, one field each, written by `#[differentiable]`.
#[derive(Debug, Clone)]
pub struct ShadowGrad {
    /// The gradient with respect to `x`.
    pub x: f64,
    /// The gradient with respect to `_unused`.
    pub _unused: f64,
}
#[automatically_derived]
impl ::backprop::__private::Differentiable for ShadowGrad {
    fn visit<'__bp>(
        &'__bp self,
        path: &mut ::backprop::__private::Path,
        visitor: &mut dyn ::backprop::__private::Visitor<'__bp>,
    ) {
        ::backprop::__private::visit_field(path, "x", &self.x, visitor);
        ::backprop::__private::visit_field(path, "_unused", &self._unused, visitor);
    }
    fn visit_mut<'__bp>(
        &'__bp mut self,
        path: &mut ::backprop::__private::Path,
        visitor: &mut dyn ::backprop::__private::VisitorMut<'__bp>,
    ) {
        ::backprop::__private::visit_field_mut(path, "x", &mut self.x, visitor);
        ::backprop::__private::visit_field_mut(
            path,
            "_unused",
            &mut self._unused,
            visitor,
        );
    }
}
/// The gradients of [`shadow`] by parameter position (`NotDifferentiable` for a constant), for differentiable functions that call `shadow`. Written by `#[differentiable]`.
#[doc(hidden)]
#[allow(clippy::type_complexity, reason = "one gradient per parameter, by position")]
pub fn shadow_vjp(
    x: f64,
    _unused: f64,
    d_out: impl ::backprop::__private::Cot<f64>,
) -> (f64, f64) {
    let (_, grad) = shadow_backward(
        x,
        _unused,
        *::backprop::__private::Cot::get(&d_out),
    );
    (grad.x, grad._unused)
}
/// Runs [`shadow`] and its reverse sweep: returns the value and the gradient of `d_out · shadow(..)` with respect to every differentiable parameter (pass `d_out = 1.0` for a scalar loss). Written by `#[differentiable]`.
pub fn shadow_backward(x: f64, _unused: f64, d_out: f64) -> (f64, ShadowGrad) {
    #[allow(unused_imports, reason = "plain arithmetic calls nothing of the runtime")]
    use ::backprop::__private as bp;
    let _ = shadow;
    let x_1 = x * 2.0_f64;
    let x_2 = x_1 + 1.0_f64;
    let y_1 = bp::square(x_2);
    let y = y_1 * x_2;
    let out = y / x_1;
    let d_y = d_out / x_1;
    let d_x_1_from_out = -(d_out * out) / x_1;
    let d_y_1 = d_y * x_2;
    let d_x_2_from_y = d_y * y_1;
    let d_x_2_from_y_1 = bp::map_vjp_x(d_y_1, &x_2, bp::Square);
    let d_x_2 = d_x_2_from_y + d_x_2_from_y_1;
    let d_x_1 = d_x_1_from_out + d_x_2;
    let d_x = d_x_1 * 2.0_f64;
    let grad = ShadowGrad {
        x: d_x,
        _unused: bp::zeros_like(&_unused),
    };
    (out, grad)
}
