use backprop::prelude::*;
#[allow(clippy::needless_range_loop)]
pub fn rnn(
    w: &Array2<f64>,
    u: &Array2<f64>,
    v: &Array1<f64>,
    h0: &Array1<f64>,
    xs: &Array2<f64>,
) -> f64 {
    let mut h = h0.to_owned();
    let mut loss = 0.0;
    for t in 0..xs.nrows() {
        h = tanh(&(w.dot(&h) + u.dot(&xs.row(t))));
        loss += v.dot(&h);
    }
    loss
}
/// The gradient of [`rnn`] with respect to its differentiable parameters, one field each, written by `#[differentiable]`.
#[derive(Debug, Clone)]
pub struct RnnGrad {
    /// The gradient with respect to `w`.
    pub w: ::backprop::ndarray::Array2<f64>,
    /// The gradient with respect to `u`.
    pub u: ::backprop::ndarray::Array2<f64>,
    /// The gradient with respect to `v`.
    pub v: ::backprop::ndarray::Array1<f64>,
}
#[automatically_derived]
impl ::backprop::__private::Differentiable for RnnGrad {
    fn visit<'__bp>(
        &'__bp self,
        path: &mut ::backprop::__private::Path,
        visitor: &mut dyn ::backprop::__private::Visitor<'__bp>,
    ) {
        ::backprop::__private::visit_field(path, "w", &self.w, visitor);
        ::backprop::__private::visit_field(path, "u", &self.u, visitor);
        ::backprop::__private::visit_field(path, "v", &self.v, visitor);
    }
    fn visit_mut<'__bp>(
        &'__bp mut self,
        path: &mut ::backprop::__private::Path,
        visitor: &mut dyn ::backprop::__private::VisitorMut<'__bp>,
    ) {
        ::backprop::__private::visit_field_mut(path, "w", &mut self.w, visitor);
        ::backprop::__private::visit_field_mut(path, "u", &mut self.u, visitor);
        ::backprop::__private::visit_field_mut(path, "v", &mut self.v, visitor);
    }
}
/// The gradients of [`rnn`] by parameter position (`NotDifferentiable` for a constant), for differentiable functions that call `rnn`. Written by `#[differentiable]`.
#[doc(hidden)]
#[allow(clippy::type_complexity, reason = "one gradient per parameter, by position")]
pub fn rnn_vjp(
    w: &Array2<f64>,
    u: &Array2<f64>,
    v: &Array1<f64>,
    h0: &Array1<f64>,
    xs: &Array2<f64>,
    d_out: impl ::backprop::__private::Cot<f64>,
) -> (
    ::backprop::ndarray::Array2<f64>,
    ::backprop::ndarray::Array2<f64>,
    ::backprop::ndarray::Array1<f64>,
    ::backprop::__private::NotDifferentiable,
    ::backprop::__private::NotDifferentiable,
) {
    let (_, grad) = rnn_backward(
        w,
        u,
        v,
        h0,
        xs,
        *::backprop::__private::Cot::get(&d_out),
    );
    (
        grad.w,
        grad.u,
        grad.v,
        ::backprop::__private::NotDifferentiable,
        ::backprop::__private::NotDifferentiable,
    )
}
/// Runs [`rnn`] and its reverse sweep: returns the value and the gradient of `d_out · rnn(..)` with respect to every differentiable parameter (pass `d_out = 1.0` for a scalar loss). Written by `#[differentiable]`.
pub fn rnn_backward(
    w: &Array2<f64>,
    u: &Array2<f64>,
    v: &Array1<f64>,
    h0: &Array1<f64>,
    xs: &Array2<f64>,
    d_out: f64,
) -> (f64, RnnGrad) {
    #[allow(unused_imports, reason = "plain arithmetic calls nothing of the runtime")]
    use ::backprop::__private as bp;
    let _ = rnn;
    let h = bp::copy(h0);
    let t_start = 0;
    let t_end = xs.nrows();
    let mut h_1 = h;
    let mut loss = 0.0_f64;
    let mut steps = ::std::vec::Vec::with_capacity((t_start..t_end).size_hint().0);
    let mut h_1_rows = bp::Rows::with_steps((t_start..t_end).size_hint().0);
    let mut h_1_spare = bp::Spare::new();
    for t in t_start..t_end {
        let h_1_in = h_1;
        let loss_in = loss;
        h_1_rows.push(&h_1_in);
        let h_2 = bp::dot_reuse(&mut h_1_spare, w, &h_1_in);
        let h_3 = bp::row(xs, t);
        let h_4 = bp::dot(u, &h_3);
        let h_2_shape = bp::shape_of(&h_2);
        let h_5 = bp::zip_map(h_2, &h_4, bp::Add, bp::Tanh);
        let loss_1 = bp::dot(v, &h_5);
        let loss_2 = loss_in + loss_1;
        steps.push((h_3, h_4, h_2_shape));
        h_1_spare.put(h_1_in);
        h_1 = h_5;
        loss = loss_2;
    }
    h_1_rows.push(&h_1);
    let mut d_loss = d_out;
    let mut d_h_1 = bp::zeros_in(h_1);
    let mut d_w = h_1_spare.zeros_like(w);
    let mut d_u = h_1_spare.zeros_like(u);
    let mut d_v = h_1_spare.zeros_like(v);
    let (d_u_term, d_w_term) = (0, 1);
    let mut outers = bp::Outers::new(
        steps.len(),
        [
            bp::outer_term(&d_u).v_from(bp::rows_in(xs, t_start, t_end)),
            bp::outer_term(&d_w).u_from(d_u_term).v_from(h_1_rows.starts()),
        ],
    );
    for (_, (step, (h_3, h_4, h_2_shape))) in (t_start..t_end)
        .zip(steps.into_iter().enumerate())
        .rev()
    {
        let h_1_in = h_1_rows.row(step);
        let h_5 = h_1_rows.row(step + 1);
        let d_loss_2 = d_loss;
        let d_loss_in_step = d_loss_2;
        let d_loss_1 = d_loss_2;
        bp::dot_vjp_lhs(&d_loss_1, v, &h_5).add_to(&mut d_v);
        bp::dot_vjp_rhs(d_loss_1, v, &h_5).add_to(&mut d_h_1);
        let d_h_5 = d_h_1;
        let d_h_5_pre = bp::map_vjp_out(d_h_5, &h_5, bp::Tanh);
        let (d_h_2, d_h_4) = bp::add_vjp_lend(
            d_h_5_pre,
            &bp::stand_in(&h_2_shape),
            &h_4,
            bp::Rhs,
        );
        let d_h_4 = bp::lent(d_h_4, &d_h_2);
        bp::dot_vjp_lhs(d_h_4, u, &h_3).defer(outers.term(d_u_term, step), &mut d_u);
        bp::dot_vjp_lhs(&d_h_2, w, &h_1_in).defer(outers.term(d_w_term, step), &mut d_w);
        let d_h_1_in_step = bp::dot_vjp_rhs(d_h_2, w, &h_1_in).value();
        d_h_1 = d_h_1_in_step;
        d_loss = d_loss_in_step;
    }
    d_u = bp::add_outers(d_u, &mut outers, d_u_term);
    d_w = bp::add_outers(d_w, &mut outers, d_w_term);
    let grad = RnnGrad { w: d_w, u: d_u, v: d_v };
    (loss, grad)
}
