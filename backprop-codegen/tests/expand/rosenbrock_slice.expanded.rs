use backprop::prelude::*;
#[allow(clippy::needless_range_loop)]
pub fn rosenbrock(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..x.len() - 1 {
        s += 100.0 * (x[i + 1] - x[i] * x[i]).powi(2) + (1.0 - x[i]).powi(2);
    }
    s
}
/// The gradient of [`rosenbrock`] with respect to its differentiable parameters, one field each, written by `#[differentiable]`.
#[derive(Debug, Clone)]
pub struct RosenbrockGrad {
    /// The gradient with respect to `x`.
    pub x: ::std::vec::Vec<f64>,
}
#[automatically_derived]
impl ::backprop::__private::Differentiable for RosenbrockGrad {
    fn visit<'__bp>(
        &'__bp self,
        path: &mut ::backprop::__private::Path,
        visitor: &mut dyn ::backprop::__private::Visitor<'__bp>,
    ) {
        ::backprop::__private::visit_field(path, "x", &self.x, visitor);
    }
    fn visit_mut<'__bp>(
        &'__bp mut self,
        path: &mut ::backprop::__private::Path,
        visitor: &mut dyn ::backprop::__private::VisitorMut<'__bp>,
    ) {
        ::backprop::__private::visit_field_mut(path, "x", &mut self.x, visitor);
    }
}
/// The gradients of [`rosenbrock`] by parameter position (`NotDifferentiable` for a constant), for differentiable functions that call `rosenbrock`. Written by `#[differentiable]`.
#[doc(hidden)]
#[allow(clippy::type_complexity, reason = "one gradient per parameter, by position")]
pub fn rosenbrock_vjp(
    x: &[f64],
    d_out: impl ::backprop::__private::Cot<f64>,
) -> (::backprop::ndarray::Array<f64, ::backprop::ndarray::Ix1>,) {
    let (_, grad) = rosenbrock_backward(x, *::backprop::__private::Cot::get(&d_out));
    (::backprop::__private::plain_owned(&grad.x),)
}
/// Runs [`rosenbrock`] and its reverse sweep: returns the value and the gradient of `d_out · rosenbrock(..)` with respect to every differentiable parameter (pass `d_out = 1.0` for a scalar loss). Written by `#[differentiable]`.
pub fn rosenbrock_backward(x: &[f64], d_out: f64) -> (f64, RosenbrockGrad) {
    #[allow(unused_imports, reason = "plain arithmetic calls nothing of the runtime")]
    use ::backprop::__private as bp;
    let x = bp::plain_view(&x);
    let _ = rosenbrock;
    let i_start = 0;
    let i_end = ::backprop::__private::plain_slice(&x).len() - 1;
    let mut s = 0.0_f64;
    let mut d_s = bp::one_like(&s);
    let mut d_x = bp::zeros_like(&x);
    for i in i_start..i_end {
        let s_in = s;
        let s_1 = bp::index(&x, i + 1);
        let s_2 = bp::index(&x, i);
        let s_3 = bp::index(&x, i);
        let s_4 = s_2 * s_3;
        let s_5 = s_1 - s_4;
        let s_6 = s_5.powi(2);
        let s_7 = 100.0_f64 * s_6;
        let s_8 = bp::index(&x, i);
        let s_9 = 1.0_f64 - s_8;
        let s_10 = s_9.powi(2);
        let s_11 = s_7 + s_10;
        let s_12 = s_in + s_11;
        let d_s_12 = d_s;
        let d_s_in_step = d_s_12;
        let d_s_11 = d_s_12;
        let d_s_7 = d_s_11;
        let d_s_10 = d_s_11;
        let d_s_9 = bp::map_vjp_x(d_s_10, &s_9, bp::Powi(2));
        let d_s_8 = -d_s_9;
        bp::index_vjp(d_s_8, &x, i).add_to(&mut d_x);
        let d_s_6 = d_s_7 * 100.0_f64;
        let d_s_5 = bp::map_vjp_x(d_s_6, &s_5, bp::Powi(2));
        let d_s_1 = d_s_5;
        let d_s_4 = -d_s_5;
        let d_s_2 = d_s_4 * s_3;
        let d_s_3 = d_s_4 * s_2;
        bp::index_vjp(d_s_3, &x, i).add_to(&mut d_x);
        bp::index_vjp(d_s_2, &x, i).add_to(&mut d_x);
        bp::index_vjp(d_s_1, &x, i + 1).add_to(&mut d_x);
        d_s = d_s_in_step;
        s = s_12;
    }
    let d_s = d_out;
    let d_x = bp::scaled(d_x, d_s);
    let grad = RosenbrockGrad {
        x: bp::plain_from(d_x),
    };
    (s, grad)
}
