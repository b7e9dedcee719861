//! argmin's L-BFGS with gradients from `#[differentiable]`, beside Newton's
//! method with conjugate-gradient steps on Hessian-vector products from
//! `#[differentiable(hvp)]`.
//!
//! ```text
//! cargo run --release --example rosenbrock
//! ```
//!
//! Two problems, each an argmin [`CostFunction`] + [`Gradient`] whose methods
//! call the `_backward` the macro writes: the Rosenbrock function from the
//! classic start (-1.2, 1), and the negative log-likelihood of a logistic
//! regression on a generated data set. argmin works on the parameter type of
//! the problem; here that is [`Vector`], an `Array1<f64>` with argmin-math's
//! traits (`vector.rs`). The same two problems are then solved by
//! `newton.rs`'s Newton-CG, whose only second-order information is
//! `NAME_hvp`; the iteration counts are printed side by side.

mod newton;
mod vector;

use argmin::core::{CostFunction, Error, Executor, Gradient, State, TerminationStatus};
use argmin::solver::linesearch::MoreThuenteLineSearch;
use argmin::solver::quasinewton::LBFGS;
use backprop::prelude::*;
use vector::Vector;

/// The Rosenbrock function; its minimum is 0 at (1, 1).
#[differentiable(hvp)]
fn rosenbrock(x: f64, y: f64) -> f64 {
    (1.0 - x).powi(2) + 100.0 * (y - x * x).powi(2)
}

/// The mean negative log-likelihood of a logistic regression with weights `w`
/// and bias `b` (labels `y` in {0, 1}), plus a small ridge penalty:
/// `mean(ln(1 + e^z) − y·z) + λ/2 |w|²` with `z = x w + b`.
#[differentiable(hvp, wrt(w, b))]
fn logistic_nll(w: &Array1<f64>, b: f64, x: &Array2<f64>, y: &Array1<f64>, lambda: f64) -> f64 {
    let z = x.dot(w) + b;
    let nll = mean(&(ln(&(exp(&z) + 1.0)) - y * &z));
    nll + 0.5 * lambda * w.dot(w)
}

/// The Rosenbrock problem for argmin: parameters `[x, y]`.
struct Rosenbrock;

impl CostFunction for Rosenbrock {
    type Param = Vector;
    type Output = f64;

    fn cost(&self, p: &Vector) -> Result<f64, Error> {
        Ok(rosenbrock(p.0[0], p.0[1]))
    }
}

impl Gradient for Rosenbrock {
    type Param = Vector;
    type Gradient = Vector;

    fn gradient(&self, p: &Vector) -> Result<Vector, Error> {
        let (_, g) = rosenbrock_backward(p.0[0], p.0[1], 1.0);
        Ok(Vector(array![g.x, g.y]))
    }
}

/// The logistic regression for argmin: parameters `[w_0, .., w_{d-1}, b]`.
struct Logistic {
    x: Array2<f64>,
    y: Array1<f64>,
    lambda: f64,
}

impl Logistic {
    /// The weights and the bias of `[w_0, .., w_{d-1}, b]`.
    fn split(p: &Vector) -> (Array1<f64>, f64) {
        let d = p.0.len() - 1;
        (p.0.slice(ndarray::s![..d]).to_owned(), p.0[d])
    }

    fn accuracy(&self, p: &Vector) -> f64 {
        let (w, b) = Logistic::split(p);
        let z = self.x.dot(&w) + b;
        let right = z
            .iter()
            .zip(&self.y)
            .filter(|(z, y)| (**z > 0.0) == (**y > 0.5))
            .count();
        right as f64 / self.y.len() as f64
    }
}

impl CostFunction for Logistic {
    type Param = Vector;
    type Output = f64;

    fn cost(&self, p: &Vector) -> Result<f64, Error> {
        let (w, b) = Logistic::split(p);
        Ok(logistic_nll(&w, b, &self.x, &self.y, self.lambda))
    }
}

impl Gradient for Logistic {
    type Param = Vector;
    type Gradient = Vector;

