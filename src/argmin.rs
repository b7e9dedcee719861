//! A `#[differentiable]` function as an [argmin](https://argmin-rs.org)
//! problem on `Vec<f64>` parameters, with no glue (the `argmin` feature).
//!
//! ```
//! use argmin::core::Executor;
//! use argmin::solver::trustregion::{Steihaug, TrustRegion};
//! use backprop::prelude::*;
//!
//! #[differentiable(hvp)]
//! fn rosenbrock(x: &[f64]) -> f64 {
//!     let mut s = 0.0;
//!     for w in x.windows(2) {
//!         s += 100.0 * (w[1] - w[0] * w[0]).powi(2) + (1.0 - w[0]).powi(2);
//!     }
//!     s
//! }
//!
//! let problem = backprop::argmin::Problem::new(rosenbrock, rosenbrock_backward).with_hvp(rosenbrock_hvp);
//! let solver = TrustRegion::new(Steihaug::new());
//! let result = Executor::new(problem, solver)
//!     .configure(|state| state.param(vec![-1.2, 1.0]).max_iters(100))
//!     .run()
//!     .unwrap();
//! let best = result.state().best_param.as_ref().unwrap();
//! assert!(best.iter().all(|x| (x - 1.0).abs() < 1e-6));
//! ```
//!
//! [`Problem`] is argmin's [`CostFunction`] (the original function),
//! [`Gradient`] (`NAME_backward`) and, with [`Problem::with_hvp`],
//! [`Hessian`]: the Hessian it gives is a [`HessianAt`], which multiplies a
//! vector by calling `NAME_hvp` and is never formed. That is what
//! Newton-CG and the trust-region solvers (Steihaug, Cauchy point) ask of
//! it; [`HessianAt::to_matrix`] forms the matrix (one `NAME_hvp` per
//! column) for a solver that needs it.
//!
//! The function's differentiable parameter is a `&[f64]`. A function with
//! data besides it (its other parameters constant) goes through closures:
//! `Problem::new(|p: &[f64]| loss(p, &xs), |p: &[f64], d| loss_backward(p,
//! &xs, d))`.

use crate::gradcheck::Gradient as Fields;
use argmin::core::{CostFunction, Error, Gradient, Hessian};
use argmin_math::ArgminDot;

/// A differentiable function as an argmin problem over `Vec<f64>`: the
/// function `f`, its `NAME_backward` `b` and, optionally, its `NAME_hvp` `h`.
#[derive(Clone, Copy, Debug)]
pub struct Problem<F, B, H = NoHvp> {
    f: F,
    backward: B,
    hvp: H,
}

/// The place of `NAME_hvp` in a [`Problem`] made without one: it has no
/// [`Hessian`].
#[derive(Clone, Copy, Debug)]
pub struct NoHvp;

impl<F, B> Problem<F, B> {
    /// The problem of the function `f` and its `NAME_backward` (`f_backward`).
    pub fn new(f: F, backward: B) -> Self {
        Problem {
            f,
            backward,
            hvp: NoHvp,
        }
    }

    /// The same, with `NAME_hvp` for argmin's [`Hessian`].
    pub fn with_hvp<H>(self, hvp: H) -> Problem<F, B, H> {
        Problem {
            f: self.f,
            backward: self.backward,
            hvp,
        }
    }
}

/// The gradient struct's fields, one after another, as one vector.
fn flat<G: Fields>(g: &G) -> Vec<f64> {
    g.fields().into_iter().flat_map(|(_, v)| v).collect()
}

impl<F, B, H> CostFunction for Problem<F, B, H>
where
    F: Fn(&[f64]) -> f64,
{
    type Param = Vec<f64>;
    type Output = f64;

    fn cost(&self, p: &Vec<f64>) -> Result<f64, Error> {
        Ok((self.f)(p))
    }
}

impl<F, B, H, G> Gradient for Problem<F, B, H>
where
    B: Fn(&[f64], f64) -> (f64, G),
    G: Fields,
{
    type Param = Vec<f64>;
    type Gradient = Vec<f64>;

    fn gradient(&self, p: &Vec<f64>) -> Result<Vec<f64>, Error> {
        Ok(flat(&(self.backward)(p, 1.0).1))
    }
}

impl<F, B, H, G> Hessian for Problem<F, B, H>
where
    H: Fn(&[f64], &[f64]) -> (f64, G, G) + Clone,
    G: Fields,
{
    type Param = Vec<f64>;
    type Hessian = HessianAt<H>;

    fn hessian(&self, p: &Vec<f64>) -> Result<HessianAt<H>, Error> {
        Ok(HessianAt {
            at: p.clone(),
            hvp: self.hvp.clone(),
        })
    }
}

/// The Hessian at a point, as the product with a vector: `H.dot(&v)` is
/// `NAME_hvp`'s `H·v`.
#[derive(Clone, Debug)]
pub struct HessianAt<H> {
    at: Vec<f64>,
    hvp: H,
}

impl<H, G> HessianAt<H>
where
    H: Fn(&[f64], &[f64]) -> (f64, G, G),
    G: Fields,
{
    /// `H·v`.
    pub fn product(&self, v: &[f64]) -> Vec<f64> {
        flat(&(self.hvp)(&self.at, v).2)
    }

    /// The matrix, row by row (it is symmetric: column `k` is `H·eₖ`).
    pub fn to_matrix(&self) -> Vec<Vec<f64>> {
        let n = self.at.len();
        (0..n)
            .map(|k| {
                let mut e = vec![0.0; n];
                e[k] = 1.0;
                self.product(&e)
            })
            .collect()
    }
}

impl<H, G> ArgminDot<Vec<f64>, Vec<f64>> for HessianAt<H>
where
    H: Fn(&[f64], &[f64]) -> (f64, G, G),
    G: Fields,
{
    fn dot(&self, v: &Vec<f64>) -> Vec<f64> {
        self.product(v)
    }
}
