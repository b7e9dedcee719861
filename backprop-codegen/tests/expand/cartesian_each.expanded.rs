use backprop::prelude::*;
pub fn cartesian(r: f64, t: f64) -> (f64, f64) {
    (r * t.cos(), r * t.sin())
}
/// The gradient of [`cartesian`] with respect to its differentiable parameters, one field each, written by `#[differentiable]`.
#[derive(Debug, Clone)]
pub struct CartesianGrad {
    /// The gradient with respect to `r`.
    pub r: f64,
    /// The gradient with respect to `t`.
    pub t: f64,
}
#[automatically_derived]
impl ::backprop::__private::Differentiable for CartesianGrad {
    fn visit<'__bp>(
        &'__bp self,
        path: &mut ::backprop::__private::Path,
        visitor: &mut dyn ::backprop::__private::Visitor<'__bp>,
    ) {
        ::backprop::__private::visit_field(path, "r", &self.r, visitor);
        ::backprop::__private::visit_field(path, "t", &self.t, visitor);
    }
    fn visit_mut<'__bp>(
        &'__bp mut self,
        path: &mut ::backprop::__private::Path,
        visitor: &mut dyn ::backprop::__private::VisitorMut<'__bp>,
    ) {
        ::backprop::__private::visit_field_mut(path, "r", &mut self.r, visitor);
        ::backprop::__private::visit_field_mut(path, "t", &mut self.t, visitor);
    }
}
/// The gradients of [`cartesian`] by parameter position (`NotDifferentiable` for a constant), given one upstream gradient per component of its value, for differentiable functions that call `cartesian`. Written by `#[differentiable]`.
#[doc(hidden)]
#[allow(clippy::type_complexity, reason = "one gradient per parameter, by position")]
pub fn cartesian_vjp(
    r: f64,
    t: f64,
    d_out: (impl ::backprop::__private::Cot<f64>, impl ::backprop::__private::Cot<f64>),
) -> (f64, f64) {
    let (d_out_0, d_out_1) = d_out;
    let (_, grad) = cartesian_backward(
        r,
        t,
        (
            *::backprop::__private::Cot::get(&d_out_0),
            *::backprop::__private::Cot::get(&d_out_1),
        ),
    );
    (grad.r, grad.t)
}
/// Runs [`cartesian`] and its reverse sweep: returns the value and the gradient of `Σ_k d_out.k · cartesian(..).k` (one upstream gradient per component of the value) with respect to every differentiable parameter. Written by `#[differentiable]`.
pub fn cartesian_backward(
    r: f64,
    t: f64,
    d_out: (f64, f64),
) -> ((f64, f64), CartesianGrad) {
    #[allow(unused_imports, reason = "plain arithmetic calls nothing of the runtime")]
    use ::backprop::__private as bp;
    let _ = cartesian;
    let (d_out_0, d_out_1) = d_out;
    let out_0_1 = t.cos();
    let out_0 = r * out_0_1;
    let out_1_1 = t.sin();
    let out_1 = r * out_1_1;
    let d_r_from_out_1 = d_out_1 * out_1_1;
    let d_out_1_1 = d_out_1 * r;
    let d_t_from_out_1_1 = d_out_1_1 * out_0_1;
    let d_r_from_out_0 = d_out_0 * out_0_1;
    let d_out_0_1 = d_out_0 * r;
    let d_t_from_out_0_1 = -(d_out_0_1 * out_1_1);
    let d_t = d_t_from_out_1_1 + d_t_from_out_0_1;
    let d_r = d_r_from_out_1 + d_r_from_out_0;
    let grad = CartesianGrad { r: d_r, t: d_t };
    ((out_0, out_1), grad)
}
/// Runs [`cartesian`] once and its reverse sweep once per upstream gradient in `d_outs`: returns the value and, for each `d_outs[k]`, the gradient that `cartesian_backward(.., d_outs[k])` returns. Written by `#[differentiable(backward_each)]`.
pub fn cartesian_backward_each<const K: usize>(
    r: f64,
    t: f64,
    d_outs: [(f64, f64); K],
) -> ((f64, f64), [CartesianGrad; K]) {
    #[allow(unused_imports, reason = "plain arithmetic calls nothing of the runtime")]
    use ::backprop::__private as bp;
    let _ = cartesian;
    let out_0_1 = t.cos();
    let out_0 = r * out_0_1;
    let out_1_1 = t.sin();
    let out_1 = r * out_1_1;
    let grads = bp::each(
        d_outs,
        |d_out: (f64, f64)| {
            let (d_out_0, d_out_1) = d_out;
            let d_r_from_out_1 = d_out_1 * out_1_1;
            let d_out_1_1 = d_out_1 * r;
            let d_t_from_out_1_1 = d_out_1_1 * out_0_1;
            let d_r_from_out_0 = d_out_0 * out_0_1;
            let d_out_0_1 = d_out_0 * r;
            let d_t_from_out_0_1 = -(d_out_0_1 * out_1_1);
            let d_t = d_t_from_out_1_1 + d_t_from_out_0_1;
            let d_r = d_r_from_out_1 + d_r_from_out_0;
            CartesianGrad { r: d_r, t: d_t }
        },
    );
    ((out_0, out_1), grads)
}
