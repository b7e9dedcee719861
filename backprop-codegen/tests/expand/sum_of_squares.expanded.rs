use backprop::prelude::*;
pub fn broadcast_sub_sq(a: &Array2<f64>, b: &Array2<f64>) -> f64 {
    let c = a - b;
    sum(&(&c * &c))
}
/// The gradient of [`broadcast_sub_sq`] with respect to its differentiable parameters, one field each, written by `#[differentiable]`.
#[derive(Debug, Clone)]
pub struct BroadcastSubSqGrad {
    /// The gradient with respect to `a`.
    pub a: ::backprop::ndarray::Array2<f64>,
    /// The gradient with respect to `b`.
    pub b: ::backprop::ndarray::Array2<f64>,
}
#[automatically_derived]
impl ::backprop::__private::Differentiable for BroadcastSubSqGrad {
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
/// The gradients of [`broadcast_sub_sq`] by parameter position (`NotDifferentiable` for a constant), for differentiable functions that call `broadcast_sub_sq`. Written by `#[differentiable]`.
#[doc(hidden)]
#[allow(clippy::type_complexity, reason = "one gradient per parameter, by position")]
pub fn broadcast_sub_sq_vjp(
    a: &Array2<f64>,
    b: &Array2<f64>,
    d_out: impl ::backprop::__private::Cot<f64>,
) -> (::backprop::ndarray::Array2<f64>, ::backprop::ndarray::Array2<f64>) {
    let (_, grad) = broadcast_sub_sq_backward(
        a,
        b,
        *::backprop::__private::Cot::get(&d_out),
    );
    (grad.a, grad.b)
}
/// Runs [`broadcast_sub_sq`] and its reverse sweep: returns the value and the gradient of `d_out · broadcast_sub_sq(..)` with respect to every differentiable parameter (pass `d_out = 1.0` for a scalar loss). Written by `#[differentiable]`.
pub fn broadcast_sub_sq_backward(
    a: &Array2<f64>,
    b: &Array2<f64>,
    d_out: f64,
) -> (f64, BroadcastSubSqGrad) {
    #[allow(unused_imports, reason = "plain arithmetic calls nothing of the runtime")]
    use ::backprop::__private as bp;
    let _ = broadcast_sub_sq;
    let c = bp::sub(a, b);
    let out = bp::sum_square(&c);
    let d_c = bp::sum_square_vjp(d_out, c);
    let (d_a, d_b) = bp::zip_vjp_both(d_c, a, b, bp::Sub);
    let grad = BroadcastSubSqGrad {
        a: d_a,
        b: d_b,
    };
    (out, grad)
}
pub fn regression(
    w: &Array2<f64>,
    b: &Array1<f64>,
    x: &Array2<f64>,
    y: &Array2<f64>,
) -> f64 {
    let pred = tanh(&(x.dot(w) + b));
    mse(&(pred + 1.0), y) + 0.01 * sum(&square(w))
}
/// The gradient of [`regression`] with respect to its differentiable parameters, one field each, written by `#[differentiable]`.
#[derive(Debug, Clone)]
pub struct RegressionGrad {
    /// The gradient with respect to `w`.
    pub w: ::backprop::ndarray::Array2<f64>,
    /// The gradient with respect to `b`.
    pub b: ::backprop::ndarray::Array1<f64>,
}
#[automatically_derived]
impl ::backprop::__private::Differentiable for RegressionGrad {
    fn visit<'__bp>(
        &'__bp self,
        path: &mut ::backprop::__private::Path,
        visitor: &mut dyn ::backprop::__private::Visitor<'__bp>,
    ) {
        ::backprop::__private::visit_field(path, "w", &self.w, visitor);
        ::backprop::__private::visit_field(path, "b", &self.b, visitor);
    }
    fn visit_mut<'__bp>(
        &'__bp mut self,
        path: &mut ::backprop::__private::Path,
        visitor: &mut dyn ::backprop::__private::VisitorMut<'__bp>,
    ) {
        ::backprop::__private::visit_field_mut(path, "w", &mut self.w, visitor);
        ::backprop::__private::visit_field_mut(path, "b", &mut self.b, visitor);
    }
}
/// The gradients of [`regression`] by parameter position (`NotDifferentiable` for a constant), for differentiable functions that call `regression`. Written by `#[differentiable]`.
#[doc(hidden)]
#[allow(clippy::type_complexity, reason = "one gradient per parameter, by position")]
pub fn regression_vjp(
    w: &Array2<f64>,
    b: &Array1<f64>,
    x: &Array2<f64>,
    y: &Array2<f64>,
    d_out: impl ::backprop::__private::Cot<f64>,
) -> (
    ::backprop::ndarray::Array2<f64>,
    ::backprop::ndarray::Array1<f64>,
    ::backprop::__private::NotDifferentiable,
    ::backprop::__private::NotDifferentiable,
) {
    let (_, grad) = regression_backward(
        w,
        b,
        x,
        y,
        *::backprop::__private::Cot::get(&d_out),
    );
    (
        grad.w,
        grad.b,
        ::backprop::__private::NotDifferentiable,
        ::backprop::__private::NotDifferentiable,
    )
}
/// Runs [`regression`] and its reverse sweep: returns the value and the gradient of `d_out · regression(..)` with respect to every differentiable parameter (pass `d_out = 1.0` for a scalar loss). Written by `#[differentiable]`.
pub fn regression_backward(
    w: &Array2<f64>,
    b: &Array1<f64>,
    x: &Array2<f64>,
    y: &Array2<f64>,
    d_out: f64,
) -> (f64, RegressionGrad) {
    #[allow(unused_imports, reason = "plain arithmetic calls nothing of the runtime")]
    use ::backprop::__private as bp;
    let _ = regression;
    let pred_1 = bp::dot(x, w);
    let pred_1_shape = bp::shape_of(&pred_1);
    let pred = bp::zip_map(pred_1, b, bp::Add, bp::Tanh);
    let out_1 = bp::add(&pred, &1.0_f64);
    let out_2 = bp::mse(&out_1, y);
    let out_3 = bp::sum_square(w);
    let out_4 = 0.01_f64 * out_3;
    let out = out_2 + out_4;
    let d_out_2 = d_out;
    let d_out_4 = d_out;
    let d_out_3 = d_out_4 * 0.01_f64;
    let d_w_from_out_3 = bp::sum_square_vjp(d_out_3, w);
    let d_out_1 = bp::mse_vjp_lhs(d_out_2, out_1, y);
    let d_pred = bp::zip_vjp_lhs(d_out_1, &pred, &1.0_f64, bp::Add).value();
    let d_pred_pre = bp::map_vjp_out(d_pred, &pred, bp::Tanh);
    let (d_pred_1, d_b) = bp::zip_vjp_both(
        d_pred_pre,
        &bp::stand_in(&pred_1_shape),
        b,
        bp::Add,
    );
    let d_w = bp::dot_vjp_rhs(d_pred_1, x, w).added_to(d_w_from_out_3);
    let grad = RegressionGrad { w: d_w, b: d_b };
    (out, grad)
}
