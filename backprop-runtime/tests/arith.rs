//! The arithmetic operators and `unbroadcast`: forward values equal
//! ndarray's operators, and every adjoint (with every broadcasting shape)
//! matches central differences and has its operand's shape.

#[macro_use]
mod common;

use backprop_runtime::ops::*;
use backprop_runtime::{unbroadcast, Tensor, Value};
use common::{f32s, rand, Probe, Tol, F32, F64};
use ndarray::{array, Array, Array2, ArrayD, Axis, IxDyn, ShapeBuilder};

/// Checks all seven binary ops on the operands `a` and `b`. `powf` gets a
/// positive base.
fn check_all<A, B>(what: &str, a: A, b: B, tol: Tol)
where
    A: Arith<B> + Tensor + Probe,
    B: Value<Elem = A::Elem> + Probe,
{
    check_vjp2!(
        format!("add {what}"),
        tol,
        a.clone(),
        b.clone(),
        |x, y| add(x, y),
        |g, _o| add_vjp_lhs(g, x, y),
        |g, _o| add_vjp_rhs(g, x, y)
    );
    check_vjp2!(
        format!("sub {what}"),
        tol,
        a.clone(),
        b.clone(),
        |x, y| sub(x, y),
        |g, _o| sub_vjp_lhs(g, x, y),
        |g, _o| sub_vjp_rhs(g, x, y)
    );
    check_vjp2!(
        format!("mul {what}"),
        tol,
        a.clone(),
        b.clone(),
        |x, y| mul(x, y),
        |g, _o| mul_vjp_lhs(g, x, y),
        |g, _o| mul_vjp_rhs(g, x, y)
    );
    check_vjp2!(
        format!("div {what}"),
        tol,
        a.clone(),
        b.clone(),
        |x, y| div(x, y),
        |g, _o| div_vjp_lhs(g, x, y),
        |g, _o| div_vjp_rhs(g, x, y)
    );
    check_vjp2!(
        format!("max {what}"),
        tol,
        a.clone(),
        b.clone(),
        |x, y| max(x, y),
        |g, _o| max_vjp_lhs(g, x, y),
        |g, _o| max_vjp_rhs(g, x, y)
    );
    check_vjp2!(
        format!("min {what}"),
        tol,
        a.clone(),
        b.clone(),
        |x, y| min(x, y),
        |g, _o| min_vjp_lhs(g, x, y),
        |g, _o| min_vjp_rhs(g, x, y)
    );
    let pos_a = a.clone().map_owned(|v| v.abs() + A::Elem::from_f64(0.5));
    check_vjp2!(
        format!("powf {what}"),
        tol,
        pos_a,
        b.clone(),
        |x, y| powf(x, y),
        |g, _o| powf_vjp_lhs(g, x, y),
        |g, _o| powf_vjp_rhs(g, x, y)
    );
    check_vjp!(
        format!("neg {what}"),
        tol,
        a.clone(),
        |x| neg(x),
        |g, _o| neg_vjp(g, x)
    );
}

use backprop_runtime::Float as _;
use num_traits::Float as _;

#[test]
fn same_shapes() {
    check_all(
        "(2,3) (2,3)",
        rand((2, 3), 1, -1.0, 1.0),
        rand((2, 3), 2, 0.5, 2.0),
        F64,
    );
    check_all(
        "(2,3) (2,3)f",
        rand((2, 3), 3, -1.0, 1.0),
        rand((2, 3).f(), 4, 0.5, 2.0),
        F64,
    );
    check_all("f64 f64", 0.7, 1.3, F64);
}

#[test]
fn broadcast_column_against_matrix() {
    check_all(
        "(3,3) (3,1)",
        rand((3, 3), 5, -1.0, 1.0),
        rand((3, 1), 6, 0.5, 2.0),
        F64,
    );
    check_all(
        "(3,1) (3,3)",
        rand((3, 1), 7, -1.0, 1.0),
        rand((3, 3), 8, 0.5, 2.0),
        F64,
    );
}

#[test]
fn broadcast_both_operands() {
    check_all(
        "(2,1) (1,3)",
        rand((2, 1), 9, -1.0, 1.0),
        rand((1, 3), 10, 0.5, 2.0),
        F64,
    );
}

