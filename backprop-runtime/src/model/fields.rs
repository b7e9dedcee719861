//! What the generated code of a function that differentiates a model (a
//! parameter `wrt` names, `&self` of a method) calls: the gradient of a
//! field read goes into the same field of a gradient of the model's type.
//!
//! ```
//! use backprop_runtime::model::fields::{field_vjp, model_zeros, sum_models};
//! use ndarray::{array, Array1};
//!
//! #[derive(Clone, Debug, PartialEq)]
//! struct Line { w: Array1<f64>, b: f64 }
//! # impl backprop_runtime::Differentiable for Line {
//! #     fn visit<'a>(&'a self, p: &mut backprop_runtime::model::Path, v: &mut dyn backprop_runtime::model::Visitor<'a>) {
//! #         backprop_runtime::model::visit_field(p, "w", &self.w, v);
//! #         backprop_runtime::model::visit_field(p, "b", &self.b, v);
//! #     }
//! #     fn visit_mut<'a>(&'a mut self, p: &mut backprop_runtime::model::Path, v: &mut dyn backprop_runtime::model::VisitorMut<'a>) {
//! #         backprop_runtime::model::visit_field_mut(p, "w", &mut self.w, v);
//! #         backprop_runtime::model::visit_field_mut(p, "b", &mut self.b, v);
//! #     }
//! # }
//! let line = Line { w: array![1.0, 2.0], b: 0.5 };
//! // `line.w` read twice and `line.b` once: three contributions.
//! let d = field_vjp(array![1.0, 1.0], &line, |m| &mut m.w).value();
//! let d = field_vjp(array![0.5, 0.0], &line, |m| &mut m.w).added_to(d);
//! let mut d = field_vjp(2.0, &line, |m| &mut m.b).added_to(d);
//! assert_eq!(d, Line { w: array![1.5, 1.0], b: 2.0 });
//! let zero = model_zeros(&line);
//! assert_eq!(sum_models([d.clone(), zero]), d);
//! ```

use super::Differentiable;
use crate::contrib::{Contribution, Kind};
use core::borrow::Borrow;

/// Checks at compile time that a model parameter's type is a model: the
/// generated code names it at the parameter, so that a type without
/// `#[derive(Differentiable)]` is reported there.
#[inline]
pub fn assert_model<M: Differentiable>() {}

/// What a field of a model that a differentiable function reads as a
/// constant (`0..model.n_layers`, `model.k as f64`) must be: the
/// [`Probe`](super::probe::Probe) of a constant field gives it
/// (`ConstantField::constant_read`).
pub struct ConstantRead;

/// What such a field gives when it is a parameter of the model (a float,
/// an array, a nested model; `ModelField::constant_read`): a type error,
/// since its gradient would be lost.
pub struct ParameterOfTheModelReadAsAConstant;

/// A zero of the model's shape: every float zero, constants cloned.
#[inline]
pub fn model_zeros<M: Differentiable>(model: &M) -> M {
    model.zeros_like()
}

/// The sum of a model's gradients, field by field (the fork rule).
pub fn sum_models<M: Differentiable, const N: usize>(parts: [M; N]) -> M {
    let mut parts = parts.into_iter();
    let mut sum = parts.next().expect("at least one gradient");
    for p in parts {
        sum.add_assign(&p);
    }
    sum
}

/// A place of a model that a gradient `G` is added into: a float, an
/// array, a nested model (the gradient of a call that takes it), given
/// owned or borrowed.
pub trait AddGrad<G> {
    /// `self += g`.
    fn add_grad(&mut self, g: G);
}

impl<L: Differentiable, G: Borrow<L>> AddGrad<G> for L {
    #[inline]
    fn add_grad(&mut self, g: G) {
        self.add_assign(g.borrow());
    }
}

/// The rule of a field read: `g` into the place of a gradient of the
/// model's type.
pub struct FieldRule<'m, G, M, P> {
    g: G,
    model: &'m M,
    place: P,
}

/// The place a [`FieldRule`] writes, as a closure.
pub trait Place<M> {
    /// What is there.
    type At: ?Sized;
    /// The place in `m`.
    fn at(self, m: &mut M) -> &mut Self::At;
}

impl<M, L: ?Sized, P: FnOnce(&mut M) -> &mut L> Place<M> for P {
    type At = L;
    #[inline]
    fn at(self, m: &mut M) -> &mut L {
        self(m)
    }
}

/// The rule of `model.<place>` (`|m| &mut m.layers[i].w`): as a new value,
/// a zero of the model's shape with `g` in the place; added into a
/// gradient, `g` added into the place only.
#[inline]
pub fn field_vjp<G, M, L, P>(g: G, model: &M, place: P) -> Contribution<FieldRule<'_, G, M, P>>
where
    L: ?Sized,
    P: FnOnce(&mut M) -> &mut L,
{
    Contribution(FieldRule { g, model, place })
}

impl<G, M, P> Kind<M> for FieldRule<'_, G, M, P>
where
    M: Differentiable,
    P: Place<M>,
    P::At: AddGrad<G>,
{
    #[inline]
    fn value(self) -> M {
        let mut zero = self.model.zeros_like();
        self.place.at(&mut zero).add_grad(self.g);
        zero
    }
    #[inline]
    fn add_to(self, acc: &mut M) {
        self.place.at(acc).add_grad(self.g);
    }
}
