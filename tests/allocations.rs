//! What the generated code allocates, counted by a global allocator: the
//! behaviour that the loop plans promise (a recurrent state kept as rows of
//! one buffer, the next state computed into a spare buffer, the weights'
//! outer products kept in one buffer), checked by its effect instead of by
//! the text of the expansion.

use backprop::prelude::*;
use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

// The Elman network of the benchmarks (workload (e)).
use backprop_testkit::networks::{rnn_backward, rnn_of_calls_backward};
use backprop_testkit::{random, rosenbrock_gradient};

/// [`System`], counting the allocations of the thread that asks
/// ([`allocations`]); the test harness's other threads do not disturb it.
struct Counting;

thread_local! {
    // Const-initialized and without a destructor, so the allocator can read
    // it without allocating.
    static COUNT: Cell<usize> = const { Cell::new(0) };
}

// SAFETY: every call is forwarded unchanged to `System`; a counter is added.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let _ = COUNT.try_with(|n| n.set(n.get() + 1));
        // SAFETY: the caller's contract is `System`'s.
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: the caller's contract is `System`'s.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let _ = COUNT.try_with(|n| n.set(n.get() + 1));
        // SAFETY: the caller's contract is `System`'s.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// How many times `f` calls the allocator on this thread.
fn allocations<R>(f: impl FnOnce() -> R) -> usize {
    let before = COUNT.with(Cell::get);
    let r = f();
    let after = COUNT.with(Cell::get);
    drop(r);
    after - before
}

fn rnn_allocations(steps: usize) -> usize {
    let mut seed = 7;
    let (w, u) = (random((16, 16), &mut seed), random((16, 3), &mut seed));
    let (b, v) = (random(16, &mut seed), random(16, &mut seed));
    let (h0, xs) = (random(16, &mut seed), random((steps, 3), &mut seed));
    let ys = random(steps, &mut seed);
    let n = allocations(|| rnn_backward(&w, &u, &b, &v, &h0, &xs, &ys, 1.0));
    gradcheck(&(w, u, b, v), |(w, u, b, v)| {
        rnn_backward(w, u, b, v, &h0, &xs, &ys, 1.0)
    })
    .unwrap();
    n
}

#[test]
fn a_recurrence_allocates_the_same_for_any_number_of_steps() {
    // Its states are rows of one buffer, each new state is computed into the
    // buffer of the one before, the weights' outer products are rows of one
    // buffer: nothing is allocated per step. The ten allocations are those
    // of a hand-written backward (`backprop-bench`'s workload (e)): the
    // state's two buffers, the rows, the step records (each step's error
    // against `ys[t]` and its square are scalars in them), the outer
    // products, and the gradients.
    let counts: Vec<usize> = [1, 2, 5, 20, 60].into_iter().map(rnn_allocations).collect();
    assert!(counts.iter().all(|&n| n == counts[0]), "{counts:?}");
    assert_eq!(counts[0], 10, "{counts:?}");
}

#[test]
fn a_state_read_by_a_call_is_not_copied() {
    // Each step allocates what the call and its rule allocate, and its
    // input row: a state handed back is neither cloned nor copied into rows,
    // so one more step costs the same as the step before.
    let run = |steps: usize| {
        let mut seed = 11;
        let (w, h0) = (random((4, 4), &mut seed), random(4, &mut seed));
        let xs = random((steps, 4), &mut seed);
        let n = allocations(|| rnn_of_calls_backward(&w, &h0, &xs, 1.0));
        gradcheck(&(w, h0), |(w, h0)| rnn_of_calls_backward(w, h0, &xs, 1.0)).unwrap();
        n
    };
    let counts: Vec<usize> = (2..6).map(run).collect();
    let per_step: Vec<usize> = counts.windows(2).map(|c| c[1] - c[0]).collect();
    assert!(per_step.iter().all(|&d| d == per_step[0]), "{counts:?}");
    // Per step: the forward's copy of the input row and its product
    // `w·h` (the sum and `tanh` write over it); the reverse's gradient of
    // `h`'s square, and the call's `_vjp`, which runs the call's forward
    // again (its product) and its rules (the outer product of `∂w`, the
    // gradient struct's fields).
    assert_eq!(per_step[0], 8, "{counts:?}");
}

