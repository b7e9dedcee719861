//! A rule's contribution to a gradient, and where it goes.
//!
//! The rules of the ops whose contributions may be added into an existing
//! gradient (products, sums, differences: the ones a fork or a loop adds up)
//! return a [`Contribution`]: what is to be added, not yet written. The
//! generated code says where it goes, each form one method:
//!
//! - [`value`](Contribution::value): a new gradient (the upstream buffer
//!   reused where it can be);
//! - [`add_to`](Contribution::add_to): added into a gradient in place (a
//!   loop's gradient of a weight every iteration reads);
//! - [`added_to`](Contribution::added_to): added into an earlier
//!   contribution's buffer, which it returns (the fork rule's sum);
//! - [`defer`](Contribution::defer): an outer product kept by a loop's
//!   [`Outers`](crate::outers::Outers) and added after the loop by one
//!   matrix product.
//!
//! Each form reads the upstream gradient where it is: a contribution that is
//! the gradient itself (`+`) or an outer product is added without an array of
//! its own.

use crate::outers::Slot;
use crate::value::Tensor;

/// What one rule contributes to a gradient of type `T` (an array, a
/// float, or a model, see `field_vjp`), in each form.
pub trait Kind<T>: Sized {
    /// As a new value.
    fn value(self) -> T;
    /// Added into `acc`.
    fn add_to(self, acc: &mut T);
    /// Kept in `slot` where it is an outer product, else added into `acc`.
    fn defer<const N: usize>(self, slot: Slot<'_, '_, T::Elem, N>, acc: &mut T)
    where
        T: Tensor,
    {
        let _ = slot;
        self.add_to(acc)
    }
}

/// A rule's contribution, to be written where the generated code says.
#[must_use = "a contribution is written by `.value()`, `.add_to(..)`, `.added_to(..)` or `.defer(..)`"]
pub struct Contribution<C>(pub(crate) C);

impl<C> Contribution<C> {
    /// As a new gradient.
    #[inline]
    pub fn value<T>(self) -> T
    where
        C: Kind<T>,
    {
        self.0.value()
    }

    /// Added into `acc`, in place.
    #[inline]
    pub fn add_to<T>(self, acc: &mut T)
    where
        C: Kind<T>,
    {
        self.0.add_to(acc)
    }

    /// `acc` plus the contribution, in `acc`'s buffer.
    #[inline]
    pub fn added_to<T>(self, mut acc: T) -> T
    where
        C: Kind<T>,
    {
        self.0.add_to(&mut acc);
        acc
    }

    /// Kept in the loop's `slot` where it is an outer product (added after
    /// the loop), else added into `acc` now.
    #[inline(always)]
    pub fn defer<T: Tensor, const N: usize>(self, slot: Slot<'_, '_, T::Elem, N>, acc: &mut T)
    where
        C: Kind<T>,
    {
        self.0.defer(slot, acc)
    }
}
