//! The elementwise ops and their kernels: forward values equal the `std`
//! method per element (by reference and by value), each kernel's rule,
//! through the generic primitive for what it reads (`map_vjp_out`,
//! `map_vjp_x`), matches central differences (scalars and arrays, f64 and
//! f32, owned, viewed and column-major inputs), the documented edge values
//! (poles, overflow, the jumps of the piecewise constant ops, `clamp`'s
//! bounds), and the accuracy of `sigmoid`, `softplus`, `log_sigmoid` and
//! the rules of the `f64` methods against high-precision references.

#[macro_use]
mod common;

use backprop_runtime::kernels::{
    map, map_vjp, map_vjp_g, map_vjp_out, map_vjp_x, zip_map, Unary, XOut,
};
use backprop_runtime::ops::*;
use common::{f32s, rand, rand_away, F32, F64};
use ndarray::{array, Array1, ShapeBuilder};

/// The rule of the kernel `$k` through the generic primitive for what it
/// reads: `map_vjp_out` (the output), `map_vjp_x` (the input) or
/// `map_vjp_g` (neither).
macro_rules! rule {
    (out, $k:expr, $g:expr, $x:expr, $out:expr) => {{
        let _ = $x;
        map_vjp_out($g, $out, $k)
    }};
    (x, $k:expr, $g:expr, $x:expr, $out:expr) => {{
        let _ = $out;
        map_vjp_x($g, $x, $k)
    }};
    (g, $k:expr, $g:expr, $x:expr, $out:expr) => {{
        let _ = ($x, $out);
        map_vjp_g($g, $k)
    }};
}