#[test]
fn broadcast_leading_axes() {
    check_all(
        "(4,3) (3,)",
        rand((4, 3), 11, -1.0, 1.0),
        rand(3, 12, 0.5, 2.0),
        F64,
    );
    check_all(
        "(3,) (4,3)",
        rand(3, 13, -1.0, 1.0),
        rand((4, 3), 14, 0.5, 2.0),
        F64,
    );
    check_all(
        "(2,4,3) (4,1)",
        rand((2, 4, 3), 15, -1.0, 1.0),
        rand((4, 1), 16, 0.5, 2.0),
        F64,
    );
    let d: ArrayD<f64> = rand(IxDyn(&[2, 1, 3]), 17, 0.5, 2.0);
    check_all("(2,3) dyn(2,1,3)", rand((2, 3), 18, -1.0, 1.0), d, F64);
}

#[test]
fn scalar_and_array() {
    check_all("f64 (2,3)", 0.8, rand((2, 3), 19, 0.5, 2.0), F64);
    check_all("(2,3) f64", rand((2, 3), 20, -1.0, 1.0), 1.7, F64);
    check_all("f64 (3,)", -0.4, rand(3, 21, 0.5, 2.0), F64);
}

#[test]
fn single_precision() {
    check_all(
        "f32 (3,3) (3,1)",
        f32s(&rand((3, 3), 22, -1.0, 1.0)),
        f32s(&rand((3, 1), 23, 0.5, 2.0)),
        F32,
    );
    check_all(
        "f32 (4,3) (3,)",
        f32s(&rand((4, 3), 24, -1.0, 1.0)),
        f32s(&rand(3, 25, 0.5, 2.0)),
        F32,
    );
    check_all(
        "f32 scalar (2,2)",
        0.6_f32,
        f32s(&rand((2, 2), 26, 0.5, 2.0)),
        F32,
    );
    check_all("f32 f32", 0.6_f32, 1.4_f32, F32);
}

#[test]
fn views_as_operands() {
    let a = rand((3, 4), 27, -1.0, 1.0);
    let b = rand((4, 3), 28, 0.5, 2.0);
    // b.t() is a column-major view of shape (3, 4).
    check_vjp2!(
        "mul view",
        F64,
        a.clone(),
        b.clone(),
        |x, y| mul(&x.view(), &y.t()),
        |g, _o| mul_vjp_lhs(g, &x.view(), &y.t()),
        |g, _o| mul_vjp_rhs(g, &x.view(), &y.t()).reversed_axes()
    );
    check_vjp2!(
        "div column view",
        F64,
        a.clone(),
        b.clone(),
        |x, y| div(x, &y.column(0)),
        |g, _o| div_vjp_lhs(g, x, &y.column(0)),
        |g, _o| column_vjp(div_vjp_rhs(g, x, &y.column(0)), y, 0, &y.column(0))
    );
}

#[test]
fn forward_values_are_ndarrays() {
    let a = rand((3, 3), 29, -1.0, 1.0);
    let b = rand((3, 1), 30, 0.5, 2.0);
    let c = rand(3, 31, 0.5, 2.0);
    assert_eq!(add(&a, &b), &a + &b);
    assert_eq!(sub(&a, &c), &a - &c);
    assert_eq!(mul(&2.0, &a), 2.0 * &a);
    assert_eq!(div(&a, &2.0), &a / 2.0);
    assert_eq!(div(&a.t(), &b), &a.t() / &b);
    assert_eq!(
        max(&a, &b),
        Array::from_shape_fn((3, 3), |(i, j)| a[[i, j]].max(b[[i, 0]]))
    );
    assert_eq!(neg(&a), -&a);
    assert_eq!(add(&1.0, &2.0), 3.0);
}

#[test]
fn ties_send_the_gradient_to_the_left_operand() {
    let a = array![1.0, 2.0];
    let b = array![1.0, 3.0];
    let g = array![5.0, 7.0];
    assert_eq!(max_vjp_lhs(&g, &a, &b), array![5.0, 0.0]);
    assert_eq!(max_vjp_rhs(&g, &a, &b), array![0.0, 7.0]);
    assert_eq!(min_vjp_lhs(&g, &a, &b), array![5.0, 7.0]);
    assert_eq!(min_vjp_rhs(&g, &a, &b), array![0.0, 0.0]);
}

