//! The compiler core on scalar code: the seeds' worked numbers exactly, and
//! central differences (gradcheck) on every function.

use backprop::prelude::*;
// The nine-parameter sigmoid network of the backprop-by-hand lesson.
use backprop_testkit::networks::{network, network_backward};

#[test]
fn backprop_by_hand_lesson_all_nine_gradients() {
    // x = (1, 2); hidden weights (1, 1), bias -3 and (1, -1), bias 1;
    // output weights (1, -1), bias 0; target 1.
    let (loss, g) = network_backward(
        1.0, 1.0, -3.0, 1.0, -1.0, 1.0, 1.0, -1.0, 0.0, 1.0, 2.0, 1.0, 1.0,
    );
    assert_eq!(loss, 0.125);
    assert_eq!(
        loss,
        network(1.0, 1.0, -3.0, 1.0, -1.0, 1.0, 1.0, -1.0, 0.0, 1.0, 2.0, 1.0)
    );
    // "Both output weights receive ... -0.0625 each, and the output bias receives -0.125."
    assert_eq!(g.v1, -0.0625);
    assert_eq!(g.v2, -0.0625);
    assert_eq!(g.c, -0.125);
    // "The first hidden weights then receive ... -0.03125 and -0.0625, and the
    // second hidden weights receive 0.03125 and 0.0625."
    assert_eq!(g.w11, -0.03125);
    assert_eq!(g.w12, -0.0625);
    assert_eq!(g.w21, 0.03125);
    assert_eq!(g.w22, 0.0625);
    // "The two hidden biases receive the sums themselves, -0.03125 and 0.03125."
    assert_eq!(g.b1, -0.03125);
    assert_eq!(g.b2, 0.03125);
}

#[test]
fn backprop_by_hand_lesson_gradcheck() {
    let params = (1.0, 1.0, -3.0, 1.0, -1.0, 1.0, 1.0, -1.0, 0.0);
    gradcheck(&params, |&(w11, w12, b1, w21, w22, b2, v1, v2, c)| {
        network_backward(w11, w12, b1, w21, w22, b2, v1, v2, c, 1.0, 2.0, 1.0, 1.0)
    })
    .unwrap();
    // Away from the symmetric point, too.
    let params = (0.3, -0.7, 0.2, 1.1, 0.4, -0.5, 0.9, -1.3, 0.25);
    gradcheck(&params, |&(w11, w12, b1, w21, w22, b2, v1, v2, c)| {
        network_backward(w11, w12, b1, w21, w22, b2, v1, v2, c, 0.5, -1.5, 0.3, 1.0)
    })
    .unwrap();
}

/// Exercise 2 of the fork-rule lesson: L = (w x)² + w.
#[differentiable(wrt(w))]
fn fork(w: f64, x: f64) -> f64 {
    (w * x).powi(2) + w
}

#[test]
fn fork_rule_exercise_2() {
    let (v, g) = fork_backward(0.5, 3.0, 1.0);
    assert_eq!(v, fork(0.5, 3.0));
    assert_eq!(v, 2.75);
    assert_eq!(g.w, 10.0);
    gradcheck(&(0.5,), |&(w,)| fork_backward(w, 3.0, 1.0)).unwrap();
}

/// `x` is used four times, `y` three times.
#[differentiable]
fn many_uses(x: f64, y: f64) -> f64 {
    let a = x * y + x;
    let b = a * x - y / x;
    a * b + y * y.exp() + x
}

#[test]
fn a_value_used_three_and_more_times() {
    let (v, g) = many_uses_backward(1.5, -0.5, 1.0);
    assert_eq!(v, many_uses(1.5, -0.5));
    // By hand: a = xy + x, b = ax - y/x, L = ab + y e^y + x.
    let (x, y) = (1.5_f64, -0.5_f64);
    let a = x * y + x;
    let b = a * x - y / x;
    let (da_dx, da_dy) = (y + 1.0, x);
    let (db_dx, db_dy) = (da_dx * x + a + y / (x * x), da_dy * x - 1.0 / x);
    let dx = da_dx * b + a * db_dx + 1.0;
    let dy = da_dy * b + a * db_dy + y.exp() + y * y.exp();
    assert!((g.x - dx).abs() < 1e-12, "{} vs {}", g.x, dx);
    assert!((g.y - dy).abs() < 1e-12, "{} vs {}", g.y, dy);
    gradcheck(&(1.5, -0.5), |&(x, y)| many_uses_backward(x, y, 1.0)).unwrap();
}

