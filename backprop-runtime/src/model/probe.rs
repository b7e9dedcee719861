//! How the derive tells a nested model from a constant field of a type it
//! cannot see into (a user's struct or enum), without an annotation: method
//! resolution on a reference to a `Probe<T>` picks `ViaModel`'s method
//! (taking `&Probe<T>`) when `T: Differentiable`, and otherwise goes on to
//! autoref and finds `ViaConstant`'s (taking `&&Probe<T>`). The choice is
//! made at compile time for a concrete field type; a field whose type names
//! a parameter of the struct is bound by a `where` clause instead.
//!
//! Generated code, for `act: Activation` and `body: Body`:
//!
//! ```
//! use backprop_runtime::model::probe::{Probe, ViaConstant as _, ViaModel as _};
//! use backprop_runtime::model::{Differentiable, Leaf, Path};
//!
//! #[derive(Clone, Debug)]
//! enum Activation { Relu }
//!
//! let (act, body) = (Activation::Relu, vec![1.0, 2.0]);
//! let mut path = Path::new();
//! let mut seen = Vec::new();
//! let visitor = &mut |p: &Path, _: Leaf<'_>| seen.push(p.to_string());
//! (&Probe::<Activation>::new()).backprop_field().visit(&mut path, "act", &act, visitor);
//! (&Probe::<Vec<f64>>::new()).backprop_field().visit(&mut path, "body", &body, visitor);
//! assert_eq!(seen, ["body[0]", "body[1]"]);
//! ```

use super::{visit_field, visit_field_mut, Differentiable, Path, Visitor, VisitorMut};
use core::marker::PhantomData;

/// A type, as a value to resolve a method on.
pub struct Probe<T>(PhantomData<fn() -> T>);

impl<T> Probe<T> {
    /// The probe of `T`.
    #[allow(clippy::new_without_default, reason = "only generated code makes one")]
    pub fn new() -> Self {
        Probe(PhantomData)
    }

    /// The probe of a value's type: a field of a model that a
    /// differentiable function reads as a constant (`0..model.n_layers`)
    /// must be a [`ConstantField`], not a [`ModelField`] (whose gradient
    /// would be lost).
    pub fn of(_: &T) -> Self {
        Probe(PhantomData)
    }
}

/// Chosen when the field's type is a model.
pub trait ViaModel {
    /// Says: a nested model.
    fn backprop_field(&self) -> ModelField {
        ModelField
    }
}

impl<T: Differentiable> ViaModel for Probe<T> {}

/// Chosen otherwise.
pub trait ViaConstant {
    /// Says: a constant.
    fn backprop_field(&self) -> ConstantField {
        ConstantField
    }
}

impl<T> ViaConstant for &Probe<T> {}

/// A field that is a nested model: visited.
pub struct ModelField;

impl ModelField {
    /// A parameter read as a constant: the type error of
    /// [`ParameterOfTheModelReadAsAConstant`](super::fields::ParameterOfTheModelReadAsAConstant).
    pub fn constant_read(self) -> super::fields::ParameterOfTheModelReadAsAConstant {
        super::fields::ParameterOfTheModelReadAsAConstant
    }

    /// Visits the field (see [`visit_field`]).
    pub fn visit<'a, T: Differentiable>(
        self,
        path: &mut Path,
        name: &'static str,
        field: &'a T,
        visitor: &mut dyn Visitor<'a>,
    ) {
        visit_field(path, name, field, visitor);
    }

    /// Visits the field, writable (see [`visit_field_mut`]).
    pub fn visit_mut<'a, T: Differentiable>(
        self,
        path: &mut Path,
        name: &'static str,
        field: &'a mut T,
        visitor: &mut dyn VisitorMut<'a>,
    ) {
        visit_field_mut(path, name, field, visitor);
    }
}

/// A constant field: nothing to visit.
pub struct ConstantField;

impl ConstantField {
    /// A constant read as a constant: as it should be (see
    /// [`ConstantRead`](super::fields::ConstantRead)).
    pub fn constant_read(self) -> super::fields::ConstantRead {
        super::fields::ConstantRead
    }

    /// Does nothing.
    pub fn visit<T>(self, _: &mut Path, _: &'static str, _: &T, _: &mut dyn Visitor<'_>) {}

    /// Does nothing.
    pub fn visit_mut<T>(
        self,
        _: &mut Path,
        _: &'static str,
        _: &mut T,
        _: &mut dyn VisitorMut<'_>,
    ) {
    }
}