/// Checks `$fwd` and the rule of its kernel `$k` (which reads `$reads`,
/// `out` or `x`) on f64 and f32 scalars and arrays (standard, column-major
/// and viewed), inputs drawn from `$gen(lo, hi)`, and that the forward and
/// the kernel's `f` equal `$reference` per element.
macro_rules! elementwise {
    ($test:ident, $fwd:ident, $k:expr, $reads:ident, $gen:ident, $lo:expr, $hi:expr, $reference:expr) => {
        #[test]
        fn $test() {
            let name = stringify!($fwd);
            let reference: fn(f64) -> f64 = $reference;
            let a = $gen((3, 4), 1, $lo, $hi);
            // Forward: bit for bit the std method, by value, by reference, views.
            assert_eq!($fwd(&a), a.mapv(reference), "{name} array");
            assert_eq!($fwd(&a.view()), a.mapv(reference), "{name} view");
            assert_eq!($fwd(a.clone()), a.mapv(reference), "{name} array by value");
            let s = a[[0, 0]];
            assert_eq!($fwd(s).to_bits(), reference(s).to_bits(), "{name} scalar");
            assert_eq!($fwd(&s).to_bits(), reference(s).to_bits(), "{name} &scalar");
            assert_eq!($k.f(s).to_bits(), reference(s).to_bits(), "{name} kernel");
            assert_eq!($k.f(s as f32), $fwd(s as f32), "{name} f32 kernel");

            check_vjp!("f64 scalar", F64, a[[1, 2]], |x| $fwd(x), |g, out| rule!(
                $reads, $k, g, x, out
            ));
            check_vjp!("f64 array", F64, a.clone(), |x| $fwd(x), |g, out| rule!(
                $reads, $k, g, x, out
            ));
            check_vjp!(
                "f64 column-major",
                F64,
                $gen((4, 3).f(), 2, $lo, $hi),
                |x| $fwd(x),
                |g, out| rule!($reads, $k, g, x, out)
            );
            check_vjp!(
                "f64 view",
                F64,
                $gen(5, 3, $lo, $hi),
                |x| $fwd(&x.view()),
                |g, out| rule!($reads, $k, g, &x.view(), &out.view())
            );
            check_vjp!(
                "f64 3-d",
                F64,
                $gen((2, 3, 2), 4, $lo, $hi),
                |x| $fwd(x),
                |g, out| rule!($reads, $k, g, x, out)
            );
            check_vjp!(
                "f32 scalar",
                F32,
                a[[2, 1]] as f32,
                |x| $fwd(x),
                |g, out| rule!($reads, $k, g, x, out)
            );
            check_vjp!("f32 array", F32, f32s(&a), |x| $fwd(x), |g, out| rule!(
                $reads, $k, g, x, out
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
    Exp,
    out,
    rand,
    -2.0,
    2.0,
    f64::exp
);
elementwise!(
    ln_matches_central_differences,
    ln,
    Ln,
    x,
    rand,
    0.2,
    3.0,
    f64::ln
);
elementwise!(
    sqrt_matches_central_differences,
    sqrt,
    Sqrt,
    out,
    rand,
    0.2,
    3.0,
    f64::sqrt
);
elementwise!(
    square_matches_central_differences,
    square,
    Square,
    x,
    rand,
    -2.0,
    2.0,
    |v| v * v
);
elementwise!(
    abs_matches_central_differences,
    abs,
    Abs,
    x,
    away,
    0.1,
    2.0,
    f64::abs
);
elementwise!(
    sin_matches_central_differences,
    sin,
    Sin,
    x,
    rand,
    -3.0,
    3.0,
    f64::sin
);
elementwise!(
    cos_matches_central_differences,
    cos,
    Cos,
    x,
    rand,
    -3.0,
    3.0,
    f64::cos
);
elementwise!(
    tan_matches_central_differences,
    tan,
    Tan,
    out,
    rand,
    -1.2,
    1.2,
    f64::tan
);
elementwise!(
    tanh_matches_central_differences,
    tanh,
    Tanh,
    out,
    rand,
    -2.0,
    2.0,
    f64::tanh
);
elementwise!(
    sigmoid_matches_central_differences,
    sigmoid,
    Sigmoid,
    out,
    rand,
    -4.0,
    4.0,
    |v| 1.0 / (1.0 + (-v).exp())
);
elementwise!(
    relu_matches_central_differences,
    relu,
    Relu,
    out,
    away,
    0.1,
    2.0,
    |v| v.max(0.0)
);
elementwise!(
    recip_matches_central_differences,
    recip,
    Recip,
    out,
    away,
    0.3,
    2.0,
    f64::recip
);
elementwise!(
    softplus_matches_central_differences,
    softplus,
    Softplus,
    out,
    rand,
    -6.0,
    6.0,
    |v| v.max(0.0) + (-v.abs()).exp().ln_1p()
);
elementwise!(
    log_sigmoid_matches_central_differences,
    log_sigmoid,
    LogSigmoid,
    out,
    rand,
    -6.0,
    6.0,
    |v| v.min(0.0) - (-v.abs()).exp().ln_1p()
);

elementwise!(
    sinh_matches_central_differences,
    sinh,
    Sinh,
    out,
    rand,
    -2.0,
    2.0,
    f64::sinh
);
elementwise!(
    cosh_matches_central_differences,
    cosh,
    Cosh,
    x,
    rand,
    -2.0,
    2.0,
    f64::cosh
);
elementwise!(
    asinh_matches_central_differences,
    asinh,
    Asinh,
    x,
    rand,
    -3.0,
    3.0,
    f64::asinh
);
elementwise!(
    acosh_matches_central_differences,
    acosh,
    Acosh,
    x,
    rand,
    1.2,
    3.0,
    f64::acosh
);
elementwise!(
    atanh_matches_central_differences,
    atanh,
    Atanh,
    x,
    rand,
    -0.8,
    0.8,
    f64::atanh
);
elementwise!(
    asin_matches_central_differences,
    asin,
    Asin,
    x,
    rand,
    -0.8,
    0.8,
    f64::asin
);
elementwise!(
    acos_matches_central_differences,
    acos,
    Acos,
    x,
    rand,
    -0.8,
    0.8,
    f64::acos
);
elementwise!(
    atan_matches_central_differences,
    atan,
    Atan,
    x,
    rand,
    -3.0,
    3.0,
    f64::atan
);
elementwise!(
    exp2_matches_central_differences,
    exp2,
    Exp2,
    out,
    rand,
    -2.0,
    2.0,
    f64::exp2
);
elementwise!(
    exp_m1_matches_central_differences,
    exp_m1,
    ExpM1,
    x,
    rand,
    -2.0,
    2.0,
    f64::exp_m1
);
elementwise!(
    ln_1p_matches_central_differences,
    ln_1p,
    Ln1p,
    x,
    rand,
    -0.5,
    2.0,
    f64::ln_1p
);
elementwise!(
    log2_matches_central_differences,
    log2,
    Log2,
    x,
    rand,
    0.2,
    3.0,
    f64::log2
);
elementwise!(
    log10_matches_central_differences,
    log10,
    Log10,
    x,
    rand,
    0.2,
    3.0,
    f64::log10
);
elementwise!(
    cbrt_matches_central_differences,
    cbrt,
    Cbrt,
    out,
    away,
    0.2,
    3.0,
    f64::cbrt
);
elementwise!(
    to_degrees_matches_central_differences,
    to_degrees,
    ToDegrees,
    g,
    rand,
    -3.0,
    3.0,
    f64::to_degrees
);
elementwise!(
    to_radians_matches_central_differences,
    to_radians,
    ToRadians,
    g,
    rand,
    -3.0,
    3.0,
    f64::to_radians
);
elementwise!(
    signum_matches_central_differences,
    signum,
    Signum,
    out,
    off_grid,
    -3.0,
    3.0,
    f64::signum
);
elementwise!(
    floor_matches_central_differences,
    floor,
    Floor,
    out,
    off_grid,
    -3.0,
    3.0,
    f64::floor
);
elementwise!(
    ceil_matches_central_differences,
    ceil,
    Ceil,
    out,
    off_grid,
    -3.0,
    3.0,
    f64::ceil
);
elementwise!(
    round_matches_central_differences,
    round,
    Round,
    out,
    off_grid,
    -3.0,
    3.0,
    f64::round
);
elementwise!(
    trunc_matches_central_differences,
    trunc,
    Trunc,
    out,
    off_grid,
    -3.0,
    3.0,
    f64::trunc
);
elementwise!(
    fract_matches_central_differences,
    fract,
    Fract,
    out,
    off_grid,
    -3.0,
    3.0,
    f64::fract
);

/// Values in `[lo, hi)` at least 0.1 from every integer and every half,
/// where the piecewise constant ops jump (the f32 step is 0.01).
fn off_grid<Sh: ShapeBuilder>(
    shape: Sh,
    seed: u64,
    lo: f64,
    hi: f64,
) -> ndarray::Array<f64, Sh::Dim> {
    rand(shape, seed, lo, hi).mapv_into(|v| v.floor() + 0.1 + 0.3 * (v - v.floor()))
}

/// `|got − want| / |want|` (`|got|` where `want` is 0).
fn rel_err(got: f64, want: f64) -> f64 {
    if want == 0.0 {
        got.abs()
    } else {
        ((got - want) / want).abs()
    }
}

/// Reference values at `x`: `softplus(x) = ln(1 + eˣ)`, `log_sigmoid(x) =
/// −ln(1 + e⁻ˣ)`, `σ(x) = 1 / (1 + e⁻ˣ)` and `σ(−x)`, computed with mpmath at
/// 80 digits (`log1p(exp(x))`, `-log1p(exp(-x))`, `1 / (1 + exp(-x))`,
/// `1 / (1 + exp(x))`) and rounded to the nearest f64.
#[rustfmt::skip]
const REFERENCE: [(f64, f64, f64, f64, f64); 7] = [
    // x      softplus                log_sigmoid              σ(x)                    σ(−x)
    (-700.0, 9.85967654375977e-305,  -700.0,                  9.85967654375977e-305,  1.0),
    (-40.0,  4.248354255291589e-18,  -40.0,                   4.248354255291589e-18,  1.0),
    (-1.0,   0.3132616875182228,     -1.3132616875182228,     0.2689414213699951,     0.7310585786300049),
    (1e-8,   0.6931471855599454,     -0.6931471755599453,     0.5000000025,           0.4999999975),
    (3.0,    3.048587351573742,      -0.04858735157374206,    0.9525741268224333,     0.04742587317756678),
    (40.0,   40.0,                   -4.248354255291589e-18,  1.0,                    4.248354255291589e-18),
    (700.0,  700.0,                  -9.85967654375977e-305,  1.0,                    9.85967654375977e-305),
];

/// `σ(x)` is `1 / (1 + e⁻ˣ)` as written, bit for bit, for inputs of either
/// sign and the extremes (where `e⁻ˣ` overflows the value is exactly 0),
/// and within a few ulps of the exact value.
#[test]
fn sigmoid_forward_is_the_textbook_formula_bit_for_bit() {
    let textbook = |x: f64| 1.0 / (1.0 + (-x).exp());
    let mut a = rand(50, 3, -30.0, 30.0).to_vec();
    a.extend([
        -1000.0,
        -745.2,
        -709.79,
        -709.78,
        -40.0,
        -1e-300,
        -0.0,
        0.0,
        1e-300,
        40.0,
        745.2,
        1000.0,
        f64::INFINITY,
        f64::NEG_INFINITY,
    ]);
    let a = Array1::from_vec(a);
    for (&x, &s) in a.iter().zip(&sigmoid(&a)) {
        assert_eq!(
            s.to_bits(),
            textbook(x).to_bits(),
            "{x}: {s} vs {}",
            textbook(x)
        );
        assert_eq!(sigmoid(x).to_bits(), s.to_bits(), "{x}: scalar");
        assert_eq!(Sigmoid.f(x).to_bits(), s.to_bits(), "{x}: kernel");
    }
    assert_eq!(sigmoid(-709.79_f64), 0.0);
    assert!(sigmoid(f64::NAN).is_nan());
    for (x, _, _, want, _) in REFERENCE {
        let s = sigmoid(x);
        assert!(
            rel_err(s, want) <= 2.0 * f64::EPSILON,
            "σ({x}) = {s:e}, exactly {want:e}"
        );
    }
}

/// `softplus` and `log_sigmoid` at 0, ±1000, ±inf and NaN, in f64 and f32,
/// and their rules there: never NaN for a number, the right limits.
#[test]
fn softplus_and_log_sigmoid_edge_values() {
    use std::f64::consts::LN_2;
    assert_eq!(softplus(0.0_f64), LN_2);
    assert_eq!(softplus(-0.0_f64), LN_2);
    assert_eq!(log_sigmoid(0.0_f64), -LN_2);
    assert_eq!(softplus(0.0_f32), std::f32::consts::LN_2);
    assert_eq!(log_sigmoid(0.0_f32), -std::f32::consts::LN_2);
    assert_eq!(softplus(1000.0_f64), 1000.0);
    assert_eq!(softplus(-1000.0_f64), 0.0);
    assert_eq!(log_sigmoid(1000.0_f64), 0.0);
    assert_eq!(log_sigmoid(-1000.0_f64), -1000.0);
    assert_eq!(softplus(1000.0_f32), 1000.0);
    assert_eq!(softplus(-1000.0_f32), 0.0);
    assert_eq!(log_sigmoid(1000.0_f32), 0.0);
    assert_eq!(log_sigmoid(-1000.0_f32), -1000.0);
    assert_eq!(softplus(f64::INFINITY), f64::INFINITY);
    assert_eq!(softplus(f64::NEG_INFINITY), 0.0);
    assert_eq!(log_sigmoid(f64::INFINITY), 0.0);
    assert_eq!(log_sigmoid(f64::NEG_INFINITY), f64::NEG_INFINITY);
    assert!(softplus(f64::NAN).is_nan());
    assert!(log_sigmoid(f64::NAN).is_nan());
    assert!(softplus(f32::NAN).is_nan());
    assert!(log_sigmoid(f32::NAN).is_nan());
    // Arrays, by reference and by value.
    let x = array![
        0.0,
        1000.0,
        -1000.0,
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::NAN
    ];
    let sp = softplus(&x);
    let ls = log_sigmoid(&x);
    assert_eq!(
        sp.slice(ndarray::s![..5]),
        array![LN_2, 1000.0, 0.0, f64::INFINITY, 0.0]
    );
    assert_eq!(
        ls.slice(ndarray::s![..5]),
        array![-LN_2, 0.0, -1000.0, 0.0, f64::NEG_INFINITY]
    );
    assert!(sp[5].is_nan() && ls[5].is_nan());
    // The rules, from the outputs: σ(x) and 1 − σ(x) at the extremes.
    let g = Array1::from_elem(6, 2.0);
    let d_sp = map_vjp_out(&g, &sp, Softplus);
    assert_eq!(
        d_sp.slice(ndarray::s![..5]),
        array![1.0, 2.0, 0.0, 2.0, 0.0]
    );
    assert!(d_sp[5].is_nan());
    let d_ls = map_vjp_out(&g, &ls, LogSigmoid);
    assert_eq!(
        d_ls.slice(ndarray::s![..5]),
        array![1.0, 0.0, 2.0, 0.0, 2.0]
    );
    assert!(d_ls[5].is_nan());
    assert_eq!(map_vjp_out(1.0_f32, &softplus(1000.0_f32), Softplus), 1.0);
    assert_eq!(map_vjp_out(1.0_f32, &softplus(-1000.0_f32), Softplus), 0.0);
    assert_eq!(
        map_vjp_out(1.0_f32, &log_sigmoid(-1000.0_f32), LogSigmoid),
        1.0
    );
    assert_eq!(
        map_vjp_out(1.0_f32, &log_sigmoid(1000.0_f32), LogSigmoid),
        0.0
    );
}

/// `softplus` and `log_sigmoid` are within a few ulps of the exact values
/// (no cancellation where `ln(1 + eˣ)` written naively gives 0, 1 or loses
/// digits), and their rules, read from the output, are `σ(x)` and `σ(−x)`
/// to a relative error below 1e-12 where they are tiny (`x = ∓40, ∓700`).
#[test]
fn softplus_and_log_sigmoid_are_accurate() {
    for (x, sp_want, ls_want, sig, sig_neg) in REFERENCE {
        let (sp, ls) = (softplus(x), log_sigmoid(x));
        assert!(
            rel_err(sp, sp_want) <= 4.0 * f64::EPSILON,
            "softplus({x}) = {sp:e}, exactly {sp_want:e}"
        );
        assert!(
            rel_err(ls, ls_want) <= 4.0 * f64::EPSILON,
            "log_sigmoid({x}) = {ls:e}, exactly {ls_want:e}"
        );
        let d_sp = map_vjp_out(1.0, &sp, Softplus);
        assert!(
            rel_err(d_sp, sig) < 1e-12,
            "softplus'({x}) = {d_sp:e}, σ({x}) = {sig:e}"
        );
        let d_ls = map_vjp_out(1.0, &ls, LogSigmoid);
        assert!(
            rel_err(d_ls, sig_neg) < 1e-12,
            "log_sigmoid'({x}) = {d_ls:e}, σ({}) = {sig_neg:e}",
            -x
        );
        // The upstream gradient scales the rule.
        assert_eq!(map_vjp_out(-0.5, &sp, Softplus), -0.5 * d_sp);
    }
    // x = -40: the rule is σ(-40) ≈ 4.25e-18, not 1 - e^-softplus rounded to 0.
    let d = map_vjp_out(1.0, &softplus(-40.0_f64), Softplus);
    assert!(rel_err(d, 4.248354255291589e-18) < 1e-12, "{d:e}");
    let d = map_vjp_out(1.0, &log_sigmoid(40.0_f64), LogSigmoid);
    assert!(rel_err(d, 4.248354255291589e-18) < 1e-12, "{d:e}");
}

/// The rules of `softplus` and `log_sigmoid` against central differences
/// where the derivative is tiny or close to 1, relative to the derivative
/// (the shared tolerance's `atol` would pass any tiny gradient).
#[test]
fn softplus_and_log_sigmoid_rules_match_central_differences_at_large_inputs() {
    for x in [-30.0_f64, -10.0, -3.0, 3.0, 10.0, 30.0] {
        for g in [1.0, -0.5] {
            let n_sp = common::numeric_vjp(|x: &f64| softplus(*x), &x, &g, 1e-6)[0];
            let a_sp = map_vjp_out(g, &softplus(x), Softplus);
            assert!(
                rel_err(a_sp, n_sp) < 1e-6,
                "softplus at {x}: {a_sp:e} vs {n_sp:e}"
            );
            let n_ls = common::numeric_vjp(|x: &f64| log_sigmoid(*x), &x, &g, 1e-6)[0];
            let a_ls = map_vjp_out(g, &log_sigmoid(x), LogSigmoid);
            assert!(
                rel_err(a_ls, n_ls) < 1e-6,
                "log_sigmoid at {x}: {a_ls:e} vs {n_ls:e}"
            );
        }
    }
}

/// The rules of the new unary kernels at hard points (near the poles of
/// `acosh`, `atanh`, `asin`, `acos`, `ln_1p`; tiny and huge inputs where
/// `x²` or `out²` would overflow or `out + 1` round away `eˣ`), each within
/// 2 ulps of the derivative, computed by mpmath to 60 digits and
/// rounded: `(kernel, what its rule reads, x, f'(x))`.
#[test]
fn unary_rules_are_accurate() {
    macro_rules! accurate {
        ($(($k:ident, $reads:ident, $x:expr, $want:expr),)*) => {$(
            let x: f64 = $x;
            let got = rule!($reads, $k, 1.0, &x, &$k.f(x));
            let err = rel_err(got, $want) / f64::EPSILON;
            assert!(
                err <= 2.0,
                "{}'({x:e}) = {got:e}, exactly {:e}: {err} ulps",
                stringify!($k),
                $want
            );
            // The upstream gradient scales the rule.
            assert_eq!(rule!($reads, $k, -0.5, &x, &$k.f(x)), -0.5 * got);
        )*};
    }
    accurate!(
        (Sinh, out, 1e-08, 1.0),
        (Sinh, out, 0.5, 1.1276259652063807),
        (Sinh, out, -3.0, 10.067661995777765),
        (Sinh, out, 20.0, 242582597.70489514),
        (Sinh, out, 700.0, 5.0711602736750225e+303),
        (Cosh, x, 1e-08, 1e-08),
        (Cosh, x, -3.0, -10.017874927409903),
        (Cosh, x, 20.0, 242582597.70489514),
        (Cosh, x, 700.0, 5.0711602736750225e+303),
        (Asinh, x, 1e-08, 1.0),
        (Asinh, x, 1.0, std::f64::consts::FRAC_1_SQRT_2),
        (Asinh, x, -30.0, 0.03331483023263848),
        (Asinh, x, 10000000000.0, 1e-10),
        (Asinh, x, 1e+200, 1e-200),
        (Acosh, x, 1.0000000000009095, 741455.2001892966),
        (Acosh, x, 1.5, 0.8944271909999159),
        (Acosh, x, 10000000000.0, 1e-10),
        (Acosh, x, 1e+200, 1e-200),
        (Atanh, x, 0.9999999999990905, 549755813888.25),
        (Atanh, x, -0.9999999999990905, 549755813888.25),
        (Atanh, x, 0.5, 1.3333333333333333),
        (Atanh, x, 1e-08, 1.0),
        (Asin, x, 0.9999999999990905, 741455.2001896339),
        (Asin, x, -0.999, 22.36627204212921),
        (Asin, x, 0.5, 1.1547005383792515),
        (Asin, x, 1e-08, 1.0),
        (Acos, x, 0.9999999999990905, -741455.2001896339),
        (Acos, x, -0.999, -22.36627204212921),
        (Acos, x, 0.5, -1.1547005383792515),
        (Acos, x, 1e-08, -1.0),
        (Atan, x, 1e-08, 0.9999999999999999),
        (Atan, x, 1.0, 0.5),
        (Atan, x, -100000.0, 9.999999999e-11),
        (Atan, x, 1e+150, 1e-300),
        (Exp2, out, -1000.0, 6.468890458846786e-302),
        (Exp2, out, -1.0, 0.34657359027997264),
        (Exp2, out, 0.5, 0.9802581434685472),
        (Exp2, out, 1000.0, 7.427131700168751e+300),
        (ExpM1, x, -40.0, 4.248354255291589e-18),
        (ExpM1, x, -1e-10, 0.9999999999),
        (ExpM1, x, 1e-10, 1.0000000001),
        (ExpM1, x, 5.0, 148.4131591025766),
        (ExpM1, x, 700.0, 1.0142320547350045e+304),
        (Ln1p, x, -0.9999999999990905, 1099511627776.0),
        (Ln1p, x, -0.5, 2.0),
        (Ln1p, x, 1e-10, 0.9999999999),
        (Ln1p, x, 10000000000.0, 9.999999999e-11),
        (Log2, x, 1e-300, 1.4426950408889632e+300),
        (Log2, x, 0.5, 2.8853900817779268),
        (Log2, x, 3.0, 0.4808983469629878),
        (Log2, x, 1e+300, 1.4426950408889634e-300),
        (Log10, x, 1e-300, 4.342944819032518e+299),
        (Log10, x, 0.5, 0.8685889638065036),
        (Log10, x, 3.0, 0.14476482730108395),
        (Log10, x, 1e+300, 4.342944819032518e-301),
        (Cbrt, out, 1e-300, 3.3333333333333334e+199),
        (Cbrt, out, -8.0, 0.08333333333333333),
        (Cbrt, out, 3.0, 0.1602499522563787),
        (Cbrt, out, 1e+300, 3.3333333333333335e-201),
        (ToDegrees, g, 1.0, 57.29577951308232),
        (ToDegrees, g, -2.5, 57.29577951308232),
        (ToRadians, g, 1.0, 0.017453292519943295),
        (ToRadians, g, -2.5, 0.017453292519943295),
    );
}

#[test]
fn powi_matches_central_differences() {
    for n in [-3, -2, -1, 0, 1, 2, 3, 5] {
        let a = rand_away((3, 4), (n + 10) as u64, 0.3, 1.7);
        assert_eq!(powi(&a, n), a.mapv(|v| v.powi(n)));
        assert_eq!(powi(a.clone(), n), a.mapv(|v| v.powi(n)));
        assert_eq!(powi(a[[0, 0]], n), a[[0, 0]].powi(n));
        assert_eq!(Powi(n).f(a[[0, 0]]), a[[0, 0]].powi(n));
        check_vjp!("f64 scalar", F64, a[[0, 1]], |x| powi(x, n), |g, out| {
            map_vjp_x(g, x, Powi(n))
        });
        check_vjp!("f64 array", F64, a.clone(), |x| powi(x, n), |g, out| {
            map_vjp_x(g, x, Powi(n))
        });
        check_vjp!(
            "f64 view",
            F64,
            a.clone(),
            |x| powi(&x.view(), n),
            |g, out| map_vjp_x(g, &x.view(), Powi(n))
        );
        check_vjp!("f32 array", F32, f32s(&a), |x| powi(x, n), |g, out| {
            map_vjp_x(g, x, Powi(n))
        });
    }
}

#[test]
fn powi_zero_exponent_has_zero_gradient_even_at_zero() {
    assert_eq!(map_vjp_x(1.0, &0.0_f64, Powi(0)), 0.0);
    assert!(map_vjp_x(1.0_f64, &f64::NAN, Powi(0)).is_nan());
    // n = 1 at 0: derivative 1; n = 2 at 0: derivative 0.
    assert_eq!(map_vjp_x(2.0, &0.0_f64, Powi(1)), 2.0);
    assert_eq!(map_vjp_x(2.0, &0.0_f64, Powi(2)), 0.0);
    // i32::MIN does not overflow n - 1.
    assert_eq!(
        map_vjp_x(1.0, &1.0_f64, Powi(i32::MIN)),
        f64::from(i32::MIN)
    );
}

#[test]
fn kinks_take_the_subgradient_zero() {
    let x = array![-1.0, -0.0, 0.0, 2.0];
    let g = Array1::from_elem(4, 3.0);
    assert_eq!(map_vjp_out(&g, &relu(&x), Relu), array![0.0, 0.0, 0.0, 3.0]);
    assert_eq!(map_vjp_x(&g, &x, Abs), array![-3.0, 0.0, 0.0, 3.0]);
    assert_eq!(map_vjp_out(1.0, &relu(0.0_f64), Relu), 0.0);
    assert_eq!(map_vjp_x(1.0, &0.0_f64, Abs), 0.0);
    assert_eq!(map_vjp_x(1.0, &-0.0_f64, Abs), 0.0);
}

#[test]
fn sqrt_at_zero_has_an_infinite_gradient() {
    assert_eq!(sqrt(0.0_f64), 0.0);
    assert_eq!(map_vjp_out(1.0, &sqrt(0.0_f64), Sqrt), f64::INFINITY);
    assert_eq!(map_vjp_out(1.0_f32, &sqrt(0.0_f32), Sqrt), f32::INFINITY);
    assert!(sqrt(-1.0_f64).is_nan());
    assert!(map_vjp_out(1.0_f64, &sqrt(-1.0_f64), Sqrt).is_nan());
}

#[test]
fn ln_edges_follow_ieee() {
    assert_eq!(ln(0.0_f64), f64::NEG_INFINITY);
    assert!(ln(-1.0_f64).is_nan());
    assert_eq!(map_vjp_x(1.0, &0.0_f64, Ln), f64::INFINITY);
    assert_eq!(map_vjp_x(-1.0, &0.0_f64, Ln), f64::NEG_INFINITY);
    // The gradient at a negative x is g / x, as PyTorch gives.
    assert_eq!(map_vjp_x(1.0, &-2.0_f64, Ln), -0.5);
}

/// The poles of the new ops: the gradient is `±inf` as IEEE division
/// gives (NaN for an upstream 0), never a panic; outside the domain the
/// value is NaN.
#[test]
fn poles_of_the_inverse_functions_are_infinite() {
    const INF: f64 = f64::INFINITY;
    // acosh at 1, atanh at ±1, asin and acos at ±1.
    assert_eq!(map_vjp_x(1.0, &1.0_f64, Acosh), INF);
    assert_eq!(map_vjp_x(1.0, &1.0_f64, Atanh), INF);
    assert_eq!(map_vjp_x(1.0, &-1.0_f64, Atanh), INF);
    assert_eq!(atanh(1.0_f64), INF);
    assert_eq!(atanh(-1.0_f64), -INF);
    for x in [1.0_f64, -1.0] {
        assert_eq!(map_vjp_x(1.0, &x, Asin), INF, "asin at {x}");
        assert_eq!(map_vjp_x(1.0, &x, Acos), -INF, "acos at {x}");
        assert_eq!(map_vjp_x(-2.0, &x, Asin), -INF);
        assert!(map_vjp_x(0.0_f64, &x, Asin).is_nan(), "0 · inf");
    }
    // ln_1p at -1, log2 and log10 at ±0 (as ln).
    assert_eq!(ln_1p(-1.0_f64), -INF);
    assert_eq!(map_vjp_x(1.0, &-1.0_f64, Ln1p), INF);
    assert_eq!(map_vjp_x(1.0, &0.0_f64, Log2), INF);
    assert_eq!(map_vjp_x(1.0, &-0.0_f64, Log2), -INF);
    assert_eq!(map_vjp_x(1.0, &0.0_f64, Log10), INF);
    // cbrt at ±0: +inf from either side.
    assert_eq!(map_vjp_out(1.0, &cbrt(0.0_f64), Cbrt), INF);
    assert_eq!(map_vjp_out(1.0, &cbrt(-0.0_f64), Cbrt), INF);
    assert_eq!(map_vjp_out(1.0_f32, &cbrt(0.0_f32), Cbrt), f32::INFINITY);
    // Outside the domain: NaN values; the gradients NaN (a square root of
    // a negative number) or the finite formula (as for ln).
    assert!(acosh(0.5_f64).is_nan() && map_vjp_x(1.0_f64, &0.5_f64, Acosh).is_nan());
    assert!(asin(2.0_f64).is_nan() && map_vjp_x(1.0_f64, &2.0_f64, Asin).is_nan());
    assert!(atanh(2.0_f64).is_nan());
    assert_eq!(map_vjp_x(1.0, &2.0_f64, Atanh), 1.0 / (1.0 - 4.0));
    assert!(ln_1p(-2.0_f64).is_nan());
    assert_eq!(map_vjp_x(1.0, &-2.0_f64, Ln1p), -1.0);
}

/// Overflow is not an error: `sinh`, `cosh`, `exp2`, `exp_m1` are `±inf`
/// with gradient `±inf`; tiny derivatives of huge inputs are not lost to
/// an overflowing `x²`.
#[test]
fn the_new_ops_overflow_to_infinities() {
    const INF: f64 = f64::INFINITY;
    assert_eq!(sinh(1000.0_f64), INF);
    assert_eq!(map_vjp_out(1.0, &sinh(1000.0_f64), Sinh), INF);
    assert_eq!(map_vjp_out(1.0, &sinh(-1000.0_f64), Sinh), INF);
    assert_eq!(map_vjp_x(1.0, &-1000.0_f64, Cosh), -INF);
    assert_eq!(map_vjp_out(1.0, &exp2(2000.0_f64), Exp2), INF);
    assert_eq!(map_vjp_out(1.0, &exp2(-2000.0_f64), Exp2), 0.0);
    assert_eq!(map_vjp_x(1.0, &1000.0_f64, ExpM1), INF);
    assert_eq!(map_vjp_x(1.0, &-1000.0_f64, ExpM1), 0.0);
    assert_eq!(map_vjp_x(1.0, &1e300_f64, Asinh), 1e-300);
    assert_eq!(map_vjp_x(1.0, &1e300_f64, Acosh), 1e-300);
    assert_eq!(map_vjp_x(1.0, &INF, Asinh), 0.0);
    assert_eq!(map_vjp_x(1.0, &INF, Atan), 0.0);
}

/// The piecewise constant ops have gradient 0 everywhere, at their jumps
/// too (NaN only where the value is NaN); `fract` passes `g`.
#[test]
fn piecewise_constant_ops_have_gradient_zero() {
    let x = array![
        -2.5,
        -1.0,
        -0.5,
        -0.0,
        0.0,
        0.5,
        1.0,
        2.5,
        1e300,
        f64::INFINITY
    ];
    let g = Array1::from_elem(x.len(), 3.0);
    let zeros = Array1::zeros(x.len());
    assert_eq!(map_vjp_out(&g, &signum(&x), Signum), zeros);
    assert_eq!(map_vjp_out(&g, &floor(&x), Floor), zeros);
    assert_eq!(map_vjp_out(&g, &ceil(&x), Ceil), zeros);
    assert_eq!(map_vjp_out(&g, &round(&x), Round), zeros);
    assert_eq!(map_vjp_out(&g, &trunc(&x), Trunc), zeros);
    assert_eq!(signum(&x), x.mapv(f64::signum));
    assert_eq!(round(&x), x.mapv(f64::round));
    // fract: g where the value is a number (fract(±inf) is NaN).
    let d = map_vjp_out(&g, &fract(&x), Fract);
    assert_eq!(d.slice(ndarray::s![..9]), g.slice(ndarray::s![..9]));
    assert!(fract(f64::INFINITY).is_nan() && d[9].is_nan());
}

/// `clamp`: `f64::clamp` bit for bit; the gradient `g` on the closed
/// interval `[lo, hi]` (ties at a bound to `x`, as `x.max(lo).min(hi)`),
/// 0 outside, NaN for NaN; bounds of `f32` or `f64`.
#[test]
fn clamp_values_and_rules() {
    let (lo, hi) = (-0.5, 1.0);
    let x = array![
        -2.0,
        -0.5,
        -0.0,
        0.0,
        0.3,
        1.0,
        1.5,
        f64::NEG_INFINITY,
        f64::INFINITY
    ];
    let c = clamp(&x, lo, hi);
    for (got, want) in c.iter().zip(x.mapv(|v| v.clamp(lo, hi))) {
        assert_eq!(got.to_bits(), want.to_bits());
    }
    assert_eq!(clamp(x.clone(), lo, hi), c, "by value");
    assert_eq!(clamp(&-0.0_f64, 0.0, 1.0).to_bits(), (-0.0_f64).to_bits());
    let g = Array1::from_elem(x.len(), 2.0);
    let d = map_vjp_x(&g, &x, Clamp(lo, hi));
    assert_eq!(d, array![0.0, 2.0, 2.0, 2.0, 2.0, 2.0, 0.0, 0.0, 0.0]);
    // The same as x.max(lo).min(hi)'s gradient, everywhere but NaN.
    for (&v, &dv) in x.iter().zip(&d) {
        let m = max(v, &lo);
        let via = zip_vjp_lhs(zip_vjp_lhs(2.0, &m, &hi, Min).value(), &v, &lo, Max).value();
        assert_eq!(dv, via, "at {v}");
    }
    // A point interval passes g at its point.
    assert_eq!(map_vjp_x(2.0, &0.5_f64, Clamp(0.5, 0.5)), 2.0);
    // f32 values and f32 or f64 bounds.
    assert_eq!(clamp(2.0_f32, 0.0, 1.5), 1.5);
    assert_eq!(map_vjp_x(1.0_f32, &0.5_f32, Clamp(0.0_f32, 1.0)), 1.0);
    assert_eq!(map_vjp_x(1.0_f32, &0.5_f32, Clamp(0.0_f64, 0.25)), 0.0);
    check_vjp!(
        "clamp f64",
        F64,
        rand((3, 4), 21, -2.0, 2.0),
        |x| clamp(x, -1.0, 1.0),
        |g, out| map_vjp_x(g, x, Clamp(-1.0, 1.0))
    );
}

#[test]
#[should_panic(expected = "min > max")]
fn clamp_with_crossed_bounds_panics_as_f64_clamp_does() {
    clamp(0.5_f64, 1.0, 0.0);
}

#[test]
fn recip_at_zero() {
    assert_eq!(recip(0.0_f64), f64::INFINITY);
    assert_eq!(map_vjp_out(1.0, &recip(0.0_f64), Recip), f64::NEG_INFINITY);
}

#[test]
fn sigmoid_is_stable_for_large_inputs() {
    let x = array![-1000.0_f64, -50.0, 0.0, 50.0, 1000.0];
    let s = sigmoid(&x);
    assert!(s.iter().all(|v| v.is_finite()), "{s}");
    assert_eq!(s[0], 0.0);
    assert_eq!(s[4], 1.0);
    assert_eq!(s[2], 0.5);
    let d = map_vjp_out(Array1::ones(5), &s, Sigmoid);
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
        ($($fwd:ident $k:ident $reads:ident),*) => {$(
            let out = $fwd(&x);
            assert!(out[0].is_nan(), "{} value", stringify!($fwd));
            let d = rule!($reads, $k, &g, &x, &out);
            assert!(d[0].is_nan(), "{} gradient", stringify!($fwd));
            assert!(!d[1].is_nan(), "{} gradient of a number", stringify!($fwd));
            assert!(
                rule!($reads, $k, 1.0_f64, &f64::NAN, &$fwd(f64::NAN)).is_nan(),
                "{} scalar",
                stringify!($fwd)
            );
        )*};
    }
    nan!(exp Exp out, ln Ln x, sqrt Sqrt out, square Square x, abs Abs x, sin Sin x, cos Cos x,
         tan Tan out, tanh Tanh out, sigmoid Sigmoid out, relu Relu out, recip Recip out,
         softplus Softplus out, log_sigmoid LogSigmoid out, sinh Sinh out, cosh Cosh x,
         asinh Asinh x, atanh Atanh x, asin Asin x, acos Acos x, atan Atan x,
         exp2 Exp2 out, exp_m1 ExpM1 x, ln_1p Ln1p x, log2 Log2 x, log10 Log10 x, cbrt Cbrt out,
         signum Signum out, floor Floor out, ceil Ceil out, round Round out, trunc Trunc out,
         fract Fract out);
    // acosh of a number ≥ 1.
    let d = map_vjp_x(&g, &array![f64::NAN, 1.5], Acosh);
    assert!(d[0].is_nan() && !d[1].is_nan() && acosh(f64::NAN).is_nan());
    assert!(clamp(f64::NAN, 0.0, 1.0).is_nan());
    assert!(map_vjp_x(1.0_f64, &f64::NAN, Clamp(0.0, 1.0)).is_nan());
    // Linear: the gradient does not depend on x, NaN or not.
    assert_eq!(map_vjp_g(1.0_f64, ToDegrees), 1.0_f64.to_degrees());
    assert!(powi(f64::NAN, 3).is_nan());
    assert!(map_vjp_x(1.0_f64, &f64::NAN, Powi(3)).is_nan());
}

/// The rules write into an owned upstream buffer, whatever they read.
#[test]
fn owned_upstream_buffer_is_reused() {
    let x = rand((4, 4), 9, -1.0, 1.0);
    let out = exp(&x);
    let g = rand((4, 4), 10, -1.0, 1.0);
    let ptr = g.as_ptr();
    let d = map_vjp_out(g, &out, Exp);
    assert_eq!(d.as_ptr(), ptr, "map_vjp_out copied an owned upstream");
    let g = rand((4, 4), 11, -1.0, 1.0);
    let ptr = g.as_ptr();
    assert_eq!(map_vjp_out(g, &relu(&x), Relu).as_ptr(), ptr);
    let g = rand((4, 4), 12, -1.0, 1.0);
    let ptr = g.as_ptr();
    assert_eq!(map_vjp_x(g, &x, Sin).as_ptr(), ptr, "map_vjp_x");
    let g = rand((4, 4), 13, -1.0, 1.0);
    let ptr = g.as_ptr();
    assert_eq!(map_vjp_g(g, Neg).as_ptr(), ptr, "map_vjp_g");
    let g = rand((4, 4), 14, -1.0, 1.0);
    let ptr = g.as_ptr();
    assert_eq!(map_vjp(g, &x, &out, XExp).as_ptr(), ptr, "map_vjp");
}

/// A kernel whose rule reads both the input and the output: `x·eˣ`, with
/// `∂x = g·(out + eˣ)`.
#[derive(Clone, Copy, Debug)]
struct XExp;

impl Unary for XExp {
    type Reads = XOut;
    fn f<F: backprop_runtime::Float>(self, x: F) -> F {
        x * x.exp()
    }
    fn vjp<F: backprop_runtime::Float>(self, g: F, x: F, out: F) -> F {
        g * (out + x.exp())
    }
}

/// The generic primitives with a kernel of one's own: `map` by reference
/// and by value (in the operand's buffer), `zip_map` after `+`, and
/// `map_vjp` (a rule reading the input and the output) against central
/// differences.
#[test]
fn a_kernel_of_ones_own_goes_through_the_same_primitives() {
    let a = rand((3, 4), 15, -2.0, 2.0);
    let want = a.mapv(|v| v * v.exp());
    assert_eq!(map(&a, XExp), want);
    let buf = a.clone();
    let p = buf.as_ptr();
    let out = map(buf, XExp);
    assert_eq!(out.as_ptr(), p);
    assert_eq!(out, want);
    assert_eq!(map(0.5_f64, XExp), 0.5 * 0.5_f64.exp());
    let b = rand(4, 16, -1.0, 1.0);
    assert_eq!(
        zip_map(a.clone(), &b, Add, XExp),
        (&a + &b).mapv(|v| v * v.exp())
    );
    check_vjp!("x·eˣ", F64, a.clone(), |x| map(x, XExp), |g, out| {
        map_vjp(g, x, out, XExp)
    });
    check_vjp!("x·eˣ f32", F32, f32s(&a), |x| map(x, XExp), |g, out| {
        map_vjp(g, x, out, XExp)
    });
    check_vjp!("x·eˣ scalar", F64, 0.3_f64, |x| map(x, XExp), |g, out| {
        map_vjp(g, x, out, XExp)
    });
}
