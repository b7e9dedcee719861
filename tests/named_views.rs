//! Writes through a `&mut` view bound to a name: `let mut r =
//! h.row_mut(t); r += &v;`, `r.assign(..)`, `r[j] = ..`, `column_mut`,
//! `slice_mut(s![..])`, `view_mut()`. Each use is the read or the write of
//! that part of the array; each function is checked against the original's
//! value bit for bit, by central differences and by its closed-form
//! gradient.

use backprop::prelude::*;
use backprop_testkit::random;

/// An RNN whose states are the rows of one buffer, each row written
/// through a named view: `r.assign(..)` then `r += ..`.
#[differentiable(wrt(w, u))]
fn rnn_rows(w: &Array2<f64>, u: &Array2<f64>, xs: &Array2<f64>) -> f64 {
    let (t_len, n) = (xs.nrows(), w.nrows());
    let mut h = Array2::<f64>::zeros((t_len + 1, n));
    for t in 0..t_len {
        let prev = h.row(t).dot(w);
        let mut r = h.row_mut(t + 1);
        r.assign(&xs.row(t).dot(u));
        r += &prev;
        r.mapv_inplace(f64::tanh);
    }
    h.slice(s![1.., ..]).sum()
}

/// The same RNN with its state carried.
#[differentiable(wrt(w, u))]
fn rnn_carried(w: &Array2<f64>, u: &Array2<f64>, xs: &Array2<f64>) -> f64 {
    let mut h = Array1::<f64>::zeros(w.nrows());
    let mut total = 0.0;
    for t in 0..xs.nrows() {
        h = (xs.row(t).dot(u) + h.dot(w)).mapv(f64::tanh);
        total += h.sum();
    }
    total
}

#[test]
fn an_rnn_written_through_a_named_row() {
    let mut seed = 7;
    let w = random((3, 3), &mut seed) * 0.5;
    let u = random((2, 3), &mut seed);
    let xs = random((4, 2), &mut seed);
    let (v, g) = rnn_rows_backward(&w, &u, &xs, 1.0);
    assert_eq!(v, rnn_rows(&w, &u, &xs));
    let (c, gc) = rnn_carried_backward(&w, &u, &xs, 1.0);
    assert!((v - c).abs() < 1e-12);
    assert!((&g.w - &gc.w).iter().all(|d| d.abs() < 1e-12));
    assert!((&g.u - &gc.u).iter().all(|d| d.abs() < 1e-12));
    gradcheck(&(w.clone(), u.clone()), |(w, u)| {
        rnn_rows_backward(w, u, &xs, 1.0)
    })
    .unwrap();
}

/// Element writes through a named row and column, and reads of the view.
#[differentiable]
fn elements(x: &Array1<f64>, s: f64) -> f64 {
    let n = x.len();
    let mut m = Array2::<f64>::zeros((2, n));
    let mut r = m.row_mut(0);
    for j in 0..n {
        r[j] = x[j] * s;
    }
    r[0] += s;
    let first = r[0] * 2.0;
    let total = r.sum();
    let mut c = m.column_mut(n - 1);
    c[[1]] = first;
    c *= 3.0;
    m.sum() + total
}

#[test]
fn element_writes_through_a_row_and_a_column() {
    let x = array![1.0, 2.0, 0.5];
    let s = 2.0;
    let (v, g) = elements_backward(&x, s, 1.0);
    assert_eq!(v, elements(&x, s));
    // m[0] = s x + [s, 0, 0]; m[1, 2] = 2 (s x0 + s); column 2 tripled.
    // sum m = s x0 + s + s x1 + 3 s x2 + 3 · 2 (s x0 + s); total = s Σx + s.
    let exact = s * 1.0 + s + s * 2.0 + 3.0 * s * 0.5 + 6.0 * (s + s) + (s * 3.5 + s);
    assert_eq!(v, exact);
    assert_eq!(g.x, array![s + 6.0 * s + s, s + s, 3.0 * s + s]);
    assert_eq!(g.s, 1.0 + 1.0 + 2.0 + 1.5 + 6.0 * 2.0 + 3.5 + 1.0);
    gradcheck(&(x.clone(), s), |(x, s)| elements_backward(x, *s, 1.0)).unwrap();
}

/// A named slice scaled in place and added to, and a whole-array view.
#[differentiable]
fn slices(x: &Array1<f64>, a: f64) -> f64 {
    let mut y = x.to_owned();
    let mut mid = y.slice_mut(s![1..3]);
    mid *= a;
    mid -= &x.slice(s![0..2]);
    let m = mid.sum();
    let mut all = y.view_mut();
    all += 1.0;
    all[0] = m;
    y.dot(&y)
}

