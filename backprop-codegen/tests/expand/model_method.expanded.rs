use backprop::prelude::*;
#[derive(Clone, Debug, Differentiable)]
pub struct Dense {
    pub w: Array2<f64>,
    pub b: Array1<f64>,
}
#[derive(Clone, Debug, Differentiable)]
pub struct Net {
    pub layers: Vec<Dense>,
    pub scale: f64,
}
impl Net {
    #[allow(clippy::needless_range_loop)]
    pub fn loss(&self, x: &Array2<f64>, labels: &[usize]) -> f64 {
        let mut h = x.to_owned();
        for layer in &self.layers {
            h = (h.dot(&layer.w) + &layer.b).tanh();
        }
        softmax_cross_entropy(&(h * self.scale), labels)
    }
    /// The gradients of [`loss`] by parameter position (`NotDifferentiable` for a constant), for differentiable functions that call `loss`. Written by `#[differentiable]`.
    #[doc(hidden)]
    #[allow(clippy::type_complexity, reason = "one gradient per parameter, by position")]
    pub fn loss_vjp(
        &self,
        x: &Array2<f64>,
        labels: &[usize],
        d_out: impl ::backprop::__private::Cot<f64>,
    ) -> (
        Self,
        ::backprop::__private::NotDifferentiable,
        ::backprop::__private::NotDifferentiable,
    ) {
        let (_, grad) = Self::loss_backward(
            self,
            x,
            labels,
            *::backprop::__private::Cot::get(&d_out),
        );
        (
            grad,
            ::backprop::__private::NotDifferentiable,
            ::backprop::__private::NotDifferentiable,
        )
    }
    /// Runs [`loss`] and its reverse sweep: returns the value and the gradient of `d_out · loss(..)` with respect to every differentiable parameter (pass `d_out = 1.0` for a scalar loss). Written by `#[differentiable]`.
    pub fn loss_backward(
        &self,
        x: &Array2<f64>,
        labels: &[usize],
        d_out: f64,
    ) -> (f64, Self) {
        #[allow(
            unused_imports,
            reason = "plain arithmetic calls nothing of the runtime"
        )]
        use ::backprop::__private as bp;
        let _ = Self::loss;
        bp::assert_model::<Self>();
        let h = bp::copy(x);
        let k_start = 0;
        let k_end = self.layers.len();
        let mut h_1 = h;
        let mut steps = ::std::vec::Vec::with_capacity((k_start..k_end).size_hint().0);
        let mut h_1_rows = bp::Rows::with_steps((k_start..k_end).size_hint().0);
        let mut h_1_spare = bp::Spare::new();
        for k in k_start..k_end {
            let h_1_in = h_1;
            h_1_rows.push(&h_1_in);
            let h_2 = &self.layers[k].w;
            let h_3 = bp::dot_reuse(&mut h_1_spare, &h_1_in, h_2);
            let h_4 = &self.layers[k].b;
            let h_3_shape = bp::shape_of(&h_3);
            let h_5 = bp::zip_map(h_3, h_4, bp::Add, bp::Tanh);
            steps.push((h_2, h_4, h_3_shape));
            h_1_spare.put(h_1_in);
            h_1 = h_5;
        }
        h_1_rows.push(&h_1);
        let out_1 = &self.scale;
        let out_2 = bp::mul(&h_1, out_1);
        let out_2_shape = bp::shape_of(&out_2);
        let (out, out_probs) = bp::softmax_cross_entropy_fwd(out_2, labels);
        let d_out_2 = bp::softmax_cross_entropy_vjp(
            d_out,
            &bp::stand_in(&out_2_shape),
            labels,
            out_probs,
        );
        let (d_h_1, d_out_1) = bp::zip_vjp_both(d_out_2, &h_1, out_1, bp::Mul);
        let d_self_from_out_1 = bp::field_vjp(d_out_1, self, |m| &mut m.scale).value();
        let mut d_h_1 = d_h_1;
        let mut d_self_from_loop = d_self_from_out_1;
        for (k, (step, (h_2, h_4, h_3_shape))) in (k_start..k_end)
            .zip(steps.into_iter().enumerate())
            .rev()
        {
            let h_1_in = h_1_rows.row(step);
            let h_5 = h_1_rows.row(step + 1);
            let d_h_5 = d_h_1;
            let d_h_5_pre = bp::map_vjp_out(d_h_5, &h_5, bp::Tanh);
            let (d_h_3, d_h_4) = bp::add_vjp_lend(
                d_h_5_pre,
                &bp::stand_in(&h_3_shape),
                h_4,
                bp::Rhs,
            );
            let d_h_4 = bp::lent(d_h_4, &d_h_3);
            bp::field_vjp(d_h_4, self, |m| &mut m.layers[k].b)
                .add_to(&mut d_self_from_loop);
            let d_h_1_in_step = bp::dot_vjp_lhs(&d_h_3, &h_1_in, h_2).value();
            let d_h_2 = bp::dot_vjp_rhs(d_h_3, &h_1_in, h_2).value();
            bp::field_vjp(d_h_2, self, |m| &mut m.layers[k].w)
                .add_to(&mut d_self_from_loop);
            d_h_1 = d_h_1_in_step;
        }
        let d_self = d_self_from_loop;
        let grad = d_self;
        (out, grad)
    }
}
