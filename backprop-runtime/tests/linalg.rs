//! `dot` in its four forms and `t`: forward values are ndarray's, adjoints
//! match central differences, for any layout of either operand.

#[macro_use]
mod common;

use backprop_runtime::ops::*;
use common::{f32s, rand, F32, F64};
use ndarray::{Array1, Array2, ShapeBuilder};

#[test]
fn dot_forward_is_ndarrays() {
    let a = rand((3, 4), 1, -1.0, 1.0);
    let b = rand((4, 2), 2, -1.0, 1.0);
    let bf = rand((4, 2).f(), 3, -1.0, 1.0);
    let v = rand(4, 4, -1.0, 1.0);
    let u = rand(3, 5, -1.0, 1.0);
    assert_eq!(dot(&a, &b), a.dot(&b));
    assert_eq!(dot(&a, &bf), a.dot(&bf));
    assert_eq!(dot(&b.t(), &a.t()), b.t().dot(&a.t()));
    assert_eq!(dot(&a, &v), a.dot(&v));
    assert_eq!(dot(&u, &a), u.dot(&a));
    assert_eq!(dot(&v, &v).to_bits(), v.dot(&v).to_bits());
    assert_eq!(dot(&v.view(), &v).to_bits(), v.view().dot(&v).to_bits());
    assert_eq!(t(&a), a.t());
}

#[test]
fn matrix_matrix() {
    let b = rand((4, 2), 6, -1.0, 1.0);
    check_vjp2!(
        "mm",
        F64,
        rand((3, 4), 7, -1.0, 1.0),
        b.clone(),
        |x, y| dot(x, y),
        |g, _o| dot_vjp_lhs(g, x, y).value(),
        |g, _o| dot_vjp_rhs(g, x, y).value()
    );
    check_vjp2!(
        "mm column-major",
        F64,
        rand((3, 4).f(), 8, -1.0, 1.0),
        rand((4, 2).f(), 9, -1.0, 1.0),
        |x, y| dot(x, y),
        |g, _o| dot_vjp_lhs(g, x, y).value(),
        |g, _o| dot_vjp_rhs(g, x, y).value()
    );
    // x.dot(&w.t()), the shape of a dense layer.
    check_vjp2!(
        "mm transposed rhs",
        F64,
        rand((5, 4), 10, -1.0, 1.0),
        rand((3, 4), 11, -1.0, 1.0),
        |x, w| dot(x, &w.t()),
        |g, _o| dot_vjp_lhs(g, x, &w.t()).value(),
        |g, _o| t_vjp(dot_vjp_rhs(g, x, &w.t()).value(), w)
    );
    check_vjp2!(
        "mm f32",
        F32,
        f32s(&rand((3, 4), 12, -1.0, 1.0)),
        f32s(&b),
        |x, y| dot(x, y),
        |g, _o| dot_vjp_lhs(g, x, y).value(),
        |g, _o| dot_vjp_rhs(g, x, y).value()
    );
}

#[test]
fn matrix_vector() {
    check_vjp2!(
        "mv",
        F64,
        rand((3, 4), 13, -1.0, 1.0),
        rand(4, 14, -1.0, 1.0),
        |x, y| dot(x, y),
        |g, _o| dot_vjp_lhs(g, x, y).value(),
        |g, _o| dot_vjp_rhs(g, x, y).value()
    );
    check_vjp2!(
        "mv column-major view",
        F64,
        rand((3, 4).f(), 15, -1.0, 1.0),
        rand(4, 16, -1.0, 1.0),
        |x, y| dot(&x.view(), y),
        |g, _o| dot_vjp_lhs(g, &x.view(), y).value(),
        |g, _o| dot_vjp_rhs(g, &x.view(), y).value()
    );
    check_vjp2!(
        "mv f32",
        F32,
        f32s(&rand((3, 4), 17, -1.0, 1.0)),
        f32s(&rand(4, 18, -1.0, 1.0)),
        |x, y| dot(x, y),
        |g, _o| dot_vjp_lhs(g, x, y).value(),
        |g, _o| dot_vjp_rhs(g, x, y).value()
    );
}

