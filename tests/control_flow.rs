//! Loops: state carried across iterations, one weight reused at every step
//! (the fork rule across iterations), and loops over constant data.

use backprop::prelude::*;
use backprop_testkit::lcg;
// An Elman RNN over the rows of `xs`: one recurrent matrix `w` shared by every
// step, and a loss summed over the steps.
use backprop_testkit::networks::{rnn, rnn_backward};

/// [`lcg`] values halved, in [-0.5, 0.5).
fn random<Sh: ndarray::ShapeBuilder<Dim = D>, D: ndarray::Dimension>(
    shape: Sh,
    seed: &mut u64,
) -> Array<f64, D> {
    Array::from_shape_simple_fn(shape, || lcg(seed) * 0.5)
}

/// The same network (`backprop_testkit::networks::rnn`) unrolled by hand over
/// T = 5 steps.
#[differentiable(wrt(w, u, b, v))]
fn rnn_unrolled(
    w: &Array2<f64>,
    u: &Array2<f64>,
    b: &Array1<f64>,
    v: &Array1<f64>,
    h0: &Array1<f64>,
    xs: &Array2<f64>,
    ys: &Array1<f64>,
) -> f64 {
    let h1 = tanh(&(w.dot(h0) + u.dot(&xs.row(0)) + b));
    let h2 = tanh(&(w.dot(&h1) + u.dot(&xs.row(1)) + b));
    let h3 = tanh(&(w.dot(&h2) + u.dot(&xs.row(2)) + b));
    let h4 = tanh(&(w.dot(&h3) + u.dot(&xs.row(3)) + b));
    let h5 = tanh(&(w.dot(&h4) + u.dot(&xs.row(4)) + b));
    (v.dot(&h1) - ys[0]).powi(2)
        + (v.dot(&h2) - ys[1]).powi(2)
        + (v.dot(&h3) - ys[2]).powi(2)
        + (v.dot(&h4) - ys[3]).powi(2)
        + (v.dot(&h5) - ys[4]).powi(2)
}

#[test]
fn elman_rnn_over_five_steps() {
    let mut s = 42;
    let (hidden, input, steps) = (4, 3, 5);
    let w = random((hidden, hidden), &mut s);
    let u = random((hidden, input), &mut s);
    let b = random(hidden, &mut s);
    let v = random(hidden, &mut s);
    let h0 = random(hidden, &mut s);
    let xs = random((steps, input), &mut s);
    let ys = random(steps, &mut s);
    let (loss, g) = rnn_backward(&w, &u, &b, &v, &h0, &xs, &ys, 1.0);
    assert_eq!(loss, rnn(&w, &u, &b, &v, &h0, &xs, &ys));
    let (loss_u, g_u) = rnn_unrolled_backward(&w, &u, &b, &v, &h0, &xs, &ys, 1.0);
    assert_eq!(loss_u, rnn_unrolled(&w, &u, &b, &v, &h0, &xs, &ys));
    assert!((loss - loss_u).abs() < 1e-12);
    // The shared weight's gradient is the sum over the steps of the unrolled version.
    let close = |a: &Array2<f64>, b: &Array2<f64>| {
        a.iter().zip(b.iter()).all(|(x, y)| (x - y).abs() < 1e-12)
    };
    assert!(close(&g.w, &g_u.w), "{:?}\n{:?}", g.w, g_u.w);
    assert!(close(&g.u, &g_u.u));
    assert!(g
        .b
        .iter()
        .zip(g_u.b.iter())
        .all(|(x, y)| (x - y).abs() < 1e-12));
    assert!(g
        .v
        .iter()
        .zip(g_u.v.iter())
        .all(|(x, y)| (x - y).abs() < 1e-12));
    let params = (w.clone(), u.clone(), b.clone(), v.clone());
    gradcheck(&params, |(w, u, b, v)| {
        rnn_backward(w, u, b, v, &h0, &xs, &ys, 1.0)
    })
    .unwrap();
    gradcheck(&params, |(w, u, b, v)| {
        rnn_unrolled_backward(w, u, b, v, &h0, &xs, &ys, 1.0)
    })
    .unwrap();
}