/// Nested blocks, shadowing, and every float method of the vocabulary.
#[differentiable]
fn methods(x: f64, y: f64) -> f64 {
    let x = x.exp().ln() + x.sqrt();
    let z = {
        let x = x.sin() * x.cos() + x.tan();
        let w = { x.tanh() + x.abs() + x.recip() };
        w.powf(y) + x.max(y) + x.min(y)
    };
    let z = z + x.powi(3);
    z / (1.0 + y * y)
}

#[test]
fn float_methods_shadowing_and_nesting() {
    let (v, _) = methods_backward(0.7, 1.3, 1.0);
    assert_eq!(v, methods(0.7, 1.3));
    gradcheck(&(0.7, 1.3), |&(x, y)| methods_backward(x, y, 1.0)).unwrap();
    gradcheck(&(1.9, 0.4), |&(x, y)| methods_backward(x, y, 1.0)).unwrap();
}

/// Every scalar function of `backprop::ops`.
#[differentiable]
fn ops_functions(x: f64, y: f64) -> f64 {
    let a = exp(x) + ln(y) + sqrt(y) + square(x) + abs(x);
    let b = sin(x) + cos(y) + tanh(x) + sigmoid(y) + relu(x) + powi(y, 3);
    backprop::ops::sigmoid(a * b) + f64::exp(x * 0.1) + f64::powi(y, 2)
}

#[test]
fn ops_functions_on_scalars() {
    let (v, _) = ops_functions_backward(0.3, 0.8, 1.0);
    assert_eq!(v, ops_functions(0.3, 0.8));
    gradcheck(&(0.3, 0.8), |&(x, y)| ops_functions_backward(x, y, 1.0)).unwrap();
    gradcheck(&(-0.6, 2.5), |&(x, y)| ops_functions_backward(x, y, 1.0)).unwrap();
}

/// A parameter that does not reach the value gets a zero gradient; a dead
/// `let` is allowed.
#[differentiable]
fn unused(x: f64, y: f64, z: f64) -> f64 {
    let dead = y * 3.0 + z;
    let _ = dead;
    x * x
}

#[test]
fn unused_parameters_get_zero() {
    let (v, g) = unused_backward(3.0, 2.0, 1.0, 1.0);
    assert_eq!(v, unused(3.0, 2.0, 1.0));
    assert_eq!(v, 9.0);
    assert_eq!((g.x, g.y, g.z), (6.0, 0.0, 0.0));
    gradcheck(&(3.0, 2.0, 1.0), |&(x, y, z)| unused_backward(x, y, z, 1.0)).unwrap();
}

/// `wrt` names exactly the differentiable parameters; the others are constants.
#[differentiable(wrt(b))]
fn wrt_subset(a: f64, b: f64, n: usize) -> f64 {
    let scale = n as f64;
    a * b * scale + b.powi(2)
}

#[test]
fn wrt_subset_has_one_field() {
    let (v, g) = wrt_subset_backward(2.0, 3.0, 4, 1.0);
    assert_eq!(v, wrt_subset(2.0, 3.0, 4));
    let WrtSubsetGrad { b } = g;
    assert_eq!(b, 2.0 * 4.0 + 6.0);
    gradcheck(&(3.0,), |&(b,)| wrt_subset_backward(2.0, b, 4, 1.0)).unwrap();
}

/// f32 throughout.
#[differentiable]
fn single(x: f32, w: f32) -> f32 {
    let h = tanh(w * x + 0.5);
    h * h + 0.25 * w
}

#[test]
fn f32_functions() {
    let (v, g) = single_backward(0.5, -1.0, 1.0);
    assert_eq!(v, single(0.5, -1.0));
    let h = (-0.5_f32 + 0.5).tanh();
    assert_eq!(g.w, 2.0 * h * (1.0 - h * h) * 0.5 + 0.25);
    gradcheck(&(0.5_f32, -1.0_f32), |&(x, w)| single_backward(x, w, 1.0)).unwrap();
}

/// The upstream gradient scales every gradient (a VJP, not just a gradient).
#[test]
fn d_out_scales_the_gradient() {
    let (_, g1) = fork_backward(0.5, 3.0, 1.0);
    let (_, g2) = fork_backward(0.5, 3.0, -2.5);
    assert_eq!(g2.w, -2.5 * g1.w);
}