#[test]
fn vector_matrix() {
    check_vjp2!(
        "vm",
        F64,
        rand(3, 19, -1.0, 1.0),
        rand((3, 4), 20, -1.0, 1.0),
        |x, y| dot(x, y),
        |g, _o| dot_vjp_lhs(g, x, y).value(),
        |g, _o| dot_vjp_rhs(g, x, y).value()
    );
    check_vjp2!(
        "vm column-major",
        F64,
        rand(3, 21, -1.0, 1.0),
        rand((3, 4).f(), 22, -1.0, 1.0),
        |x, y| dot(x, y),
        |g, _o| dot_vjp_lhs(g, x, y).value(),
        |g, _o| dot_vjp_rhs(g, x, y).value()
    );
    check_vjp2!(
        "vm f32",
        F32,
        f32s(&rand(3, 23, -1.0, 1.0)),
        f32s(&rand((3, 4), 24, -1.0, 1.0)),
        |x, y| dot(x, y),
        |g, _o| dot_vjp_lhs(g, x, y).value(),
        |g, _o| dot_vjp_rhs(g, x, y).value()
    );
}

#[test]
fn vector_vector() {
    check_vjp2!(
        "vv",
        F64,
        rand(5, 25, -1.0, 1.0),
        rand(5, 26, -1.0, 1.0),
        |x, y| dot(x, y),
        |g, _o| dot_vjp_lhs(g, x, y).value(),
        |g, _o| dot_vjp_rhs(g, x, y).value()
    );
    check_vjp2!(
        "vv view",
        F64,
        rand(5, 27, -1.0, 1.0),
        rand(5, 28, -1.0, 1.0),
        |x, y| dot(&x.view(), y),
        |g, _o| dot_vjp_lhs(g, &x.view(), y).value(),
        |g, _o| dot_vjp_rhs(g, &x.view(), y).value()
    );
    check_vjp2!(
        "vv f32",
        F32,
        f32s(&rand(5, 29, -1.0, 1.0)),
        f32s(&rand(5, 30, -1.0, 1.0)),
        |x, y| dot(x, y),
        |g, _o| dot_vjp_lhs(g, x, y).value(),
        |g, _o| dot_vjp_rhs(g, x, y).value()
    );
}

#[test]
fn transpose_matches_central_differences() {
    check_vjp!(
        "matrix",
        F64,
        rand((3, 4), 31, -1.0, 1.0),
        |x| t(x),
        |g, _o| t_vjp(g, x)
    );
    check_vjp!(
        "3-d",
        F64,
        rand((2, 3, 4), 32, -1.0, 1.0),
        |x| t(x),
        |g, _o| t_vjp(g, x)
    );
    check_vjp!("vector", F64, rand(3, 33, -1.0, 1.0), |x| t(x), |g, _o| {
        t_vjp(g, x)
    });
    check_vjp!(
        "f32",
        F32,
        f32s(&rand((3, 4), 34, -1.0, 1.0)),
        |x| t(x),
        |g, _o| t_vjp(g, x)
    );
}

#[test]
fn transpose_adjoint_does_not_copy_an_owned_upstream() {
    let a = rand((3, 4), 35, -1.0, 1.0);
    let g: Array2<f64> = rand((4, 3), 36, -1.0, 1.0);
    let expected = g.t().to_owned();
    let ptr = g.as_ptr();
    let d = t_vjp(g, &a);
    assert_eq!(d.as_ptr(), ptr, "the upstream buffer was copied");
    assert_eq!(d, expected);
    assert_eq!(d.shape(), a.shape());
    // The gradient comes back in column-major layout, with the right values.
    assert!(d.t().is_standard_layout());
}

#[test]
fn outer_products_have_the_operands_shapes() {
    let a = rand((3, 4), 37, -1.0, 1.0);
    let v = rand(4, 38, -1.0, 1.0);
    let g: Array1<f64> = rand(3, 39, -1.0, 1.0);
    let d = dot_vjp_lhs(&g, &a, &v).value();
    assert_eq!(d.shape(), &[3, 4]);
    assert_eq!(d[[2, 1]], g[2] * v[1]);
}