/// The same network over no step, one and two: its state is kept as rows of
/// one buffer (`bp::Rows`, see `recurrent_states.rs`), which then hold only
/// the initial state, or two or three states.
#[test]
fn elman_rnn_over_no_step_and_few() {
    let mut s = 53;
    let (w, u, b, v) = (
        random((3, 3), &mut s),
        random((3, 2), &mut s),
        random(3, &mut s),
        random(3, &mut s),
    );
    let h0 = random(3, &mut s);
    for steps in [0, 1, 2] {
        let xs = random((steps, 2), &mut s);
        let ys = random(steps, &mut s);
        let (value, g) = rnn_backward(&w, &u, &b, &v, &h0, &xs, &ys, 1.0);
        assert_eq!(
            value.to_bits(),
            rnn(&w, &u, &b, &v, &h0, &xs, &ys).to_bits()
        );
        if steps == 0 {
            assert_eq!(value, 0.0);
            assert!(g
                .w
                .iter()
                .chain(&g.u)
                .chain(&g.b)
                .chain(&g.v)
                .all(|&x| x == 0.0));
        }
        gradcheck(
            &(w.clone(), u.clone(), b.clone(), v.clone()),
            |(w, u, b, v)| rnn_backward(w, u, b, v, &h0, &xs, &ys, 1.0),
        )
        .unwrap();
    }
}

/// A loss accumulated over the rows of a constant data array (a manual batch).
/// (The macro allows clippy's `needless_range_loop` on it: a range is the only
/// loop form it supports.)
#[differentiable(wrt(w, c))]
fn manual_batch(w: &Array1<f64>, c: f64, xs: &Array2<f64>, labels: &[f64], n: usize) -> f64 {
    let mut total = 0.0;
    for i in 0..n {
        let z = xs.row(i).dot(w) + c;
        let p = sigmoid(z);
        total -= labels[i] * ln(p) + (1.0 - labels[i]) * ln(1.0 - p);
    }
    total / (n as f64)
}

#[test]
#[allow(clippy::needless_range_loop)] // rows of `xs` and entries of `labels` by index, as in the loss
fn loss_accumulated_over_rows() {
    let mut s = 7;
    let xs = random((8, 3), &mut s);
    let labels: Vec<f64> = (0..8).map(|i| (i % 2) as f64).collect();
    let w = random(3, &mut s);
    let (v, g) = manual_batch_backward(&w, 0.1, &xs, &labels, 8, 1.0);
    assert_eq!(v, manual_batch(&w, 0.1, &xs, &labels, 8));
    // Logistic regression: d/dw = mean((p - y) x).
    let mut expect = Array1::<f64>::zeros(3);
    for i in 0..8 {
        let p = 1.0 / (1.0 + (-(xs.row(i).dot(&w) + 0.1)).exp());
        expect = expect + (p - labels[i]) * &xs.row(i) / 8.0;
    }
    assert!(g
        .w
        .iter()
        .zip(expect.iter())
        .all(|(a, b)| (a - b).abs() < 1e-12));
    gradcheck(&(w.clone(), 0.1), |(w, c)| {
        manual_batch_backward(w, *c, &xs, &labels, 8, 1.0)
    })
    .unwrap();
    // Zero iterations: the value is the initial state and the gradients are zero.
    let (v0, g0) = manual_batch_backward(&w, 0.1, &xs, &labels, 0, 1.0);
    assert!(v0.is_nan());
    assert_eq!(g0.c, 0.0);
}

/// Nested loops, an inclusive range, and a scalar weight reused in both.
#[differentiable]
fn nested(a: f64, m: &Array2<f64>) -> f64 {
    let mut acc = 0.0;
    let mut x = a;
    for i in 0..m.nrows() {
        for j in 0..=1 {
            acc += m[[i, j]] * x;
            x = (x * a).sin();
        }
        acc *= 0.5;
    }
    acc + x
}

#[test]
fn nested_loops_and_inclusive_ranges() {
    let m = array![[0.5, -1.0, 2.0], [1.5, 0.25, -0.5], [0.3, 0.7, 1.1]];
    let (v, _) = nested_backward(0.8, &m, 1.0);
    assert_eq!(v, nested(0.8, &m));
    gradcheck(&(0.8, m.clone()), |(a, m)| nested_backward(*a, m, 1.0)).unwrap();
}