/// The textbook 2-2-1 network with its nine weights in one `[f64; 9]`,
/// read by element: scalar code, its gradient an `[f64; 9]` on the stack.
#[differentiable(hvp)]
fn net9(p: [f64; 9], x1: f64, x2: f64) -> f64 {
    let h1 = (p[0] * x1 + p[1] * x2 + p[2]).tanh();
    let h2 = (p[3] * x1 + p[4] * x2 + p[5]).tanh();
    let y = p[6] * h1 + p[7] * h2 + p[8];
    y * y
}

/// The same with one weight unread: its gradient is zero.
#[differentiable]
fn net9_unread(p: &[f64; 9], x1: f64) -> f64 {
    (p[0] * x1).tanh() * p[8]
}

#[test]
fn a_fixed_size_array_read_by_element_allocates_nothing() {
    let p = [0.1, -0.2, 0.3, 0.4, -0.5, 0.6, 0.7, -0.8, 0.9];
    let n = allocations(|| net9_backward(p, 0.3, -0.7, 1.0));
    assert_eq!(n, 0, "allocations of net9_backward");
    let n = allocations(|| net9_unread_backward(&p, 0.3, 1.0));
    assert_eq!(n, 0, "allocations of net9_unread_backward");
    let (v, g) = net9_backward(p, 0.3, -0.7, 1.0);
    assert_eq!(v, net9(p, 0.3, -0.7));
    // By hand.
    let (x1, x2) = (0.3, -0.7);
    let h1 = (p[0] * x1 + p[1] * x2 + p[2]).tanh();
    let h2 = (p[3] * x1 + p[4] * x2 + p[5]).tanh();
    let y = p[6] * h1 + p[7] * h2 + p[8];
    let (dh1, dh2) = (
        2.0 * y * p[6] * (1.0 - h1 * h1),
        2.0 * y * p[7] * (1.0 - h2 * h2),
    );
    let by_hand = [
        dh1 * x1,
        dh1 * x2,
        dh1,
        dh2 * x1,
        dh2 * x2,
        dh2,
        2.0 * y * h1,
        2.0 * y * h2,
        2.0 * y,
    ];
    for (a, b) in g.p.iter().zip(by_hand) {
        assert!((a - b).abs() < 1e-14, "{a} against {b}");
    }
    assert!((g.x1 - (dh1 * p[0] + dh2 * p[3])).abs() < 1e-14);
    gradcheck(&(p, x1, x2), |&(p, x1, x2)| net9_backward(p, x1, x2, 1.0)).unwrap();
    let dir = (
        [0.5, -0.25, 1.0, 0.0, 0.75, -1.0, 0.5, 0.25, -0.5],
        0.3,
        -0.2,
    );
    jvpcheck(
        &(p, x1, x2),
        &dir,
        |&(p, x1, x2)| net9_backward(p, x1, x2, 1.0),
        |&(p, x1, x2), &(tp, t1, t2)| net9_jvp(p, x1, x2, tp, t1, t2),
    )
    .unwrap();
    hvpcheck(&(p, x1, x2), &dir, |&(p, x1, x2), &(tp, t1, t2)| {
        net9_hvp(p, x1, x2, tp, t1, t2)
    })
    .unwrap();
    let (v, g) = net9_unread_backward(&p, 0.3, 1.0);
    assert_eq!(v, net9_unread(&p, 0.3));
    assert_eq!(g.p[1..8], [0.0; 7]);
    gradcheck(&(p, 0.3), |(p, x1)| net9_unread_backward(p, *x1, 1.0)).unwrap();
}

/// Rosenbrock's function over a slice: a loop of scalar steps.
#[differentiable]
fn rosenbrock(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..x.len() - 1 {
        s += 100.0 * (x[i + 1] - x[i] * x[i]).powi(2) + (1.0 - x[i]).powi(2);
    }
    s
}

#[test]
fn a_loop_over_a_slice_allocates_only_its_gradient() {
    for n in [2, 10, 1000] {
        let x: Vec<f64> = (0..n).map(|i| (i as f64 * 0.37).sin()).collect();
        // The reverse reads each element again from the slice: the loop
        // keeps no record, and the gradient's buffer becomes its `Vec`.
        let count = allocations(|| rosenbrock_backward(&x, 1.0));
        assert_eq!(count, 1, "allocations of rosenbrock_backward at n = {n}");
        let (v, g) = rosenbrock_backward(&x, 1.0);
        assert_eq!(v, rosenbrock(&x));
        for (a, b) in g.x.iter().zip(rosenbrock_gradient(&x)) {
            assert!((a - b).abs() <= 1e-12 * b.abs().max(1.0), "{a} against {b}");
        }
        if n <= 10 {
            // Central differences of a sum of 1,000 terms lose the digits
            // a check needs; the values by hand above stand. Forward and
            // second order: `tests/plain_data.rs`.
            gradcheck(&(x.clone(),), |(x,)| rosenbrock_backward(x, 1.0)).unwrap();
        }
    }
}

