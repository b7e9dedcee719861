use backprop::prelude::*;
#[allow(clippy::too_many_arguments)]
pub fn network(
    w11: f64,
    w12: f64,
    b1: f64,
    w21: f64,
    w22: f64,
    b2: f64,
    v1: f64,
    v2: f64,
    c: f64,
    x1: f64,
    x2: f64,
    y: f64,
) -> f64 {
    let h1 = sigmoid(w11 * x1 + w12 * x2 + b1);
    let h2 = sigmoid(w21 * x1 + w22 * x2 + b2);
    let p = sigmoid(v1 * h1 + v2 * h2 + c);
    0.5 * (p - y).powi(2)
}
/// The gradient of [`network`] with respect to its differentiable parameters, one field each, written by `#[differentiable]`.
#[derive(Debug, Clone)]
pub struct NetworkGrad {
    /// The gradient with respect to `w11`.
    pub w11: f64,
    /// The gradient with respect to `w12`.
    pub w12: f64,
    /// The gradient with respect to `b1`.
    pub b1: f64,
    /// The gradient with respect to `w21`.
    pub w21: f64,
    /// The gradient with respect to `w22`.
    pub w22: f64,
    /// The gradient with respect to `b2`.
    pub b2: f64,
    /// The gradient with respect to `v1`.
    pub v1: f64,
    /// The gradient with respect to `v2`.
    pub v2: f64,
    /// The gradient with respect to `c`.
    pub c: f64,
}
#[automatically_derived]
impl ::backprop::__private::Differentiable for NetworkGrad {
    fn visit<'__bp>(
        &'__bp self,
        path: &mut ::backprop::__private::Path,
        visitor: &mut dyn ::backprop::__private::Visitor<'__bp>,
    ) {
        ::backprop::__private::visit_field(path, "w11", &self.w11, visitor);
        ::backprop::__private::visit_field(path, "w12", &self.w12, visitor);
        ::backprop::__private::visit_field(path, "b1", &self.b1, visitor);
        ::backprop::__private::visit_field(path, "w21", &self.w21, visitor);
        ::backprop::__private::visit_field(path, "w22", &self.w22, visitor);
        ::backprop::__private::visit_field(path, "b2", &self.b2, visitor);
        ::backprop::__private::visit_field(path, "v1", &self.v1, visitor);
        ::backprop::__private::visit_field(path, "v2", &self.v2, visitor);
        ::backprop::__private::visit_field(path, "c", &self.c, visitor);
    }
    fn visit_mut<'__bp>(
        &'__bp mut self,
        path: &mut ::backprop::__private::Path,
        visitor: &mut dyn ::backprop::__private::VisitorMut<'__bp>,
    ) {
        ::backprop::__private::visit_field_mut(path, "w11", &mut self.w11, visitor);
        ::backprop::__private::visit_field_mut(path, "w12", &mut self.w12, visitor);
        ::backprop::__private::visit_field_mut(path, "b1", &mut self.b1, visitor);
        ::backprop::__private::visit_field_mut(path, "w21", &mut self.w21, visitor);
        ::backprop::__private::visit_field_mut(path, "w22", &mut self.w22, visitor);
        ::backprop::__private::visit_field_mut(path, "b2", &mut self.b2, visitor);
        ::backprop::__private::visit_field_mut(path, "v1", &mut self.v1, visitor);
        ::backprop::__private::visit_field_mut(path, "v2", &mut self.v2, visitor);
        ::backprop::__private::visit_field_mut(path, "c", &mut self.c, visitor);
    }
}
/// The gradients of [`network`] by parameter position (`NotDifferentiable` for a constant), for differentiable functions that call `network`. Written by `#[differentiable]`.
#[doc(hidden)]
#[allow(clippy::too_many_arguments, reason = "the function's parameters and `d_out`")]
#[allow(clippy::type_complexity, reason = "one gradient per parameter, by position")]
pub fn network_vjp(
    w11: f64,
    w12: f64,
    b1: f64,
    w21: f64,
    w22: f64,
    b2: f64,
    v1: f64,
    v2: f64,
    c: f64,
    x1: f64,
    x2: f64,
    y: f64,
    d_out: impl ::backprop::__private::Cot<f64>,
) -> (
    f64,
    f64,
    f64,
    f64,
    f64,
    f64,
    f64,
    f64,
    f64,
    ::backprop::__private::NotDifferentiable,
    ::backprop::__private::NotDifferentiable,
    ::backprop::__private::NotDifferentiable,
) {
    let (_, grad) = network_backward(
        w11,
        w12,
        b1,
        w21,
        w22,
        b2,
        v1,
        v2,
        c,
        x1,
        x2,
        y,
        *::backprop::__private::Cot::get(&d_out),
    );
    (
        grad.w11,
        grad.w12,
        grad.b1,
        grad.w21,
        grad.w22,
        grad.b2,
        grad.v1,
        grad.v2,
        grad.c,
        ::backprop::__private::NotDifferentiable,
        ::backprop::__private::NotDifferentiable,
        ::backprop::__private::NotDifferentiable,
    )
}
/// Runs [`network`] and its reverse sweep: returns the value and the gradient of `d_out · network(..)` with respect to every differentiable parameter (pass `d_out = 1.0` for a scalar loss). Written by `#[differentiable]`.
#[allow(clippy::too_many_arguments, reason = "the function's parameters and `d_out`")]
pub fn network_backward(
    w11: f64,
    w12: f64,
    b1: f64,
    w21: f64,
    w22: f64,
    b2: f64,
    v1: f64,
    v2: f64,
    c: f64,
    x1: f64,
    x2: f64,
    y: f64,
    d_out: f64,
) -> (f64, NetworkGrad) {
    #[allow(unused_imports, reason = "plain arithmetic calls nothing of the runtime")]
    use ::backprop::__private as bp;
    let _ = network;
    let h1_1 = w11 * x1;
    let h1_2 = w12 * x2;
    let h1_3 = h1_1 + h1_2;
    let h1_4 = h1_3 + b1;
    let h1 = bp::sigmoid(h1_4);
    let h2_1 = w21 * x1;
    let h2_2 = w22 * x2;
    let h2_3 = h2_1 + h2_2;
    let h2_4 = h2_3 + b2;
    let h2 = bp::sigmoid(h2_4);
    let p_1 = v1 * h1;
    let p_2 = v2 * h2;
    let p_3 = p_1 + p_2;
    let p_4 = p_3 + c;
    let p = bp::sigmoid(p_4);
    let out_1 = p - y;
    let out_2 = out_1.powi(2);
    let out = 0.5_f64 * out_2;
    let d_out_2 = d_out * 0.5_f64;
    let d_out_1 = bp::map_vjp_x(d_out_2, &out_1, bp::Powi(2));
    let d_p = d_out_1;
    let d_p_4 = bp::map_vjp_out(d_p, &p, bp::Sigmoid);
    let d_p_3 = d_p_4;
    let d_c = d_p_4;
    let d_p_1 = d_p_3;
    let d_p_2 = d_p_3;
    let d_v2 = d_p_2 * h2;
    let d_h2 = d_p_2 * v2;
    let d_v1 = d_p_1 * h1;
    let d_h1 = d_p_1 * v1;
    let d_h2_4 = bp::map_vjp_out(d_h2, &h2, bp::Sigmoid);
    let d_h2_3 = d_h2_4;
    let d_b2 = d_h2_4;
    let d_h2_1 = d_h2_3;
    let d_h2_2 = d_h2_3;
    let d_w22 = d_h2_2 * x2;
    let d_w21 = d_h2_1 * x1;
    let d_h1_4 = bp::map_vjp_out(d_h1, &h1, bp::Sigmoid);
    let d_h1_3 = d_h1_4;
    let d_b1 = d_h1_4;
    let d_h1_1 = d_h1_3;
    let d_h1_2 = d_h1_3;
    let d_w12 = d_h1_2 * x2;
    let d_w11 = d_h1_1 * x1;
    let grad = NetworkGrad {
        w11: d_w11,
        w12: d_w12,
        b1: d_b1,
        w21: d_w21,
        w22: d_w22,
        b2: d_b2,
        v1: d_v1,
        v2: d_v2,
        c: d_c,
    };
    (out, grad)
}