#[test]
fn writes_through_a_named_slice_and_a_whole_view() {
    let x = array![1.0, 2.0, 3.0, 4.0];
    let a = 0.5;
    let (v, g) = slices_backward(&x, a, 1.0);
    assert_eq!(v, slices(&x, a));
    gradcheck(&(x.clone(), a), |(x, a)| slices_backward(x, *a, 1.0)).unwrap();
    // y = [m, a x1 - x0 + 1, a x2 - x1 + 1, x3 + 1], m = a (x1 + x2) - x0 - x1.
    let m = 0.5 * 5.0 - 3.0;
    let y1 = 1.0 - 1.0 + 1.0;
    let y2 = 1.5 - 2.0 + 1.0;
    assert_eq!(v, m * m + y1 * y1 + y2 * y2 + 25.0);
    let exact_x = array![
        -2.0 * m - 2.0 * y1,
        2.0 * m * (a - 1.0) + 2.0 * y1 * a - 2.0 * y2,
        2.0 * m * a + 2.0 * y2 * a,
        10.0
    ];
    assert_eq!(g.x, exact_x);
}

/// The old row is read (by a product the reverse needs) and then written
/// over through the view: the product's rule needs the old values, so
/// they must be saved before the write.
#[differentiable]
fn overwrite_after_read(x: &Array2<f64>, w: &Array1<f64>) -> f64 {
    let mut y = x.to_owned();
    let before = y.row(0).dot(w);
    let mut r = y.row_mut(0);
    r *= 10.0;
    r += w;
    let after = y.row(0).dot(w);
    before * after + y.sum()
}

#[test]
fn a_value_the_reverse_needs_is_saved_before_a_write_through_a_view() {
    let x = array![[1.0, 2.0], [3.0, 4.0]];
    let w = array![0.5, -1.0];
    let (v, g) = overwrite_after_read_backward(&x, &w, 1.0);
    assert_eq!(v, overwrite_after_read(&x, &w));
    // before = x0·w = -1.5; row 0 becomes 10 x0 + w = [10.5, 19];
    // after = 5.25 - 19 = -13.75.
    assert_eq!(v, -1.5 * -13.75 + 10.5 + 19.0 + 7.0);
    // ∂x0 = after w + before 10 w + 10; ∂x1 = 1.
    let (after, before_10) = (-13.75, -15.0);
    let exact_x = array![
        [
            after * w[0] + before_10 * w[0] + 10.0,
            after * w[1] + before_10 * w[1] + 10.0
        ],
        [1.0, 1.0]
    ];
    assert_eq!(g.x, exact_x);
    gradcheck(&(x.clone(), w.clone()), |(x, w)| {
        overwrite_after_read_backward(x, w, 1.0)
    })
    .unwrap();
}

/// A view made again in each iteration of a loop, and a view bound again
/// to the same name (the first one's uses end there).
#[differentiable]
fn views_in_a_loop(x: &Array2<f64>, b: &Array1<f64>) -> f64 {
    let mut y = x.to_owned();
    for t in 1..y.nrows() {
        let prev = y.row(t - 1).to_owned();
        let mut r = y.row_mut(t);
        r += &(&prev * b);
    }
    let mut r = y.column_mut(0);
    r *= 2.0;
    let mut r = y.column_mut(1);
    r.fill(0.5);
    y.mapv(|v| v * v).sum()
}

#[test]
fn views_in_a_loop_and_bound_again() {
    let mut seed = 3;
    let x = random((4, 3), &mut seed);
    let b = random(3, &mut seed);
    let (v, _) = views_in_a_loop_backward(&x, &b, 1.0);
    assert_eq!(v, views_in_a_loop(&x, &b));
    gradcheck(&(x.clone(), b.clone()), |(x, b)| {
        views_in_a_loop_backward(x, b, 1.0)
    })
    .unwrap();
}

/// `map_inplace` with a closure that sets the element from its old value,
/// on a whole array, through a row, and through a named view.
#[differentiable]
fn mapped_in_place(x: &Array2<f64>, a: f64) -> f64 {
    let mut y = x.to_owned();
    y.map_inplace(|v| *v = v.tanh() * a);
    y.row_mut(0).map_inplace(|v| {
        *v += a;
    });
    let mut c = y.column_mut(1);
    c.map_inplace(|v: &mut f64| *v *= *v);
    y.sum()
}

#[test]
fn map_inplace_as_a_write() {
    let x = array![[0.5, -1.0], [2.0, 0.25]];
    let a = 1.5;
    let (v, g) = mapped_in_place_backward(&x, a, 1.0);
    assert_eq!(v, mapped_in_place(&x, a));
    // y = a tanh(x); row 0 += a; column 1 squared.
    let t = x.mapv(f64::tanh);
    let y01 = a * t[[0, 1]] + a;
    let y11 = a * t[[1, 1]];
    let exact = (a * t[[0, 0]] + a) + y01 * y01 + a * t[[1, 0]] + y11 * y11;
    assert!((v - exact).abs() < 1e-12);
    let dt = t.mapv(|t| 1.0 - t * t);
    let exact_x = array![
        [a * dt[[0, 0]], 2.0 * y01 * a * dt[[0, 1]]],
        [a * dt[[1, 0]], 2.0 * y11 * a * dt[[1, 1]]]
    ];
    assert!((&g.x - &exact_x).iter().all(|d| d.abs() < 1e-12));
    gradcheck(&(x.clone(), a), |(x, a)| {
        mapped_in_place_backward(x, *a, 1.0)
    })
    .unwrap();
}
