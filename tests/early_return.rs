//! Early `return`: from a branch, from inside a loop, from a `match` arm;
//! the path taken is a constant of the gradient. Each function is checked
//! against the original's value bit for bit, by central differences and by
//! its closed-form gradient.

use backprop::prelude::*;

/// Huber with an early return.
#[differentiable]
fn huber(r: f64, delta: f64) -> f64 {
    if r.abs() <= delta {
        return 0.5 * r * r;
    }
    delta * (r.abs() - 0.5 * delta)
}

#[test]
fn huber_with_an_early_return() {
    for r in [0.3, -0.8, 2.5, -4.0] {
        let (v, g) = huber_backward(r, 1.0, 1.0);
        assert_eq!(v, huber(r, 1.0));
        let dr = if r.abs() <= 1.0 { r } else { r.signum() };
        assert_eq!(g.r, dr);
        gradcheck(&(r, 1.0), |(r, d)| huber_backward(*r, *d, 1.0)).unwrap();
    }
}

/// The first partial sum above a threshold, returned from inside a loop.
#[differentiable]
fn first_above(x: &Array1<f64>, threshold: f64) -> f64 {
    let mut acc = 0.0;
    for i in 0..x.len() {
        acc += x[i] * x[i];
        if acc > threshold {
            return acc * 2.0;
        }
    }
    acc
}

#[test]
fn a_return_from_inside_a_loop() {
    let x = array![0.5, 1.0, 2.0, 0.1];
    for (t, used, scale) in [(1.0, 2, 2.0), (100.0, 4, 1.0)] {
        let (v, g) = first_above_backward(&x, t, 1.0);
        assert_eq!(v, first_above(&x, t));
        // The first `used` elements are summed (squared), then doubled if returned early.
        let exact: Array1<f64> = x
            .iter()
            .enumerate()
            .map(|(i, &xi)| if i < used { 2.0 * xi * scale } else { 0.0 })
            .collect();
        assert_eq!(g.x, exact, "threshold {t}");
        gradcheck(&(x.clone(), t), |(x, t)| first_above_backward(x, *t, 1.0)).unwrap();
    }
}

/// Returns from `match` arms, an array output.
#[differentiable]
fn scaled(x: &Array1<f64>, mode: usize) -> Array1<f64> {
    match mode {
        0 => return x * 2.0,
        1 if x.sum() > 0.0 => {
            let y = x.mapv(|v| v * v);
            return y;
        }
        _ => {}
    }
    x.exp()
}

#[test]
fn returns_from_match_arms_with_an_array_value() {
    let x = array![0.5, -0.25, 1.0];
    let d = array![1.0, 2.0, -1.0];
    for mode in [0, 1, 2] {
        let (v, g) = scaled_backward(&x, mode, &d);
        assert_eq!(v, scaled(&x, mode));
        let exact = match mode {
            0 => &d * 2.0,
            1 => &d * &x * 2.0,
            _ => &d * &x.exp(),
        };
        assert_eq!(g.x, exact, "mode {mode}");
        GradCheck::new()
            .upstream(&d)
            .check(&(x.clone(),), |(x,)| scaled_backward(x, mode, &d))
            .unwrap();
    }
}

/// Names bound after a statement that returns, at the top and after a loop.
#[differentiable]
fn bound_after_return(p0: f64, x: &Array1<f64>) -> f64 {
    if p0 < 0.0371 {
        return p0 * 2.0;
    }
    let t3 = p0 - 0.5;
    let mut acc = 0.0;
    for i in 0..2 {
        acc += x[i] * t3;
        if acc > 0.4629 {
            return acc;
        }
    }
    let y = acc * 2.0;
    y + t3
}

#[test]
fn names_bound_after_a_return() {
    let x = array![1.0, 2.0];
    for p0 in [0.01, 0.7, 0.6] {
        let (v, _) = bound_after_return_backward(p0, &x, 1.0);
        assert_eq!(v, bound_after_return(p0, &x));
        gradcheck(&(p0, x.clone()), |(p, x)| {
            bound_after_return_backward(*p, x, 1.0)
        })
        .unwrap();
    }
}

/// Found by fuzzing (f0495 of the control-flow generator): after a return,
/// a loop's array is read by the reverse and is also the guard's result
/// that nothing reads; it was moved into the record and returned too.
#[differentiable]
fn dead_result_kept(p1: &Array2<f64>) -> f64 {
    let mut t4 = p1 * 1.0;
    if t4.sum() <= 0.4629 {
        return t4.mean().unwrap();
    }
    for _ in (0..1).rev() {
        t4 -= 0.75;
    }
    mean(&t4)
}

/// Found by fuzzing (f0231): a return inside a loop's branch, which reads
/// an array the loop's reverse borrows from a branch's result.
#[differentiable]
fn return_reading_a_borrowed_result(out: &Array2<f64>) -> f64 {
    let mut grad = out.sum_axis(Axis(0));
    for i in 0..2 {
        grad -= out[[i, 1]];
        if out[[i, 1]] > 0.0371 {
            return ln(&(square(&grad) + 0.5)).sum();
        }
    }
    grad.sum()
}

#[test]
fn returns_found_by_fuzzing() {
    for p in [array![[0.1, 0.2]], array![[0.5, 0.9]]] {
        let (v, _) = dead_result_kept_backward(&p, 1.0);
        assert_eq!(v, dead_result_kept(&p));
        gradcheck(&(p.clone(),), |(p,)| dead_result_kept_backward(p, 1.0)).unwrap();
    }
    for o in [
        array![[0.3, -0.2], [0.1, 0.5]],
        array![[0.3, -0.2], [0.1, -0.5]],
    ] {
        let (v, _) = return_reading_a_borrowed_result_backward(&o, 1.0);
        assert_eq!(v, return_reading_a_borrowed_result(&o));
        gradcheck(&(o.clone(),), |(o,)| {
            return_reading_a_borrowed_result_backward(o, 1.0)
        })
        .unwrap();
    }
}
