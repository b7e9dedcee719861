//! What a loop keeps between its forward pass and its reverse sweep: `Rows`
//! gives back every value pushed, in any shape and layout; `Spare` hands a
//! buffer over only when it fits; `dot_reuse` gives `dot`'s bits, in the
//! spare buffer exactly when the product is a matrix-vector or vector-matrix
//! product of the buffer's length.

use backprop_runtime::ops::{dot, dot_reuse};
use backprop_runtime::steps::{Rows, Spare};
use ndarray::{array, Array1, Array2, ShapeBuilder};

fn grid(rows: usize, cols: usize, seed: f64) -> Array2<f64> {
    Array2::from_shape_fn((rows, cols), |(i, j)| {
        ((i * cols + j) as f64 * 0.37 + seed).sin() * 1.7
    })
}

fn bits(a: &Array1<f64>) -> Vec<u64> {
    a.iter().map(|x| x.to_bits()).collect()
}

#[test]
fn rows_give_back_every_value_pushed() {
    let values: Vec<Array1<f64>> = (0..5)
        .map(|k| Array1::from_shape_fn(3, |i| (k * 3 + i) as f64 - 4.5))
        .collect();
    let mut rows = Rows::with_steps(4);
    assert!(rows.is_empty());
    for v in &values {
        rows.push(v);
    }
    assert_eq!(rows.len(), 5);
    for (k, v) in values.iter().enumerate() {
        assert_eq!(rows.row(k), v.view(), "row {k}");
    }
}

#[test]
fn rows_of_matrices_in_any_layout_come_back_in_order() {
    let c = grid(2, 3, 0.5);
    let mut f = Array2::zeros((2, 3).f());
    f.assign(&grid(2, 3, 1.5));
    let t = grid(3, 2, 2.5).reversed_axes();
    let mut rows = Rows::with_steps(2);
    rows.push(&c);
    rows.push(&f);
    rows.push(&t);
    assert_eq!(rows.row(0), c);
    assert_eq!(rows.row(1), f);
    assert_eq!(rows.row(2), t);
    assert!(rows.row(1).is_standard_layout());
}

#[test]
fn rows_of_changing_shapes_keep_each_shape() {
    // A state broadcast to a larger shape in the first iteration, then kept.
    let small = grid(1, 3, 0.1);
    let big = [grid(4, 3, 0.2), grid(4, 3, 0.3), grid(2, 2, 0.4)];
    let mut rows = Rows::with_steps(3);
    rows.push(&small);
    for b in &big {
        rows.push(b);
    }
    assert_eq!(rows.row(0), small);
    for (k, b) in big.iter().enumerate() {
        assert_eq!(rows.row(k + 1), b, "row {}", k + 1);
    }
}

#[test]
fn rows_of_scalars() {
    let mut rows = Rows::with_steps(2);
    for x in [1.5_f64, -2.0, 0.25] {
        rows.push(&x);
    }
    assert_eq!((rows.row(0), rows.row(1), rows.row(2)), (1.5, -2.0, 0.25));
}

#[test]
fn rows_of_no_steps_hold_the_last_value() {
    let mut rows = Rows::with_steps(0);
    rows.push(&array![1.0, 2.0]);
    assert_eq!(rows.row(0), array![1.0, 2.0]);
}

#[test]
#[should_panic(expected = "row 3 of 3 rows")]
fn a_row_past_the_last_panics() {
    let mut rows = Rows::with_steps(2);
    for _ in 0..3 {
        rows.push(&array![1.0]);
    }
    let _ = rows.row(3);
}