/// A product rule's `Contribution` added into an accumulator of any layout,
/// `.add_to(&mut acc)`, adds what its `.value()` returns, in all four forms;
/// `.added_to(acc)` gives the bits of `.add_to`, in `acc`'s buffer; an owned
/// and a borrowed upstream gradient give the same bits.
#[test]
fn accumulating_rules_add_the_plain_rules() {
    fn close<D: ndarray::Dimension>(a: &ndarray::Array<f64, D>, b: &ndarray::Array<f64, D>) {
        assert_eq!(a.shape(), b.shape());
        for (x, y) in a.iter().zip(b) {
            assert!((x - y).abs() <= 1e-14 * (1.0 + y.abs()), "{x} vs {y}");
        }
    }
    macro_rules! forms {
        ($acc:expr, |$g:ident| $rule:expr, $upstream:expr) => {{
            let acc = $acc;
            let upstream = $upstream;
            let value = {
                let $g = &upstream;
                $rule.value()
            };
            let expected = &acc + &value;
            let mut added = acc.clone();
            {
                let $g = &upstream;
                $rule.add_to(&mut added);
            }
            close(&added, &expected);
            let mut added_owned = acc.clone();
            {
                let $g = upstream.clone();
                $rule.add_to(&mut added_owned);
            }
            common::assert_same("add_to, owned g", &added_owned, &added);
            let buf = acc.clone();
            let p = buf.as_ptr();
            let sum = {
                let $g = &upstream;
                $rule.added_to(buf)
            };
            assert_eq!(sum.as_ptr(), p, "added_to writes into the buffer");
            common::assert_same("added_to", &sum, &added);
            assert_eq!(acc.strides(), sum.strides(), "the accumulator's layout");
        }};
    }
    let m = rand((3, 4), 21, -1.0, 1.0);
    let n = rand((4, 2), 22, -1.0, 1.0);
    let v4 = rand(4, 23, -1.0, 1.0);
    let v3 = rand(3, 24, -1.0, 1.0);
    // Matrix-matrix, with a column-major accumulator.
    let g = rand((3, 2), 25, -1.0, 1.0);
    let acc = Array2::from_shape_fn((3, 4).f(), |(i, j)| (i + 2 * j) as f64);
    forms!(acc, |g| dot_vjp_lhs(g, &m, &n), g.clone());
    forms!(rand((4, 2), 26, -1.0, 1.0), |g| dot_vjp_rhs(g, &m, &n), g);
    // Matrix-vector.
    let g = rand(3, 27, -1.0, 1.0);
    forms!(
        rand((3, 4), 28, -1.0, 1.0),
        |g| dot_vjp_lhs(g, &m, &v4),
        g.clone()
    );
    forms!(rand(4, 29, -1.0, 1.0), |g| dot_vjp_rhs(g, &m, &v4), g);
    // Vector-matrix.
    let g = rand(4, 30, -1.0, 1.0);
    forms!(
        rand(3, 31, -1.0, 1.0),
        |g| dot_vjp_lhs(g, &v3, &m),
        g.clone()
    );
    forms!(rand((3, 4), 32, -1.0, 1.0), |g| dot_vjp_rhs(g, &v3, &m), g);
    // Vector-vector.
    let w4 = v4.mapv(|x| x * 2.0);
    forms!(rand(4, 33, -1.0, 1.0), |g| dot_vjp_lhs(g, &v4, &w4), 0.75);
    let u4 = v4.mapv(|x| x - 1.0);
    forms!(rand(4, 34, -1.0, 1.0), |g| dot_vjp_rhs(g, &u4, &v4), 0.75);
}

/// `add_dot(a, m, v)` is `a + m.dot(&v)` bit for bit, writes into `a`'s
/// buffer for matrix-vector and vector-matrix products, and falls back to the
/// two ops otherwise; the kept shape is the product's.
#[test]
fn add_dot_is_add_of_dot() {
    use backprop_runtime::value::stand_in;
    let m = rand((5, 7), 41, -1.0, 1.0);
    let v7 = rand(7, 42, -1.0, 1.0);
    let v5 = rand(5, 43, -1.0, 1.0);
    let a5 = rand(5, 44, -1.0, 1.0);
    let a7 = rand(7, 45, -1.0, 1.0);
    let same = |x: &Array1<f64>, y: &Array1<f64>| {
        assert_eq!(x.len(), y.len());
        for (p, q) in x.iter().zip(y) {
            assert_eq!(p.to_bits(), q.to_bits(), "{p} vs {q}");
        }
    };
    let p = a5.as_ptr();
    let expected = add(&a5, &dot(&m, &v7));
    let (out, shape) = add_dot(a5.clone(), &m, &v7);
    same(&out, &expected);
    assert_eq!(stand_in(&shape).shape(), &[5]);
    let buf = a5.clone();
    let bp = buf.as_ptr();
    let (out, _) = add_dot(buf, &m, &v7);
    assert_eq!(out.as_ptr(), bp);
    let _ = p;
    let expected = add(&a7, &dot(&v5, &m));
    let (out, shape) = add_dot(a7.clone(), &v5, &m);
    same(&out, &expected);
    assert_eq!(stand_in(&shape).shape(), &[7]);
    // Matrix products, broadcasts and scalars take the two ops.
    let n = rand((7, 3), 46, -1.0, 1.0);
    let a53 = rand((5, 3), 47, -1.0, 1.0);
    let (out, shape) = add_dot(a53.clone(), &m, &n);
    assert_eq!(out, add(&a53, &dot(&m, &n)));
    assert_eq!(stand_in(&shape).shape(), &[5, 3]);
    let a2 = rand((2, 5), 48, -1.0, 1.0);
    let (out, shape) = add_dot(a2.clone(), &m, &v7);
    assert_eq!(out, add(&a2, &dot(&m, &v7)));
    assert_eq!(stand_in(&shape).shape(), &[5]);
    let (out, _) = add_dot(1.5, &m, &v7);
    assert_eq!(out, add(&1.5, &dot(&m, &v7)));
    let (out, shape) = add_dot(0.5, &v7, &v7);
    assert_eq!(out, 0.5 + v7.dot(&v7));
    assert_eq!(stand_in(&shape), v7.dot(&v7));
}

