//! Reductions: forward values are ndarray's, bit for bit, whatever the
//! layout; adjoints match central differences.

#[macro_use]
mod common;

use backprop_runtime::ops::*;
use common::{f32s, rand, F32, F64};
use ndarray::{s, Axis, ShapeBuilder};

#[test]
fn sum_and_mean_forward_are_ndarrays() {
    let a = rand((7, 9), 1, -1.0, 1.0);
    let f = rand((7, 9).f(), 2, -1.0, 1.0);
    let sliced = a.slice(s![1.., ..;2]);
    for v in [a.view(), f.view(), a.t(), sliced] {
        assert_eq!(sum(&v).to_bits(), v.sum().to_bits());
        assert_eq!(mean(&v).to_bits(), v.mean().unwrap().to_bits());
    }
    assert_eq!(sum(&a).to_bits(), a.sum().to_bits());
    assert_eq!(sum(2.5_f64), 2.5);
    assert_eq!(sum(-0.0_f64).to_bits(), (-0.0_f64).to_bits());
    assert_eq!(mean(&2.5_f32), 2.5);
    let a32 = f32s(&a);
    assert_eq!(sum(&a32).to_bits(), a32.sum().to_bits());
    assert_eq!(mean(&a32).to_bits(), a32.mean().unwrap().to_bits());
}

#[test]
fn sum_axis_and_mean_axis_forward_are_ndarrays() {
    let a = rand((4, 5, 3), 3, -1.0, 1.0);
    let f = rand((4, 5, 3).f(), 4, -1.0, 1.0);
    for v in [a.view(), f.view(), a.t()] {
        for k in 0..3 {
            assert_eq!(sum_axis(&v, Axis(k)), v.sum_axis(Axis(k)));
            assert_eq!(mean_axis(&v, Axis(k)), v.mean_axis(Axis(k)).unwrap());
        }
    }
    let v = rand(6, 5, -1.0, 1.0);
    assert_eq!(sum_axis(&v, Axis(0)), v.sum_axis(Axis(0)));
}

#[test]
fn sum_matches_central_differences() {
    check_vjp!("scalar", F64, 0.4_f64, |x| sum(x), |g, _o| sum_vjp(g, x));
    check_vjp!("vector", F64, rand(5, 6, -1.0, 1.0), |x| sum(x), |g, _o| {
        sum_vjp(g, x)
    });
    check_vjp!(
        "matrix",
        F64,
        rand((3, 4), 7, -1.0, 1.0),
        |x| sum(x),
        |g, _o| sum_vjp(g, x)
    );
    check_vjp!(
        "column-major",
        F64,
        rand((3, 4).f(), 8, -1.0, 1.0),
        |x| sum(x),
        |g, _o| sum_vjp(g, x)
    );
    check_vjp!(
        "view",
        F64,
        rand((2, 3, 2), 9, -1.0, 1.0),
        |x| sum(&x.view()),
        |g, _o| sum_vjp(g, &x.view())
    );
    check_vjp!(
        "f32",
        F32,
        f32s(&rand((3, 4), 10, -1.0, 1.0)),
        |x| sum(x),
        |g, _o| sum_vjp(g, x)
    );
}

#[test]
fn mean_matches_central_differences() {
    check_vjp!("scalar", F64, 0.4_f64, |x| mean(x), |g, _o| mean_vjp(g, x));
    check_vjp!(
        "vector",
        F64,
        rand(5, 11, -1.0, 1.0),
        |x| mean(x),
        |g, _o| mean_vjp(g, x)
    );
    check_vjp!(
        "matrix",
        F64,
        rand((3, 4), 12, -1.0, 1.0),
        |x| mean(x),
        |g, _o| mean_vjp(g, x)
    );
    check_vjp!(
        "3-d",
        F64,
        rand((2, 3, 2), 13, -1.0, 1.0),
        |x| mean(x),
        |g, _o| mean_vjp(g, x)
    );
    check_vjp!(
        "f32",
        F32,
        f32s(&rand((3, 4), 14, -1.0, 1.0)),
        |x| mean(x),
        |g, _o| mean_vjp(g, x)
    );
}

