//! The elementwise ops: forward values equal the `std` method per element,
//! adjoints match central differences (scalars and arrays, f64 and f32,
//! owned, viewed and column-major inputs), and the documented edge values.

#[macro_use]
mod common;

use backprop_runtime::ops::*;
use common::{f32s, rand, rand_away, F32, F64};
use ndarray::{array, Array1, ShapeBuilder};

/// Checks `$fwd`/`$vjp` on f64 and f32 scalars and arrays (standard,
/// column-major and viewed), inputs drawn from `$gen(lo, hi)`, and that the
/// forward equals `$reference` per element.
macro_rules! elementwise {
    ($test:ident, $fwd:ident, $vjp:ident, $gen:ident, $lo:expr, $hi:expr, $reference:expr) => {
        #[test]
        fn $test() {
            let name = stringify!($fwd);
            let reference: fn(f64) -> f64 = $reference;
            let a = $gen((3, 4), 1, $lo, $hi);
            // Forward: bit for bit the std method, by value, by reference, views.
            assert_eq!($fwd(&a), a.mapv(reference), "{name} array");
            assert_eq!($fwd(&a.view()), a.mapv(reference), "{name} view");
            let s = a[[0, 0]];
            assert_eq!($fwd(s).to_bits(), reference(s).to_bits(), "{name} scalar");
            assert_eq!($fwd(&s).to_bits(), reference(s).to_bits(), "{name} &scalar");

            check_vjp!("f64 scalar", F64, a[[1, 2]], |x| $fwd(x), |g, out| $vjp(
                g, x, out
            ));
            check_vjp!("f64 array", F64, a.clone(), |x| $fwd(x), |g, out| $vjp(
                g, x, out
            ));
            check_vjp!(
                "f64 column-major",
                F64,
                $gen((4, 3).f(), 2, $lo, $hi),
                |x| $fwd(x),
                |g, out| $vjp(g, x, out)
            );
            check_vjp!(
                "f64 view",
                F64,
                $gen(5, 3, $lo, $hi),
                |x| $fwd(&x.view()),
                |g, out| $vjp(g, &x.view(), out)
            );
            check_vjp!(
                "f64 3-d",
                F64,
                $gen((2, 3, 2), 4, $lo, $hi),
                |x| $fwd(x),
                |g, out| $vjp(g, x, out)
            );
            check_vjp!(
                "f32 scalar",
                F32,
                a[[2, 1]] as f32,
                |x| $fwd(x),
                |g, out| $vjp(g, x, out)
            );
            check_vjp!("f32 array", F32, f32s(&a), |x| $fwd(x), |g, out| $vjp(
                g, x, out
            ));
        }
    };
}

/// Values in `[lo, hi)`, the sign random (the generator for ops that must
/// avoid 0).
fn away<Sh: ShapeBuilder>(shape: Sh, seed: u64, lo: f64, hi: f64) -> ndarray::Array<f64, Sh::Dim> {
    rand_away(shape, seed, lo, hi)
}

elementwise!(
    exp_matches_central_differences,
    exp,
    exp_vjp,
    rand,
    -2.0,
    2.0,
    f64::exp
);
elementwise!(
    ln_matches_central_differences,
    ln,
    ln_vjp,
    rand,
    0.2,
    3.0,
    f64::ln
);
elementwise!(
    sqrt_matches_central_differences,
    sqrt,
    sqrt_vjp,
    rand,
    0.2,
    3.0,
    f64::sqrt
);
elementwise!(
    square_matches_central_differences,
    square,
    square_vjp,
    rand,
    -2.0,
    2.0,
    |v| v * v
);
elementwise!(
    abs_matches_central_differences,
    abs,
    abs_vjp,
    away,
    0.1,
    2.0,
    f64::abs
);
elementwise!(
    sin_matches_central_differences,
    sin,
    sin_vjp,
    rand,
    -3.0,
    3.0,
    f64::sin
);
elementwise!(
    cos_matches_central_differences,
    cos,
    cos_vjp,
    rand,
    -3.0,
    3.0,
    f64::cos
);
elementwise!(
    tan_matches_central_differences,
    tan,
    tan_vjp,
    rand,
    -1.2,
    1.2,
    f64::tan
);
elementwise!(
    tanh_matches_central_differences,
    tanh,
    tanh_vjp,
    rand,
    -2.0,
    2.0,
    f64::tanh
);
elementwise!(
    sigmoid_matches_central_differences,
    sigmoid,
    sigmoid_vjp,
    rand,
    -4.0,
    4.0,
    |v| 1.0 / (1.0 + (-v).exp())
);
elementwise!(
    relu_matches_central_differences,
    relu,
    relu_vjp,
    away,
    0.1,
    2.0,
    |v| v.max(0.0)
);
elementwise!(
    recip_matches_central_differences,
    recip,
    recip_vjp,
    away,
    0.3,
    2.0,
    f64::recip
);