/// The Huber loss, written with `if` as an expression.
#[differentiable(wrt(pred))]
fn huber(pred: f64, target: f64, delta: f64) -> f64 {
    let r = pred - target;
    if r.abs() <= delta {
        0.5 * r * r
    } else {
        delta * (r.abs() - 0.5 * delta)
    }
}

#[test]
fn huber_loss_on_both_sides_of_the_kink() {
    for (pred, expect) in [(1.3, 0.3), (0.8, -0.2), (3.0, 1.0), (-4.0, -1.0)] {
        let (v, g) = huber_backward(pred, 1.0, 1.0, 1.0);
        assert_eq!(v, huber(pred, 1.0, 1.0));
        assert!(
            (g.pred - expect).abs() < 1e-12,
            "at {pred}: {} vs {expect}",
            g.pred
        );
        gradcheck(&(pred,), |&(p,)| huber_backward(p, 1.0, 1.0, 1.0)).unwrap();
    }
}

/// `if` as a statement assigning variables, `else if`, a branch without
/// `else`, and a branch inside a loop.
#[differentiable]
fn piecewise(x: f64, w: &Array1<f64>) -> f64 {
    let mut a = x * 2.0;
    let mut b = sum(w);
    if x > 0.0 {
        a = a.exp();
    } else if x > -1.0 {
        b *= x;
    } else {
        a = a * a;
        b -= a;
    }
    if b > 1.0 {
        a += 1.0;
    }
    let mut acc = 0.0;
    for i in 0..w.len() {
        let wi = w[i];
        if wi > 0.0 {
            acc += wi * a;
        } else {
            acc -= wi * b * x;
        }
    }
    acc + a * b
}

#[test]
fn branches_as_statements_and_inside_loops() {
    let w = array![0.5, -1.5, 2.0, -0.25];
    for x in [0.7, -0.4, -2.5] {
        let (v, _) = piecewise_backward(x, &w, 1.0);
        assert_eq!(v, piecewise(x, &w));
        gradcheck(&(x, w.clone()), |(x, w)| piecewise_backward(*x, w, 1.0)).unwrap();
    }
}

/// An array-valued `if`.
#[differentiable]
fn choose(a: &Array1<f64>, b: &Array1<f64>, use_a: bool) -> Array1<f64> {
    if use_a {
        relu(a) * 2.0
    } else {
        b * b
    }
}

#[test]
fn array_valued_branch() {
    let a = array![1.0, -2.0, 3.0];
    let b = array![0.5, 0.25, -1.0];
    let up = array![1.0, 2.0, -1.0];
    for use_a in [true, false] {
        let (v, g) = choose_backward(&a, &b, use_a, &up);
        assert_eq!(v, choose(&a, &b, use_a));
        if use_a {
            assert_eq!(g.a, array![2.0, 0.0, -2.0]);
            assert_eq!(g.b, array![0.0, 0.0, 0.0]);
        } else {
            assert_eq!(g.a, array![0.0, 0.0, 0.0]);
            assert_eq!(g.b, array![1.0, 1.0, 2.0]);
        }
        GradCheck::new()
            .upstream(&up)
            .check(&(a.clone(), b.clone()), |(a, b)| {
                choose_backward(a, b, use_a, &up)
            })
            .unwrap();
    }
}

/// A carried value that starts constant and becomes differentiable in the body,
/// a branch assigning a carried value, an inner `let mut`, a call inside the
/// loop, and the carried values used after the loop.
#[differentiable(wrt(w, s))]
fn mixed(w: &Array1<f64>, s: f64, n: usize) -> f64 {
    let mut acc = 0.0;
    let mut scale = 1.0;
    for k in 0..n {
        let mut t = w[k % w.len()] * scale;
        t += s;
        if t > 0.0 {
            acc += square_plus(t, s);
        } else {
            acc -= t;
            scale *= 0.5;
        }
        scale = scale.min(10.0) * s;
    }
    let total = acc * scale;
    total + acc
}

#[differentiable]
fn square_plus(a: f64, b: f64) -> f64 {
    a * a + b
}