#[test]
fn a_spare_holds_a_standard_layout_buffer_of_the_asked_length() {
    let mut spare = Spare::new();
    spare.put(array![1.0, 2.0, 3.0]);
    assert_eq!(spare.take(2), None, "a buffer of another length is dropped");
    assert_eq!(spare.take(3), None, "and is gone");
    spare.put(array![1.0, 2.0, 3.0]);
    assert_eq!(spare.take(3), Some(vec![1.0, 2.0, 3.0]));
    // A transposed matrix is not in the standard layout: no buffer.
    spare.put(grid(2, 3, 0.0).reversed_axes());
    assert_eq!(spare.take(6), None);
    // A scalar has none.
    spare.put(2.0_f64);
    assert_eq!(spare.take(1), None);
    // A slice of a larger buffer does not start at its beginning: no buffer.
    let sliced = Array1::from_vec(vec![1.0, 2.0, 3.0]).slice_move(ndarray::s![1..]);
    spare.put(sliced);
    assert_eq!(spare.take(2), None);
}

#[test]
fn dot_reuse_gives_dots_bits_in_the_spare_buffer() {
    for (m, n) in [(1, 1), (3, 5), (16, 16), (17, 9), (64, 3)] {
        let a = grid(m, n, 0.3);
        let x = Array1::from_shape_fn(n, |i| (i as f64 * 0.71).cos());
        let y = Array1::from_shape_fn(m, |i| (i as f64 * 0.53).sin());
        // Matrix-vector: into a buffer of NaNs (β = 0 never reads it).
        let mut spare = Spare::new();
        let buf = Array1::from_elem(m, f64::NAN);
        let p = buf.as_ptr();
        spare.put(buf);
        let out = dot_reuse(&mut spare, &a, &x);
        assert_eq!(out.as_ptr(), p, "{m}x{n}: the spare buffer is used");
        assert_eq!(bits(&out), bits(&dot(&a, &x)), "{m}x{n}");
        // Vector-matrix.
        let buf = Array1::from_elem(n, f64::NAN);
        let p = buf.as_ptr();
        spare.put(buf);
        let out = dot_reuse(&mut spare, &y, &a);
        assert_eq!(out.as_ptr(), p, "{m}x{n}: vector-matrix");
        assert_eq!(bits(&out), bits(&dot(&y, &a)), "{m}x{n}: vector-matrix");
        // A transposed matrix.
        spare.put(Array1::zeros(n));
        assert_eq!(
            bits(&dot_reuse(&mut spare, &a.t(), &y)),
            bits(&a.t().dot(&y))
        );
    }
}

#[test]
fn dot_reuse_without_a_fitting_buffer_is_dot() {
    let a = grid(4, 3, 0.1);
    let x = array![1.0, -2.0, 0.5];
    let mut spare = Spare::new();
    assert_eq!(dot_reuse(&mut spare, &a, &x), dot(&a, &x));
    spare.put(Array1::zeros(5));
    let out = dot_reuse(&mut spare, &a, &x);
    assert_eq!(out, dot(&a, &x));
    // Matrix-matrix and vector-vector products take no buffer.
    let b = grid(3, 2, 0.9);
    spare.put(Array1::zeros(8));
    assert_eq!(dot_reuse(&mut spare, &a, &b), dot(&a, &b));
    assert_eq!(dot_reuse(&mut spare, &x, &x), dot(&x, &x));
}

#[test]
fn dot_reuse_of_mismatched_shapes_panics_as_dot_does() {
    let a = grid(4, 3, 0.1);
    let x = array![1.0, 2.0];
    let text = |e: Box<dyn std::any::Any + Send>| {
        e.downcast_ref::<String>()
            .cloned()
            .or_else(|| e.downcast_ref::<&str>().map(|s| s.to_string()))
            .unwrap_or_default()
    };
    let plain = std::panic::catch_unwind(|| dot(&a, &x)).unwrap_err();
    let reused = std::panic::catch_unwind(|| {
        let mut spare = Spare::new();
        spare.put(Array1::<f64>::zeros(4));
        dot_reuse(&mut spare, &a, &x)
    })
    .unwrap_err();
    assert_eq!(text(plain), text(reused));
}
