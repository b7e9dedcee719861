//! The parameter vector argmin's L-BFGS works on: a newtype over `Array1<f64>`
//! with argmin-math's traits, each one line of ndarray.
//!
//! argmin-math's own `vec` and `ndarray` backends would do this for us, but the
//! `vec` backend brings `rand` (and `zerocopy`) into the build and the
//! `ndarray` backend targets ndarray 0.16, where backprop uses 0.17.

use argmin_math::{
    ArgminAdd, ArgminDot, ArgminL1Norm, ArgminL2Norm, ArgminMinMax, ArgminMul, ArgminScaledAdd,
    ArgminSignum, ArgminSub, ArgminZeroLike,
};
use backprop::prelude::*;

/// A point of the search space.
#[derive(Clone, Debug, PartialEq)]
pub struct Vector(pub Array1<f64>);

impl ArgminAdd<Vector, Vector> for Vector {
    fn add(&self, other: &Vector) -> Vector {
        Vector(&self.0 + &other.0)
    }
}

impl ArgminAdd<f64, Vector> for Vector {
    fn add(&self, other: &f64) -> Vector {
        Vector(&self.0 + *other)
    }
}

impl ArgminSub<Vector, Vector> for Vector {
    fn sub(&self, other: &Vector) -> Vector {
        Vector(&self.0 - &other.0)
    }
}

impl ArgminSub<f64, Vector> for Vector {
    fn sub(&self, other: &f64) -> Vector {
        Vector(&self.0 - *other)
    }
}

/// Elementwise.
impl ArgminMul<Vector, Vector> for Vector {
    fn mul(&self, other: &Vector) -> Vector {
        Vector(&self.0 * &other.0)
    }
}

impl ArgminMul<f64, Vector> for Vector {
    fn mul(&self, other: &f64) -> Vector {
        Vector(&self.0 * *other)
    }
}

impl ArgminDot<Vector, f64> for Vector {
    fn dot(&self, other: &Vector) -> f64 {
        self.0.dot(&other.0)
    }
}

/// `self + factor · vec`.
impl ArgminScaledAdd<Vector, f64, Vector> for Vector {
    fn scaled_add(&self, factor: &f64, vec: &Vector) -> Vector {
        Vector(&self.0 + &(&vec.0 * *factor))
    }
}

impl ArgminL1Norm<f64> for Vector {
    fn l1_norm(&self) -> f64 {
        self.0.iter().map(|x| x.abs()).sum()
    }
}

impl ArgminL2Norm<f64> for Vector {
    fn l2_norm(&self) -> f64 {
        self.0.dot(&self.0).sqrt()
    }
}

impl ArgminSignum for Vector {
    fn signum(self) -> Vector {
        Vector(self.0.mapv(f64::signum))
    }
}

impl ArgminZeroLike for Vector {
    fn zero_like(&self) -> Vector {
        Vector(Array1::zeros(self.0.len()))
    }
}

/// Elementwise.
impl ArgminMinMax for Vector {
    fn min(x: &Vector, y: &Vector) -> Vector {
        Vector(
            ndarray::Zip::from(&x.0)
                .and(&y.0)
                .map_collect(|a, b| a.min(*b)),
        )
    }

    fn max(x: &Vector, y: &Vector) -> Vector {
        Vector(
            ndarray::Zip::from(&x.0)
                .and(&y.0)
                .map_collect(|a, b| a.max(*b)),
        )
    }
}