#[test]
fn sum_axis_matches_central_differences() {
    for k in 0..2 {
        check_vjp!(
            format!("matrix axis {k}"),
            F64,
            rand((3, 4), 15, -1.0, 1.0),
            |x| sum_axis(x, Axis(k)),
            |g, _o| sum_axis_vjp(g, x, Axis(k))
        );
        check_vjp!(
            format!("column-major axis {k}"),
            F64,
            rand((3, 4).f(), 16, -1.0, 1.0),
            |x| sum_axis(x, Axis(k)),
            |g, _o| sum_axis_vjp(g, x, Axis(k))
        );
        check_vjp!(
            format!("f32 axis {k}"),
            F32,
            f32s(&rand((3, 4), 17, -1.0, 1.0)),
            |x| sum_axis(x, Axis(k)),
            |g, _o| sum_axis_vjp(g, x, Axis(k))
        );
    }
    for k in 0..3 {
        check_vjp!(
            format!("3-d axis {k}"),
            F64,
            rand((2, 3, 4), 18, -1.0, 1.0),
            |x| sum_axis(x, Axis(k)),
            |g, _o| sum_axis_vjp(g, x, Axis(k))
        );
    }
    check_vjp!(
        "vector to 0-d",
        F64,
        rand(4, 19, -1.0, 1.0),
        |x| sum_axis(x, Axis(0)),
        |g, _o| sum_axis_vjp(g, x, Axis(0))
    );
    check_vjp!(
        "transposed view",
        F64,
        rand((3, 4), 20, -1.0, 1.0),
        |x| sum_axis(&x.t(), Axis(0)),
        |g, _o| sum_axis_vjp(g, &x.t(), Axis(0)).reversed_axes()
    );
}

#[test]
fn mean_axis_matches_central_differences() {
    for k in 0..2 {
        check_vjp!(
            format!("matrix axis {k}"),
            F64,
            rand((3, 4), 21, -1.0, 1.0),
            |x| mean_axis(x, Axis(k)),
            |g, _o| mean_axis_vjp(g, x, Axis(k))
        );
        check_vjp!(
            format!("f32 axis {k}"),
            F32,
            f32s(&rand((3, 4), 22, -1.0, 1.0)),
            |x| mean_axis(x, Axis(k)),
            |g, _o| mean_axis_vjp(g, x, Axis(k))
        );
    }
    for k in 0..3 {
        check_vjp!(
            format!("3-d axis {k}"),
            F64,
            rand((2, 3, 4).f(), 23, -1.0, 1.0),
            |x| mean_axis(x, Axis(k)),
            |g, _o| mean_axis_vjp(g, x, Axis(k))
        );
    }
}

#[test]
#[should_panic(expected = "mean_axis: axis 1 of an array of shape [3, 0] is empty")]
fn mean_axis_of_an_empty_axis_panics() {
    let a = ndarray::Array2::<f64>::zeros((3, 0));
    let _ = mean_axis(&a, Axis(1));
}

#[test]
fn mean_axis_of_a_non_empty_axis_of_an_empty_array_is_empty() {
    let a = ndarray::Array2::<f64>::zeros((3, 0));
    assert_eq!(mean_axis(&a, Axis(0)).len(), 0);
}

#[test]
#[should_panic(expected = "mean: the array is empty")]
fn mean_of_an_empty_array_panics() {
    let a = ndarray::Array1::<f64>::zeros(0);
    let _ = mean(&a);
}