#[test]
fn sigmoid_forward_is_close_to_the_textbook_formula() {
    // The stable form is not bit-identical to 1 / (1 + e⁻ˣ) for x < 0.
    let a = rand(50, 3, -30.0, 30.0);
    for (&x, &s) in a.iter().zip(&sigmoid(&a)) {
        let textbook = 1.0 / (1.0 + (-x).exp());
        assert!(
            (s - textbook).abs() <= 1e-15 * textbook.max(1e-300) + 1e-300,
            "{x}: {s} vs {textbook}"
        );
    }
}

#[test]
fn powi_matches_central_differences() {
    for n in [-3, -2, -1, 0, 1, 2, 3, 5] {
        let a = rand_away((3, 4), (n + 10) as u64, 0.3, 1.7);
        assert_eq!(powi(&a, n), a.mapv(|v| v.powi(n)));
        assert_eq!(powi(a[[0, 0]], n), a[[0, 0]].powi(n));
        check_vjp!("f64 scalar", F64, a[[0, 1]], |x| powi(x, n), |g, out| {
            powi_vjp(g, x, n, out)
        });
        check_vjp!("f64 array", F64, a.clone(), |x| powi(x, n), |g, out| {
            powi_vjp(g, x, n, out)
        });
        check_vjp!(
            "f64 view",
            F64,
            a.clone(),
            |x| powi(&x.view(), n),
            |g, out| powi_vjp(g, &x.view(), n, out)
        );
        check_vjp!("f32 array", F32, f32s(&a), |x| powi(x, n), |g, out| {
            powi_vjp(g, x, n, out)
        });
    }
}

#[test]
fn powi_zero_exponent_has_zero_gradient_even_at_zero() {
    assert_eq!(powi_vjp(1.0, &0.0_f64, 0, &1.0), 0.0);
    assert!(powi_vjp(1.0, &f64::NAN, 0, &1.0).is_nan());
    // n = 1 at 0: derivative 1; n = 2 at 0: derivative 0.
    assert_eq!(powi_vjp(2.0, &0.0_f64, 1, &0.0), 2.0);
    assert_eq!(powi_vjp(2.0, &0.0_f64, 2, &0.0), 0.0);
    // i32::MIN does not overflow n - 1.
    assert_eq!(powi_vjp(1.0, &1.0_f64, i32::MIN, &1.0), f64::from(i32::MIN));
}

#[test]
fn kinks_take_the_subgradient_zero() {
    let x = array![-1.0, -0.0, 0.0, 2.0];
    let g = Array1::from_elem(4, 3.0);
    assert_eq!(relu_vjp(&g, &x, &relu(&x)), array![0.0, 0.0, 0.0, 3.0]);
    assert_eq!(abs_vjp(&g, &x, &abs(&x)), array![-3.0, 0.0, 0.0, 3.0]);
    assert_eq!(relu_vjp(1.0, &0.0, &0.0), 0.0);
    assert_eq!(abs_vjp(1.0, &0.0, &0.0), 0.0);
    assert_eq!(abs_vjp(1.0, &-0.0, &0.0), 0.0);
}