#[test]
fn carried_values_branches_and_calls_in_loops() {
    let w = array![0.3, -0.8, 1.2];
    for (s, n) in [(0.9, 5), (-0.4, 4), (1.1, 0), (0.2, 7)] {
        let (v, g) = mixed_backward(&w, s, n, 1.0);
        assert_eq!(v, mixed(&w, s, n));
        assert_eq!(square_plus(1.0, 2.0), 3.0);
        if n == 0 {
            assert_eq!((v, g.s), (0.0, 0.0));
        }
        gradcheck(&(w.clone(), s), |(w, s)| mixed_backward(w, *s, n, 1.0)).unwrap();
    }
}

/// Nested branches, and a loop whose carried state is an array.
#[differentiable]
fn nested_branches(x: &Array1<f64>, a: f64) -> f64 {
    let mut v = x.to_owned();
    for _ in 0..3 {
        v = if a > 0.5 {
            if sum(&v) > 0.0 {
                tanh(&v) * a
            } else {
                v * a
            }
        } else {
            sigmoid(&v) + a
        };
    }
    sum(&(&v * &v))
}

#[test]
fn nested_branches_and_array_state() {
    let x = array![0.5, -1.0, 0.25];
    for a in [0.9, 0.3, -0.7] {
        let (val, _) = nested_branches_backward(&x, a, 1.0);
        assert_eq!(val, nested_branches(&x, a));
        gradcheck(&(x.clone(), a), |(x, a)| {
            nested_branches_backward(x, *a, 1.0)
        })
        .unwrap();
    }
    let y = array![-2.0, -1.0, 0.25];
    gradcheck(&(y.clone(), 0.9), |(x, a)| {
        nested_branches_backward(x, *a, 1.0)
    })
    .unwrap();
}

/// A loop inside a branch arm, a condition on the loop variable, and a call
/// in an arm.
#[differentiable]
fn loop_in_branch(x: f64, w: &Array1<f64>) -> f64 {
    let mut acc = x;
    if x > 0.0 {
        for i in 0..w.len() {
            if i % 2 == 0 {
                acc *= w[i];
            } else {
                acc += square_plus(w[i], x);
            }
        }
    } else {
        acc = square_plus(acc, sum(w));
    }
    acc
}

#[test]
fn loops_inside_branches() {
    let w = array![0.5, -1.5, 2.0];
    for x in [0.8, -0.6] {
        let (v, _) = loop_in_branch_backward(x, &w, 1.0);
        assert_eq!(v, loop_in_branch(x, &w));
        gradcheck(&(x, w.clone()), |(x, w)| {
            loop_in_branch_backward(*x, w, 1.0)
        })
        .unwrap();
    }
}

/// Every product form with a weight captured by the loop, on either side:
/// each step's gradient is added into the weight's accumulator in place
/// (`dot_vjp_*_acc`), and bias adds and activations reuse their operand's
/// buffer. The mean squared error's residual is written over its temporary.
#[differentiable(wrt(m, n, a, c, bias))]
fn every_product_in_a_loop(
    m: &Array2<f64>,
    n: &Array2<f64>,
    a: &Array1<f64>,
    c: &Array1<f64>,
    bias: &Array1<f64>,
    xs: &Array2<f64>,
    target: &Array1<f64>,
) -> f64 {
    let mut total = 0.0;
    let mut s = a.to_owned();
    for t in 0..xs.nrows() {
        let x = xs.row(t);
        // matrix·vector with the matrix captured; vector·matrix with it on the right
        let z = tanh(&(m.dot(&s) + bias));
        let y = x.dot(n) + &z;
        // matrix·matrix with the captured matrix on either side
        let k = n.t().dot(n);
        let p = m.dot(&k);
        let q = n.dot(m);
        total += sum(&(&p * &p)) * 0.01 + sum(&(&q * &q)) * 0.01;
        // vector·vector with the captured vector on either side
        total += c.dot(&y) + y.dot(c) * 0.5;
        total += mse(&(sigmoid(&y) + bias), target);
        s = y;
    }
    total
}