/// `sum_square(x)` is `sum(square(x))` bit for bit, for every length around
/// the eightfold unrolling, any layout and the edge values; its rules give
/// `2g·x`, by reference or written over an owned `x`.
#[test]
fn sum_square_is_sum_of_square_bit_for_bit() {
    use ndarray::{s, Array1, Array2, ShapeBuilder};
    let wave = |i: usize| ((i as f64) * 0.731).sin() * 3.0 + 1e-3 * i as f64;
    for n in 0..70 {
        let v = Array1::from_shape_fn(n, wave);
        assert_eq!(
            sum_square(&v).to_bits(),
            sum(&square(&v)).to_bits(),
            "length {n}"
        );
    }
    for (r, c) in [(1, 1), (3, 5), (7, 9), (16, 16), (33, 3)] {
        let a = Array2::from_shape_fn((r, c), |(i, j)| wave(i * c + j));
        let f = Array2::from_shape_fn((r, c).f(), |(i, j)| wave(i * c + j));
        let strided = Array2::from_shape_fn((r, 2 * c), |(i, j)| wave(i * 2 * c + j));
        let strided = strided.slice(s![.., ..;2]);
        for x in [a.view(), f.view(), a.t(), strided] {
            assert_eq!(
                sum_square(&x).to_bits(),
                sum(&square(&x)).to_bits(),
                "{r}x{c}"
            );
        }
    }
    let edges = ndarray::array![
        0.0,
        -0.0,
        1e300,
        -1e-300,
        f64::INFINITY,
        2.0,
        3.0,
        -4.0,
        5.5
    ];
    assert_eq!(sum_square(&edges).to_bits(), sum(&square(&edges)).to_bits());
    assert!(sum_square(&ndarray::array![1.0, f64::NAN]).is_nan());
    assert_eq!(sum_square(-3.0_f64), 9.0);
    // The rule, `x` by reference and by value (written over `x`).
    let x = Array2::from_shape_fn((4, 3), |(i, j)| wave(i * 3 + j));
    let expected = x.mapv(|v| 1.5 * v);
    assert_eq!(sum_square_vjp(0.75, &x), expected);
    let p = x.as_ptr();
    let owned = sum_square_vjp(0.75, x);
    assert_eq!(owned.as_ptr(), p);
    assert_eq!(owned, expected);
    assert_eq!(sum_square_vjp(2.0, &3.0_f64), 12.0);
    assert_eq!(sum_square_vjp(2.0, 3.0_f64), 12.0);
    // A column-major `x` by value keeps its layout, as by reference.
    let f = Array2::from_shape_fn((4, 3).f(), |(i, j)| wave(i * 3 + j));
    let by_ref = sum_square_vjp(0.75, &f);
    let p = f.as_ptr();
    let by_value = sum_square_vjp(0.75, f);
    assert_eq!(by_value.as_ptr(), p);
    assert_eq!(by_value.strides(), by_ref.strides());
    assert!(by_value
        .iter()
        .zip(&by_ref)
        .all(|(a, b)| a.to_bits() == b.to_bits()));
}

#[test]
fn sum_square_matches_central_differences() {
    check_vjp!(
        "matrix",
        F64,
        rand((3, 4), 24, -1.0, 1.0),
        |x| sum_square(x),
        |g, _o| sum_square_vjp(g, x)
    );
    check_vjp!(
        "view",
        F64,
        rand((3, 4), 25, -1.0, 1.0),
        |x| sum_square(&x.t()),
        |g, _o| sum_square_vjp(g, &x.t()).reversed_axes()
    );
    check_vjp!("scalar", F64, 0.7_f64, |x| sum_square(x), |g, _o| {
        sum_square_vjp(g, x)
    });
    check_vjp!(
        "f32",
        F32,
        f32s(&rand((3, 4), 26, -1.0, 1.0)),
        |x| sum_square(x),
        |g, _o| sum_square_vjp(g, x)
    );
}

#[test]
fn max_axis_and_min_axis_forward_are_ndarrays_fold_axis() {
    let mut a = rand((4, 5, 3), 31, -1.0, 1.0);
    a[[1, 2, 0]] = f64::NAN;
    a[[2, 2, 0]] = 0.0;
    a[[3, 2, 0]] = -0.0;
    let f = rand((4, 5, 3).f(), 32, -1.0, 1.0);
    let flipped = a.slice(s![..;-1, .., 1..]);
    for v in [a.view(), f.view(), a.t(), flipped] {
        for k in 0..3 {
            for init in [f64::NEG_INFINITY, 0.25, f64::NAN] {
                let max = v.fold_axis(Axis(k), init, |m, &x| m.max(x));
                let min = v.fold_axis(Axis(k), -init, |m, &x| m.min(x));
                let bits =
                    |a: &ndarray::ArrayD<f64>| a.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
                assert_eq!(
                    bits(&max_axis(&v, Axis(k), init).into_dyn()),
                    bits(&max.into_dyn())
                );
                assert_eq!(
                    bits(&min_axis(&v, Axis(k), -init).into_dyn()),
                    bits(&min.into_dyn())
                );
            }
        }
    }
    let a32 = f32s(&a);
    assert_eq!(
        max_axis(&a32, Axis(1), f32::NEG_INFINITY),
        a32.fold_axis(Axis(1), f32::NEG_INFINITY, |m, &x| m.max(x))
    );
}