#[test]
fn unbroadcast_sums_copies_back() {
    let g = rand((3, 3), 32, -1.0, 1.0);
    assert_eq!(
        unbroadcast(&g, &rand((3, 1), 0, 0.0, 1.0)),
        g.sum_axis(Axis(1)).insert_axis(Axis(1))
    );
    assert_eq!(
        unbroadcast(&g, &rand((1, 3), 0, 0.0, 1.0)),
        g.sum_axis(Axis(0)).insert_axis(Axis(0))
    );
    assert_eq!(unbroadcast(&g, &rand(3, 0, 0.0, 1.0)), g.sum_axis(Axis(0)));
    assert_eq!(unbroadcast(&g, &0.0), g.sum());
    assert_eq!(unbroadcast(g.clone(), &g), g);
    assert_eq!(unbroadcast(2.5, &1.0), 2.5);
    let g3 = rand((2, 4, 3), 33, -1.0, 1.0);
    let s: Array2<f64> = unbroadcast(&g3, &rand((4, 1), 0, 0.0, 1.0));
    assert_eq!(
        s,
        g3.sum_axis(Axis(0)).sum_axis(Axis(1)).insert_axis(Axis(1))
    );
}

/// A bias's gradient, `(n, m) -> (m,)` or `(1, m)`, has the bits of
/// ndarray's `sum_axis(Axis(0))` in every layout and size (the standard
/// layout takes a loop of its own, the others ndarray's), signed zeros
/// included.
#[test]
fn a_bias_gradient_has_the_bits_of_sum_axis() {
    let bits = |a: &Array<f64, ndarray::Ix1>| a.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
    let mut cases = vec![
        rand((1024, 64), 34, -1.0, 1.0),
        rand((5, 3), 35, -1e8, 1e8),
        rand((5, 3).f(), 36, -1.0, 1.0),
        Array2::zeros((0, 4)),
        Array2::zeros((4, 0)),
        Array2::from_elem((3, 2), -0.0),
    ];
    cases.push(
        rand((6, 8), 37, -1.0, 1.0)
            .slice(ndarray::s![..;2, ..])
            .to_owned(),
    );
    for g in &cases {
        let (n, m) = g.dim();
        let want = g.sum_axis(Axis(0));
        let row: Array<f64, ndarray::Ix1> = unbroadcast(g, &Array::<f64, _>::zeros(m));
        assert_eq!(bits(&row), bits(&want), "{n} x {m}");
        let row2: Array2<f64> = unbroadcast(g, &Array2::<f64>::zeros((1, m)));
        assert_eq!(bits(&row2.row(0).to_owned()), bits(&want), "{n} x {m}");
    }
}

#[test]
fn unbroadcast_is_the_adjoint_of_broadcasting() {
    macro_rules! case {
        ($what:expr, $x:expr, $shape:expr) => {
            check_vjp!(
                $what,
                F64,
                $x,
                |x| x.broadcast($shape).unwrap().to_owned(),
                |g, _o| unbroadcast(g, x)
            );
        };
    }
    case!("(3,1) to (3,3)", rand((3, 1), 34, -1.0, 1.0), (3, 3));
    case!("(1,3) to (2,3)", rand((1, 3), 35, -1.0, 1.0), (2, 3));
    case!("(2,1) to (2,3)", rand((2, 1), 36, -1.0, 1.0), (2, 3));
    case!("(3,) to (4,3)", rand(3, 37, -1.0, 1.0), (4, 3));
    case!("(4,1) to (2,4,3)", rand((4, 1), 38, -1.0, 1.0), (2, 4, 3));
    case!("(1,1) to (2,2)", rand((1, 1), 39, -1.0, 1.0), (2, 2));
    check_vjp!(
        "scalar to (2,3)",
        F64,
        0.3_f64,
        |x| Array2::from_elem((2, 3), *x),
        |g, _o| unbroadcast(g, x)
    );
}

#[test]
fn unbroadcast_passes_an_unbroadcast_owned_gradient_through() {
    let g = rand((3, 3), 40, -1.0, 1.0);
    let ptr = g.as_ptr();
    let target = rand((3, 3), 41, 0.0, 1.0);
    assert_eq!(unbroadcast(g, &target).as_ptr(), ptr);
}

