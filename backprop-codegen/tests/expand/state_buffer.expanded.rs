use backprop::prelude::*;
#[allow(clippy::needless_range_loop)]
pub fn rnn_buffer(w: &Array2<f64>, xs: &Array2<f64>) -> f64 {
    let (t_max, n) = xs.dim();
    let mut h = Array2::<f64>::zeros((t_max + 1, n));
    for t in 0..t_max {
        let next = (w.dot(&h.row(t)) + xs.row(t)).tanh();
        h.row_mut(t + 1).assign(&next);
    }
    h.slice(s![1.., ..]).sum()
}
/// The gradient of [`rnn_buffer`] with respect to its differentiable parameters, one field each, written by `#[differentiable]`.
#[derive(Debug, Clone)]
pub struct RnnBufferGrad {
    /// The gradient with respect to `w`.
    pub w: ::backprop::ndarray::Array2<f64>,
}
#[automatically_derived]
impl ::backprop::__private::Differentiable for RnnBufferGrad {
    fn visit<'__bp>(
        &'__bp self,
        path: &mut ::backprop::__private::Path,
        visitor: &mut dyn ::backprop::__private::Visitor<'__bp>,
    ) {
        ::backprop::__private::visit_field(path, "w", &self.w, visitor);
    }
    fn visit_mut<'__bp>(
        &'__bp mut self,
        path: &mut ::backprop::__private::Path,
        visitor: &mut dyn ::backprop::__private::VisitorMut<'__bp>,
    ) {
        ::backprop::__private::visit_field_mut(path, "w", &mut self.w, visitor);
    }
}
/// The gradients of [`rnn_buffer`] by parameter position (`NotDifferentiable` for a constant), for differentiable functions that call `rnn_buffer`. Written by `#[differentiable]`.
#[doc(hidden)]
#[allow(clippy::type_complexity, reason = "one gradient per parameter, by position")]
pub fn rnn_buffer_vjp(
    w: &Array2<f64>,
    xs: &Array2<f64>,
    d_out: impl ::backprop::__private::Cot<f64>,
) -> (::backprop::ndarray::Array2<f64>, ::backprop::__private::NotDifferentiable) {
    let (_, grad) = rnn_buffer_backward(w, xs, *::backprop::__private::Cot::get(&d_out));
    (grad.w, ::backprop::__private::NotDifferentiable)
}
/// Runs [`rnn_buffer`] and its reverse sweep: returns the value and the gradient of `d_out · rnn_buffer(..)` with respect to every differentiable parameter (pass `d_out = 1.0` for a scalar loss). Written by `#[differentiable]`.
pub fn rnn_buffer_backward(
    w: &Array2<f64>,
    xs: &Array2<f64>,
    d_out: f64,
) -> (f64, RnnBufferGrad) {
    #[allow(unused_imports, reason = "plain arithmetic calls nothing of the runtime")]
    use ::backprop::__private as bp;
    let _ = rnn_buffer;
    let t_max_n = xs.dim();
    let t_max = t_max_n.0;
    let n = t_max_n.1;
    let h = Array2::<f64>::zeros((t_max + 1, n));
    let t_start = 0;
    let t_end = t_max;
    let mut h_1 = bp::copy(&h);
    let mut steps = ::std::vec::Vec::with_capacity((t_start..t_end).size_hint().0);
    let mut next_spare = bp::Spare::new();
    for t in t_start..t_end {
        let h_1_in = h_1;
        let next_1 = bp::row(&h_1_in, t);
        let next_2 = bp::dot_reuse(&mut next_spare, w, &next_1);
        let next_3 = bp::row(xs, t);
        let next_2_shape = bp::shape_of(&next_2);
        let next = bp::zip_map(next_2, &next_3, bp::Add, bp::Tanh);
        let h_2 = bp::set_row(h_1_in, &next, t + 1);
        let next_shape = bp::shape_of(&next);
        steps.push((next_3, next_2_shape, next_shape));
        next_spare.put(next);
        h_1 = h_2;
    }
    let out_1 = bp::slice(&h_1, s![1.., ..]);
    let out = bp::sum(&out_1);
    let d_out_1 = bp::sum_vjp(d_out, &out_1);
    let d_h_1 = bp::slice_vjp(d_out_1, &h_1, s![1.., ..]).value();
    let mut d_h_1 = d_h_1;
    let mut d_w = bp::zeros_like(w);
    let d_w_term = 0;
    let mut outers = bp::Outers::new(
        steps.len(),
        [bp::outer_term(&d_w).v_from(bp::rows_in(&h_1, t_start, t_end))],
    );
    for (t, (step, (next_3, next_2_shape, next_shape))) in (t_start..t_end)
        .zip(steps.into_iter().enumerate())
        .rev()
    {
        let next_1 = bp::row(&h_1, t);
        let next = bp::written_row(&h_1, t + 1, &bp::stand_in(&next_shape));
        let h_1_in_shape = bp::shape_of(&d_h_1);
        let d_h_2 = d_h_1;
        let d_next = bp::set_row_vjp_rhs(&d_h_2, &next, t + 1);
        let d_h_1_in_step_from_h_2 = bp::set_row_vjp_lhs(d_h_2, &next, t + 1);
        let d_next_pre = bp::map_vjp_out(d_next, &next, bp::Tanh);
        let d_next_2 = bp::zip_vjp_lhs(
                d_next_pre,
                &bp::stand_in(&next_2_shape),
                &next_3,
                bp::Add,
            )
            .value();
        bp::dot_vjp_lhs(&d_next_2, w, &next_1)
            .defer(outers.term(d_w_term, step), &mut d_w);
        let d_next_1 = bp::dot_vjp_rhs(d_next_2, w, &next_1).value();
        let d_h_1_in_step = bp::row_vjp(d_next_1, &bp::stand_in(&h_1_in_shape), t)
            .added_to(d_h_1_in_step_from_h_2);
        d_h_1 = d_h_1_in_step;
    }
    d_w = bp::add_outers(d_w, &mut outers, d_w_term);
    let grad = RnnBufferGrad { w: d_w };
    (out, grad)
}
