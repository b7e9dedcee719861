//! Labelled `break`/`continue` (`continue 'rows;` from an inner loop), in
//! `for`, `while` and `loop`, also under conditions on differentiable
//! values (the path taken is a constant of the gradient), and `break` with
//! a value (`let r = loop { .. break x * 2.0; };`). Each function is
//! checked against the original's value bit for bit, by central
//! differences and by its closed-form gradient.

use backprop::prelude::*;

/// Sums each row's elements times `s` up to the first negative one, which
/// skips the rest of the row (and the row's bonus) with `continue 'rows`.
#[differentiable]
fn rows_until_negative(m: &Array2<f64>, s: f64) -> f64 {
    let mut acc = 0.0;
    'rows: for i in 0..m.nrows() {
        for j in 0..m.ncols() {
            if m[[i, j]] < 0.0 {
                continue 'rows;
            }
            acc += m[[i, j]] * s;
        }
        acc += 0.5 * s;
    }
    acc
}

#[test]
fn continue_an_outer_for_loop() {
    let m = array![[1.0, 2.0, 3.0], [0.5, -1.0, 4.0], [2.0, 0.25, 1.0]];
    let s = 1.5;
    let (v, g) = rows_until_negative_backward(&m, s, 1.0);
    assert_eq!(v, rows_until_negative(&m, s));
    // Row 1 stops at its second element, without its bonus.
    let exact_m = array![[s, s, s], [s, 0.0, 0.0], [s, s, s]];
    assert_eq!(g.m, exact_m);
    assert_eq!(g.s, 6.0 + 0.5 + 3.25 + 2.0 * 0.5);
    gradcheck(&(m.clone(), s), |(m, s)| {
        rows_until_negative_backward(m, *s, 1.0)
    })
    .unwrap();
}

/// A search over a grid that stops everything at the first product that
/// passes a threshold on a differentiable value (`break 'grid` from the
/// inner loop); the statements after the inner loop do not run either.
#[differentiable]
fn grid_search(x: &Array1<f64>, y: &Array1<f64>) -> f64 {
    let mut total = 0.0;
    let mut last = 0.0;
    'grid: for i in 0..x.len() {
        for j in 0..y.len() {
            let p = x[i] * y[j];
            total += p;
            if total > 3.0 {
                last = p;
                break 'grid;
            }
        }
        total *= 0.5;
    }
    total + last
}

#[test]
fn break_an_outer_for_loop_on_a_differentiable_condition() {
    let x = array![1.0, 2.0, 3.0];
    let y = array![0.5, 1.0];
    let (v, g) = grid_search_backward(&x, &y, 1.0);
    assert_eq!(v, grid_search(&x, &y));
    // i = 0: total = 1.5, halved to 0.75; i = 1: +1 = 1.75, +2 = 3.75 > 3,
    // last = x1 y1. value = 0.5 (x0 y0 + x0 y1) + x1 y0 + 2 x1 y1.
    assert_eq!(v, 0.75 + 1.0 + 2.0 + 2.0);
    assert_eq!(g.x, array![0.5 * (0.5 + 1.0), 0.5 + 2.0, 0.0]);
    assert_eq!(g.y, array![0.5 * 1.0 + 2.0, 0.5 * 1.0 + 2.0 * 2.0]);
    gradcheck(&(x.clone(), y.clone()), |(x, y)| {
        grid_search_backward(x, y, 1.0)
    })
    .unwrap();
}

/// Three loops deep: a `continue 'outer` and a `break 'outer` from the
/// innermost one, under a `match` and an `if`.
#[differentiable]
fn three_deep(a: f64, n: usize) -> f64 {
    let mut y = a;
    'outer: for i in 0..n {
        for j in 0..3 {
            for k in 0..2 {
                y = y * 0.9 + 0.1 * (k as f64);
                match (i + j + k) % 5 {
                    4 => continue 'outer,
                    _ => {
                        if y.abs() > 50.0 {
                            break 'outer;
                        }
                    }
                }
            }
            y += 1.0;
        }
        y *= 1.5;
    }
    y
}

/// The same computation written with flags, as a person would without labels.
fn three_deep_by_hand(a: f64, n: usize) -> (f64, f64) {
    let (mut y, mut dy) = (a, 1.0);
    let mut stop = false;
    for i in 0..n {
        let mut next = false;
        for j in 0..3 {
            for k in 0..2 {
                y = y * 0.9 + 0.1 * (k as f64);
                dy *= 0.9;
                if (i + j + k) % 5 == 4 {
                    next = true;
                    break;
                }
                if y.abs() > 50.0 {
                    stop = true;
                    break;
                }
            }
            if next || stop {
                break;
            }
            y += 1.0;
        }
        if stop {
            break;
        }
        if !next {
            y *= 1.5;
            dy *= 1.5;
        }
    }
    (y, dy)
}

