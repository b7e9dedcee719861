use backprop::prelude::*;
#[allow(clippy::needless_range_loop)]
pub fn damped(x: &[f64], k: f64) -> f64 {
    let mut s = 1.0;
    for i in 0..x.len() {
        for j in 0..i {
            s = (s * k + x[i] * x[j]).tanh();
        }
    }
    s
}
/// The gradient of [`damped`] with respect to its differentiable parameters, one field each, written by `#[differentiable]`.
#[derive(Debug, Clone)]
pub struct DampedGrad {
    /// The gradient with respect to `x`.
    pub x: ::std::vec::Vec<f64>,
    /// The gradient with respect to `k`.
    pub k: f64,
}
#[automatically_derived]
impl ::backprop::__private::Differentiable for DampedGrad {
    fn visit<'__bp>(
        &'__bp self,
        path: &mut ::backprop::__private::Path,
        visitor: &mut dyn ::backprop::__private::Visitor<'__bp>,
    ) {
        ::backprop::__private::visit_field(path, "x", &self.x, visitor);
        ::backprop::__private::visit_field(path, "k", &self.k, visitor);
    }
    fn visit_mut<'__bp>(
        &'__bp mut self,
        path: &mut ::backprop::__private::Path,
        visitor: &mut dyn ::backprop::__private::VisitorMut<'__bp>,
    ) {
        ::backprop::__private::visit_field_mut(path, "x", &mut self.x, visitor);
        ::backprop::__private::visit_field_mut(path, "k", &mut self.k, visitor);
    }
}
/// The gradients of [`damped`] by parameter position (`NotDifferentiable` for a constant), for differentiable functions that call `damped`. Written by `#[differentiable]`.
#[doc(hidden)]
#[allow(clippy::type_complexity, reason = "one gradient per parameter, by position")]
pub fn damped_vjp(
    x: &[f64],
    k: f64,
    d_out: impl ::backprop::__private::Cot<f64>,
) -> (::backprop::ndarray::Array<f64, ::backprop::ndarray::Ix1>, f64) {
    let (_, grad) = damped_backward(x, k, *::backprop::__private::Cot::get(&d_out));
    (::backprop::__private::plain_owned(&grad.x), grad.k)
}
/// Runs [`damped`] and its reverse sweep: returns the value and the gradient of `d_out · damped(..)` with respect to every differentiable parameter (pass `d_out = 1.0` for a scalar loss). Written by `#[differentiable]`.
pub fn damped_backward(x: &[f64], k: f64, d_out: f64) -> (f64, DampedGrad) {
    #[allow(unused_imports, reason = "plain arithmetic calls nothing of the runtime")]
    use ::backprop::__private as bp;
    let x = bp::plain_view(&x);
    let _ = damped;
    let mut steps_1 = ::std::vec::Vec::new();
    let i_start = 0;
    let i_end = ::backprop::__private::plain_slice(&x).len();
    let mut s = 1.0_f64;
    let mut steps = ::std::vec::Vec::with_capacity((i_start..i_end).size_hint().0);
    for i in i_start..i_end {
        let s_in = s;
        let j_start = 0;
        let j_end = i;
        let mut s_1 = s_in;
        let steps_1_at = steps_1.len();
        for j in j_start..j_end {
            let s_1_in = s_1;
            let s_2 = s_1_in * k;
            let s_3 = bp::index(&x, i);
            let s_4 = bp::index(&x, j);
            let s_5 = s_3 * s_4;
            let s_6 = s_2 + s_5;
            let s_7 = s_6.tanh();
            steps_1.push((s_1_in, s_7));
            s_1 = s_7;
        }
        steps.push((steps_1_at,));
        s = s_1;
    }
    let mut d_s = d_out;
    let mut d_k = bp::zeros_like(&k);
    let mut d_x = bp::zeros_like(&x);
    for (i, (steps_1_at,)) in (i_start..i_end).zip(steps).rev() {
        let j_start = 0;
        let j_end = i;
        let mut d_s_1 = d_s;
        for (j, (s_1_in, s_7)) in (j_start..j_end).zip(steps_1.drain(steps_1_at..)).rev()
        {
            let s_3 = bp::index(&x, i);
            let s_4 = bp::index(&x, j);
            let d_s_7 = d_s_1;
            let d_s_6 = bp::map_vjp_out(d_s_7, &s_7, bp::Tanh);
            let d_s_2 = d_s_6;
            let d_s_5 = d_s_6;
            let d_s_3 = d_s_5 * s_4;
            let d_s_4 = d_s_5 * s_3;
            bp::index_vjp(d_s_4, &x, j).add_to(&mut d_x);
            bp::index_vjp(d_s_3, &x, i).add_to(&mut d_x);
            let d_s_1_in_step = d_s_2 * k;
            let d_k_step_1 = d_s_2 * s_1_in;
            d_k += d_k_step_1;
            d_s_1 = d_s_1_in_step;
        }
        let d_s_in_step = d_s_1;
        d_s = d_s_in_step;
    }
    let grad = DampedGrad {
        x: bp::plain_from(d_x),
        k: d_k,
    };
    (s, grad)
}
