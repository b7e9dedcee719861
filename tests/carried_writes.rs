//! An array carried across an outer loop, written in one inner loop and
//! read in a later sibling inner loop (or inside a branch arm). The reads'
//! gradient is a contribution to the inner loop's result, which the outer
//! loop's carried adjoint seeds too; both must reach the writes. (The reads'
//! gradient was dropped once: the inner loop named its contribution before
//! the region was seeded, took the adjoint's own name, and was shadowed.)
//! Each function is checked against the original's value bit for bit, by
//! central differences and by its closed-form gradient.

use backprop::prelude::*;

/// The reported shape: elements written, then read in a sibling loop.
#[differentiable(wrt(w))]
fn write_then_read(w: &Array1<f64>, x: &Array2<f64>) -> f64 {
    let b = w.len();
    let mut input = Array1::<f64>::zeros(b);
    let mut total = 0.0;
    for t in 0..x.nrows() {
        for j in 0..b {
            input[j] = x[[t, j]] * w[j];
        }
        for j in 0..b {
            total += input[j] * input[j];
        }
    }
    total
}

fn weights() -> Array1<f64> {
    array![0.5, -1.0, 2.0]
}

fn inputs() -> Array2<f64> {
    array![[1.0, 2.0, 3.0], [-0.5, -0.5, 0.25], [2.0, 0.5, -1.0]]
}

/// `Σ_t Σ_j (x_tj w_j)²`: `∂w_j = 2 w_j Σ_t x_tj²`.
fn squares_exact(w: &Array1<f64>, x: &Array2<f64>) -> Array1<f64> {
    Array1::from_shape_fn(w.len(), |j| {
        2.0 * w[j] * x.column(j).iter().map(|v| v * v).sum::<f64>()
    })
}

/// Checks `$f` on `weights()` and `inputs()`: its value against the
/// original's bit for bit, its gradient against `$exact(w, x)` exactly and
/// by central differences.
macro_rules! check {
    ($f:ident, $backward:ident, $exact:expr) => {{
        let (w, x) = (weights(), inputs());
        let (v, g) = $backward(&w, &x, 1.0);
        assert_eq!(v, $f(&w, &x));
        let exact: fn(&Array1<f64>, &Array2<f64>) -> Array1<f64> = $exact;
        assert_eq!(g.w, exact(&w, &x));
        gradcheck(&(w.clone(),), |(w,)| $backward(w, &x, 1.0)).unwrap();
    }};
}

#[test]
fn elements_written_then_read_in_a_sibling_loop() {
    check!(write_then_read, write_then_read_backward, squares_exact);
    let (w, x) = (weights(), inputs());
    assert_eq!(
        squares_exact(&w, &x),
        array![2.0 * 0.5 * 5.25, -2.0 * 4.5, 4.0 * 10.0625]
    );
}

/// The same under a `while` outer loop.
#[differentiable(wrt(w))]
fn write_then_read_while(w: &Array1<f64>, x: &Array2<f64>) -> f64 {
    let b = w.len();
    let mut input = Array1::<f64>::zeros(b);
    let mut total = 0.0;
    let mut t = 0;
    while t < x.nrows() {
        for j in 0..b {
            input[j] = x[[t, j]] * w[j];
        }
        for j in 0..b {
            total += input[j] * input[j];
        }
        t += 1;
    }
    total
}

#[test]
fn a_while_outer_loop() {
    check!(
        write_then_read_while,
        write_then_read_while_backward,
        squares_exact
    );
}

/// The same two levels down: the carried array crosses two outer loops.
#[differentiable(wrt(w))]
fn write_then_read_twice_nested(w: &Array1<f64>, x: &Array2<f64>, epochs: usize) -> f64 {
    let b = w.len();
    let mut input = Array1::<f64>::zeros(b);
    let mut total = 0.0;
    for _ in 0..epochs {
        for t in 0..x.nrows() {
            for j in 0..b {
                input[j] = x[[t, j]] * w[j];
            }
            for j in 0..b {
                total += input[j] * input[j];
            }
        }
    }
    total
}

