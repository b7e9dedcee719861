//! argmin's L-BFGS, Newton-CG and trust-region (Steihaug) solvers on
//! `#[differentiable(hvp)]` functions over `&[f64]`, with one line of glue
//! per problem (`backprop::argmin::Problem`, the `argmin` feature).
//!
//! ```text
//! cargo run --release --features argmin --example rosenbrock
//! ```
//!
//! Two problems: the Rosenbrock function in 2 and 10 dimensions from the
//! classic start (-1.2, 1, -1.2, 1, ...) (in 10, the second-order solvers
//! find the local minimum near (-1, 1, ..., 1), L-BFGS the global one;
//! argmin's Newton-CG is slow on Rosenbrock's valley, with the exact
//! Hessian of `argmin_testfunctions` too), and the negative log-likelihood of
//! a logistic regression on a generated data set (its data captured by
//! closures). L-BFGS reads gradients from `NAME_backward`; Newton-CG and the
//! trust region read Hessian-vector products from `NAME_hvp`: the Hessian
//! is never formed. The parameters are argmin's own `Vec<f64>`.

use argmin::core::{CostFunction, Error, Executor, Gradient, Hessian, State};
use argmin::solver::linesearch::MoreThuenteLineSearch;
use argmin::solver::newton::NewtonCG;
use argmin::solver::quasinewton::LBFGS;
use argmin::solver::trustregion::{Steihaug, TrustRegion};
use backprop::argmin::{HessianAt, Problem};
use backprop::prelude::*;

/// The Rosenbrock function in any number of dimensions; its minimum is 0 at
/// (1, 1, ..., 1).
#[differentiable(hvp)]
fn rosenbrock(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for w in x.windows(2) {
        s += 100.0 * (w[1] - w[0] * w[0]).powi(2) + (1.0 - w[0]).powi(2);
    }
    s
}

/// The mean negative log-likelihood of a logistic regression with weights
/// `p[..3]` and bias `p[3]` on the rows of `x` (three features a row, row
/// after row; labels `y` in {0, 1}), plus a small ridge penalty:
/// `mean(ln(1 + e^z) − y·z) + λ/2 |w|²`.
#[differentiable(hvp, wrt(p))]
fn logistic_nll(p: &[f64], x: &[f64], y: &[f64], lambda: f64) -> f64 {
    let mut nll = 0.0;
    for (row, &label) in x.chunks(3).zip(y) {
        let z = p[0] * row[0] + p[1] * row[1] + p[2] * row[2] + p[3];
        nll += (1.0 + z.exp()).ln() - label * z;
    }
    let ridge = p[0] * p[0] + p[1] * p[1] + p[2] * p[2];
    nll / y.len() as f64 + 0.5 * lambda * ridge
}

/// What a solver did: its iterations, the best point and cost.
struct Run {
    iterations: u64,
    best: Vec<f64>,
    cost: f64,
}

/// Runs the three solvers on `problem` from `start`.
fn solve<P>(problem: P, start: &[f64]) -> Result<[Run; 3], Error>
where
    P: CostFunction<Param = Vec<f64>, Output = f64>
        + Gradient<Param = Vec<f64>, Gradient = Vec<f64>>
        + Hessian<Param = Vec<f64>>
        + Clone,
    P::Hessian: Clone + argmin_math::ArgminDot<Vec<f64>, Vec<f64>>,
{
    let run = |state: &argmin::core::IterState<Vec<f64>, Vec<f64>, (), _, (), f64>| Run {
        iterations: state.get_iter(),
        best: state.get_best_param().expect("a best point").clone(),
        cost: state.get_best_cost(),
    };
    let lbfgs = LBFGS::new(MoreThuenteLineSearch::new(), 7)
        .with_tolerance_grad(1e-12)?
        .with_tolerance_cost(0.0)?;
    let result = Executor::new(problem.clone(), lbfgs)
        .configure(|state| state.param(start.to_vec()).max_iters(500))
        .run()?;
    let lbfgs = Run {
        iterations: result.state().get_iter(),
        best: result
            .state()
            .get_best_param()
            .expect("a best point")
            .clone(),
        cost: result.state().get_best_cost(),
    };
    let newton = NewtonCG::new(MoreThuenteLineSearch::new()).with_tolerance(1e-12)?;
    let result = Executor::new(problem.clone(), newton)
        .configure(|state| state.param(start.to_vec()).max_iters(100))
        .run()?;
    let newton = run(result.state());
    // argmin's trust region stops at its iteration budget (it has no
    // gradient tolerance).
    let trust = TrustRegion::new(Steihaug::new().with_max_iters(50));
    let result = Executor::new(problem, trust)
        .configure(|state| state.param(start.to_vec()).max_iters(100))
        .run()?;
    let trust = run(result.state());
    Ok([lbfgs, newton, trust])
}

