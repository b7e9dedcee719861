use backprop::prelude::*;
#[allow(clippy::needless_range_loop)]
pub fn pairs(x: [f64; 4], c: f64) -> f64 {
    let mut s = 0.0;
    for i in 0..x.len() {
        for j in i..x.len() {
            s += c * x[i] * x[j];
        }
    }
    s
}
/// The gradient of [`pairs`] with respect to its differentiable parameters, one field each, written by `#[differentiable]`.
#[derive(Debug, Clone)]
pub struct PairsGrad {
    /// The gradient with respect to `x`.
    pub x: [f64; 4],
    /// The gradient with respect to `c`.
    pub c: f64,
}
#[automatically_derived]
impl ::backprop::__private::Differentiable for PairsGrad {
    fn visit<'__bp>(
        &'__bp self,
        path: &mut ::backprop::__private::Path,
        visitor: &mut dyn ::backprop::__private::Visitor<'__bp>,
    ) {
        ::backprop::__private::visit_field(path, "x", &self.x, visitor);
        ::backprop::__private::visit_field(path, "c", &self.c, visitor);
    }
    fn visit_mut<'__bp>(
        &'__bp mut self,
        path: &mut ::backprop::__private::Path,
        visitor: &mut dyn ::backprop::__private::VisitorMut<'__bp>,
    ) {
        ::backprop::__private::visit_field_mut(path, "x", &mut self.x, visitor);
        ::backprop::__private::visit_field_mut(path, "c", &mut self.c, visitor);
    }
}
/// The gradients of [`pairs`] by parameter position (`NotDifferentiable` for a constant), for differentiable functions that call `pairs`. Written by `#[differentiable]`.
#[doc(hidden)]
#[allow(clippy::type_complexity, reason = "one gradient per parameter, by position")]
pub fn pairs_vjp(
    x: [f64; 4],
    c: f64,
    d_out: impl ::backprop::__private::Cot<f64>,
) -> (::backprop::ndarray::Array<f64, ::backprop::ndarray::Ix1>, f64) {
    let (_, grad) = pairs_backward(x, c, *::backprop::__private::Cot::get(&d_out));
    (::backprop::__private::plain_owned(&grad.x), grad.c)
}
/// Runs [`pairs`] and its reverse sweep: returns the value and the gradient of `d_out · pairs(..)` with respect to every differentiable parameter (pass `d_out = 1.0` for a scalar loss). Written by `#[differentiable]`.
pub fn pairs_backward(x: [f64; 4], c: f64, d_out: f64) -> (f64, PairsGrad) {
    #[allow(unused_imports, reason = "plain arithmetic calls nothing of the runtime")]
    use ::backprop::__private as bp;
    let x = bp::fixed_view(&x);
    let _ = pairs;
    let i_start = 0;
    let i_end = ::backprop::__private::plain_slice(&x).len();
    let mut s = 0.0_f64;
    let mut d_s = bp::one_like(&s);
    let mut d_x = bp::zeros_like(&x);
    let mut d_c = bp::zeros_like(&c);
    for i in i_start..i_end {
        let s_in = s;
        let j_start = i;
        let j_end = ::backprop::__private::plain_slice(&x).len();
        let mut s_1 = s_in;
        let mut d_s_1 = bp::one_like(&s_1);
        for j in j_start..j_end {
            let s_1_in = s_1;
            let s_2 = bp::fixed_index(&x, i);
            let s_3 = c * s_2;
            let s_4 = bp::fixed_index(&x, j);
            let s_5 = s_3 * s_4;
            let s_6 = s_1_in + s_5;
            let d_s_6 = d_s_1;
            let d_s_1_in_step = d_s_6;
            let d_s_5 = d_s_6;
            let d_s_3 = d_s_5 * s_4;
            let d_s_4 = d_s_5 * s_3;
            bp::fixed_index_vjp(d_s_4, &x, j).add_to(&mut d_x);
            let d_c_step_1 = d_s_3 * s_2;
            let d_s_2 = d_s_3 * c;
            bp::fixed_index_vjp(d_s_2, &x, i).add_to(&mut d_x);
            d_c += d_c_step_1;
            d_s_1 = d_s_1_in_step;
            s_1 = s_6;
        }
        let d_s_1 = d_s;
        let d_s_in_step = d_s_1;
        d_s = d_s_in_step;
        s = s_1;
    }
    let d_s = d_out;
    let d_x = bp::scaled(d_x, d_s);
    let d_c = bp::scaled(d_c, d_s);
    let grad = PairsGrad {
        x: bp::plain_from(d_x),
        c: d_c,
    };
    (s, grad)
}
