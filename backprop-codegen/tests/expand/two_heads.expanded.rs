use backprop::prelude::*;
#[allow(clippy::too_many_arguments)]
pub fn two_heads(
    w1: &Array2<f64>,
    b1: &Array1<f64>,
    w2: &Array2<f64>,
    b2: &Array1<f64>,
    v: &Array2<f64>,
    c: &Array1<f64>,
    x: &Array2<f64>,
    labels: &[usize],
    y: &Array2<f64>,
) -> f64 {
    let a1 = relu(&(x.dot(&w1.t()) + b1));
    let loss_a = softmax_cross_entropy(&(a1.dot(&w2.t()) + b2), labels);
    let loss_b = mse(&(a1.dot(&v.t()) + c), y);
    loss_a + loss_b
}
/// The gradient of [`two_heads`] with respect to its differentiable parameters, one field each, written by `#[differentiable]`.
#[derive(Debug, Clone)]
pub struct TwoHeadsGrad {
    /// The gradient with respect to `w1`.
    pub w1: ::backprop::ndarray::Array2<f64>,
    /// The gradient with respect to `b1`.
    pub b1: ::backprop::ndarray::Array1<f64>,
    /// The gradient with respect to `w2`.
    pub w2: ::backprop::ndarray::Array2<f64>,
    /// The gradient with respect to `b2`.
    pub b2: ::backprop::ndarray::Array1<f64>,
    /// The gradient with respect to `v`.
    pub v: ::backprop::ndarray::Array2<f64>,
    /// The gradient with respect to `c`.
    pub c: ::backprop::ndarray::Array1<f64>,
}
#[automatically_derived]
impl ::backprop::__private::Differentiable for TwoHeadsGrad {
    fn visit<'__bp>(
        &'__bp self,
        path: &mut ::backprop::__private::Path,
        visitor: &mut dyn ::backprop::__private::Visitor<'__bp>,
    ) {
        ::backprop::__private::visit_field(path, "w1", &self.w1, visitor);
        ::backprop::__private::visit_field(path, "b1", &self.b1, visitor);
        ::backprop::__private::visit_field(path, "w2", &self.w2, visitor);
        ::backprop::__private::visit_field(path, "b2", &self.b2, visitor);
        ::backprop::__private::visit_field(path, "v", &self.v, visitor);
        ::backprop::__private::visit_field(path, "c", &self.c, visitor);
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
        ::backprop::__private::visit_field_mut(path, "v", &mut self.v, visitor);
        ::backprop::__private::visit_field_mut(path, "c", &mut self.c, visitor);
    }
}
/// The gradients of [`two_heads`] by parameter position (`NotDifferentiable` for a constant), for differentiable functions that call `two_heads`. Written by `#[differentiable]`.
#[doc(hidden)]
#[allow(clippy::too_many_arguments, reason = "the function's parameters and `d_out`")]
#[allow(clippy::type_complexity, reason = "one gradient per parameter, by position")]
pub fn two_heads_vjp(
    w1: &Array2<f64>,
    b1: &Array1<f64>,
    w2: &Array2<f64>,
    b2: &Array1<f64>,
    v: &Array2<f64>,
    c: &Array1<f64>,
    x: &Array2<f64>,
    labels: &[usize],
    y: &Array2<f64>,
    d_out: impl ::backprop::__private::Cot<f64>,
) -> (
    ::backprop::ndarray::Array2<f64>,
    ::backprop::ndarray::Array1<f64>,
    ::backprop::ndarray::Array2<f64>,
    ::backprop::ndarray::Array1<f64>,
    ::backprop::ndarray::Array2<f64>,
    ::backprop::ndarray::Array1<f64>,
    ::backprop::__private::NotDifferentiable,
    ::backprop::__private::NotDifferentiable,
    ::backprop::__private::NotDifferentiable,
) {
    let (_, grad) = two_heads_backward(
        w1,
        b1,
        w2,
        b2,
        v,
        c,
        x,
        labels,
        y,
        *::backprop::__private::Cot::get(&d_out),
    );
    (
        grad.w1,
        grad.b1,
        grad.w2,
        grad.b2,
        grad.v,
        grad.c,
        ::backprop::__private::NotDifferentiable,
        ::backprop::__private::NotDifferentiable,
        ::backprop::__private::NotDifferentiable,
    )
}
/// Runs [`two_heads`] and its reverse sweep: returns the value and the gradient of `d_out · two_heads(..)` with respect to every differentiable parameter (pass `d_out = 1.0` for a scalar loss). Written by `#[differentiable]`.
#[allow(clippy::too_many_arguments, reason = "the function's parameters and `d_out`")]
pub fn two_heads_backward(
    w1: &Array2<f64>,
    b1: &Array1<f64>,
    w2: &Array2<f64>,
    b2: &Array1<f64>,
    v: &Array2<f64>,
    c: &Array1<f64>,
    x: &Array2<f64>,
    labels: &[usize],
    y: &Array2<f64>,
    d_out: f64,
) -> (f64, TwoHeadsGrad) {
    #[allow(unused_imports, reason = "plain arithmetic calls nothing of the runtime")]
    use ::backprop::__private as bp;
    let _ = two_heads;
    let a1_1 = bp::t(w1);
    let a1_2 = bp::dot(x, &a1_1);
    let a1_2_shape = bp::shape_of(&a1_2);
    let a1 = bp::zip_map(a1_2, b1, bp::Add, bp::Relu);
    let loss_a_1 = bp::t(w2);
    let loss_a_2 = bp::dot(&a1, &loss_a_1);
    let loss_a_2_shape = bp::shape_of(&loss_a_2);
    let loss_a_3 = bp::add(loss_a_2, b2);
    let loss_a_3_shape = bp::shape_of(&loss_a_3);
    let (loss_a, loss_a_probs) = bp::softmax_cross_entropy_fwd(loss_a_3, labels);
    let loss_b_1 = bp::t(v);
    let loss_b_2 = bp::dot(&a1, &loss_b_1);
    let loss_b_2_shape = bp::shape_of(&loss_b_2);
    let loss_b_3 = bp::add(loss_b_2, c);
    let loss_b = bp::mse(&loss_b_3, y);
    let out = loss_a + loss_b;
    let d_loss_a = d_out;
    let d_loss_b = d_out;
    let d_loss_b_3 = bp::mse_vjp_lhs(d_loss_b, loss_b_3, y);
    let (d_loss_b_2, d_c) = bp::zip_vjp_both(
        d_loss_b_3,
        &bp::stand_in(&loss_b_2_shape),
        c,
        bp::Add,
    );
    let d_a1_from_loss_b_2 = bp::dot_vjp_lhs(&d_loss_b_2, &a1, &loss_b_1).value();
    let d_loss_b_1 = bp::dot_vjp_rhs(d_loss_b_2, &a1, &loss_b_1).value();
    let d_v = bp::t_vjp(d_loss_b_1, v);
    let d_loss_a_3 = bp::softmax_cross_entropy_vjp(
        d_loss_a,
        &bp::stand_in(&loss_a_3_shape),
        labels,
        loss_a_probs,
    );
    let (d_loss_a_2, d_b2) = bp::zip_vjp_both(
        d_loss_a_3,
        &bp::stand_in(&loss_a_2_shape),
        b2,
        bp::Add,
    );
    let d_a1 = bp::dot_vjp_lhs(&d_loss_a_2, &a1, &loss_a_1).added_to(d_a1_from_loss_b_2);
    let d_loss_a_1 = bp::dot_vjp_rhs(d_loss_a_2, &a1, &loss_a_1).value();
    let d_w2 = bp::t_vjp(d_loss_a_1, w2);
    let d_a1_pre = bp::map_vjp_out(d_a1, &a1, bp::Relu);
    let (d_a1_2, d_b1) = bp::zip_vjp_both(
        d_a1_pre,
        &bp::stand_in(&a1_2_shape),
        b1,
        bp::Add,
    );
    let d_a1_1 = bp::dot_vjp_rhs(d_a1_2, x, &a1_1).value();
    let d_w1 = bp::t_vjp(d_a1_1, w1);
    let grad = TwoHeadsGrad {
        w1: d_w1,
        b1: d_b1,
        w2: d_w2,
        b2: d_b2,
        v: d_v,
        c: d_c,
    };
    (out, grad)
}
