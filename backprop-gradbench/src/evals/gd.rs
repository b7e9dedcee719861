//! The gradient descent of GradBench's `particle` and `saddle` evals
//! (`cpp/gradbench/gd.hpp` there): steps of `eta` along the negative
//! gradient, `eta` doubled after ten accepted steps in a row and halved at
//! a rejected one; it stops when the gradient or the step is shorter than
//! `1e-5`.
//!
//! Generic over the float: run on dual numbers, the point where it stops
//! carries its derivative along the duals' direction (the outer derivative
//! of `saddle`'s `fr`). Its comparisons read the values.

use backprop::Float;

fn norm<F: Float, const N: usize>(v: &[F; N]) -> F {
    v.iter().fold(F::zero(), |s, &x| s + x * x).sqrt()
}

/// The point where descent from `start` stops, for the function `f` and
/// its gradient `grad`.
pub fn argmin<F: Float, const N: usize>(
    f: impl Fn(&[F; N]) -> F,
    grad: impl Fn(&[F; N]) -> [F; N],
    start: [F; N],
) -> [F; N] {
    let mut x = start;
    let mut fx = f(&x);
    let mut gx = grad(&x);
    let mut accepted = 0;
    let tolerance = F::from_f64(1e-5);
    let mut eta = F::from_f64(1e-5);
    loop {
        if norm(&gx) <= tolerance {
            return x;
        }
        if accepted == 10 {
            eta *= F::from_f64(2.0);
            accepted = 0;
            continue;
        }
        let next: [F; N] = std::array::from_fn(|j| x[j] - eta * gx[j]);
        let step: [F; N] = std::array::from_fn(|j| x[j] - next[j]);
        if norm(&step) <= tolerance {
            return x;
        }
        let f_next = f(&next);
        if f_next < fx {
            x = next;
            fx = f_next;
            gx = grad(&x);
            accepted += 1;
        } else {
            eta /= F::from_f64(2.0);
            accepted = 0;
        }
    }
}

/// The point where ascent from `start` stops: [`argmin`] of `-f`.
pub fn argmax<F: Float, const N: usize>(
    f: impl Fn(&[F; N]) -> F,
    grad: impl Fn(&[F; N]) -> [F; N],
    start: [F; N],
) -> [F; N] {
    argmin(|x| -f(x), |x| grad(x).map(|g| -g), start)
}