#[test]
fn sqrt_at_zero_has_an_infinite_gradient() {
    assert_eq!(sqrt(0.0_f64), 0.0);
    assert_eq!(sqrt_vjp(1.0, &0.0_f64, &0.0), f64::INFINITY);
    assert_eq!(sqrt_vjp(1.0_f32, &0.0_f32, &0.0_f32), f32::INFINITY);
    assert!(sqrt(-1.0_f64).is_nan());
    assert!(sqrt_vjp(1.0, &-1.0_f64, &sqrt(-1.0_f64)).is_nan());
}

#[test]
fn ln_edges_follow_ieee() {
    assert_eq!(ln(0.0_f64), f64::NEG_INFINITY);
    assert!(ln(-1.0_f64).is_nan());
    assert_eq!(ln_vjp(1.0, &0.0_f64, &f64::NEG_INFINITY), f64::INFINITY);
    assert_eq!(
        ln_vjp(-1.0, &0.0_f64, &f64::NEG_INFINITY),
        f64::NEG_INFINITY
    );
    // The gradient at a negative x is g / x, as PyTorch gives.
    assert_eq!(ln_vjp(1.0, &-2.0_f64, &f64::NAN), -0.5);
}

#[test]
fn recip_at_zero() {
    assert_eq!(recip(0.0_f64), f64::INFINITY);
    assert_eq!(recip_vjp(1.0, &0.0_f64, &f64::INFINITY), f64::NEG_INFINITY);
}

#[test]
fn sigmoid_is_stable_for_large_inputs() {
    let x = array![-1000.0_f64, -50.0, 0.0, 50.0, 1000.0];
    let s = sigmoid(&x);
    assert!(s.iter().all(|v| v.is_finite()), "{s}");
    assert_eq!(s[0], 0.0);
    assert_eq!(s[4], 1.0);
    assert_eq!(s[2], 0.5);
    let d = sigmoid_vjp(Array1::ones(5), &x, &s);
    assert!(d.iter().all(|v| v.is_finite()), "{d}");
    assert_eq!(d[0], 0.0);
    assert_eq!(d[4], 0.0);
    assert_eq!(d[2], 0.25);
    let s32 = sigmoid(&array![-1000.0_f32, 1000.0]);
    assert_eq!(s32, array![0.0, 1.0]);
}

#[test]
fn nan_inputs_give_nan_values_and_gradients() {
    let x = array![f64::NAN, 0.5];
    let g = array![1.0, 1.0];
    macro_rules! nan {
        ($($fwd:ident $vjp:ident),*) => {$(
            let out = $fwd(&x);
            assert!(out[0].is_nan(), "{} value", stringify!($fwd));
            let d = $vjp(&g, &x, &out);
            assert!(d[0].is_nan(), "{} gradient", stringify!($fwd));
            assert!(!d[1].is_nan(), "{} gradient of a number", stringify!($fwd));
            assert!($vjp(1.0, &f64::NAN, &$fwd(f64::NAN)).is_nan(), "{} scalar", stringify!($fwd));
        )*};
    }
    nan!(exp exp_vjp, ln ln_vjp, sqrt sqrt_vjp, square square_vjp, abs abs_vjp, sin sin_vjp, cos cos_vjp,
         tan tan_vjp, tanh tanh_vjp, sigmoid sigmoid_vjp, relu relu_vjp, recip recip_vjp);
    assert!(powi(f64::NAN, 3).is_nan());
    assert!(powi_vjp(1.0, &f64::NAN, 3, &f64::NAN).is_nan());
}

#[test]
fn owned_upstream_buffer_is_reused() {
    let x = rand((4, 4), 9, -1.0, 1.0);
    let out = exp(&x);
    let g = rand((4, 4), 10, -1.0, 1.0);
    let ptr = g.as_ptr();
    let d = exp_vjp(g, &x, &out);
    assert_eq!(d.as_ptr(), ptr, "exp_vjp copied an owned upstream");
    let g = rand((4, 4), 11, -1.0, 1.0);
    let ptr = g.as_ptr();
    assert_eq!(relu_vjp(g, &x, &relu(&x)).as_ptr(), ptr);
}