/// `*_vjp_both` gives the same gradients as the two rules called apart,
/// whichever operand was broadcast.
#[test]
fn both_adjoints_in_one_call_equal_the_two_rules() {
    let full = array![[1.0, -2.0, 0.5], [3.0, 0.25, -1.0], [2.0, 1.5, -0.5]];
    let col = array![[0.5], [-1.5], [2.0]];
    let g = array![[0.1, 0.2, -0.3], [1.0, -1.0, 0.5], [0.25, 0.75, -2.0]];
    for (a, b) in [(&full, &col), (&col, &full), (&full, &full)] {
        let (da, db) = add_vjp_both(g.clone(), a, b);
        assert_eq!((da, db), (add_vjp_lhs(&g, a, b), add_vjp_rhs(&g, a, b)));
        let (da, db) = sub_vjp_both(g.clone(), a, b);
        assert_eq!((da, db), (sub_vjp_lhs(&g, a, b), sub_vjp_rhs(&g, a, b)));
        let (da, db) = mul_vjp_both(g.clone(), a, b);
        assert_eq!((da, db), (mul_vjp_lhs(&g, a, b), mul_vjp_rhs(&g, a, b)));
        let (da, db) = div_vjp_both(&g, a, b);
        assert_eq!((da, db), (div_vjp_lhs(&g, a, b), div_vjp_rhs(&g, a, b)));
    }
    let s = 1.5_f64;
    let (ds, dm) = mul_vjp_both(g.clone(), &s, &full);
    assert_eq!(
        (ds, dm),
        (mul_vjp_lhs(&g, &s, &full), mul_vjp_rhs(&g, &s, &full))
    );
}

/// `add_vjp_lend_rhs` / `_lhs` give one operand the upstream buffer and the
/// other none when neither was broadcast, and `lent` then lends it the
/// first one's: the same values as the two rules, with no copy. When an
/// operand was broadcast, or the two gradients are of different types, each
/// gets its own, as `add_vjp_both` gives them.
#[test]
fn a_lent_gradient_is_the_other_operands() {
    use backprop_runtime::value::{lent, Cot, Lent};
    let full = array![[1.0, -2.0, 0.5], [3.0, 0.25, -1.0]];
    let other = array![[0.5, 1.0, -1.5], [2.0, -0.5, 0.75]];
    let row = array![[0.5, -1.5, 2.0]];
    let g = array![[0.1, 0.2, -0.3], [1.0, -1.0, 0.5]];
    let ptr = g.as_ptr();
    let (da, db) = add_vjp_lend_rhs(g.clone(), &full, &other);
    assert!(db.is_none());
    let db = lent(db, &da);
    assert!(matches!(db, Lent::Lent(_)));
    assert_eq!(db.get(), &g);
    assert_eq!(da, g);
    let (da, db) = add_vjp_lend_lhs(g.clone(), &full, &other);
    assert!(da.is_none());
    assert_eq!(lent(da, &db).get(), &g);
    // The owner takes the buffer itself.
    let (da, _) = add_vjp_lend_rhs(g, &full, &other);
    assert_eq!(da.as_ptr(), ptr);
    let g = da;
    // Broadcast on either side: each its own, as the two rules.
    for (a, b) in [(&full, &row), (&row, &full)] {
        let (da, db) = add_vjp_lend_rhs(g.clone(), a, b);
        let db = lent(db, &da);
        assert!(matches!(db, Lent::Own(_)));
        assert_eq!(da, add_vjp_lhs(&g, a, b));
        assert_eq!(db.into_owned(), add_vjp_rhs(&g, a, b));
        let (da, db) = add_vjp_lend_lhs(g.clone(), a, b);
        assert_eq!(lent(da, &db).into_owned(), add_vjp_lhs(&g, a, b));
        assert_eq!(db, add_vjp_rhs(&g, a, b));
    }
    // The same shape but another dimension type: no lending across types.
    let dynamic = other.clone().into_dyn();
    let (da, db) = add_vjp_lend_rhs(g.clone().into_dyn(), &full, &dynamic);
    assert_eq!(db, Some(g.clone().into_dyn()));
    assert_eq!(da, g);
}