/// A product rule's contribution written by `.defer(slot, &mut acc)` keeps
/// a matrix-vector product's `g ⊗ b` and a vector-matrix product's `a ⊗ g`
/// as a term of `Outers`, and `add_outers` adds them all at once: the sum of
/// the contributions written by `.add_to`, up to rounding. The other
/// products add into the accumulator at once.
#[test]
fn deferred_outer_products_add_up_to_the_accumulated_ones() {
    fn close<D: ndarray::Dimension>(a: &ndarray::Array<f64, D>, b: &ndarray::Array<f64, D>) {
        assert_eq!(a.shape(), b.shape());
        for (x, y) in a.iter().zip(b) {
            assert!((x - y).abs() <= 1e-13 * (1.0 + y.abs()), "{x} vs {y}");
        }
    }
    let m = rand((3, 4), 41, -1.0, 1.0);
    // Matrix-vector, five steps in reverse, into a column-major accumulator.
    let start = Array2::from_shape_fn((3, 4).f(), |(i, j)| (i + 2 * j) as f64);
    let (mut acc, mut expected) = (start.clone(), start);
    let mut outers = Outers::new(5, [outer_term(&acc)]);
    for k in (0..5).rev() {
        let g = rand(3, 50 + k, -1.0, 1.0);
        let b = rand(4, 60 + k, -1.0, 1.0);
        dot_vjp_lhs(&g, &m, &b).add_to(&mut expected);
        dot_vjp_lhs(&g, &m, &b).defer(outers.term(0, k as usize), &mut acc);
    }
    // Nothing is added until the end.
    assert_eq!(acc[[2, 3]], 8.0);
    close(&add_outers(acc, &mut outers, 0), &expected);
    // Vector-matrix, more steps than announced: the extra ones at once.
    let mut acc = rand((3, 4), 42, -1.0, 1.0);
    let mut expected = acc.clone();
    let mut outers = Outers::new(2, [outer_term(&acc)]);
    for k in (0..7).rev() {
        let a = rand(3, 70 + k, -1.0, 1.0);
        let g = rand(4, 80 + k, -1.0, 1.0);
        dot_vjp_rhs(&g, &a, &m).add_to(&mut expected);
        dot_vjp_rhs(&g, &a, &m).defer(outers.term(0, k as usize), &mut acc);
    }
    close(&add_outers(acc, &mut outers, 0), &expected);
    // Matrix-matrix and the vector sides: added at once, nothing kept.
    let n = rand((4, 2), 43, -1.0, 1.0);
    let g = rand((3, 2), 44, -1.0, 1.0);
    let mut acc = rand((3, 4), 45, -1.0, 1.0);
    let expected = &acc + &dot_vjp_lhs(&g, &m, &n).value();
    let mut outers = Outers::new(1, [outer_term(&acc)]);
    dot_vjp_lhs(&g, &m, &n).defer(outers.term(0, 0), &mut acc);
    close(&acc, &expected);
    close(&add_outers(acc, &mut outers, 0), &expected);
    let v4 = rand(4, 46, -1.0, 1.0);
    let g = rand(3, 47, -1.0, 1.0);
    let mut acc = rand(4, 48, -1.0, 1.0);
    let expected = &acc + &dot_vjp_rhs(&g, &m, &v4).value();
    let mut outers = Outers::new(1, [outer_term(&acc)]);
    dot_vjp_rhs(&g, &m, &v4).defer(outers.term(0, 0), &mut acc);
    close(&add_outers(acc, &mut outers, 0), &expected);
    let mut summed = rand(4, 49, -1.0, 1.0);
    let before = summed.clone();
    let mut none = Outers::new(3, [outer_term(&summed)]);
    dot_vjp_lhs(0.5, &v4, &v4).defer(none.term(0, 2), &mut summed);
    close(&add_outers(summed, &mut none, 0), &(&before + &(&v4 * 0.5)));
}