#[test]
fn exits_from_three_loops_deep() {
    for (a, n) in [(1.0, 4), (-2.0, 7), (60.0, 3), (40.0, 9)] {
        let (v, g) = three_deep_backward(a, n, 1.0);
        assert_eq!(v, three_deep(a, n));
        let (y, dy) = three_deep_by_hand(a, n);
        assert_eq!(v, y, "a = {a}, n = {n}");
        assert!((g.a - dy).abs() <= 1e-12 * dy.abs(), "a = {a}, n = {n}");
        gradcheck(&(a,), |(a,)| three_deep_backward(*a, n, 1.0)).unwrap();
    }
}

/// A labelled `while` broken from a `loop` inside it, and the `loop`
/// broken on its own.
#[differentiable]
fn halving_search(a: f64, b: f64) -> f64 {
    let mut x = a;
    let mut rounds = 0;
    'search: while rounds < 20 {
        rounds += 1;
        let mut step = b;
        loop {
            x -= step;
            if x < 0.0 {
                break 'search;
            }
            step *= 0.5;
            if step < 0.1 {
                break;
            }
        }
        x *= 0.9;
    }
    x
}

#[test]
fn break_a_labelled_while_from_a_loop() {
    for (a, b) in [(3.0, 1.0), (10.0, 0.3), (0.5, 2.0)] {
        let (v, _) = halving_search_backward(a, b, 1.0);
        assert_eq!(v, halving_search(a, b));
        gradcheck(&(a, b), |(a, b)| halving_search_backward(*a, *b, 1.0)).unwrap();
    }
    // a = 0.5, b = 2: the first step ends the search, x = a - b.
    let (v, g) = halving_search_backward(0.5, 2.0, 1.0);
    assert_eq!(v, -1.5);
    assert_eq!((g.a, g.b), (1.0, -1.0));
}

/// A labelled `loop` continued from a `for` inside it.
#[differentiable]
fn continue_a_loop(x: &Array1<f64>) -> f64 {
    let mut scale = 1.0;
    let mut acc = 0.0;
    let mut round = 0;
    'again: loop {
        round += 1;
        if round > 3 {
            break;
        }
        for i in 0..x.len() {
            if x[i] * scale > 2.0 {
                scale *= 0.5;
                continue 'again;
            }
        }
        acc += x.sum() * scale;
    }
    acc
}

#[test]
fn continue_a_labelled_loop_from_a_for() {
    let x = array![1.0, 3.0, 0.5];
    let (v, g) = continue_a_loop_backward(&x, 1.0);
    assert_eq!(v, continue_a_loop(&x));
    // Round 1 halves the scale (3 > 2); rounds 2 and 3 add x.sum() / 2.
    assert_eq!(v, 4.5);
    assert_eq!(g.x, array![1.0, 1.0, 1.0]);
    gradcheck(&(x.clone(),), |(x,)| continue_a_loop_backward(x, 1.0)).unwrap();
}

/// An early `return` from inside a labelled loop.
#[differentiable]
fn return_from_labelled(x: &Array1<f64>, t: f64) -> f64 {
    let mut acc = 0.0;
    'outer: for i in 0..x.len() {
        for j in 0..x.len() {
            if i == j {
                continue 'outer;
            }
            acc += x[i] * x[j];
            if acc > t {
                return acc * 2.0;
            }
        }
    }
    acc
}

#[test]
fn return_from_a_labelled_loop() {
    let x = array![1.0, 2.0, 3.0];
    for t in [100.0, 4.0] {
        let (v, g) = return_from_labelled_backward(&x, t, 1.0);
        assert_eq!(v, return_from_labelled(&x, t));
        gradcheck(&(x.clone(), t), |(x, t)| {
            return_from_labelled_backward(x, *t, 1.0)
        })
        .unwrap();
        if t == 100.0 {
            // acc = x1 x0 + x2 x0 + x2 x1 (each row up to the diagonal).
            assert_eq!(v, 2.0 + 3.0 + 6.0);
            assert_eq!(g.x, array![5.0, 4.0, 3.0]);
        } else {
            // Returned at acc = x1 x0 + x2 x0 = 5 > 4, doubled.
            assert_eq!(v, 10.0);
            assert_eq!(g.x, array![10.0, 2.0, 2.0]);
        }
    }
}

/// `break` with a value: Newton's iteration for `sqrt(a)`, the root the
/// value of the `loop`.
#[differentiable]
fn newton_sqrt(a: f64) -> f64 {
    let mut x = a;
    let mut k = 0;
    let root = loop {
        k += 1;
        let next = 0.5 * (x + a / x);
        if (next - x).abs() < 1e-12 || k == 50 {
            break next;
        }
        x = next;
    };
    root * 2.0
}