/// A fixed-size array read by element in loops (over `0..x.len() - 1`,
/// nested, the inner one's bounds read from the outer's variable), and in
/// a branch: scalar code, its gradient on the stack, and no loop keeps a
/// record (each element is read again from the array).
#[differentiable(hvp)]
fn chain4(x: [f64; 4], c: f64) -> f64 {
    let mut s = 0.0;
    for i in 0..x.len() - 1 {
        s += x[i] * x[i + 1] * c;
    }
    for k in 0..2 {
        s += x[k].sin();
    }
    for i in 0..2 {
        for j in i..x.len() {
            s += x[i] * x[j];
        }
    }
    if s > 0.0 {
        s * x[0]
    } else {
        s - x[3]
    }
}

#[test]
fn a_fixed_size_array_read_in_loops_allocates_nothing() {
    for x in [[0.3, -0.5, 0.8, 1.1], [-0.9, -0.5, 0.2, -1.0]] {
        let c = 0.7;
        let n = allocations(|| chain4_backward(x, c, 1.0));
        assert_eq!(n, 0, "allocations of chain4_backward at {x:?}");
        let (v, g) = chain4_backward(x, c, 1.0);
        assert_eq!(v, chain4(x, c));
        // By hand: `s` and its gradient, then the branch.
        let mut s = 0.0;
        let mut ds = [0.0; 4];
        for i in 0..3 {
            s += x[i] * x[i + 1] * c;
            ds[i] += x[i + 1] * c;
            ds[i + 1] += x[i] * c;
        }
        for k in 0..2 {
            s += x[k].sin();
            ds[k] += x[k].cos();
        }
        for i in 0..2 {
            for j in i..4 {
                s += x[i] * x[j];
                ds[i] += x[j];
                ds[j] += x[i];
            }
        }
        let dsc = (x[0] * x[1] + x[1] * x[2] + x[2] * x[3]) * if s > 0.0 { x[0] } else { 1.0 };
        let by_hand = if s > 0.0 {
            let mut d = ds.map(|d| d * x[0]);
            d[0] += s;
            d
        } else {
            let mut d = ds;
            d[3] -= 1.0;
            d
        };
        for (a, b) in g.x.iter().zip(by_hand) {
            assert!((a - b).abs() < 1e-12, "{a} against {b}");
        }
        assert!((g.c - dsc).abs() < 1e-12, "{} against {dsc}", g.c);
        gradcheck(&(x, c), |&(x, c)| chain4_backward(x, c, 1.0)).unwrap();
        let dir = ([0.5, 0.1, -0.3, 0.2], 0.4);
        jvpcheck(
            &(x, c),
            &dir,
            |&(x, c)| chain4_backward(x, c, 1.0),
            |&(x, c), &(tx, tc)| chain4_jvp(x, c, tx, tc),
        )
        .unwrap();
        hvpcheck(&(x, c), &dir, |&(x, c), &(tx, tc)| chain4_hvp(x, c, tx, tc)).unwrap();
    }
}

/// A fixed-size array walked as Rust walks it: sums of `iter().map(..)`
/// and of `iter().zip(..)` (the loops they are), a `for` over `&x`, and a
/// `while` loop whose condition reads the sum. Scalar code: nothing on
/// the heap.
#[differentiable(hvp)]
fn walked4(x: [f64; 4], y: [f64; 4], c: f64) -> f64 {
    let mut s = x.iter().map(|v| v * v).sum::<f64>();
    s += x
        .iter()
        .zip(&y)
        .map(|(a, b)| (a * b + c).tanh())
        .sum::<f64>();
    for &v in &x {
        s += c * v;
    }
    let mut i = 0;
    while i < x.len() && s < 100.0 {
        s += (c * x[i]).sin() * y[i];
        i += 1;
    }
    s
}