/// A small seeded generator (64-bit LCG), uniform in `[0, 1)`.
struct Rng(u64);

impl Rng {
    fn uniform(&mut self) -> f64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (self.0 >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// `n` points in `[-2, 2]³` labelled by a Bernoulli draw with probability
/// `sigmoid(x · w + b)`.
fn logistic_data(n: usize, w: [f64; 3], b: f64, rng: &mut Rng) -> (Vec<f64>, Vec<f64>) {
    let mut x = Vec::with_capacity(n);
    let mut y = Vec::with_capacity(n);
    for _ in 0..n {
        let row = [(); 3].map(|_| 4.0 * rng.uniform() - 2.0);
        let z = row[0] * w[0] + row[1] * w[1] + row[2] * w[2] + b;
        y.push(if rng.uniform() < 1.0 / (1.0 + (-z).exp()) {
            1.0
        } else {
            0.0
        });
        x.extend(row);
    }
    (x, y)
}

/// The share of the rows that `p` classifies right.
fn accuracy(p: &[f64], x: &[f64], y: &[f64]) -> f64 {
    let right = x
        .chunks(3)
        .zip(y)
        .filter(|(r, &l)| (p[0] * r[0] + p[1] * r[1] + p[2] * r[2] + p[3] > 0.0) == (l > 0.5))
        .count();
    right as f64 / y.len() as f64
}

const SOLVERS: [&str; 3] = ["L-BFGS", "Newton-CG", "trust region"];

fn main() -> Result<(), Error> {
    // The gradients and Hessian-vector products against differences, once,
    // before trusting them.
    let start = vec![-1.2, 1.0, -1.2, 1.0];
    gradcheck(&(start.clone(),), |(x,)| rosenbrock_backward(x, 1.0))
        .expect("rosenbrock_backward agrees with central differences");
    hvpcheck(
        &(start.clone(),),
        &(vec![0.6, -0.8, 0.3, 1.0],),
        |(x,), (v,)| rosenbrock_hvp(x, v),
    )
    .expect("rosenbrock_hvp agrees with central differences of the gradient");

    // One line per problem.
    let problem = Problem::new(rosenbrock, rosenbrock_backward).with_hvp(rosenbrock_hvp);
    for n in [2, 10] {
        let start: Vec<f64> = (0..n)
            .map(|i| if i % 2 == 0 { -1.2 } else { 1.0 })
            .collect();
        let runs = solve(problem, &start)?;
        for (name, run) in SOLVERS.iter().zip(&runs) {
            let error = run.best.iter().map(|v| (v - 1.0).abs()).fold(0.0, f64::max);
            println!(
                "rosenbrock n={n}: {name} stopped after {} iterations, max |x - 1| {error:e}, cost {:e}",
                run.iterations, run.cost
            );
        }
    }
    let hessian: HessianAt<_> = problem.hessian(&vec![1.0, 1.0])?;
    println!(
        "rosenbrock n=2: the Hessian at (1, 1) is {:?}",
        hessian.to_matrix()
    );

    let mut rng = Rng(2024);
    let (w, b) = ([1.5, -2.0, 0.5], -0.25);
    let (x, y) = logistic_data(2000, w, b, &mut rng);
    let lambda = 1e-3;
    let p0 = [0.3, -0.2, 0.1, 0.05].to_vec();
    gradcheck(&(p0.clone(),), |(p,)| {
        logistic_nll_backward(p, &x, &y, lambda, 1.0)
    })
    .expect("logistic_nll_backward agrees with central differences");
    hvpcheck(
        &(p0.clone(),),
        &(vec![1.0, 0.5, -0.5, 0.25],),
        |(p,), (v,)| logistic_nll_hvp(p, &x, &y, lambda, v),
    )
    .expect("logistic_nll_hvp agrees with central differences of the gradient");

    let problem = Problem::new(
        |p: &[f64]| logistic_nll(p, &x, &y, lambda),
        |p: &[f64], d| logistic_nll_backward(p, &x, &y, lambda, d),
    )
    .with_hvp(|p: &[f64], v: &[f64]| logistic_nll_hvp(p, &x, &y, lambda, v));
    let runs = solve(problem, &[0.0; 4])?;
    for (name, run) in SOLVERS.iter().zip(&runs) {
        println!(
            "logistic: {name} stopped after {} iterations, final cost {:.9}, weights {:.3?}, accuracy {:.3}",
            run.iterations,
            run.cost,
            run.best,
            accuracy(&run.best, &x, &y)
        );
    }
    println!("logistic: generated with weights {w:?}, bias {b}");
    Ok(())
}