/// For a square matrix of side up to 64, the matrix-vector product's
/// gradient `Aᵀ g` is written into the buffer of an owned `g`, with the bits
/// of `a.t().dot(&g)`; beyond that it is a new array, the same bits.
#[test]
fn a_square_products_gradient_reuses_the_upstream_buffer() {
    for n in [1, 2, 3, 7, 16, 33, 64, 65, 200] {
        let a = rand((n, n), 100 + n as u64, -1.0, 1.0);
        let x = rand(n, 200 + n as u64, -1.0, 1.0);
        let g = rand(n, 300 + n as u64, -1.0, 1.0);
        let expected = a.t().dot(&g);
        let ptr = g.as_ptr();
        let got = dot_vjp_rhs(g.clone(), &a, &x).value();
        assert_eq!(got, expected);
        assert!(got
            .iter()
            .zip(&expected)
            .all(|(p, q)| p.to_bits() == q.to_bits()));
        let moved = dot_vjp_rhs(g, &a, &x).value();
        assert_eq!(moved.as_ptr() == ptr, n <= 64, "n = {n}");
        // A borrowed gradient, and a transposed (column-major) matrix.
        assert_eq!(dot_vjp_rhs(&expected, &a.t(), &x).value(), a.dot(&expected));
    }
}

/// A matrix product's gradients of at most 64 multiply-adds are plain loops
/// (no packing buffer); they equal ndarray's products to rounding, for every
/// layout, on both sides of the threshold, accumulating or not.
#[test]
fn small_products_gradients_are_ndarrays_products() {
    fn close(a: &Array2<f64>, b: &Array2<f64>) {
        assert_eq!(a.shape(), b.shape());
        for (x, y) in a.iter().zip(b) {
            assert!((x - y).abs() <= 1e-14 * (1.0 + y.abs()), "{x} vs {y}");
        }
    }
    // (m, k, n) with m·k·n below, at and above 64.
    for (m, k, n) in [
        (1, 2, 2),
        (2, 1, 3),
        (4, 4, 4),
        (4, 4, 5),
        (1, 64, 1),
        (3, 1, 1),
        (8, 8, 8),
    ] {
        let a = rand((m, k), (m * 100 + k * 10 + n) as u64, -1.0, 1.0);
        let b = rand((k, n), (n * 100 + k) as u64, -1.0, 1.0);
        let g = rand((m, n), (m * 7 + n) as u64, -1.0, 1.0);
        close(&dot_vjp_lhs(&g, &a, &b).value(), &g.dot(&b.t()));
        close(&dot_vjp_rhs(&g, &a, &b).value(), &a.t().dot(&g));
        // A column-major operand and a transposed view.
        let mut b_f = Array2::zeros((k, n).f());
        b_f.assign(&b);
        close(&dot_vjp_lhs(&g, &a, &b_f).value(), &g.dot(&b.t()));
        let at = a.t().to_owned();
        close(&dot_vjp_rhs(&g, &at.t(), &b).value(), &a.t().dot(&g));
        let mut acc = rand((m, k), 5, -1.0, 1.0);
        let expected = &acc + &g.dot(&b.t());
        dot_vjp_lhs(&g, &a, &b).add_to(&mut acc);
        close(&acc, &expected);
        let mut acc = rand((k, n), 6, -1.0, 1.0);
        let expected = &acc + &a.t().dot(&g);
        dot_vjp_rhs(&g, &a, &b).add_to(&mut acc);
        close(&acc, &expected);
    }
}

/// A gradient of the wrong shape is ndarray's shape error, small or not.
#[test]
#[should_panic]
fn a_small_product_of_mismatched_shapes_panics() {
    let a = Array2::<f64>::zeros((2, 2));
    let b = Array2::<f64>::zeros((2, 2));
    let g = Array2::<f64>::zeros((3, 2));
    let mut acc = Array2::<f64>::zeros((2, 2));
    dot_vjp_lhs(&g, &a, &b).add_to(&mut acc);
}
