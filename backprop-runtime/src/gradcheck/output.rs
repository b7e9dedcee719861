//! The checked function's value, reduced to the scalar whose gradient the
//! backward computes, and the upstream gradient that reduces it.

#![allow(
    clippy::result_large_err,
    reason = "a check fails once, at its end: the size of its error costs nothing"
)]

use super::{flatten, GradcheckError};
use crate::value::Float;
use ndarray::Dimension;

/// The value of the checked function, reduced to the scalar whose gradient
/// the backward computes.
pub trait Output {
    /// A scalar is used as is (times the upstream, when one is given); an
    /// array is contracted with the upstream, `Σ out ⊙ upstream`, which must
    /// be given. `upstream` is `(shape, elements in row-major order)`.
    fn contract(&self, upstream: Option<(&[usize], &[f64])>) -> Result<f64, GradcheckError>;
    /// Whether the value is single precision.
    fn single_precision(&self) -> bool;
    /// The value contracted with the upstream given to
    /// [`GradCheck::upstream`](super::GradCheck::upstream), one per component: a scalar or an array has
    /// one, a tuple one per element (and sums its contracted elements).
    fn contract_all(
        &self,
        upstream: Option<&[(Vec<usize>, Vec<f64>)]>,
    ) -> Result<f64, GradcheckError> {
        match upstream {
            None => self.contract(None),
            Some([(shape, u)]) => self.contract(Some((shape, u))),
            Some(all) => Err(GradcheckError::UpstreamCount {
                components: 1,
                upstreams: all.len(),
            }),
        }
    }
}

macro_rules! scalar_output {
    ($($f:ty),*) => {$(
        impl Output for $f {
            fn contract(&self, upstream: Option<(&[usize], &[f64])>) -> Result<f64, GradcheckError> {
                match upstream {
                    None => Ok(Float::to_f64(*self)),
                    Some(([], [u])) => Ok(Float::to_f64(*self) * u),
                    Some((shape, _)) => Err(GradcheckError::UpstreamShape { output: Vec::new(), upstream: shape.to_vec() }),
                }
            }
            fn single_precision(&self) -> bool {
                core::mem::size_of::<$f>() == 4
            }
        }
    )*};
}
scalar_output!(f32, f64);

impl<F: Float, S: ndarray::Data<Elem = F>, D: Dimension> Output for ndarray::ArrayBase<S, D> {
    fn contract(&self, upstream: Option<(&[usize], &[f64])>) -> Result<f64, GradcheckError> {
        let Some((shape, u)) = upstream else {
            return Err(GradcheckError::MissingUpstream {
                shape: self.shape().to_vec(),
            });
        };
        if shape != self.shape() {
            return Err(GradcheckError::UpstreamShape {
                output: self.shape().to_vec(),
                upstream: shape.to_vec(),
            });
        }
        Ok(self.iter().zip(u).map(|(o, u)| Float::to_f64(*o) * u).sum())
    }
    fn single_precision(&self) -> bool {
        core::mem::size_of::<F>() == 4
    }
}

/// A plain container value (`Vec<f64>`, `[f64; N]`, `[[f64; M]; N]`): as
/// the array of its elements.
macro_rules! plain_output {
    ($([$($g:tt)*] $t:ty),*) => {$(
        impl<$($g)*> Output for $t {
            fn contract(&self, upstream: Option<(&[usize], &[f64])>) -> Result<f64, GradcheckError> {
                crate::plain::AsArray::as_array(self).contract(upstream)
            }
            fn single_precision(&self) -> bool {
                core::mem::size_of::<F>() == 4
            }
        }
        impl<$($g)*> Upstream for $t {
            fn components(&self) -> Vec<(Vec<usize>, Vec<f64>)> {
                crate::plain::AsArray::as_array(self).components()
            }
        }
    )*};
}
plain_output!(
    [F: Float] Vec<F>,
    [F: Float, const N: usize] [F; N],
    [F: Float, const M: usize, const N: usize] [[F; N]; M]
);
// A statically sized nalgebra value: its elements in column-major order.
#[cfg(feature = "nalgebra")]
plain_output!(
    [F: Float, const R: usize, const C: usize] nalgebra::SMatrix<F, R, C>,
    [F: Float, const D: usize] nalgebra::Point<F, D>
);

