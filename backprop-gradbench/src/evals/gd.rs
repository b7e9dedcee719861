//! The gradient descent of GradBench's `particle` and `saddle` evals
//! (`cpp/gradbench/gd.hpp` there): steps of `eta` along the negative
//! gradient, `eta` doubled after ten accepted steps in a row and halved at
//! a rejected one; it stops when the gradient or the step is shorter than
//! `1e-5`.

fn norm<const N: usize>(v: &[f64; N]) -> f64 {
    v.iter().map(|x| x * x).sum::<f64>().sqrt()
}

/// The point where descent from `start` stops, for the function `f` and
/// its gradient `grad`.
pub fn argmin<const N: usize>(
    f: impl Fn(&[f64; N]) -> f64,
    grad: impl Fn(&[f64; N]) -> [f64; N],
    start: [f64; N],
) -> [f64; N] {
    let mut x = start;
    let mut fx = f(&x);
    let mut gx = grad(&x);
    let mut accepted = 0;
    let mut eta = 1e-5;
    loop {
        if norm(&gx) <= 1e-5 {
            return x;
        }
        if accepted == 10 {
            eta *= 2.0;
            accepted = 0;
            continue;
        }
        let next: [f64; N] = std::array::from_fn(|j| x[j] - eta * gx[j]);
        let step: [f64; N] = std::array::from_fn(|j| x[j] - next[j]);
        if norm(&step) <= 1e-5 {
            return x;
        }
        let f_next = f(&next);
        if f_next < fx {
            x = next;
            fx = f_next;
            gx = grad(&x);
            accepted += 1;
        } else {
            eta /= 2.0;
            accepted = 0;
        }
    }
}

/// The point where ascent from `start` stops: [`argmin`] of `-f`.
pub fn argmax<const N: usize>(
    f: impl Fn(&[f64; N]) -> f64,
    grad: impl Fn(&[f64; N]) -> [f64; N],
    start: [f64; N],
) -> [f64; N] {
    argmin(|x| -f(x), |x| grad(x).map(|g| -g), start)
}
