use backprop::prelude::*;
#[inline]
pub fn linear(w: &Array2<f64>, b: &Array1<f64>, x: &Array2<f64>) -> Array2<f64> {
    x.dot(&w.t()) + b
}
/// The gradient of [`linear`] with respect to its differentiable parameters, one field each, written by `#[differentiable]`.
#[derive(Debug, Clone)]
pub struct LinearGrad {
    /// The gradient with respect to `w`.
    pub w: ::backprop::ndarray::Array2<f64>,
    /// The gradient with respect to `b`.
    pub b: ::backprop::ndarray::Array1<f64>,
    /// The gradient with respect to `x`.
    pub x: ::backprop::ndarray::Array2<f64>,
}
#[automatically_derived]
impl ::backprop::__private::Differentiable for LinearGrad {
    fn visit<'__bp>(
        &'__bp self,
        path: &mut ::backprop::__private::Path,
        visitor: &mut dyn ::backprop::__private::Visitor<'__bp>,
    ) {
        ::backprop::__private::visit_field(path, "w", &self.w, visitor);
        ::backprop::__private::visit_field(path, "b", &self.b, visitor);
        ::backprop::__private::visit_field(path, "x", &self.x, visitor);
    }
    fn visit_mut<'__bp>(
        &'__bp mut self,
        path: &mut ::backprop::__private::Path,
        visitor: &mut dyn ::backprop::__private::VisitorMut<'__bp>,
    ) {
        ::backprop::__private::visit_field_mut(path, "w", &mut self.w, visitor);
        ::backprop::__private::visit_field_mut(path, "b", &mut self.b, visitor);
        ::backprop::__private::visit_field_mut(path, "x", &mut self.x, visitor);
    }
}
/// The gradients of [`linear`] by parameter position (`NotDifferentiable` for a constant), for differentiable functions that call `linear`. Written by `#[differentiable]`.
#[doc(hidden)]
#[inline]
#[allow(clippy::type_complexity, reason = "one gradient per parameter, by position")]
pub fn linear_vjp(
    w: &Array2<f64>,
    b: &Array1<f64>,
    x: &Array2<f64>,
    d_out: impl ::backprop::__private::Cot<Array2<f64>>,
) -> (
    ::backprop::ndarray::Array2<f64>,
    ::backprop::ndarray::Array1<f64>,
    ::backprop::ndarray::Array2<f64>,
) {
    let (_, grad) = linear_backward(w, b, x, ::backprop::__private::Cot::get(&d_out));
    (grad.w, grad.b, grad.x)
}
/// Runs [`linear`] and its reverse sweep: returns the value and the gradient of `d_out · linear(..)` with respect to every differentiable parameter (pass `d_out = 1.0` for a scalar loss). Written by `#[differentiable]`.
#[inline]
pub fn linear_backward(
    w: &Array2<f64>,
    b: &Array1<f64>,
    x: &Array2<f64>,
    d_out: &Array2<f64>,
) -> (Array2<f64>, LinearGrad) {
    #[allow(unused_imports, reason = "plain arithmetic calls nothing of the runtime")]
    use ::backprop::__private as bp;
    let _ = linear;
    let out_1 = bp::t(w);
    let out_2 = bp::dot(x, &out_1);
    let out_2_shape = bp::shape_of(&out_2);
    let out = bp::add(out_2, b);
    let (d_out_2, d_b) = bp::zip_vjp_both(
        d_out,
        &bp::stand_in(&out_2_shape),
        b,
        bp::Add,
    );
    let d_x = bp::dot_vjp_lhs(&d_out_2, x, &out_1).value();
    let d_out_1 = bp::dot_vjp_rhs(d_out_2, x, &out_1).value();
    let d_w = bp::t_vjp(d_out_1, w);
    let grad = LinearGrad {
        w: d_w,
        b: d_b,
        x: d_x,
    };
    (out, grad)
}
pub fn two_layers(
    w1: &Array2<f64>,
    b1: &Array1<f64>,
    w2: &Array2<f64>,
    b2: &Array1<f64>,
    x: &Array2<f64>,
    labels: &[usize],
) -> f64 {
    let h = relu(&linear(w1, b1, x));
    softmax_cross_entropy(&linear(w2, b2, &h), labels)
}
/// The gradient of [`two_layers`] with respect to its differentiable parameters, one field each, written by `#[differentiable]`.
#[derive(Debug, Clone)]
pub struct TwoLayersGrad {
    /// The gradient with respect to `w1`.
    pub w1: ::backprop::ndarray::Array2<f64>,
    /// The gradient with respect to `b1`.
    pub b1: ::backprop::ndarray::Array1<f64>,
    /// The gradient with respect to `w2`.
    pub w2: ::backprop::ndarray::Array2<f64>,
    /// The gradient with respect to `b2`.
    pub b2: ::backprop::ndarray::Array1<f64>,
}
#[automatically_derived]
impl ::backprop::__private::Differentiable for TwoLayersGrad {
    fn visit<'__bp>(
        &'__bp self,
        path: &mut ::backprop::__private::Path,
        visitor: &mut dyn ::backprop::__private::Visitor<'__bp>,
    ) {
        ::backprop::__private::visit_field(path, "w1", &self.w1, visitor);
        ::backprop::__private::visit_field(path, "b1", &self.b1, visitor);
        ::backprop::__private::visit_field(path, "w2", &self.w2, visitor);
        ::backprop::__private::visit_field(path, "b2", &self.b2, visitor);
    }
    fn visit_mut<'__bp>(
        &'__bp mut self,
        path: &mut ::backprop::__private::Path,
        visitor: &mut dyn ::backprop::__private::VisitorMut<'__bp>,
    ) {
        ::backprop::__private::visit_field_mut(path, "w1", &mut self.w1, visitor);
        ::backprop::__private::visit_field_mut(path, "b1", &mut self.b1, visitor);
        ::backprop::__private::visit_field_mut(path, "w2", &mut self.w2, visitor);
        ::backprop::__private::visit_field_mut(path, "b2", &mut self.b2, visitor);
    }
}
/// The gradients of [`two_layers`] by parameter position (`NotDifferentiable` for a constant), for differentiable functions that call `two_layers`. Written by `#[differentiable]`.
#[doc(hidden)]
#[allow(clippy::type_complexity, reason = "one gradient per parameter, by position")]
pub fn two_layers_vjp(
    w1: &Array2<f64>,
    b1: &Array1<f64>,
    w2: &Array2<f64>,
    b2: &Array1<f64>,
    x: &Array2<f64>,
    labels: &[usize],
    d_out: impl ::backprop::__private::Cot<f64>,
) -> (
    ::backprop::ndarray::Array2<f64>,
    ::backprop::ndarray::Array1<f64>,
    ::backprop::ndarray::Array2<f64>,
    ::backprop::ndarray::Array1<f64>,
    ::backprop::__private::NotDifferentiable,
    ::backprop::__private::NotDifferentiable,
) {
    let (_, grad) = two_layers_backward(
        w1,
        b1,
        w2,
        b2,
        x,
        labels,
        *::backprop::__private::Cot::get(&d_out),
    );
    (
        grad.w1,
        grad.b1,
        grad.w2,
        grad.b2,
        ::backprop::__private::NotDifferentiable,
        ::backprop::__private::NotDifferentiable,
    )
}
/// Runs [`two_layers`] and its reverse sweep: returns the value and the gradient of `d_out · two_layers(..)` with respect to every differentiable parameter (pass `d_out = 1.0` for a scalar loss). Written by `#[differentiable]`.
pub fn two_layers_backward(
    w1: &Array2<f64>,
    b1: &Array1<f64>,
    w2: &Array2<f64>,
    b2: &Array1<f64>,
    x: &Array2<f64>,
    labels: &[usize],
    d_out: f64,
) -> (f64, TwoLayersGrad) {
    #[allow(unused_imports, reason = "plain arithmetic calls nothing of the runtime")]
    use ::backprop::__private as bp;
    let _ = two_layers;
    let h_1 = linear(w1, b1, x);
    let h = bp::relu(&h_1);
    let out_1 = linear(w2, b2, &h);
    let (out, out_probs) = bp::softmax_cross_entropy_fwd(&out_1, labels);
    let d_out_1 = bp::softmax_cross_entropy_vjp(d_out, &out_1, labels, out_probs);
    let (d_w2, d_b2, d_h) = linear_vjp(w2, b2, &h, d_out_1);
    let d_h_1 = bp::map_vjp_out(d_h, &h, bp::Relu);
    let (d_w1, d_b1, _) = linear_vjp(w1, b1, x, d_h_1);
    let grad = TwoLayersGrad {
        w1: d_w1,
        b1: d_b1,
        w2: d_w2,
        b2: d_b2,
    };
    (out, grad)
}
