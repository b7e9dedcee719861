//! Writes into arrays the body made: `y[i] = e`, `y[[i, j]] += e`,
//! `h.row_mut(t).assign(&v)`, `y.column_mut(j).assign(..)`. The adjoint of
//! a written region is the new value's; the old value's there is zero; the
//! old value is copied first only where something still reads it. Each
//! function is checked against the original's value bit for bit, by
//! central differences and by its closed-form gradient.

use backprop::prelude::*;
use backprop_testkit::networks::{rnn_buffer, rnn_buffer_backward, rnn_carried_backward};
use backprop_testkit::random;

/// Element-by-element copy into a zero buffer, reversed.
#[differentiable]
fn reversed_copy(x: &Array1<f64>) -> f64 {
    let n = x.len();
    let mut y = Array1::<f64>::zeros(n);
    for i in 0..n {
        y[n - 1 - i] = x[i] * (i as f64 + 1.0);
    }
    (&y * &y).sum()
}

#[test]
fn an_element_by_element_copy() {
    let x = array![1.0, -2.0, 0.5];
    let (v, g) = reversed_copy_backward(&x, 1.0);
    assert_eq!(v, reversed_copy(&x));
    // y_{n-1-i} = (i+1) x_i: ∂x_i = 2 (i+1)² x_i.
    assert_eq!(g.x, array![2.0, -16.0, 9.0]);
    gradcheck(&(x.clone(),), |(x,)| reversed_copy_backward(x, 1.0)).unwrap();
}

/// A cumulative product written in place: each element overwritten with
/// the product of the old values up to it (the old values the reverse
/// needs are read before they are overwritten).
#[differentiable]
fn cumprod(x: &Array1<f64>) -> f64 {
    let mut y = x.to_owned();
    for i in 1..y.len() {
        y[i] *= y[i - 1];
    }
    y.sum()
}

#[test]
fn a_cumulative_product_in_place() {
    let x = array![2.0, 3.0, 0.5, 4.0];
    let (v, g) = cumprod_backward(&x, 1.0);
    assert_eq!(v, cumprod(&x));
    assert_eq!(v, 2.0 + 6.0 + 3.0 + 12.0);
    // ∂/∂x_k Σ_i Π_{j≤i} x_j = Σ_{i≥k} Π_{j≤i, j≠k} x_j.
    let exact = array![1.0 + 3.0 + 1.5 + 6.0, 2.0 + 1.0 + 4.0, 6.0 + 24.0, 3.0];
    assert_eq!(g.x, exact);
    gradcheck(&(x.clone(),), |(x,)| cumprod_backward(x, 1.0)).unwrap();
}

/// `backprop_testkit::networks::rnn_buffer` (an RNN whose states are the
/// rows of one zero buffer) against `rnn_carried` (the same RNN with its
/// state carried).
#[test]
fn an_rnn_writing_rows_of_a_state_buffer() {
    let mut seed = 21;
    let w = random((3, 3), &mut seed) * 0.5;
    let xs = random((5, 3), &mut seed);
    let (v, g) = rnn_buffer_backward(&w, &xs, 1.0);
    assert_eq!(v, rnn_buffer(&w, &xs));
    let (v2, g2) = rnn_carried_backward(&w, &xs, 1.0);
    assert!((v - v2).abs() < 1e-12);
    assert!(
        (&g.w - &g2.w).iter().all(|e| e.abs() < 1e-12),
        "{} {}",
        g.w,
        g2.w
    );
    gradcheck(&(w.clone(),), |(w,)| rnn_buffer_backward(w, &xs, 1.0)).unwrap();
}

/// A column written from a differentiable scalar, then the old value read:
/// the write must not destroy what the reverse reads.
#[differentiable]
fn overwrite_after_read(x: &Array2<f64>, s: f64) -> f64 {
    let mut y = x * 2.0;
    let before = (&y * &y).sum();
    y.column_mut(1).assign(&(&x.column(0) * s));
    before + (&y * x).sum()
}

#[test]
fn a_write_over_a_value_the_reverse_reads() {
    let x = array![[1.0, 2.0], [3.0, -1.0]];
    let s = 0.5;
    let (v, g) = overwrite_after_read_backward(&x, s, 1.0);
    assert_eq!(v, overwrite_after_read(&x, s));
    // before = Σ 4x²: ∂x = 8x; then Σ y ⊙ x with y[:, 0] = 2 x[:, 0] and
    // y[:, 1] = s x[:, 0]: ∂x[:, 0] += 4 x[:, 0] + s x[:, 1],
    // ∂x[:, 1] += s x[:, 0], ∂s = Σ x[:, 0] x[:, 1].
    let exact = array![
        [8.0 + 4.0 + 1.0, 16.0 + 0.5],
        [24.0 + 12.0 - 0.5, -8.0 + 1.5]
    ];
    assert_eq!(g.x, exact);
    assert_eq!(g.s, 2.0 - 3.0);
    gradcheck(&(x.clone(), s), |(x, s)| {
        overwrite_after_read_backward(x, *s, 1.0)
    })
    .unwrap();
}