    fn gradient(&self, p: &Vector) -> Result<Vector, Error> {
        let (w, b) = Logistic::split(p);
        let (_, g) = logistic_nll_backward(&w, b, &self.x, &self.y, self.lambda, 1.0);
        Ok(Vector(ndarray::concatenate![Axis(0), g.w, array![g.b]]))
    }
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

/// `n` points in `[-2, 2]^d` labelled by a Bernoulli draw with probability
/// `sigmoid(x · w_true + b_true)`.
fn logistic_data(n: usize, w_true: &Array1<f64>, b_true: f64, rng: &mut Rng) -> Logistic {
    let x = Array2::from_shape_simple_fn((n, w_true.len()), || 4.0 * rng.uniform() - 2.0);
    let p = (x.dot(w_true) + b_true).mapv(|z| 1.0 / (1.0 + (-z).exp()));
    let y = p.mapv(|p| if rng.uniform() < p { 1.0 } else { 0.0 });
    Logistic { x, y, lambda: 1e-3 }
}

/// Both backward functions against central differences, once, before trusting them.
fn check_gradients(data: &Logistic) {
    gradcheck(&(-1.2, 1.0), |(x, y)| rosenbrock_backward(*x, *y, 1.0))
        .expect("rosenbrock_backward agrees with central differences");
    gradcheck(&(array![0.3, -0.2, 0.1], 0.05), |(w, b)| {
        logistic_nll_backward(w, *b, &data.x, &data.y, data.lambda, 1.0)
    })
    .expect("logistic_nll_backward agrees with central differences");
    hvpcheck(&(-1.2, 1.0), &(0.6, -0.8), |&(x, y), &(dx, dy)| {
        rosenbrock_hvp(x, y, dx, dy)
    })
    .expect("rosenbrock_hvp agrees with central differences of the gradient");
    hvpcheck(
        &(array![0.3, -0.2, 0.1], 0.05),
        &(array![1.0, 0.5, -0.5], 0.25),
        |(w, b), (dw, db)| logistic_nll_hvp(w, *b, &data.x, &data.y, data.lambda, dw, *db),
    )
    .expect("logistic_nll_hvp agrees with central differences of the gradient");
}

/// Rosenbrock's value, gradient and Hessian-vector product on `[x, y]`.
fn rosenbrock_newton(p: &Array1<f64>, v: &Array1<f64>) -> (f64, Array1<f64>, Array1<f64>) {
    let (value, g, hv) = rosenbrock_hvp(p[0], p[1], v[0], v[1]);
    (value, array![g.x, g.y], array![hv.x, hv.y])
}

impl Logistic {
    /// The same on `[w_0, .., w_{d-1}, b]`.
    fn newton(&self, p: &Array1<f64>, v: &Array1<f64>) -> (f64, Array1<f64>, Array1<f64>) {
        let d = p.len() - 1;
        let (w, b) = (p.slice(ndarray::s![..d]).to_owned(), p[d]);
        let dw = v.slice(ndarray::s![..d]).to_owned();
        let (value, g, hv) = logistic_nll_hvp(&w, b, &self.x, &self.y, self.lambda, &dw, v[d]);
        let join = |w: Array1<f64>, b: f64| ndarray::concatenate![Axis(0), w, array![b]];
        (value, join(g.w, g.b), join(hv.w, hv.b))
    }
}

fn main() -> Result<(), Error> {
    let mut rng = Rng(2024);
    let w_true = array![1.5, -2.0, 0.5];
    let b_true = -0.25;
    let data = logistic_data(2000, &w_true, b_true, &mut rng);
    check_gradients(&data);
    let newton_data = Logistic {
        x: data.x.clone(),
        y: data.y.clone(),
        lambda: data.lambda,
    };

    let solver = LBFGS::new(MoreThuenteLineSearch::new(), 7)
        .with_tolerance_grad(1e-12)?
        .with_tolerance_cost(0.0)?;
    let result = Executor::new(Rosenbrock, solver)
        .configure(|state| state.param(Vector(array![-1.2, 1.0])).max_iters(200))
        .run()?;
    let state = result.state();
    let best = state.get_best_param().expect("L-BFGS keeps its best point");
    let lbfgs_rosenbrock = state.get_iter();
    println!(
        "rosenbrock: L-BFGS from (-1.2, 1) stopped after {} iterations ({})",
        state.get_iter(),
        reason(state.get_termination_status())
    );
    println!(
        "rosenbrock: minimum at x = {:.12}, y = {:.12}, cost {:e}",
        best.0[0],
        best.0[1],
        state.get_best_cost()
    );

    let solver = LBFGS::new(MoreThuenteLineSearch::new(), 7).with_tolerance_grad(1e-10)?;
    let start = Vector(Array1::zeros(w_true.len() + 1));
    let result = Executor::new(data, solver)
        .configure(|state| state.param(start).max_iters(200))
        .run()?;
    let state = result.state();
    let best = state.get_best_param().expect("L-BFGS keeps its best point");
    let data = result
        .problem
        .problem
        .as_ref()
        .expect("the problem is kept");
    let lbfgs_logistic = state.get_iter();
    println!(
        "logistic: L-BFGS stopped after {} iterations ({}), final cost {:.6}",
        state.get_iter(),
        reason(state.get_termination_status()),
        state.get_best_cost()
    );
    let (w, b) = Logistic::split(best);
    println!(
        "logistic: weights {:.3}, bias {b:.3} (generated with {w_true}, {b_true})",
        w
    );
    println!("logistic: training accuracy {:.3}", data.accuracy(best));

    let rosen = newton::newton_cg(rosenbrock_newton, array![-1.2, 1.0], 1e-10, 200);
    println!(
        "rosenbrock: Newton-CG from (-1.2, 1) stopped after {} iterations ({} Hessian-vector products{})",
        rosen.iterations,
        rosen.hvps,
        if rosen.converged { "" } else { ", not converged" }
    );
    println!(
        "rosenbrock: Newton-CG minimum at x = {:.12}, y = {:.12}, cost {:e}",
        rosen.x[0], rosen.x[1], rosen.cost
    );
    let start = Array1::zeros(w_true.len() + 1);
    let logit = newton::newton_cg(|p, v| newton_data.newton(p, v), start, 1e-10, 200);
    println!(
        "logistic: Newton-CG stopped after {} iterations ({} Hessian-vector products{}), final cost {:.6}",
        logit.iterations,
        logit.hvps,
        if logit.converged { "" } else { ", not converged" },
        logit.cost
    );
    println!();
    println!("iterations      L-BFGS   Newton-CG");
    println!(
        "rosenbrock    {lbfgs_rosenbrock:>8}  {:>10}",
        rosen.iterations
    );
    println!(
        "logistic      {lbfgs_logistic:>8}  {:>10}",
        logit.iterations
    );
    Ok(())
}

fn reason(status: &TerminationStatus) -> String {
    match status {
        TerminationStatus::Terminated(r) => format!("{r:?}"),
        TerminationStatus::NotTerminated => "not terminated".into(),
    }
}
