use backprop::prelude::*;
pub fn linear_fit(w: f64, b: f64, xs: &[f64], ys: &[f64]) -> f64 {
    xs.iter().zip(ys).map(|(x, y)| (w * x + b - y).powi(2)).sum::<f64>()
        / xs.len() as f64
}
/// The gradient of [`linear_fit`] with respect to its differentiable parameters, one field each, written by `#[differentiable]`.
#[derive(Debug, Clone)]
pub struct LinearFitGrad {
    /// The gradient with respect to `w`.
    pub w: f64,
    /// The gradient with respect to `b`.
    pub b: f64,
}
#[automatically_derived]
impl ::backprop::__private::Differentiable for LinearFitGrad {
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
/// The gradients of [`linear_fit`] by parameter position (`NotDifferentiable` for a constant), for differentiable functions that call `linear_fit`. Written by `#[differentiable]`.
#[doc(hidden)]
#[allow(clippy::type_complexity, reason = "one gradient per parameter, by position")]
pub fn linear_fit_vjp(
    w: f64,
    b: f64,
    xs: &[f64],
    ys: &[f64],
    d_out: impl ::backprop::__private::Cot<f64>,
) -> (
    f64,
    f64,
    ::backprop::__private::NotDifferentiable,
    ::backprop::__private::NotDifferentiable,
) {
    let (_, grad) = linear_fit_backward(
        w,
        b,
        xs,
        ys,
        *::backprop::__private::Cot::get(&d_out),
    );
    (
        grad.w,
        grad.b,
        ::backprop::__private::NotDifferentiable,
        ::backprop::__private::NotDifferentiable,
    )
}
/// Runs [`linear_fit`] and its reverse sweep: returns the value and the gradient of `d_out · linear_fit(..)` with respect to every differentiable parameter (pass `d_out = 1.0` for a scalar loss). Written by `#[differentiable]`.
pub fn linear_fit_backward(
    w: f64,
    b: f64,
    xs: &[f64],
    ys: &[f64],
    d_out: f64,
) -> (f64, LinearFitGrad) {
    #[allow(unused_imports, reason = "plain arithmetic calls nothing of the runtime")]
    use ::backprop::__private as bp;
    let xs = bp::plain_view(&xs);
    let ys = bp::plain_view(&ys);
    let _ = linear_fit;
    let k_start = 0;
    let k_end = ::core::cmp::min(
        ::backprop::__private::plain_slice(&xs).len(),
        ::backprop::__private::plain_slice(&ys).len(),
    );
    let mut acc = -0.0_f64;
    let mut d_acc = bp::one_like(&acc);
    let mut d_w = bp::zeros_like(&w);
    let mut d_b = bp::zeros_like(&b);
    for k in k_start..k_end {
        let acc_in = acc;
        let x = bp::index(&xs, k);
        let y = bp::index(&ys, k);
        let x_1 = ::backprop::__private::Plain::plain(x);
        let y_1 = ::backprop::__private::Plain::plain(y);
        let item_1 = w * x_1;
        let item_2 = item_1 + b;
        let item_3 = item_2 - y_1;
        let item = item_3.powi(2);
        let acc_1 = acc_in + item;
        let d_acc_1 = d_acc;
        let d_acc_in_step = d_acc_1;
        let d_item = d_acc_1;
        let d_item_3 = bp::map_vjp_x(d_item, &item_3, bp::Powi(2));
        let d_item_2 = d_item_3;
        d_b += d_item_2;
        let d_item_1 = d_item_2;
        let d_w_step = d_item_1 * x_1;
        d_w += d_w_step;
        d_acc = d_acc_in_step;
        acc = acc_1;
    }
    let out_1 = ::backprop::__private::plain_slice(&xs).len() as f64;
    let out = acc / out_1;
    let d_acc = d_out / out_1;
    let d_w = bp::scaled(d_w, d_acc);
    let d_b = bp::scaled(d_b, d_acc);
    let grad = LinearFitGrad { w: d_w, b: d_b };
    (out, grad)
}