#[test]
fn two_outer_loops() {
    let (w, x) = (weights(), inputs());
    let (v, g) = write_then_read_twice_nested_backward(&w, &x, 3, 1.0);
    assert_eq!(v, write_then_read_twice_nested(&w, &x, 3));
    assert_eq!(g.w, squares_exact(&w, &x) * 3.0);
    gradcheck(&(w.clone(),), |(w,)| {
        write_then_read_twice_nested_backward(w, &x, 3, 1.0)
    })
    .unwrap();
}

/// Four sibling loops: a write, a read, a write that reads the old value
/// (`*=`),
/// another read; the last value is read after the loops.
#[differentiable(wrt(w))]
fn four_siblings(w: &Array1<f64>, x: &Array2<f64>) -> f64 {
    let b = w.len();
    let mut a = Array1::<f64>::zeros(b);
    let mut total = 0.0;
    for t in 0..x.nrows() {
        for j in 0..b {
            a[j] = x[[t, j]] * w[j];
        }
        for j in 0..b {
            total += a[j] * w[j];
        }
        for j in 0..b {
            a[j] *= 2.0;
        }
        for j in 0..b {
            total += a[j];
        }
    }
    total + a.sum()
}

#[test]
fn four_sibling_loops() {
    // Σ_t Σ_j (x_tj w_j² + 2 x_tj w_j) + Σ_j 2 x_Tj w_j.
    check!(four_siblings, four_siblings_backward, |w, x| {
        let last = x.nrows() - 1;
        Array1::from_shape_fn(3, |j| {
            let col: f64 = x.column(j).sum();
            2.0 * w[j] * col + 2.0 * col + 2.0 * x[[last, j]]
        })
    });
}

/// Reads before writes: each iteration reads the elements the iteration
/// before wrote, through the outer loop's carried adjoint.
#[differentiable(wrt(w))]
fn read_then_write(w: &Array1<f64>, x: &Array2<f64>) -> f64 {
    let b = w.len();
    let mut s = Array1::<f64>::zeros(b);
    let mut total = 0.0;
    for t in 0..x.nrows() {
        for j in 0..b {
            total += s[j] * x[[t, j]];
        }
        for j in 0..b {
            s[j] = w[j] * x[[t, j]];
        }
    }
    total
}

#[test]
fn reads_before_writes() {
    // Σ_{t≥1} Σ_j w_j x_{t-1,j} x_tj.
    check!(read_then_write, read_then_write_backward, |_, x| {
        Array1::from_shape_fn(3, |j| x[[0, j]] * x[[1, j]] + x[[1, j]] * x[[2, j]])
    });
}

/// Rows instead of elements: a carried matrix's rows assigned in one loop
/// and read by a product in the next.
#[differentiable(wrt(w))]
fn rows_written_then_read(w: &Array1<f64>, x: &Array2<f64>) -> f64 {
    let mut h = Array2::<f64>::zeros((2, w.len()));
    let mut total = 0.0;
    for t in 0..x.nrows() {
        for i in 0..2 {
            h.row_mut(i).assign(&(&x.row(t) * w * (i as f64 + 1.0)));
        }
        for i in 0..2 {
            total += h.row(i).dot(w);
        }
    }
    total
}

#[test]
fn rows_instead_of_elements() {
    let (w, x) = (weights(), inputs());
    let (v, g) = rows_written_then_read_backward(&w, &x, 1.0);
    assert_eq!(v, rows_written_then_read(&w, &x));
    // Σ_t Σ_i (i+1) Σ_j x_tj w_j²: ∂w_j = 6 w_j Σ_t x_tj.
    let exact = Array1::from_shape_fn(3, |j| 6.0 * w[j] * x.column(j).sum());
    for (a, e) in g.w.iter().zip(&exact) {
        assert!((a - e).abs() <= 1e-14 * e.abs(), "{a} {e}");
    }
    gradcheck(&(w.clone(),), |(w,)| {
        rows_written_then_read_backward(w, &x, 1.0)
    })
    .unwrap();
}

