fn shadow(x: f64, unused: f64) -> f64 {
    let x = x * 2.0;
    let y = {
        let x = x + 1.0;
        x * x * x
    };
    y / x
}
/// The gradient of [`shadow`] with respect to its differentiable parameters, one field each, written by `#[differentiable]`.
#[derive(Debug, Clone)]
struct ShadowGrad {
    /// The gradient with respect to `x`.
    pub x: f64,
    /// The gradient with respect to `unused`.
    pub unused: f64,
}
impl ::backprop::__private::Gradient for ShadowGrad {
    fn fields(&self) -> ::std::vec::Vec<(&'static str, ::std::vec::Vec<f64>)> {
        ::std::vec![
            ("x", ::backprop::__private::flatten(& self.x)), ("unused",
            ::backprop::__private::flatten(& self.unused)),
        ]
    }
}
/// The gradients of [`shadow`] by parameter position (`NotDifferentiable` for a constant), for differentiable functions that call `shadow`. Written by `#[differentiable]`.
#[doc(hidden)]
#[allow(clippy::all)]
fn shadow_vjp(
    x: f64,
    unused: f64,
    d_out: impl ::backprop::__private::Cot<f64>,
) -> (f64, f64) {
    let (_, grad) = shadow_backward(x, unused, *::backprop::__private::Cot::get(&d_out));
    (grad.x, grad.unused)
}
/// Runs [`shadow`] and its reverse sweep: returns the value and the gradient of `d_out · shadow(..)` with respect to every differentiable parameter (pass `d_out = 1.0` for a scalar loss). Written by `#[differentiable]`.
#[allow(unused_variables, unused_imports, clippy::all)]
fn shadow_backward(x: f64, unused: f64, d_out: f64) -> (f64, ShadowGrad) {
    use ::backprop::__private as bp;
    let _ = shadow;
    let x_1 = bp::mul(&x, &2.0_f64);
    let x_2 = bp::add(&x_1, &1.0_f64);
    let y_1 = bp::square(&x_2);
    let y = bp::mul(&y_1, &x_2);
    let out = bp::div(&y, &x_1);
    let (d_y, d_x_1_from_out) = bp::div_vjp_both(d_out, &y, &x_1);
    let (d_y_1, d_x_2_from_y) = bp::mul_vjp_both(d_y, &y_1, &x_2);
    let d_x_2_from_y_1 = bp::square_vjp(d_y_1, &x_2, &y_1);
    let d_x_2 = d_x_2_from_y + d_x_2_from_y_1;
    let d_x_1 = bp::add_vjp_lhs_add(d_x_1_from_out, d_x_2, &x_1, &1.0_f64);
    let d_x = bp::mul_vjp_lhs(d_x_1, &x, &2.0_f64);
    let grad = ShadowGrad {
        x: d_x,
        unused: bp::zeros_like(&unused),
    };
    (out, grad)
}