/// A function whose value is a parameter, and one whose value is a literal.
#[differentiable]
fn identity(x: f64) -> f64 {
    x
}

#[differentiable(wrt(x))]
fn constant_value(x: f64) -> f64 {
    let _ignored = x * 2.0;
    1.5
}

#[test]
fn trivial_functions() {
    let (v, g) = identity_backward(4.0, 2.0);
    assert_eq!((v, g.x), (identity(4.0), 2.0));
    let (v, g) = constant_value_backward(4.0, 1.0);
    assert_eq!((v, g.x), (constant_value(4.0), 0.0));
    gradcheck(&(4.0,), |&(x,)| identity_backward(x, 1.0)).unwrap();
}

/// Deep nesting of one expression.
#[differentiable]
fn deep(x: f64) -> f64 {
    ((((((x * 1.1 + 0.1) * 1.2 - 0.2) * 1.3 + 0.3).tanh() * 1.4 - 0.4) * 1.5 + 0.5).sin() * 1.6
        - 0.6)
        * x
}

#[test]
fn deep_nesting() {
    let (v, _) = deep_backward(0.4, 1.0);
    assert_eq!(v, deep(0.4));
    gradcheck(&(0.4,), |&(x,)| deep_backward(x, 1.0)).unwrap();
}

/// Tuple patterns and type annotations on `let`.
#[differentiable]
fn tuples(x: f64, y: f64) -> f64 {
    let (a, b): (f64, f64) = (x * y, x + y);
    let c: f64 = a - b;
    c * c
}

#[test]
fn tuple_lets() {
    let (v, _) = tuples_backward(1.2, -0.3, 1.0);
    assert_eq!(v, tuples(1.2, -0.3));
    gradcheck(&(1.2, -0.3), |&(x, y)| tuples_backward(x, y, 1.0)).unwrap();
}

mod core {}
mod std {}

/// Generated code uses absolute paths: a user's `mod core {}` and `mod std {}`
/// (declared above) change nothing.
#[differentiable]
fn hygiene(bp: f64, d_out: f64, grad: f64) -> f64 {
    let d_bp = bp * d_out;
    d_bp + grad.sqrt()
}

#[test]
fn generated_names_avoid_user_names() {
    let (v, g) = hygiene_backward(2.0, 3.0, 4.0, 1.0);
    assert_eq!(v, hygiene(2.0, 3.0, 4.0));
    assert_eq!(v, 8.0);
    assert_eq!((g.bp, g.d_out, g.grad), (3.0, 2.0, 0.25));
    gradcheck(&(2.0, 3.0, 4.0), |&(a, b, c)| {
        hygiene_backward(a, b, c, 1.0)
    })
    .unwrap();
}

/// `let mut` with reassignment and compound assignment, in straight-line code
/// and inside a block (SSA renaming at compile time).
#[differentiable]
fn accumulate(x: f64, y: f64, mut z: f64) -> f64 {
    let mut acc = x * y;
    acc += x;
    acc = acc * acc;
    {
        acc -= y / 2.0;
        z *= acc;
    }
    acc /= 1.0 + z * z;
    acc + z
}

#[test]
fn let_mut_and_compound_assignment() {
    let (v, _) = accumulate_backward(0.8, -1.2, 0.5, 1.0);
    assert_eq!(v, accumulate(0.8, -1.2, 0.5));
    gradcheck(&(0.8, -1.2, 0.5), |&(x, y, z)| {
        accumulate_backward(x, y, z, 1.0)
    })
    .unwrap();
}

/// `crate = path`: the generated code finds the facade where a crate that
/// re-exports backprop puts it.
mod reexported {
    pub use backprop as engine;
}

#[differentiable(crate = crate::reexported::engine)]
fn through_a_reexport(x: f64) -> f64 {
    sigmoid(x) * x
}

#[test]
fn crate_path_override() {
    let (v, g) = through_a_reexport_backward(0.3, 1.0);
    assert_eq!(v, through_a_reexport(0.3));
    let s = 1.0 / (1.0 + (-0.3_f64).exp());
    assert!((g.x - (s * (1.0 - s) * 0.3 + s)).abs() < 1e-15);
    gradcheck(&(0.3,), |&(x,)| through_a_reexport_backward(x, 1.0)).unwrap();
}