#[test]
fn a_fixed_size_array_walked_by_iterators_and_while_allocates_nothing() {
    let y = [0.5, -1.5, 0.25, 2.0];
    for x in [[0.3, -0.5, 0.8, 1.1], [-0.9, -0.5, 0.2, -1.0]] {
        let c = 0.7;
        let n = allocations(|| walked4_backward(x, y, c, 1.0));
        assert_eq!(n, 0, "allocations of walked4_backward at {x:?}");
        let (v, g) = walked4_backward(x, y, c, 1.0);
        assert_eq!(v, walked4(x, y, c));
        // By hand (the sum stays under 100).
        let (mut dx, mut dy, mut dc) = ([0.0; 4], [0.0; 4], 0.0);
        for i in 0..4 {
            let t = 1.0 - (x[i] * y[i] + c).tanh().powi(2);
            dx[i] += 2.0 * x[i] + t * y[i] + c + (c * x[i]).cos() * c * y[i];
            dy[i] += t * x[i] + (c * x[i]).sin();
            dc += t + x[i] + (c * x[i]).cos() * x[i] * y[i];
        }
        for (a, b) in g.x.iter().chain(&g.y).zip(dx.iter().chain(&dy)) {
            assert!((a - b).abs() < 1e-12, "{a} against {b}");
        }
        assert!((g.c - dc).abs() < 1e-12, "{} against {dc}", g.c);
        gradcheck(&(x, y, c), |&(x, y, c)| walked4_backward(x, y, c, 1.0)).unwrap();
        let dir = ([0.5, 0.1, -0.3, 0.2], [0.1, 0.2, 0.3, -0.4], 0.4);
        jvpcheck(
            &(x, y, c),
            &dir,
            |&(x, y, c)| walked4_backward(x, y, c, 1.0),
            |&(x, y, c), &(tx, ty, tc)| walked4_jvp(x, y, c, tx, ty, tc),
        )
        .unwrap();
        hvpcheck(&(x, y, c), &dir, |&(x, y, c), &(tx, ty, tc)| {
            walked4_hvp(x, y, c, tx, ty, tc)
        })
        .unwrap();
    }
}

/// A nested loop that keeps records (its recurrence reads `tanh`'s value
/// back): every run of the inner loop pushes into one vector of the whole
/// function, so the count grows with the logarithm of the records (the
/// vector doubling), not with the number of runs of the inner loop.
#[differentiable]
fn damped(x: &[f64], k: f64) -> f64 {
    let mut s = 1.0;
    for i in 0..x.len() {
        for j in 0..i {
            s = (s * k + x[i] * x[j]).tanh();
        }
    }
    s
}

#[test]
fn nested_records_share_one_buffer() {
    let counts: Vec<usize> = [20, 40, 80]
        .iter()
        .map(|&n| {
            let x: Vec<f64> = (0..n).map(|i| (i as f64 * 0.3).sin()).collect();
            let k = 0.7;
            let count = allocations(|| damped_backward(&x, k, 1.0));
            let (v, _) = damped_backward(&x, k, 1.0);
            assert_eq!(v, damped(&x, k));
            if n == 20 {
                gradcheck(&(x.clone(), k), |(x, k)| damped_backward(x, *k, 1.0)).unwrap();
            }
            count
        })
        .collect();
    // 80 runs of the inner loop, 3,160 records: a handful of allocations.
    assert!(counts[2] <= 20, "allocations {counts:?}");
    assert!(counts[2] - counts[0] <= 4, "allocations {counts:?}");
}

/// Least squares as Rust users write it, over two slices of constant data:
/// the iterator's sum is a loop that reads each element by index, so the
/// backward allocates nothing (it collected `ys` into a `Vec` before).
#[differentiable(wrt(w, b))]
fn linear_fit(w: f64, b: f64, xs: &[f64], ys: &[f64]) -> f64 {
    xs.iter()
        .zip(ys)
        .map(|(x, y)| (w * x + b - y).powi(2))
        .sum::<f64>()
        / xs.len() as f64
}

#[test]
fn an_iterator_sum_over_constant_slices_allocates_nothing() {
    let xs: Vec<f64> = (0..50).map(|i| i as f64 * 0.1).collect();
    let ys: Vec<f64> = xs
        .iter()
        .map(|x| 2.0 * x + 0.5 + (x * 7.0).sin() * 0.1)
        .collect();
    let n = allocations(|| linear_fit_backward(1.5, 0.2, &xs, &ys, 1.0));
    assert_eq!(n, 0);
    let (v, g) = linear_fit_backward(1.5, 0.2, &xs, &ys, 1.0);
    assert_eq!(v, linear_fit(1.5, 0.2, &xs, &ys));
    let r: Vec<f64> = xs.iter().zip(&ys).map(|(x, y)| 1.5 * x + 0.2 - y).collect();
    let dw: f64 = r.iter().zip(&xs).map(|(r, x)| 2.0 * r * x).sum::<f64>() / 50.0;
    assert!((g.w - dw).abs() < 1e-12);
    gradcheck(&(1.5, 0.2), |&(w, b)| {
        linear_fit_backward(w, b, &xs, &ys, 1.0)
    })
    .unwrap();
}