#[test]
fn max_axis_and_min_axis_match_central_differences() {
    for k in 0..2 {
        check_vjp!(
            format!("max, matrix axis {k}"),
            F64,
            rand((3, 4), 33, -1.0, 1.0),
            |x| max_axis(x, Axis(k), f64::NEG_INFINITY),
            |g, o| max_axis_vjp(g, x, Axis(k), f64::NEG_INFINITY, o)
        );
        check_vjp!(
            format!("min, column-major axis {k}"),
            F64,
            rand((3, 4).f(), 34, -1.0, 1.0),
            |x| min_axis(x, Axis(k), f64::INFINITY),
            |g, o| min_axis_vjp(g, x, Axis(k), f64::INFINITY, o)
        );
        check_vjp!(
            format!("max, f32 axis {k}"),
            F32,
            f32s(&rand((3, 4), 35, -1.0, 1.0)),
            |x| max_axis(x, Axis(k), f32::NEG_INFINITY),
            |g, o| max_axis_vjp(g, x, Axis(k), f32::NEG_INFINITY, o)
        );
    }
    for k in 0..3 {
        check_vjp!(
            format!("min, 3-d axis {k}"),
            F64,
            rand((2, 3, 4), 36, -1.0, 1.0),
            |x| min_axis(x, Axis(k), f64::INFINITY),
            |g, o| min_axis_vjp(g, x, Axis(k), f64::INFINITY, o)
        );
    }
    check_vjp!(
        "max, vector to 0-d",
        F64,
        rand(4, 37, -1.0, 1.0),
        |x| max_axis(x, Axis(0), f64::NEG_INFINITY),
        |g, o| max_axis_vjp(g, x, Axis(0), f64::NEG_INFINITY, o)
    );
}

/// Ties go to the first element of the lane, a NaN is passed over as
/// `f64::max` passes over it, and a lane whose maximum is the initial
/// value gets no gradient.
#[test]
fn max_axis_gives_the_gradient_to_the_first_maximum_of_each_lane() {
    let a = ndarray::array![
        [1.0, 3.0, 3.0, -1.0],
        [f64::NAN, 2.0, f64::NAN, 0.5],
        [-4.0, -2.0, -3.0, -5.0],
        [0.0, -0.0, 0.0, -1.0],
    ];
    let init = -1.5;
    let out = max_axis(&a, Axis(1), init);
    assert_eq!(out, ndarray::array![3.0, 2.0, -1.5, 0.0]);
    let g = ndarray::array![10.0, 20.0, 30.0, 40.0];
    let d = max_axis_vjp(&g, &a, Axis(1), init, &out);
    let expected = ndarray::array![
        [0.0, 10.0, 0.0, 0.0],
        [0.0, 20.0, 0.0, 0.0],
        [0.0, 0.0, 0.0, 0.0],
        [40.0, 0.0, 0.0, 0.0],
    ];
    assert_eq!(d, expected);
    // Along the other axis: the lanes are the columns, walked top to bottom.
    let out = max_axis(&a, Axis(0), f64::NEG_INFINITY);
    assert_eq!(out, ndarray::array![1.0, 3.0, 3.0, 0.5]);
    let d = max_axis_vjp(
        &ndarray::array![1.0, 2.0, 3.0, 4.0],
        &a,
        Axis(0),
        f64::NEG_INFINITY,
        &out,
    );
    let expected = ndarray::array![
        [1.0, 2.0, 3.0, 0.0],
        [0.0, 0.0, 0.0, 4.0],
        [0.0, 0.0, 0.0, 0.0],
        [0.0, 0.0, 0.0, 0.0],
    ];
    assert_eq!(d, expected);
}

#[test]
fn min_axis_gives_the_gradient_to_the_first_minimum_of_each_lane() {
    let a = ndarray::array![[2.0, -1.0, -1.0], [f64::NAN, 4.0, 1.0], [5.0, 6.0, 7.0]];
    let out = min_axis(&a, Axis(1), 3.0);
    assert_eq!(out, ndarray::array![-1.0, 1.0, 3.0]);
    let d = min_axis_vjp(ndarray::array![1.0, 2.0, 3.0], &a, Axis(1), 3.0, &out);
    assert_eq!(
        d,
        ndarray::array![[0.0, 1.0, 0.0], [0.0, 0.0, 2.0], [0.0, 0.0, 0.0]]
    );
    // An empty axis: the initial value everywhere, and no gradient.
    let e = ndarray::Array2::<f64>::zeros((2, 0));
    let out = min_axis(&e, Axis(1), 3.0);
    assert_eq!(out, ndarray::array![3.0, 3.0]);
    assert_eq!(min_axis_vjp(&out, &e, Axis(1), 3.0, &out).shape(), &[2, 0]);
}