/// Slices written: the first half of a buffer from one vector, every other
/// element of the second half from another.
#[differentiable]
fn slices_written(a: &Array1<f64>, b: &Array1<f64>) -> f64 {
    let n = a.len();
    let mut y = Array1::<f64>::zeros(2 * n);
    y.slice_mut(s![..n]).assign(&(a * 2.0));
    y.slice_mut(s![n..;2]).assign(&b.slice(s![..;2]));
    (&y * &y).sum()
}

#[test]
fn slices_of_a_buffer_written() {
    let a = array![1.0, -2.0, 0.5, 3.0];
    let b = array![0.25, 4.0, -1.0, 2.0];
    let (v, g) = slices_written_backward(&a, &b, 1.0);
    assert_eq!(v, slices_written(&a, &b));
    // y = [2a, b0, 0, b2, 0]: ∂a = 8a, ∂b = 2b on the even elements, 0 else.
    assert_eq!(g.a, &a * 8.0);
    assert_eq!(g.b, array![0.5, 0.0, -2.0, 0.0]);
    gradcheck(&(a.clone(), b.clone()), |(a, b)| {
        slices_written_backward(a, b, 1.0)
    })
    .unwrap();
}

/// `fill` through a row and a slice, with differentiable scalars.
#[differentiable]
fn filled(x: &Array2<f64>, s: f64) -> f64 {
    let mut y = x * 1.0;
    y.row_mut(0).fill(s * 2.0);
    y.slice_mut(s![1.., 1]).fill(s);
    (&y * x).sum()
}

#[test]
fn rows_and_slices_filled() {
    let x = array![[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]];
    let (v, g) = filled_backward(&x, 0.5, 1.0);
    assert_eq!(v, filled(&x, 0.5));
    // y = [[2s, 2s], [x10, s], [x20, s]]: ∂s = 2 (x00 + x01) + x11 + x21.
    assert_eq!(g.s, 2.0 * 3.0 + 4.0 + 6.0);
    assert_eq!(g.x, array![[1.0, 1.0], [6.0, 0.5], [10.0, 0.5]]);
    gradcheck(&(x.clone(), 0.5), |(x, s)| filled_backward(x, *s, 1.0)).unwrap();
}

/// The whole array written: `fill` with a differentiable scalar, `assign`
/// of a row broadcast over the rows, `scaled_add` and `mapv_inplace`.
#[differentiable]
fn whole_arrays_written(x: &Array2<f64>, v: &Array1<f64>, s: f64) -> f64 {
    let mut u = v * 2.0;
    u.fill(s);
    let mut z = x * 2.0;
    z.assign(v);
    z.scaled_add(s, x);
    z.mapv_inplace(|a| a * a);
    u.sum() * s + z.sum()
}

#[test]
fn whole_arrays_filled_assigned_added_and_mapped() {
    let x = array![[1.0, 2.0], [3.0, -1.0]];
    let v = array![0.5, -2.0];
    let s = 1.5;
    let (value, g) = whole_arrays_written_backward(&x, &v, s, 1.0);
    assert_eq!(value, whole_arrays_written(&x, &v, s));
    // u = [s, s]: its sum times s is 2s², and `v * 2.0` is overwritten.
    // z_ij = (v_j + s x_ij)²: ∂x_ij = 2 s z'_ij, ∂v_j = Σ_i 2 z'_ij,
    // ∂s = 4s + Σ 2 z'_ij x_ij, with z'_ij = v_j + s x_ij.
    let zp = &v + &(&x * s);
    assert_eq!(g.x, &zp * (2.0 * s));
    assert_eq!(g.v, (&zp * 2.0).sum_axis(Axis(0)));
    assert_eq!(g.s, 4.0 * s + (&zp * &x * 2.0).sum());
    gradcheck(&(x.clone(), v.clone(), s), |(x, v, s)| {
        whole_arrays_written_backward(x, v, *s, 1.0)
    })
    .unwrap();
}

/// A row added to (`scaled_add`) and a column mapped in place, in a loop
/// over the rows of a buffer made from a parameter.
#[differentiable]
fn parts_added_and_mapped(x: &Array2<f64>, v: &Array1<f64>, s: f64) -> f64 {
    let mut y = x.to_owned();
    for i in 0..y.nrows() {
        y.row_mut(i).scaled_add(s * i as f64, v);
    }
    y.column_mut(0).mapv_inplace(|a| (a * s).tanh());
    (&y * &y).sum()
}

#[test]
fn rows_added_to_and_a_column_mapped() {
    let x = array![[1.0, 2.0], [3.0, -1.0], [0.5, 0.25]];
    let v = array![0.5, -2.0];
    let s = 0.75;
    let (value, g) = parts_added_and_mapped_backward(&x, &v, s, 1.0);
    assert_eq!(value, parts_added_and_mapped(&x, &v, s));
    // Column 1: y_i1 = x_i1 + s i v_1, its square's gradient 2 y_i1.
    for i in 0..3 {
        let y1 = x[[i, 1]] + s * i as f64 * v[1];
        assert_eq!(g.x[[i, 1]], 2.0 * y1);
    }
    gradcheck(&(x.clone(), v.clone(), s), |(x, v, s)| {
        parts_added_and_mapped_backward(x, v, *s, 1.0)
    })
    .unwrap();
}
