//! The arithmetic operators and `unbroadcast`: forward values equal
//! ndarray's operators, and every adjoint (with every broadcasting shape)
//! matches central differences and has its operand's shape.

#[macro_use]
mod common;

use backprop_runtime::ops::*;
use backprop_runtime::{unbroadcast, Tensor, Value};
use common::{f32s, rand, Probe, Tol, F32, F64};
use ndarray::{array, Array, Array1, Array2, ArrayD, Axis, IxDyn, ShapeBuilder};

/// Checks the binary ops on the operands `a` and `b` (`log` has a test of
/// its own, its base away from 1). `powf` gets a positive base.
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
        |g, _o| zip_vjp_lhs(g, x, y, Add).value(),
        |g, _o| zip_vjp_rhs(g, x, y, Add).value()
    );
    check_vjp2!(
        format!("sub {what}"),
        tol,
        a.clone(),
        b.clone(),
        |x, y| sub(x, y),
        |g, _o| zip_vjp_lhs(g, x, y, Sub).value(),
        |g, _o| zip_vjp_rhs(g, x, y, Sub).value()
    );
    check_vjp2!(
        format!("mul {what}"),
        tol,
        a.clone(),
        b.clone(),
        |x, y| mul(x, y),
        |g, _o| zip_vjp_lhs(g, x, y, Mul).value(),
        |g, _o| zip_vjp_rhs(g, x, y, Mul).value()
    );
    check_vjp2!(
        format!("div {what}"),
        tol,
        a.clone(),
        b.clone(),
        |x, y| div(x, y),
        |g, _o| zip_vjp_lhs(g, x, y, Div).value(),
        |g, _o| zip_vjp_rhs(g, x, y, Div).value()
    );
    check_vjp2!(
        format!("max {what}"),
        tol,
        a.clone(),
        b.clone(),
        |x, y| max(x, y),
        |g, _o| zip_vjp_lhs(g, x, y, Max).value(),
        |g, _o| zip_vjp_rhs(g, x, y, Max).value()
    );
    check_vjp2!(
        format!("min {what}"),
        tol,
        a.clone(),
        b.clone(),
        |x, y| min(x, y),
        |g, _o| zip_vjp_lhs(g, x, y, Min).value(),
        |g, _o| zip_vjp_rhs(g, x, y, Min).value()
    );
    let pos_a = a.clone().map_owned(|v| v.abs() + A::Elem::from_f64(0.5));
    check_vjp2!(
        format!("powf {what}"),
        tol,
        pos_a,
        b.clone(),
        |x, y| powf(x, y),
        |g, _o| zip_vjp_lhs(g, x, y, Powf).value(),
        |g, _o| zip_vjp_rhs(g, x, y, Powf).value()
    );
    check_vjp2!(
        format!("atan2 {what}"),
        tol,
        a.clone(),
        b.clone(),
        |x, y| atan2(x, y),
        |g, _o| zip_vjp_lhs(g, x, y, Atan2).value(),
        |g, _o| zip_vjp_rhs(g, x, y, Atan2).value()
    );
    check_vjp2!(
        format!("hypot {what}"),
        tol,
        a.clone(),
        b.clone(),
        |x, y| hypot(x, y),
        |g, _o| zip_vjp_lhs(g, x, y, Hypot).value(),
        |g, _o| zip_vjp_rhs(g, x, y, Hypot).value()
    );
    check_vjp!(
        format!("neg {what}"),
        tol,
        a.clone(),
        |x| neg(x),
        |g, _o| neg_vjp(g)
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
        |g, _o| zip_vjp_lhs(g, &x.view(), &y.t(), Mul).value(),
        |g, _o| zip_vjp_rhs(g, &x.view(), &y.t(), Mul)
            .value()
            .reversed_axes()
    );
    check_vjp2!(
        "div column view",
        F64,
        a.clone(),
        b.clone(),
        |x, y| div(x, &y.column(0)),
        |g, _o| zip_vjp_lhs(g, x, &y.column(0), Div).value(),
        |g, _o| column_vjp(zip_vjp_rhs(g, x, &y.column(0), Div).value(), y, 0).value()
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

/// `x.log(b)` against central differences, the base away from 1, on
/// scalars, arrays and either operand broadcast, f64 and f32.
#[test]
fn log_matches_central_differences() {
    let x = rand((3, 4), 40, 0.5, 3.0);
    let b = rand((3, 1), 41, 2.0, 4.0);
    assert_eq!(
        log(&x, &b),
        Array::from_shape_fn((3, 4), |(i, j)| x[[i, j]].log(b[[i, 0]]))
    );
    assert_eq!(log(&x, &2.5), x.log(2.5), "ndarray's own log");
    check_vjp2!(
        "log (3,4) (3,1)",
        F64,
        x.clone(),
        b.clone(),
        |x, y| log(x, y),
        |g, _o| zip_vjp_lhs(g, x, y, Log).value(),
        |g, _o| zip_vjp_rhs(g, x, y, Log).value()
    );
    check_vjp2!(
        "log (3,4) f64",
        F64,
        x.clone(),
        3.0,
        |x, y| log(x, y),
        |g, _o| zip_vjp_lhs(g, x, y, Log).value(),
        |g, _o| zip_vjp_rhs(g, x, y, Log).value()
    );
    check_vjp2!(
        "log f64 f64",
        F64,
        0.7_f64,
        10.0_f64,
        |x, y| log(x, y),
        |g, _o| zip_vjp_lhs(g, x, y, Log).value(),
        |g, _o| zip_vjp_rhs(g, x, y, Log).value()
    );
    check_vjp2!(
        "log f32",
        F32,
        f32s(&x),
        f32s(&b),
        |x, y| log(x, y),
        |g, _o| zip_vjp_lhs(g, x, y, Log).value(),
        |g, _o| zip_vjp_rhs(g, x, y, Log).value()
    );
}

/// The rules of `atan2`, `hypot` and `log` at hard points (huge and tiny
/// operands, where `x² + y²` overflows or underflows; a base near 1),
/// within 2 ulps of the derivatives computed by mpmath to 60 digits:
/// `(kernel, a, b, ∂a, ∂b)`.
#[test]
fn binary_rules_are_accurate() {
    macro_rules! accurate {
        ($(($k:ident, $a:expr, $b:expr, $da:expr, $db:expr),)*) => {$(
            let (a, b): (f64, f64) = ($a, $b);
            for (side, got, want) in [
                ("lhs", zip_vjp_lhs(1.0, &a, &b, $k).value(), $da),
                ("rhs", zip_vjp_rhs(1.0, &a, &b, $k).value(), $db),
            ] {
                let err = ((got - want) / want).abs() / f64::EPSILON;
                assert!(
                    err <= 2.0,
                    "{} {side} at ({a:e}, {b:e}) = {got:e}, exactly {want:e}: {err} ulps",
                    stringify!($k)
                );
            }
        )*};
    }
    accurate!(
        (Atan2, 1e-200, 3e-200, 3e+199, -1e+199),
        (Atan2, 3e+200, -4e+200, -1.6e-201, -1.2e-201),
        (Atan2, 0.5, 2.0, 0.47058823529411764, -0.11764705882352941),
        (Atan2, -1.0, -1e-10, -1e-10, 1.0),
        (Hypot, 3e+200, 4e+200, 0.6, 0.8),
        (
            Hypot,
            1e-200,
            -2e-200,
            0.4472135954999579,
            -0.8944271909999159
        ),
        (Hypot, 0.5, 2.0, 0.24253562503633297, 0.9701425001453319),
        (Hypot, 1e-10, 1.0, 1e-10, 1.0),
        (
            Log,
            1e-300,
            10.0,
            4.342944819032518e+299,
            13.028834457097554
        ),
        (Log, 8.0, 2.0, 0.18033688011112042, -2.1640425613334453),
        (
            Log,
            3.0,
            1.0000000009313226,
            357913941.5,
            -1.2666137328308088e+18
        ),
        (
            Log,
            1e+300,
            0.5,
            -1.4426950408889634e-300,
            -2875.5175132102318
        ),
    );
}

/// The edges of `atan2`, `hypot` and `log`: no panics, IEEE values.
#[test]
fn atan2_hypot_and_log_edges() {
    // atan2 at the origin, where the angle jumps: NaN gradients.
    assert_eq!(atan2(&0.0_f64, &1.0), 0.0);
    assert!(f64::is_nan(zip_vjp_lhs(1.0_f64, &0.0, &0.0, Atan2).value()));
    assert!(f64::is_nan(zip_vjp_rhs(1.0_f64, &0.0, &0.0, Atan2).value()));
    // hypot at the origin: the subgradient 0, as abs at 0.
    assert_eq!(zip_vjp_lhs(1.0_f64, &0.0, &0.0, Hypot).value(), 0.0);
    assert_eq!(zip_vjp_rhs(1.0_f64, &0.0, &-0.0, Hypot).value(), 0.0);
    assert_eq!(zip_vjp_lhs(1.0_f64, &-2.0, &0.0, Hypot).value(), -1.0);
    // log: at x = 0 the value is -inf and ∂x infinite; base 1 divides by 0.
    assert_eq!(log(&0.0_f64, &2.0), f64::NEG_INFINITY);
    assert_eq!(zip_vjp_lhs(1.0_f64, &0.0, &2.0, Log).value(), f64::INFINITY);
    assert_eq!(zip_vjp_lhs(1.0_f64, &3.0, &1.0, Log).value(), f64::INFINITY);
    assert!(log(&f64::NAN, &2.0).is_nan());
    assert!(f64::is_nan(
        zip_vjp_rhs(1.0_f64, &f64::NAN, &2.0, Log).value()
    ));
    assert!(f64::is_nan(
        zip_vjp_lhs(1.0_f64, &f64::NAN, &1.0, Hypot).value()
    ));
}

/// `mul_add`: `f64::mul_add` bit for bit (one rounding, not `x·a + b`),
/// and its three rules.
#[test]
fn mul_add_is_fused_and_its_rules_are_the_partials() {
    let (x, a, b) = (0.1_f64, 10.0, -1.0);
    // By reference, as the generated code passes it, and by value.
    let by_ref = &x;
    assert_eq!(mul_add(by_ref, &a, &b).to_bits(), x.mul_add(a, b).to_bits());
    assert_eq!(mul_add(x, &a, &b).to_bits(), x.mul_add(a, b).to_bits());
    assert_ne!(mul_add(x, &a, &b), x * a + b, "fused: one rounding");
    assert_eq!(mul_add_vjp_x(2.0, &x, &a, &b), 20.0);
    assert_eq!(mul_add_vjp_a(2.0, &x, &a, &b), 0.2);
    assert_eq!(mul_add_vjp_b(2.0, &x, &a, &b), 2.0);
    assert_eq!(mul_add(1.5_f32, &2.0, &0.25), 3.25_f32);
    assert!(mul_add(f64::NAN, &a, &b).is_nan());
    assert!(mul_add_vjp_a(1.0, &f64::NAN, &a, &b).is_nan());
}

#[test]
fn ties_send_the_gradient_to_the_left_operand() {
    let a = array![1.0, 2.0];
    let b = array![1.0, 3.0];
    let g = array![5.0, 7.0];
    assert_eq!(zip_vjp_lhs(&g, &a, &b, Max).value(), array![5.0, 0.0]);
    assert_eq!(zip_vjp_rhs(&g, &a, &b, Max).value(), array![0.0, 7.0]);
    assert_eq!(zip_vjp_lhs(&g, &a, &b, Min).value(), array![5.0, 7.0]);
    assert_eq!(zip_vjp_rhs(&g, &a, &b, Min).value(), array![0.0, 0.0]);
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

/// `zip_vjp_both` gives the same gradients, bit for bit, as the two
/// one-sided rules called apart, for every binary kernel, whichever operand
/// was broadcast, with an owned or a borrowed upstream gradient; an owned
/// upstream buffer goes to an operand that was not broadcast.
#[test]
fn both_adjoints_in_one_call_equal_the_two_rules() {
    let full = array![[1.0, -2.0, 0.5], [3.0, 0.25, -1.0], [2.0, 1.5, -0.5]];
    let col = array![[0.5], [-1.5], [2.0]];
    let g = array![[0.1, 0.2, -0.3], [1.0, -1.0, 0.5], [0.25, 0.75, -2.0]];
    macro_rules! both {
        ($a:expr, $b:expr, $($k:expr),*) => {$(
            let what = format!("{:?} {:?} {:?}", $k, $a.shape(), $b.shape());
            let lhs = zip_vjp_lhs(&g, $a, $b, $k).value();
            let rhs = zip_vjp_rhs(&g, $a, $b, $k).value();
            let (da, db) = zip_vjp_both(g.clone(), $a, $b, $k);
            common::assert_same(&format!("{what} lhs"), &da, &lhs);
            common::assert_same(&format!("{what} rhs"), &db, &rhs);
            let (da, db) = zip_vjp_both(&g, $a, $b, $k);
            common::assert_same(&format!("{what} lhs, borrowed g"), &da, &lhs);
            common::assert_same(&format!("{what} rhs, borrowed g"), &db, &rhs);
        )*};
    }
    for (a, b) in [(&full, &col), (&col, &full), (&full, &full)] {
        both!(a, b, Add, Sub, Mul, Div, Max, Min, Atan2, Hypot);
        let (pa, pb) = (a.mapv(|v| v.abs() + 0.5), b.mapv(|v| v.abs() + 0.5));
        both!(&pa, &pb, Powf);
        let (pa, pb) = (a.mapv(|v| v.abs() + 0.5), b.mapv(|v| v.abs() + 2.0));
        both!(&pa, &pb, Log);
    }
    let s = 1.5_f64;
    both!(&s, &full, Add, Sub, Mul, Div, Max, Min, Powf);
    both!(&full, &s, Add, Sub, Mul, Div, Max, Min);
    // The owned upstream buffer goes to the operand of the gradient's shape.
    let ptr = g.as_ptr();
    let (da, _) = zip_vjp_both(g.clone(), &full, &col, Mul);
    assert_ne!(da.as_ptr(), ptr, "a copy of g");
    let g2 = g.clone();
    let ptr = g2.as_ptr();
    let (da, db) = zip_vjp_both(g2, &full, &col, Mul);
    assert_eq!(da.as_ptr(), ptr, "∂a of the full operand in g's buffer");
    assert_eq!(db.shape(), &[3, 1]);
    let g2 = g.clone();
    let ptr = g2.as_ptr();
    let (da, db) = zip_vjp_both(g2, &col, &full, Add);
    assert_eq!(db.as_ptr(), ptr, "∂b of the full operand in g's buffer");
    assert_eq!(da.shape(), &[3, 1]);
}

/// `add_vjp_lend(.., Rhs)` / `(.., Lhs)` give one operand the upstream
/// buffer and the other (the borrower) none when neither was broadcast, and
/// `lent` then lends it the first one's: the same values as the two rules,
/// with no copy. When an operand was broadcast, or the two gradients are of
/// different types, each gets its own, as `zip_vjp_both` gives them.
#[test]
fn a_lent_gradient_is_the_other_operands() {
    use backprop_runtime::value::{lent, Cot, Lent};
    let full = array![[1.0, -2.0, 0.5], [3.0, 0.25, -1.0]];
    let other = array![[0.5, 1.0, -1.5], [2.0, -0.5, 0.75]];
    let row = array![[0.5, -1.5, 2.0]];
    let g = array![[0.1, 0.2, -0.3], [1.0, -1.0, 0.5]];
    let ptr = g.as_ptr();
    let (da, db) = add_vjp_lend(g.clone(), &full, &other, Rhs);
    assert!(db.is_none());
    let db = lent(db, &da);
    assert!(matches!(db, Lent::Lent(_)));
    assert_eq!(db.get(), &g);
    assert_eq!(da, g);
    let (da, db) = add_vjp_lend(g.clone(), &full, &other, Lhs);
    assert!(da.is_none());
    assert_eq!(lent(da, &db).get(), &g);
    // The owner takes the buffer itself.
    let (da, _) = add_vjp_lend(g, &full, &other, Rhs);
    assert_eq!(da.as_ptr(), ptr);
    let g = da;
    let g2 = g.clone();
    let p = g2.as_ptr();
    let (_, db) = add_vjp_lend(g2, &full, &other, Lhs);
    assert_eq!(db.as_ptr(), p, "the lender for `Lhs` takes the buffer");
    // Broadcast on either side: each its own, as the two rules.
    for (a, b) in [(&full, &row), (&row, &full)] {
        let (da, db) = add_vjp_lend(g.clone(), a, b, Rhs);
        let db = lent(db, &da);
        assert!(matches!(db, Lent::Own(_)));
        assert_eq!(da, zip_vjp_lhs(&g, a, b, Add).value());
        assert_eq!(db.into_owned(), zip_vjp_rhs(&g, a, b, Add).value());
        let (da, db) = add_vjp_lend(g.clone(), a, b, Lhs);
        assert_eq!(
            lent(da, &db).into_owned(),
            zip_vjp_lhs(&g, a, b, Add).value()
        );
        assert_eq!(db, zip_vjp_rhs(&g, a, b, Add).value());
    }
    // The same shape but another dimension type: no lending across types.
    let dynamic = other.clone().into_dyn();
    let (da, db) = add_vjp_lend(g.clone().into_dyn(), &full, &dynamic, Rhs);
    assert_eq!(db, Some(g.clone().into_dyn()));
    assert_eq!(da, g);
    let (da, db) = add_vjp_lend(g.clone().into_dyn(), &full, &dynamic, Lhs);
    assert_eq!(da, Some(g.clone()));
    assert_eq!(db, g.clone().into_dyn());
}

/// A binary rule's `Contribution` in each of its forms: `.value()` is the
/// local gradient summed back to the operand's shape (`unbroadcast`), and
/// `.add_to(&mut acc)`, `.added_to(acc)` (in `acc`'s buffer) and `.defer`
/// outside a loop's outer products are `acc + value`, all bit for bit
/// against the sums written out here one element after another. For `+`
/// (whose rule is `g` itself, added with no array of its own), `-` (whose
/// rule for `b` is `-g`, subtracted) and `*` (a product first), with the
/// broadcast operand on either side (a column, a bias row, a `(1, n)` row)
/// and none.
#[test]
fn a_contribution_is_the_same_sum_in_every_form() {
    use backprop_runtime::contrib::Contribution;
    use backprop_runtime::contrib::Kind;
    let (n, m) = (3, 4);
    let full = rand((n, m), 60, -1.0, 1.0);
    let other = rand((n, m), 61, -1.0, 1.0);
    let col = rand((n, 1), 62, 0.5, 2.0);
    let bias = rand(m, 63, 0.5, 2.0);
    let row = rand((1, m), 64, 0.5, 2.0);
    let g = rand((n, m), 65, -1.0, 1.0);

    // `Σⱼ f(i, j)` and `Σᵢ f(i, j)`, each from 0, one term after another
    // (fewer than eight terms: ndarray's `sum_axis` adds them so too).
    let over_cols = |f: &dyn Fn(usize, usize) -> f64| {
        Array2::from_shape_fn((n, 1), |(i, _)| (0..m).fold(0.0, |s, j| s + f(i, j)))
    };
    let over_rows = |f: &dyn Fn(usize, usize) -> f64| {
        Array1::from_shape_fn(m, |j| (0..n).fold(0.0, |s, i| s + f(i, j)))
    };

    /// Every form of one contribution against `want`, the value written out.
    fn forms<T, C>(what: &str, rule: impl Fn() -> Contribution<C>, want: &T, acc: &T)
    where
        T: Tensor,
        C: Kind<T>,
        for<'x> &'x T: std::ops::Add<&'x T, Output = T>,
    {
        let by_hand = acc + want;
        common::assert_same(&format!("{what}: value"), &rule().value(), want);
        let mut added = acc.clone();
        rule().add_to(&mut added);
        common::assert_same(&format!("{what}: add_to"), &added, &by_hand);
        common::assert_same(
            &format!("{what}: added_to"),
            &rule().added_to(acc.clone()),
            &by_hand,
        );
        let mut deferred = acc.clone();
        let mut outers = Outers::new(1, [outer_term(&deferred)]);
        rule().defer(outers.term(0, 0), &mut deferred);
        common::assert_same(&format!("{what}: defer"), &deferred, &by_hand);
        let deferred = add_outers(deferred, &mut outers, 0);
        common::assert_same(&format!("{what}: after the loop"), &deferred, &by_hand);
    }
    let acc_col = rand((n, 1), 66, -1.0, 1.0);
    let acc_bias = rand(m, 67, -1.0, 1.0);
    let acc_row = rand((1, m), 68, -1.0, 1.0);
    let acc_full = rand((n, m), 69, -1.0, 1.0);
    let row_of = |v: Array1<f64>| v.insert_axis(Axis(0));

    // A broadcast left operand: a column.
    let sum_g = over_cols(&|i, j| g[[i, j]]);
    forms(
        "col + full",
        || zip_vjp_lhs(&g, &col, &full, Add),
        &sum_g,
        &acc_col,
    );
    forms(
        "col + full, owned g",
        || zip_vjp_lhs(g.clone(), &col, &full, Add),
        &sum_g,
        &acc_col,
    );
    forms(
        "col - full",
        || zip_vjp_lhs(&g, &col, &full, Sub),
        &sum_g,
        &acc_col,
    );
    let want = over_cols(&|i, j| g[[i, j]] * full[[i, j]]);
    forms(
        "col * full",
        || zip_vjp_lhs(&g, &col, &full, Mul),
        &want,
        &acc_col,
    );
    forms(
        "col * full, owned g",
        || zip_vjp_lhs(g.clone(), &col, &full, Mul),
        &want,
        &acc_col,
    );
    // A broadcast right operand: a bias and a row.
    let sum_g = over_rows(&|i, j| g[[i, j]]);
    forms(
        "full + bias",
        || zip_vjp_rhs(&g, &full, &bias, Add),
        &sum_g,
        &acc_bias,
    );
    forms(
        "full + row",
        || zip_vjp_rhs(&g, &full, &row, Add),
        &row_of(sum_g.clone()),
        &acc_row,
    );
    let neg = over_rows(&|i, j| -g[[i, j]]);
    forms(
        "full - bias",
        || zip_vjp_rhs(&g, &full, &bias, Sub),
        &neg,
        &acc_bias,
    );
    forms(
        "full - row, owned g",
        || zip_vjp_rhs(g.clone(), &full, &row, Sub),
        &row_of(neg),
        &acc_row,
    );
    let want = over_rows(&|i, j| g[[i, j]] * full[[i, j]]);
    forms(
        "full * bias",
        || zip_vjp_rhs(&g, &full, &bias, Mul),
        &want,
        &acc_bias,
    );
    forms(
        "full * row",
        || zip_vjp_rhs(&g, &full, &row, Mul),
        &row_of(want),
        &acc_row,
    );
    // The full operand beside a broadcast one, and two full operands.
    forms(
        "full + col",
        || zip_vjp_lhs(&g, &full, &col, Add),
        &g,
        &acc_full,
    );
    let want = Array2::from_shape_fn((n, m), |(i, j)| g[[i, j]] * col[[i, 0]]);
    forms(
        "full * col",
        || zip_vjp_lhs(&g, &full, &col, Mul),
        &want,
        &acc_full,
    );
    forms(
        "full + other",
        || zip_vjp_rhs(g.clone(), &full, &other, Add),
        &g,
        &acc_full,
    );
    forms(
        "full - other",
        || zip_vjp_rhs(&g, &full, &other, Sub),
        &-&g,
        &acc_full,
    );
    let want = Array2::from_shape_fn((n, m), |(i, j)| g[[i, j]] * full[[i, j]]);
    forms(
        "full * other",
        || zip_vjp_rhs(&g, &full, &other, Mul),
        &want,
        &acc_full,
    );

    // `added_to` writes into the buffer it is given.
    let buf = acc_col.clone();
    let p = buf.as_ptr();
    assert_eq!(zip_vjp_lhs(&g, &col, &full, Add).added_to(buf).as_ptr(), p);
    let buf = acc_bias.clone();
    let p = buf.as_ptr();
    assert_eq!(zip_vjp_rhs(&g, &full, &bias, Mul).added_to(buf).as_ptr(), p);
    // A scalar operand: the whole gradient summed (six terms, in order).
    let g23 = rand((2, 3), 70, -1.0, 1.0);
    let m23 = rand((2, 3), 71, 0.5, 2.0);
    let s = 0.75_f64;
    let total = g23.iter().fold(0.0, |t, &x| t + x);
    assert_eq!(
        zip_vjp_lhs(&g23, &s, &m23, Add).value().to_bits(),
        total.to_bits()
    );
    let mut acc = 0.125_f64;
    zip_vjp_lhs(&g23, &s, &m23, Add).add_to(&mut acc);
    assert_eq!(acc.to_bits(), (0.125 + total).to_bits());
    let dots = g23.iter().zip(&m23).fold(0.0, |t, (&x, &y)| t + x * y);
    assert_eq!(
        zip_vjp_lhs(&g23, &s, &m23, Mul).added_to(0.125).to_bits(),
        (0.125 + dots).to_bits()
    );
}