/// A squared reprojection error over nalgebra values: the rotation as a
/// matrix, the point, the translation and the focal length.
#[cfg(feature = "nalgebra")]
#[differentiable(wrt(r, t, p, f))]
fn reprojection(
    r: &backprop::nalgebra::Matrix3<f64>,
    t: &backprop::nalgebra::Vector3<f64>,
    p: &backprop::nalgebra::Point3<f64>,
    f: f64,
    observed: &backprop::nalgebra::Vector2<f64>,
) -> f64 {
    let q = r * p.coords + t;
    let uv = backprop::nalgebra::Vector2::new(q.x / q.z, q.y / q.z) * f;
    (uv - observed).norm_squared()
}

#[cfg(feature = "nalgebra")]
#[test]
fn a_function_of_nalgebra_values_allocates_nothing() {
    use backprop::nalgebra::{Matrix3, Point3, Vector2, Vector3};
    let r = Matrix3::new(0.9, -0.1, 0.2, 0.1, 0.95, -0.05, -0.2, 0.1, 0.97);
    let (t, p) = (Vector3::new(0.1, -0.2, 3.0), Point3::new(0.5, 0.3, 1.0));
    let observed = Vector2::new(0.2, 0.05);
    let n = allocations(|| reprojection_backward(&r, &t, &p, 1.2, &observed, 1.0));
    assert_eq!(n, 0, "allocations of reprojection_backward");
    let (v, _) = reprojection_backward(&r, &t, &p, 1.2, &observed, 1.0);
    assert_eq!(
        v.to_bits(),
        reprojection(&r, &t, &p, 1.2, &observed).to_bits()
    );
    gradcheck(&(r, t, p, 1.2), |(r, t, p, f)| {
        reprojection_backward(r, t, p, *f, &observed, 1.0)
    })
    .unwrap();
}

/// A projection whose value is a nalgebra vector, and a cross product
/// whose value is an `[f64; 3]`: the value and its upstream gradient are
/// on the stack.
#[cfg(feature = "nalgebra")]
#[differentiable(jvp)]
fn projected(p: &backprop::nalgebra::Vector3<f64>, f: f64) -> backprop::nalgebra::Vector2<f64> {
    backprop::nalgebra::Vector2::new(p.x / p.z, p.y / p.z) * f
}

#[differentiable(jvp)]
fn crossed(a: [f64; 3], b: &[f64; 3]) -> [f64; 3] {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}

#[test]
fn a_fixed_size_value_allocates_nothing() {
    let (a, b) = ([0.5, -1.0, 2.0], [1.5, 0.25, -0.75]);
    let d = [1.0, -0.5, 0.25];
    let n = allocations(|| crossed_backward(a, &b, &d));
    assert_eq!(n, 0, "allocations of crossed_backward");
    let (v, g) = crossed_backward(a, &b, &d);
    assert_eq!(v, crossed(a, &b));
    // d · (a × b) = a · (b × d) = b · (d × a).
    let bxd = crossed(b, &d);
    assert_eq!(
        g.a.map(|x| (x * 1e12).round()),
        bxd.map(|x| (x * 1e12).round())
    );
    GradCheck::new()
        .upstream(&d)
        .check(&(a, b), |(a, b)| crossed_backward(*a, b, &d))
        .unwrap();
    #[cfg(feature = "nalgebra")]
    {
        use backprop::nalgebra::{Vector2, Vector3};
        let (p, up) = (Vector3::new(0.4, -0.2, 2.5), Vector2::new(1.0, -0.5));
        let n = allocations(|| projected_backward(&p, 1.5, &up));
        assert_eq!(n, 0, "allocations of projected_backward");
        let (v, _) = projected_backward(&p, 1.5, &up);
        assert_eq!(v, projected(&p, 1.5));
        let check = GradCheck::new().upstream(&up);
        check
            .check(&(p, 1.5), |(p, f)| projected_backward(p, *f, &up))
            .unwrap();
        check
            .check_jvp(
                &(p, 1.5),
                &(Vector3::new(0.1, 0.3, -0.2), 0.5),
                |(p, f)| projected_backward(p, *f, &up),
                |(p, f), (tp, tf)| projected_jvp(p, *f, tp, *tf),
            )
            .unwrap();
    }
}