#[test]
fn break_with_a_scalar_value() {
    for a in [2.0, 9.0, 0.3] {
        let (v, g) = newton_sqrt_backward(a, 1.0);
        assert_eq!(v, newton_sqrt(a));
        assert!((v - 2.0 * a.sqrt()).abs() < 1e-12);
        // d/da 2 sqrt(a) = 1 / sqrt(a), through the iterations.
        assert!((g.a - 1.0 / a.sqrt()).abs() < 1e-9, "a = {a}: {}", g.a);
        gradcheck(&(a,), |(a,)| newton_sqrt_backward(*a, 1.0)).unwrap();
    }
}

/// `break` with an array value, from two places, one of them a labelled
/// `break 'outer v` out of an inner `for`.
#[differentiable]
fn first_big_row(m: &Array2<f64>, w: &Array1<f64>) -> f64 {
    let mut i = 0;
    let row = 'outer: loop {
        if i + 1 >= m.nrows() {
            break m.row(i).to_owned() * 0.5;
        }
        for j in 0..m.ncols() {
            if m[[i, j]] * w[j] > 1.0 {
                break 'outer &m.row(i) * w;
            }
        }
        i += 1;
    };
    (&row * &row).sum()
}

#[test]
fn break_with_an_array_value() {
    let w = array![0.5, 2.0];
    let m = array![[1.0, 0.25], [1.0, 1.0], [3.0, 3.0]];
    let (v, g) = first_big_row_backward(&m, &w, 1.0);
    assert_eq!(v, first_big_row(&m, &w));
    // Row 1 is the first with m_ij w_j > 1: value Σ_j (m_1j w_j)².
    assert_eq!(v, 0.25 + 4.0);
    let exact_m = array![[0.0, 0.0], [2.0 * 0.5 * 0.5, 2.0 * 2.0 * 2.0], [0.0, 0.0]];
    assert_eq!(g.m, exact_m);
    assert_eq!(g.w, array![2.0 * 0.5 * 1.0, 2.0 * 2.0 * 1.0]);
    gradcheck(&(m.clone(), w.clone()), |(m, w)| {
        first_big_row_backward(m, w, 1.0)
    })
    .unwrap();
    // No row passes: the last row, halved.
    let m = array![[0.1, 0.1], [1.0, 0.25], [0.5, 0.5]];
    let (v, g) = first_big_row_backward(&m, &w, 1.0);
    assert_eq!(v, first_big_row(&m, &w));
    assert_eq!(v, 0.125);
    assert_eq!(g.m, array![[0.0, 0.0], [0.0, 0.0], [0.25, 0.25]]);
    gradcheck(&(m.clone(), w.clone()), |(m, w)| {
        first_big_row_backward(m, w, 1.0)
    })
    .unwrap();
}

/// A `loop` with a value inside a `for`, in a function another calls.
#[differentiable]
fn damped_steps(x: &Array1<f64>, rate: f64) -> f64 {
    let mut total = 0.0;
    for i in 0..x.len() {
        let mut y = x[i];
        let settled = loop {
            y *= rate;
            if y.abs() < 0.5 {
                break y + 1.0;
            }
        };
        total += settled;
    }
    total
}

#[differentiable]
fn calls_damped(x: &Array1<f64>, rate: f64) -> f64 {
    let t = damped_steps(x, rate);
    t * t
}

#[test]
fn break_with_a_value_in_a_loop_and_a_call() {
    let x = array![0.4, 3.0, -1.8];
    let rate = 0.5;
    let (v, g) = damped_steps_backward(&x, rate, 1.0);
    assert_eq!(v, damped_steps(&x, rate));
    // Settled after 1, 3 and 2 steps: x_i rate^n_i + 1.
    let exact = 0.4 * 0.5 + 3.0 * 0.125 - 1.8 * 0.25 + 3.0;
    assert!((v - exact).abs() < 1e-15);
    assert_eq!(g.x, array![0.5, 0.125, 0.25]);
    // d/d rate: Σ n_i x_i rate^(n_i - 1).
    assert!((g.rate - (0.4 + 3.0 * 3.0 * 0.25 - 2.0 * 1.8 * 0.5)).abs() < 1e-15);
    gradcheck(&(x.clone(), rate), |(x, r)| {
        damped_steps_backward(x, *r, 1.0)
    })
    .unwrap();
    let (w, g) = calls_damped_backward(&x, rate, 1.0);
    assert_eq!(w, calls_damped(&x, rate));
    gradcheck(&(x.clone(), rate), |(x, r)| {
        calls_damped_backward(x, *r, 1.0)
    })
    .unwrap();
    assert_eq!(g.x, array![0.5, 0.125, 0.25].mapv(|d| 2.0 * v * d));
}
