//! `break` and `continue`, also under conditions on differentiable values
//! (the path taken is a constant of the gradient), in `for` and `while`
//! loops. Each function is checked against the original's value bit for
//! bit, by central differences and by its closed-form gradient.

use backprop::prelude::*;

/// Sums the non-negative elements times `s` until the sum passes 2.
#[differentiable]
fn capped(x: &Array1<f64>, s: f64) -> f64 {
    let mut acc = 0.0;
    for i in 0..x.len() {
        if x[i] < 0.0 {
            continue;
        }
        acc += x[i] * s;
        if acc > 2.0 {
            break;
        }
        acc += 0.1;
    }
    acc
}

#[test]
fn continue_and_break_in_a_for_loop() {
    let x = array![0.5, -1.0, 1.0, 2.0, 3.0];
    let s = 0.9;
    let (v, g) = capped_backward(&x, s, 1.0);
    assert_eq!(v, capped(&x, s));
    // Elements 0, 2 and 3 are added (the sum passes 2 at element 3).
    assert_eq!(g.x, array![s, 0.0, s, s, 0.0]);
    assert_eq!(g.s, 0.5 + 1.0 + 2.0);
    gradcheck(&(x.clone(), s), |(x, s)| capped_backward(x, *s, 1.0)).unwrap();
}

/// A `while` that breaks from inside a `match` arm and an `if`.
#[differentiable]
fn damped(a: f64, mode: usize) -> f64 {
    let mut y = a;
    let mut n = 0;
    while n < 100 {
        n += 1;
        y = y * 0.5 + 0.1;
        match mode {
            0 => break,
            _ => {
                if y < 0.25 {
                    break;
                }
            }
        }
    }
    y
}

#[test]
fn break_out_of_a_while_from_a_match_arm() {
    for (mode, a) in [(0, 3.0), (1, 3.0), (1, 0.1)] {
        let (v, g) = damped_backward(a, mode, 1.0);
        assert_eq!(v, damped(a, mode));
        // y_n = a / 2^n + ...: the gradient is 2^-n for the n iterations run.
        let mut y: f64 = a;
        let mut n = 0;
        loop {
            n += 1;
            y = y * 0.5 + 0.1;
            if mode == 0 || y < 0.25 {
                break;
            }
        }
        assert_eq!(g.a, 0.5_f64.powi(n), "mode {mode}, a = {a}");
        gradcheck(&(a,), |(a,)| damped_backward(*a, mode, 1.0)).unwrap();
    }
}

/// `loop` until a condition on a differentiable value: bisection-like
/// halving of a step.
#[differentiable]
fn halving(a: f64) -> f64 {
    let mut step = a;
    let mut total = 0.0;
    loop {
        total += step;
        step *= 0.5;
        if step.abs() < 0.05 {
            break;
        }
    }
    total
}

#[test]
fn a_loop_until_break() {
    for a in [1.0, 0.07, -3.0] {
        let (v, g) = halving_backward(a, 1.0);
        assert_eq!(v, halving(a));
        // total = a (1 + 1/2 + .. + 1/2^(n-1)) for the n iterations run.
        let mut n = 0;
        let mut step: f64 = a;
        loop {
            n += 1;
            step *= 0.5;
            if step.abs() < 0.05 {
                break;
            }
        }
        let exact = (0..n).map(|k| 0.5_f64.powi(k)).sum::<f64>();
        assert_eq!(g.a, exact, "a = {a}");
        gradcheck(&(a,), |(a,)| halving_backward(*a, 1.0)).unwrap();
    }
}

/// A `loop` carrying an array and a scalar that reads it (found by fuzzing:
/// an arm's result moved by an op of the arm that read it).
#[differentiable]
fn carried_through_a_loop(p0: &Array1<f64>, p3: f64) -> f64 {
    let mut t1 = p0 * 2.0;
    let mut t3 = p3;
    let mut n1 = 0;
    loop {
        t1 -= t3;
        t3 += t1.sum();
        n1 += 1;
        if n1 >= 2 {
            break;
        }
    }
    t3
}

#[test]
fn an_array_and_a_scalar_carried_through_a_loop() {
    let p0 = array![0.5, -0.25];
    let (v, g) = carried_through_a_loop_backward(&p0, 0.3, 1.0);
    assert_eq!(v, carried_through_a_loop(&p0, 0.3));
    assert_eq!(g.p0, array![0.0, 0.0]);
    assert_eq!(g.p3, -1.0);
    gradcheck(&(p0.clone(), 0.3), |(p, s)| {
        carried_through_a_loop_backward(p, *s, 1.0)
    })
    .unwrap();
}