#[test]
fn captured_weights_in_every_product_form() {
    let mut seed = 31;
    let m = random((4, 4), &mut seed);
    let n = random((3, 4), &mut seed);
    let a = random(4, &mut seed);
    let c = random(4, &mut seed);
    let bias = random(4, &mut seed);
    let xs = random((5, 3), &mut seed);
    let target = random(4, &mut seed);
    let (v, _) = every_product_in_a_loop_backward(&m, &n, &a, &c, &bias, &xs, &target, 1.0);
    assert_eq!(
        v,
        every_product_in_a_loop(&m, &n, &a, &c, &bias, &xs, &target)
    );
    gradcheck(
        &(m.clone(), n.clone(), a.clone(), c.clone(), bias.clone()),
        |(m, n, a, c, bias)| every_product_in_a_loop_backward(m, n, a, c, bias, &xs, &target, 1.0),
    )
    .unwrap();
}

/// A carried value's adjoint takes the contributions of `+`, `-` and products
/// in place (`add_vjp_*_acc`, `sub_vjp_*_acc`, `dot_vjp_*_acc` into the
/// carried adjoint), and a broadcast bias captured by the loop is summed into
/// its accumulator.
#[differentiable(wrt(m, bias, s0))]
fn carried_sums(m: &Array2<f64>, bias: &Array1<f64>, s0: &Array2<f64>, n: usize) -> f64 {
    let mut s = s0.to_owned();
    let mut z = 0.0;
    for _ in 0..n {
        s = &s - &(m.dot(&s) * 0.1) + bias;
        s = tanh(&s);
        z = z - sum(&s) * 0.5 + mean(&(&s - bias));
    }
    sum(&s) + z
}

#[test]
fn carried_adjoints_accumulate_in_place() {
    let mut seed = 77;
    let m = random((4, 4), &mut seed);
    let bias = random(3, &mut seed);
    let s0 = random((4, 3), &mut seed);
    for n in [0, 1, 4] {
        let (v, _) = carried_sums_backward(&m, &bias, &s0, n, 1.0);
        assert_eq!(v, carried_sums(&m, &bias, &s0, n));
        gradcheck(&(m.clone(), bias.clone(), s0.clone()), |(m, bias, s0)| {
            carried_sums_backward(m, bias, s0, n, 1.0)
        })
        .unwrap();
    }
}

/// A weight that two matrix-vector products read in every step: the reverse
/// sweep keeps both outer products of each step (`dot_vjp_lhs_defer`) and
/// adds them after the loop with one matrix product (`add_outers`). The
/// same with no step at all leaves the gradient zero.
#[differentiable(wrt(w, h0))]
fn weight_read_twice_per_step(w: &Array2<f64>, h0: &Array1<f64>, xs: &Array2<f64>) -> f64 {
    let mut h = h0.to_owned();
    for t in 0..xs.nrows() {
        let a = tanh(&(w.dot(&h) + xs.row(t)));
        h = sigmoid(&w.dot(&a)) - &h * 0.5;
    }
    sum(&h)
}

/// The same over two steps, unrolled.
#[differentiable(wrt(w, h0))]
fn weight_read_twice_unrolled(w: &Array2<f64>, h0: &Array1<f64>, xs: &Array2<f64>) -> f64 {
    let a1 = tanh(&(w.dot(h0) + xs.row(0)));
    let h1 = sigmoid(&w.dot(&a1)) - h0 * 0.5;
    let a2 = tanh(&(w.dot(&h1) + xs.row(1)));
    let h2 = sigmoid(&w.dot(&a2)) - &h1 * 0.5;
    sum(&h2)
}

#[test]
fn deferred_outer_products_of_a_weight_read_twice() {
    let mut seed = 91;
    let w = random((5, 5), &mut seed);
    let h0 = random(5, &mut seed);
    for steps in [0, 1, 2, 7] {
        let xs = random((steps, 5), &mut seed);
        let (v, g) = weight_read_twice_per_step_backward(&w, &h0, &xs, 1.0);
        assert_eq!(v, weight_read_twice_per_step(&w, &h0, &xs));
        if steps == 0 {
            assert!(g.w.iter().all(|&x| x == 0.0));
            assert!(g.h0.iter().all(|&x| x == 1.0));
        }
        if steps == 2 {
            let (vu, gu) = weight_read_twice_unrolled_backward(&w, &h0, &xs, 1.0);
            assert_eq!(v, vu);
            for (x, y) in g.w.iter().zip(&gu.w).chain(g.h0.iter().zip(&gu.h0)) {
                assert!((x - y).abs() <= 1e-14, "{x} vs {y}");
            }
        }
        gradcheck(&(w.clone(), h0.clone()), |(w, h0)| {
            weight_read_twice_per_step_backward(w, h0, &xs, 1.0)
        })
        .unwrap();
    }
}

