//! A loop's weights get their gradients as outer products kept by iteration
//! in one buffer (`bp::Outers`) and added after the loop by one matrix
//! product each: a product's vector is read where the loop keeps it (a
//! state's rows, the rows of an input the loop walks through), and two
//! products of one gradient share it. Each function here takes that path in
//! another form; the value must equal the original function's bit for bit,
//! and every gradient must pass central differences and equal the function
//! unrolled by hand.

use backprop::prelude::*;
use backprop_testkit::random;

fn close(a: &[f64], b: &[f64]) {
    assert_eq!(a.len(), b.len());
    for (x, y) in a.iter().zip(b) {
        assert!((x - y).abs() <= 1e-12 * (1.0 + y.abs()), "{x} vs {y}");
    }
}

/// An Elman network that starts at row 1 of its inputs: iteration `k`
/// reads row `k + 1`.
#[differentiable(wrt(w, u, h0))]
fn from_row_one(w: &Array2<f64>, u: &Array2<f64>, h0: &Array1<f64>, xs: &Array2<f64>) -> f64 {
    let mut h = h0.to_owned();
    let mut loss = 0.0;
    for t in 1..xs.nrows() {
        h = tanh(&(w.dot(&h) + u.dot(&xs.row(t))));
        loss += sum(&h);
    }
    loss
}

/// [`from_row_one`] over rows 1 and 2, unrolled.
#[differentiable(wrt(w, u, h0))]
fn from_row_one_unrolled(
    w: &Array2<f64>,
    u: &Array2<f64>,
    h0: &Array1<f64>,
    xs: &Array2<f64>,
) -> f64 {
    let h1 = tanh(&(w.dot(h0) + u.dot(&xs.row(1))));
    let h2 = tanh(&(w.dot(&h1) + u.dot(&xs.row(2))));
    sum(&h1) + sum(&h2)
}

#[test]
fn a_loop_that_starts_at_row_one() {
    let mut s = 51;
    let w = random((3, 3), &mut s);
    let u = random((3, 2), &mut s);
    let h0 = random(3, &mut s);
    let xs = random((3, 2), &mut s);
    let (v, g) = from_row_one_backward(&w, &u, &h0, &xs, 1.0);
    assert_eq!(v.to_bits(), from_row_one(&w, &u, &h0, &xs).to_bits());
    let (vu, gu) = from_row_one_unrolled_backward(&w, &u, &h0, &xs, 1.0);
    assert!((v - vu).abs() < 1e-14);
    close(g.w.as_slice().unwrap(), gu.w.as_slice().unwrap());
    close(g.u.as_slice().unwrap(), gu.u.as_slice().unwrap());
    close(g.h0.as_slice().unwrap(), gu.h0.as_slice().unwrap());
    gradcheck(&(w, u, h0), |(w, u, h0)| {
        from_row_one_backward(w, u, h0, &xs, 1.0)
    })
    .unwrap();
}

/// An inclusive range, a row that is not the loop's index (`t - 1`, copied
/// each iteration), two weights that multiply the same state (one gradient,
/// shared) and a weight that two products of one iteration read (two terms
/// of one gradient).
#[differentiable(wrt(a, b, c, h0))]
fn many_terms(
    a: &Array2<f64>,
    b: &Array2<f64>,
    c: &Array2<f64>,
    h0: &Array1<f64>,
    xs: &Array2<f64>,
) -> f64 {
    let mut h = h0.to_owned();
    let mut loss = 0.0;
    for t in 1..=2 {
        let z = a.dot(&h) + b.dot(&h) + c.dot(&xs.row(t)) + c.dot(&xs.row(t - 1));
        h = tanh(&z);
        loss += sum(&(&h * &h));
    }
    loss
}

#[differentiable(wrt(a, b, c, h0))]
fn many_terms_unrolled(
    a: &Array2<f64>,
    b: &Array2<f64>,
    c: &Array2<f64>,
    h0: &Array1<f64>,
    xs: &Array2<f64>,
) -> f64 {
    let h1 = tanh(&(a.dot(h0) + b.dot(h0) + c.dot(&xs.row(1)) + c.dot(&xs.row(0))));
    let h2 = tanh(&(a.dot(&h1) + b.dot(&h1) + c.dot(&xs.row(2)) + c.dot(&xs.row(1))));
    sum(&(&h1 * &h1)) + sum(&(&h2 * &h2))
}

#[test]
fn terms_that_share_and_terms_of_one_weight() {
    let mut s = 53;
    let a = random((3, 3), &mut s);
    let b = random((3, 3), &mut s);
    let c = random((3, 3), &mut s);
    let h0 = random(3, &mut s);
    let xs = random((3, 3), &mut s);
    let (v, g) = many_terms_backward(&a, &b, &c, &h0, &xs, 1.0);
    assert_eq!(v.to_bits(), many_terms(&a, &b, &c, &h0, &xs).to_bits());
    let (vu, gu) = many_terms_unrolled_backward(&a, &b, &c, &h0, &xs, 1.0);
    assert!((v - vu).abs() < 1e-14);
    for (x, y) in [(&g.a, &gu.a), (&g.b, &gu.b), (&g.c, &gu.c)] {
        close(x.as_slice().unwrap(), y.as_slice().unwrap());
    }
    close(g.h0.as_slice().unwrap(), gu.h0.as_slice().unwrap());
    gradcheck(&(a, b, c, h0), |(a, b, c, h0)| {
        many_terms_backward(a, b, c, h0, &xs, 1.0)
    })
    .unwrap();
}

/// A recurrence in a branch: its forward pass and reverse sweep are two
/// blocks, so the loop's spare buffer is not there for the reverse.
#[differentiable(wrt(w, h0))]
fn in_a_branch(w: &Array2<f64>, h0: &Array1<f64>, xs: &Array2<f64>, on: bool) -> f64 {
    let mut loss = sum(h0);
    if on {
        let mut h = h0.to_owned();
        for t in 0..xs.nrows() {
            h = tanh(&(w.dot(&h) + xs.row(t)));
            loss += sum(&h);
        }
    }
    loss
}

#[test]
fn a_recurrence_in_a_branch() {
    let mut s = 57;
    let w = random((3, 3), &mut s);
    let h0 = random(3, &mut s);
    let xs = random((4, 3), &mut s);
    for on in [true, false] {
        let (v, _) = in_a_branch_backward(&w, &h0, &xs, on, 1.0);
        assert_eq!(v.to_bits(), in_a_branch(&w, &h0, &xs, on).to_bits());
        gradcheck(&(w.clone(), h0.clone()), |(w, h0)| {
            in_a_branch_backward(w, h0, &xs, on, 1.0)
        })
        .unwrap();
    }
}