/// A tuple value: the sum of its components, each contracted with its own
/// upstream (or as it is, without upstreams, where every component is a
/// scalar).
macro_rules! tuple_output {
    ($n:expr; $($T:ident $i:tt),+) => {
        impl<$($T: Output),+> Output for ($($T,)+) {
            fn contract(&self, upstream: Option<(&[usize], &[f64])>) -> Result<f64, GradcheckError> {
                match upstream {
                    None => Ok(0.0 $(+ self.$i.contract(None)?)+),
                    Some(_) => Err(GradcheckError::UpstreamCount { components: $n, upstreams: 1 }),
                }
            }
            fn single_precision(&self) -> bool {
                false $(|| self.$i.single_precision())+
            }
            fn contract_all(&self, upstream: Option<&[(Vec<usize>, Vec<f64>)]>) -> Result<f64, GradcheckError> {
                match upstream {
                    None => self.contract(None),
                    Some(all) if all.len() == $n => {
                        Ok(0.0 $(+ self.$i.contract(Some((&all[$i].0, &all[$i].1)))?)+)
                    }
                    Some(all) => Err(GradcheckError::UpstreamCount { components: $n, upstreams: all.len() }),
                }
            }
        }
    };
}
tuple_output!(1; A 0);
tuple_output!(2; A 0, B 1);
tuple_output!(3; A 0, B 1, C 2);
tuple_output!(4; A 0, B 1, C 2, E 3);
tuple_output!(5; A 0, B 1, C 2, E 3, G 4);
tuple_output!(6; A 0, B 1, C 2, E 3, G 4, H 5);

/// The upstream gradient a backward was given, as [`GradCheck::upstream`](super::GradCheck::upstream)
/// takes it: a scalar, an array (or a reference to one), or a tuple of them
/// for a tuple value (`(0.5, &d1)`), one per component.
pub trait Upstream {
    /// Each component's `(shape, elements in row-major order)`.
    fn components(&self) -> Vec<(Vec<usize>, Vec<f64>)>;
}

macro_rules! scalar_upstream {
    ($($f:ty),*) => {$(
        impl Upstream for $f {
            fn components(&self) -> Vec<(Vec<usize>, Vec<f64>)> {
                vec![(Vec::new(), vec![Float::to_f64(*self)])]
            }
        }
    )*};
}
scalar_upstream!(f32, f64);

impl<F: Float, S: ndarray::Data<Elem = F>, D: Dimension> Upstream for ndarray::ArrayBase<S, D> {
    fn components(&self) -> Vec<(Vec<usize>, Vec<f64>)> {
        vec![(self.shape().to_vec(), flatten(self))]
    }
}

impl<T: Upstream + ?Sized> Upstream for &T {
    fn components(&self) -> Vec<(Vec<usize>, Vec<f64>)> {
        (**self).components()
    }
}

macro_rules! tuple_upstream {
    ($($T:ident $i:tt),+) => {
        impl<$($T: Upstream),+> Upstream for ($($T,)+) {
            fn components(&self) -> Vec<(Vec<usize>, Vec<f64>)> {
                let mut all = Vec::new();
                $(all.extend(self.$i.components());)+
                all
            }
        }
    };
}
tuple_upstream!(A 0);
tuple_upstream!(A 0, B 1);
tuple_upstream!(A 0, B 1, C 2);
tuple_upstream!(A 0, B 1, C 2, E 3);
tuple_upstream!(A 0, B 1, C 2, E 3, G 4);
tuple_upstream!(A 0, B 1, C 2, E 3, G 4, H 5);