/// A tuple-valued `if` bound by a tuple pattern, swapping the names it
/// binds in one arm.
#[differentiable]
fn tuple_if_swap(a: f64, b: f64) -> f64 {
    let (a, b) = if a > b { (b, a) } else { (a * 2.0, b) };
    a * b.sin() + a
}

/// Three components of two kinds, an `else if`, locals in an arm.
#[differentiable]
fn tuple_if_three(x: &Array1<f64>, c: f64) -> f64 {
    let (y0, y1, y2) = if c > 0.0 {
        let s = x * c;
        (s.sum(), x.dot(x), tanh(&s))
    } else if c > -1.0 {
        (c, x.sum(), x * 2.0)
    } else {
        (0.5, c * c, x.to_owned())
    };
    y0 * y1 + y2.sum()
}

/// A tuple-valued `match`, a component bound to `_`.
#[differentiable]
fn tuple_match(x: &Array1<f64>, k: usize) -> f64 {
    let (p, _, q) = match k % 3 {
        0 => (x.sum(), 1.0, x * 3.0),
        1 => {
            let t = x * x;
            (t.sum(), 2.0, t)
        }
        _ => (1.0, 3.0, x.to_owned()),
    };
    p * q.sum()
}

#[test]
fn tuple_valued_if_and_match() {
    // Swapped: a' = b, b' = a, value b sin(a) + b.
    let (v, g) = tuple_if_swap_backward(1.0, 0.5, 1.0);
    assert_eq!(v, tuple_if_swap(1.0, 0.5));
    assert_eq!((g.a, g.b), (0.5 * 1.0_f64.cos(), 1.0_f64.sin() + 1.0));
    // Not swapped: 2a sin(b) + 2a.
    let (v, g) = tuple_if_swap_backward(0.25, 2.0, 1.0);
    assert_eq!(v, tuple_if_swap(0.25, 2.0));
    assert_eq!((g.a, g.b), (2.0 * 2.0_f64.sin() + 2.0, 0.5 * 2.0_f64.cos()));
    for (a, b) in [(1.0, 0.5), (0.25, 2.0)] {
        gradcheck(&(a, b), |&(a, b)| tuple_if_swap_backward(a, b, 1.0)).unwrap();
    }

    let x = array![0.5, -1.0, 2.0];
    // c = -0.5: c Σx + 2 Σx: ∂x = c + 2, ∂c = Σx.
    let (v, g) = tuple_if_three_backward(&x, -0.5, 1.0);
    assert_eq!(v, tuple_if_three(&x, -0.5));
    assert_eq!((g.x.clone(), g.c), (Array1::from_elem(3, 1.5), 1.5));
    // c = -2: 0.5 c² + Σx: ∂x = 1, ∂c = c.
    let (v, g) = tuple_if_three_backward(&x, -2.0, 1.0);
    assert_eq!(v, tuple_if_three(&x, -2.0));
    assert_eq!((g.x.clone(), g.c), (Array1::ones(3), -2.0));
    for c in [1.5, -0.5, -2.0] {
        let (v, _) = tuple_if_three_backward(&x, c, 1.0);
        assert_eq!(v, tuple_if_three(&x, c));
        gradcheck(&(x.clone(), c), |(x, c)| {
            tuple_if_three_backward(x, *c, 1.0)
        })
        .unwrap();
    }

    // k = 0: 3 (Σx)²: ∂x = 6 Σx; k = 1: (Σx²)²: ∂x = 4 Σx² x; k = 2: Σx.
    let s: f64 = x.sum();
    let s2: f64 = x.dot(&x);
    let exact = [
        Array1::from_elem(3, 6.0 * s),
        &x * (4.0 * s2),
        Array1::ones(3),
    ];
    for (k, exact) in exact.iter().enumerate() {
        let (v, g) = tuple_match_backward(&x, k, 1.0);
        assert_eq!(v, tuple_match(&x, k));
        assert_eq!(&g.x, exact, "k = {k}");
        gradcheck(&(x.clone(),), |(x,)| tuple_match_backward(x, k, 1.0)).unwrap();
    }
}