/// A branch in the outer loop: one arm writes and reads, the other reads
/// what an earlier iteration wrote.
#[differentiable(wrt(w))]
fn branch_around_the_loops(w: &Array1<f64>, x: &Array2<f64>) -> f64 {
    let b = w.len();
    let mut input = Array1::<f64>::zeros(b);
    let mut total = 0.0;
    for t in 0..x.nrows() {
        if x[[t, 0]] > 0.0 {
            for j in 0..b {
                input[j] = x[[t, j]] * w[j];
            }
            for j in 0..b {
                total += input[j] * input[j];
            }
        } else {
            for j in 0..b {
                total += input[j] * w[j];
            }
        }
    }
    total
}

#[test]
fn a_branch_around_the_inner_loops() {
    // Rows 0 and 2 write and read, row 1 reads row 0's values:
    // Σ_j (x_0j w_j)² + x_0j w_j² + (x_2j w_j)².
    check!(
        branch_around_the_loops,
        branch_around_the_loops_backward,
        |w, x| {
            Array1::from_shape_fn(3, |j| {
                let (a, c) = (x[[0, j]], x[[2, j]]);
                2.0 * w[j] * a * a + 2.0 * a * w[j] + 2.0 * w[j] * c * c
            })
        }
    );
}

/// A branch around the writes alone: the odd iterations read what the
/// iteration before wrote.
#[differentiable(wrt(w))]
fn branch_around_the_writes(w: &Array1<f64>, x: &Array2<f64>) -> f64 {
    let b = w.len();
    let mut input = Array1::<f64>::zeros(b);
    let mut total = 0.0;
    for t in 0..x.nrows() {
        if t % 2 == 0 {
            for j in 0..b {
                input[j] = x[[t, j]] * w[j];
            }
        }
        for j in 0..b {
            total += input[j] * input[j];
        }
    }
    total
}

#[test]
fn a_branch_around_the_writes() {
    // Row 0 read twice, row 2 once: 2 (x_0j w_j)² + (x_2j w_j)².
    check!(
        branch_around_the_writes,
        branch_around_the_writes_backward,
        |w, x| {
            Array1::from_shape_fn(3, |j| {
                let (a, c) = (x[[0, j]], x[[2, j]]);
                4.0 * w[j] * a * a + 2.0 * w[j] * c * c
            })
        }
    );
}

/// No outer loop, a branch instead: an arm's result written by one loop
/// and read by the next.
#[differentiable]
fn in_an_arm(w: &Array1<f64>, c: f64) -> f64 {
    let n = w.len();
    let mut v = Array1::<f64>::zeros(n);
    let mut s = 0.0;
    if c > 0.0 {
        for j in 0..n {
            v[j] = w[j] * c;
        }
        for j in 0..n {
            s += v[j] * v[j];
        }
    }
    v.sum() + s
}

#[test]
fn written_and_read_in_a_branch_arm() {
    let w = weights();
    let (v, g) = in_an_arm_backward(&w, 1.5, 1.0);
    assert_eq!(v, in_an_arm(&w, 1.5));
    // c Σ w + c² Σ w²: ∂w_j = c + 2 c² w_j, ∂c = Σ w + 2 c Σ w².
    assert_eq!(g.w, array![3.75, -3.0, 10.5]);
    assert_eq!(g.c, 1.5 + 3.0 * 5.25);
    gradcheck(&(w.clone(), 1.5), |(w, c)| in_an_arm_backward(w, *c, 1.0)).unwrap();
    let (v, g) = in_an_arm_backward(&w, -1.0, 1.0);
    assert_eq!(v, 0.0);
    assert_eq!(g.w, Array1::<f64>::zeros(3));
}

/// A carried scalar written in one inner loop and read in the next.
#[differentiable(wrt(w))]
fn scalar_written_then_read(w: &Array1<f64>, x: &Array2<f64>) -> f64 {
    let b = w.len();
    let mut m = 0.0;
    let mut total = 0.0;
    for t in 0..x.nrows() {
        for j in 0..b {
            m = x[[t, j]] * w[j];
        }
        for j in 0..b {
            total += m * w[j];
        }
    }
    total
}

#[test]
fn a_carried_scalar() {
    // Σ_t x_t2 w_2 Σ_j w_j.
    check!(
        scalar_written_then_read,
        scalar_written_then_read_backward,
        |w, x| {
            let (sw, sx) = (w.sum(), x.column(2).sum());
            array![sx * w[2], sx * w[2], sx * w[2] + sx * sw]
        }
    );
}
