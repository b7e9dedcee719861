//! Newton's method with conjugate-gradient steps (truncated Newton), on
//! Hessian-vector products only: the Hessian is never formed.
//!
//! Each iteration solves `H p = −g` approximately by conjugate gradients,
//! each step one product `H·v` (a call of the generated `NAME_hvp`), until
//! the residual is below `min(10⁻², √|g|)·|g|` (nearly exact Newton steps,
//! and exact ones near the minimum: quadratic convergence) or the curvature along
//! a search direction is not positive (then the last good direction is
//! taken, or the steepest descent if there is none); then it backtracks
//! along `p` until the Armijo condition holds.

use backprop::ndarray::Array1;

/// The minimiser's result.
pub struct Newton {
    pub x: Array1<f64>,
    pub cost: f64,
    pub iterations: usize,
    /// Hessian-vector products, over all iterations.
    pub hvps: usize,
    pub converged: bool,
}

/// Minimises `f` from `x0`. `hvp(x, v)` returns `(f(x), ∇f(x), H(x)·v)`;
/// stops when `|∇f| ≤ tol` or after `max_iters` iterations.
pub fn newton_cg(
    hvp: impl Fn(&Array1<f64>, &Array1<f64>) -> (f64, Array1<f64>, Array1<f64>),
    x0: Array1<f64>,
    tol: f64,
    max_iters: usize,
) -> Newton {
    let mut x = x0;
    let zero = Array1::zeros(x.len());
    let (mut cost, mut g, _) = hvp(&x, &zero);
    let mut hvps = 0;
    for it in 0..max_iters {
        let gnorm = g.dot(&g).sqrt();
        if gnorm <= tol {
            return Newton {
                x,
                cost,
                iterations: it,
                hvps,
                converged: true,
            };
        }
        // Conjugate gradients on H p = −g, from p = 0.
        let forcing = gnorm.sqrt().min(1e-2) * gnorm;
        let mut p = Array1::zeros(x.len());
        let mut r = -&g;
        let mut d = r.clone();
        let mut rr = r.dot(&r);
        for _ in 0..2 * x.len() + 10 {
            let (_, _, hd) = hvp(&x, &d);
            hvps += 1;
            let curvature = d.dot(&hd);
            if curvature <= 0.0 {
                break;
            }
            let alpha = rr / curvature;
            p.scaled_add(alpha, &d);
            r.scaled_add(-alpha, &hd);
            let rr_new = r.dot(&r);
            if rr_new.sqrt() <= forcing {
                break;
            }
            d = &r + &(&d * (rr_new / rr));
            rr = rr_new;
        }
        if p.iter().all(|&v| v == 0.0) {
            p = -&g;
        }
        // Backtracking until the cost falls enough (Armijo, c = 1e-4).
        let slope = g.dot(&p);
        let mut step = 1.0;
        loop {
            let trial = &x + &(&p * step);
            let (c, gt, _) = hvp(&trial, &zero);
            if c <= cost + 1e-4 * step * slope || step < 1e-12 {
                x = trial;
                cost = c;
                g = gt;
                break;
            }
            step *= 0.5;
        }
    }
    let converged = g.dot(&g).sqrt() <= tol;
    Newton {
        x,
        cost,
        iterations: max_iters,
        hvps,
        converged,
    }
}
