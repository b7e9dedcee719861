//! The 22 classic optimisation test functions, each written from its
//! definition as a Rust programmer would (over `&[f64]` where it has any
//! number of dimensions, over `[f64; 2]`, `&[f64; 2]` or two `f64` where it
//! has two; `PI` and `E` imported, a `const` of the user's), with
//! `#[differentiable(hvp)]`. Their values, gradients and full Hessians (the
//! columns `H·eₖ` from `NAME_hvp`) agree to 1e-9 with the hand-written
//! derivatives and Hessians of argmin's `argmin_testfunctions`, an
//! independent reference; each is also gradchecked, its `NAME_jvp` checked
//! against `NAME_backward` and its `NAME_hvp` against differences of the
//! gradient.

use backprop::prelude::*;
use std::f64::consts::{E, PI};

// ---------------------------------------------------------------------
// Functions of any number of dimensions, over a slice.

#[differentiable(hvp)]
fn ackley(x: &[f64]) -> f64 {
    let n = x.len() as f64;
    let squares = x.iter().map(|v| v * v).sum::<f64>() / n;
    let cosines = x.iter().map(|v| (2.0 * PI * v).cos()).sum::<f64>() / n;
    -20.0 * (-0.2 * squares.sqrt()).exp() - cosines.exp() + 20.0 + E
}

/// Lévy: the first and last terms, and a loop over the interior ones. The
/// reference sums the interior terms over `x[1..n - 1]` (the textbook over
/// `x[..n - 1]`); this follows the reference, over a sub-slice.
#[differentiable(hvp)]
fn levy(x: &[f64]) -> f64 {
    let n = x.len();
    let first = 1.0 + (x[0] - 1.0) / 4.0;
    let last = 1.0 + (x[n - 1] - 1.0) / 4.0;
    let mut s = (PI * first).sin().powi(2);
    for &v in &x[1..n - 1] {
        let w = 1.0 + (v - 1.0) / 4.0;
        s += (w - 1.0).powi(2) * (1.0 + 10.0 * (PI * w + 1.0).sin().powi(2));
    }
    s + (last - 1.0).powi(2) * (1.0 + (2.0 * PI * last).sin().powi(2))
}

#[differentiable(hvp)]
fn rastrigin(x: &[f64]) -> f64 {
    10.0 * x.len() as f64
        + x.iter()
            .map(|&v| v * v - 10.0 * (2.0 * PI * v).cos())
            .sum::<f64>()
}

/// Rosenbrock over the slice's windows of two.
#[differentiable(hvp)]
fn rosenbrock(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for w in x.windows(2) {
        s += 100.0 * (w[1] - w[0] * w[0]).powi(2) + (1.0 - w[0]).powi(2);
    }
    s
}

#[differentiable(hvp)]
fn sphere(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for &v in x {
        s += v * v;
    }
    s
}

#[differentiable(hvp)]
fn styblinski_tang(x: &[f64]) -> f64 {
    0.5 * x
        .iter()
        .fold(0.0, |acc, &v| acc + v.powi(4) - 16.0 * v * v + 5.0 * v)
}

// ---------------------------------------------------------------------
// Functions of two variables.

#[differentiable(hvp)]
fn beale(p: &[f64; 2]) -> f64 {
    let (x, y) = (p[0], p[1]);
    (1.5 - x + x * y).powi(2) + (2.25 - x + x * y * y).powi(2) + (2.625 - x + x * y.powi(3)).powi(2)
}

#[differentiable(hvp)]
fn booth(x: f64, y: f64) -> f64 {
    (x + 2.0 * y - 7.0).powi(2) + (2.0 * x + y - 5.0).powi(2)
}

#[differentiable(hvp)]
fn bukin_n6(p: [f64; 2]) -> f64 {
    100.0 * (p[1] - 0.01 * p[0] * p[0]).abs().sqrt() + 0.01 * (p[0] + 10.0).abs()
}

#[differentiable(hvp)]
fn cross_in_tray(x: f64, y: f64) -> f64 {
    let bowl = (100.0 - (x * x + y * y).sqrt() / PI).abs().exp();
    -0.0001 * ((x.sin() * y.sin() * bowl).abs() + 1.0).powf(0.1)
}

#[differentiable(hvp)]
fn easom(p: [f64; 2]) -> f64 {
    -p[0].cos() * p[1].cos() * (-((p[0] - PI).powi(2) + (p[1] - PI).powi(2))).exp()
}

#[differentiable(hvp)]
fn eggholder(x: f64, y: f64) -> f64 {
    -(y + 47.0) * (x / 2.0 + y + 47.0).abs().sqrt().sin() - x * (x - (y + 47.0)).abs().sqrt().sin()
}

#[differentiable(hvp)]
fn goldstein_price(x: f64, y: f64) -> f64 {
    let a = 1.0
        + (x + y + 1.0).powi(2)
            * (19.0 - 14.0 * x + 3.0 * x * x - 14.0 * y + 6.0 * x * y + 3.0 * y * y);
    let b = 30.0
        + (2.0 * x - 3.0 * y).powi(2)
            * (18.0 - 32.0 * x + 12.0 * x * x + 48.0 * y - 36.0 * x * y + 27.0 * y * y);
    a * b
}

#[differentiable(hvp)]
fn himmelblau(x: f64, y: f64) -> f64 {
    (x * x + y - 11.0).powi(2) + (x + y * y - 7.0).powi(2)
}

/// Hölder's table, its absolute values written as branches.
#[differentiable(hvp)]
fn holder_table(p: [f64; 2]) -> f64 {
    let (x, y) = (p[0], p[1]);
    let mut r = 1.0 - (x * x + y * y).sqrt() / PI;
    if r < 0.0 {
        r = -r;
    }
    let v = x.sin() * y.cos() * r.exp();
    if v < 0.0 {
        v
    } else {
        -v
    }
}

#[differentiable(hvp)]
fn levy_n13(x: f64, y: f64) -> f64 {
    (3.0 * PI * x).sin().powi(2)
        + (x - 1.0).powi(2) * (1.0 + (3.0 * PI * y).sin().powi(2))
        + (y - 1.0).powi(2) * (1.0 + (2.0 * PI * y).sin().powi(2))
}

#[differentiable(hvp)]
fn matyas(p: [f64; 2]) -> f64 {
    0.26 * (p[0] * p[0] + p[1] * p[1]) - 0.48 * p[0] * p[1]
}

#[differentiable(hvp)]
fn mccormick(x: f64, y: f64) -> f64 {
    (x + y).sin() + (x - y).powi(2) - 1.5 * x + 2.5 * y + 1.0
}

/// Picheny's rescaling of Goldstein-Price: a call. The logarithm is the
/// decimal one, as the reference has it.
#[differentiable(hvp)]
fn picheny(p: &[f64; 2]) -> f64 {
    let gp = goldstein_price(4.0 * p[0] - 2.0, 4.0 * p[1] - 2.0);
    (gp.log10() - 8.693) / 2.427
}

/// The damping of Schaffer's functions, a constant of the user's.
const DAMPING: f64 = 0.001;

#[differentiable(hvp)]
fn schaffer_n2(x: f64, y: f64) -> f64 {
    0.5 + ((x * x - y * y).sin().powi(2) - 0.5) / (1.0 + DAMPING * (x * x + y * y)).powi(2)
}

#[differentiable(hvp)]
fn schaffer_n4(p: [f64; 2]) -> f64 {
    let (x, y) = (p[0], p[1]);
    0.5 + ((x * x - y * y).abs().sin().cos().powi(2) - 0.5)
        / (1.0 + DAMPING * (x * x + y * y)).powi(2)
}

#[differentiable(hvp)]
fn three_hump_camel(x: f64, y: f64) -> f64 {
    2.0 * x * x - 1.05 * x.powi(4) + x.powi(6) / 6.0 + x * y + y * y
}

// ---------------------------------------------------------------------
// The checks.

/// What the reference says at a point: value, gradient, Hessian.
struct Reference {
    value: f64,
    gradient: Vec<f64>,
    hessian: Vec<Vec<f64>>,
}

/// The reference of a function of two variables, from `argmin_testfunctions`.
fn of_pair(
    p: &[f64],
    value: fn(&[f64; 2]) -> f64,
    gradient: fn(&[f64; 2]) -> [f64; 2],
    hessian: fn(&[f64; 2]) -> [[f64; 2]; 2],
) -> Reference {
    let p = [p[0], p[1]];
    Reference {
        value: value(&p),
        gradient: gradient(&p).to_vec(),
        hessian: hessian(&p).iter().map(|row| row.to_vec()).collect(),
    }
}

/// The reference of a function of any number of variables.
fn of_slice(
    x: &[f64],
    value: fn(&[f64]) -> f64,
    gradient: fn(&[f64]) -> Vec<f64>,
    hessian: fn(&[f64]) -> Vec<Vec<f64>>,
) -> Reference {
    Reference {
        value: value(x),
        gradient: gradient(x),
        hessian: hessian(x),
    }
}

/// `a` and `b` agree to `tol`, relative to `b` (absolute below 1).
fn agree(what: &str, a: f64, b: f64, tol: f64) {
    assert!(
        (a - b).abs() <= tol * b.abs().max(1.0),
        "{what}: {a} against {b}"
    );
}

/// The unit vector `eₖ` of `n` components.
fn unit(n: usize, k: usize) -> Vec<f64> {
    (0..n).map(|i| if i == k { 1.0 } else { 0.0 }).collect()
}

/// A direction for the mode checks, the same for every function.
fn direction(n: usize) -> Vec<f64> {
    (0..n).map(|i| [0.6, -0.8, 0.3, 1.1][i % 4]).collect()
}

/// What the macro wrote for a function, as functions of a flat point: the
/// original's value, `NAME_backward`'s value and gradient, and `NAME_hvp`'s
/// value, gradient and `H·t`.
struct Ours<'a> {
    original: f64,
    backward: (f64, Vec<f64>),
    hvp: &'a dyn Fn(&[f64]) -> HvpAt,
}

/// `NAME_hvp`'s value, gradient and `H·t` along one direction.
type HvpAt = (f64, Vec<f64>, Vec<f64>);

/// Checks one function at `x` against the reference, to 1e-9: the value,
/// the gradient, and each column of the Hessian.
fn compare(name: &str, x: &[f64], ours: Ours, reference: Reference) {
    let (value, gradient) = ours.backward;
    assert_eq!(
        value.to_bits(),
        ours.original.to_bits(),
        "{name}: the backward's value is the original's"
    );
    agree(
        &format!("{name} at {x:?}: value"),
        value,
        reference.value,
        1e-9,
    );
    for (k, (&a, &b)) in gradient.iter().zip(&reference.gradient).enumerate() {
        agree(&format!("{name} at {x:?}: ∂/∂x{k}"), a, b, 1e-9);
    }
    assert_eq!(gradient.len(), reference.gradient.len());
    for k in 0..x.len() {
        let (v, g, column) = (ours.hvp)(&unit(x.len(), k));
        agree(&format!("{name}: hvp's value"), v, value, 1e-12);
        for (&a, &b) in g.iter().zip(&gradient) {
            agree(&format!("{name}: hvp's gradient"), a, b, 1e-12);
        }
        for (i, &h) in column.iter().enumerate() {
            let what = format!("{name} at {x:?}: ∂²/∂x{i}∂x{k}");
            agree(&what, h, reference.hessian[i][k], 1e-9);
        }
    }
}

/// A test of a function over `&[f64]` at each of `points`.
macro_rules! over_slice {
    ($test:ident: $f:ident, $backward:ident, $jvp:ident, $hvp:ident;
     $value:ident, $gradient:ident, $hessian:ident; $($point:expr),+ $(,)?) => {
        #[test]
        fn $test() {
            for x in [$($point.to_vec()),+] {
                let ours = Ours {
                    original: $f(&x),
                    backward: {
                        let (v, g) = $backward(&x, 1.0);
                        (v, g.x.to_vec())
                    },
                    hvp: &|t: &[f64]| {
                        let (v, g, h) = $hvp(&x, t);
                        (v, g.x.to_vec(), h.x.to_vec())
                    },
                };
                use argmin_testfunctions as at;
                let reference = of_slice(&x, at::$value, at::$gradient, at::$hessian);
                compare(stringify!($f), &x, ours, reference);
                let (params, dir) = ((x.clone(),), (direction(x.len()),));
                gradcheck(&params, |(x,)| $backward(x, 1.0)).unwrap();
                jvpcheck(&params, &dir, |(x,)| $backward(x, 1.0), |(x,), (t,)| $jvp(x, t)).unwrap();
                hvpcheck(&params, &dir, |(x,), (t,)| $hvp(x, t)).unwrap();
            }
        }
    };
}

/// A test of a function over `[f64; 2]` (`by value`) or `&[f64; 2]` (`by
/// reference`) at each of `points`.
macro_rules! over_pair {
    ($test:ident: $f:ident, $backward:ident, $jvp:ident, $hvp:ident, by $how:ident;
     $value:ident, $gradient:ident, $hessian:ident; $($point:expr),+ $(,)?) => {
        #[test]
        fn $test() {
            for p in [$($point),+] {
                let p: [f64; 2] = p;
                let ours = Ours {
                    original: $f(over_pair!(@arg $how p)),
                    backward: {
                        let (v, g) = $backward(over_pair!(@arg $how p), 1.0);
                        (v, g.p.to_vec())
                    },
                    hvp: &|t: &[f64]| {
                        let t = [t[0], t[1]];
                        let (v, g, h) = $hvp(over_pair!(@arg $how p), over_pair!(@arg $how t));
                        (v, g.p.to_vec(), h.p.to_vec())
                    },
                };
                use argmin_testfunctions as at;
                let reference = of_pair(&p, at::$value, at::$gradient, at::$hessian);
                compare(stringify!($f), &p, ours, reference);
                let (params, dir) = ((p,), ([0.6, -0.8],));
                gradcheck(&params, |(p,)| $backward(over_pair!(@arg $how *p), 1.0)).unwrap();
                jvpcheck(
                    &params,
                    &dir,
                    |(p,)| $backward(over_pair!(@arg $how *p), 1.0),
                    |(p,), (t,)| $jvp(over_pair!(@arg $how *p), over_pair!(@arg $how *t)),
                )
                .unwrap();
                hvpcheck(&params, &dir, |(p,), (t,)| {
                    $hvp(over_pair!(@arg $how *p), over_pair!(@arg $how *t))
                })
                .unwrap();
            }
        }
    };
    (@arg value $e:expr) => { $e };
    (@arg reference $e:expr) => { &$e };
}

/// A test of a function of two `f64`s at each of `points`.
macro_rules! over_two_floats {
    ($test:ident: $f:ident, $backward:ident, $jvp:ident, $hvp:ident;
     $value:ident, $gradient:ident, $hessian:ident; $($point:expr),+ $(,)?) => {
        #[test]
        fn $test() {
            for [x, y] in [$($point),+] {
                let ours = Ours {
                    original: $f(x, y),
                    backward: {
                        let (v, g) = $backward(x, y, 1.0);
                        (v, vec![g.x, g.y])
                    },
                    hvp: &|t: &[f64]| {
                        let (v, g, h) = $hvp(x, y, t[0], t[1]);
                        (v, vec![g.x, g.y], vec![h.x, h.y])
                    },
                };
                use argmin_testfunctions as at;
                let reference = of_pair(&[x, y], at::$value, at::$gradient, at::$hessian);
                compare(stringify!($f), &[x, y], ours, reference);
                let (params, dir) = ((x, y), (0.6, -0.8));
                gradcheck(&params, |&(x, y)| $backward(x, y, 1.0)).unwrap();
                jvpcheck(
                    &params,
                    &dir,
                    |&(x, y)| $backward(x, y, 1.0),
                    |&(x, y), &(tx, ty)| $jvp(x, y, tx, ty),
                )
                .unwrap();
                hvpcheck(&params, &dir, |&(x, y), &(tx, ty)| $hvp(x, y, tx, ty)).unwrap();
            }
        }
    };
}

over_slice!(ackley_against_reference: ackley, ackley_backward, ackley_jvp, ackley_hvp;
    ackley, ackley_derivative, ackley_hessian; [0.3, -0.8, 1.1], [2.5, -1.2]);
over_slice!(levy_against_reference: levy, levy_backward, levy_jvp, levy_hvp;
    levy, levy_derivative, levy_hessian; [0.5, -2.0, 3.0], [1.5, 0.2]);
over_slice!(rastrigin_against_reference: rastrigin, rastrigin_backward, rastrigin_jvp, rastrigin_hvp;
    rastrigin, rastrigin_derivative, rastrigin_hessian; [0.3, -1.7, 2.2], [4.1, -0.6]);
over_slice!(rosenbrock_against_reference: rosenbrock, rosenbrock_backward, rosenbrock_jvp, rosenbrock_hvp;
    rosenbrock, rosenbrock_derivative, rosenbrock_hessian; [-1.2, 1.0, 0.5, 2.0], [0.3, 0.4]);
over_slice!(sphere_against_reference: sphere, sphere_backward, sphere_jvp, sphere_hvp;
    sphere, sphere_derivative, sphere_hessian; [1.0, -2.0, 0.5], [3.0]);
over_slice!(styblinski_tang_against_reference: styblinski_tang, styblinski_tang_backward,
    styblinski_tang_jvp, styblinski_tang_hvp;
    styblinski_tang, styblinski_tang_derivative, styblinski_tang_hessian; [-2.9, 1.3, 0.4], [2.0, -4.0]);

over_pair!(beale_against_reference: beale, beale_backward, beale_jvp, beale_hvp, by reference;
    beale, beale_derivative, beale_hessian; [1.0, 0.5], [-2.0, 1.5]);
over_pair!(bukin_n6_against_reference: bukin_n6, bukin_n6_backward, bukin_n6_jvp, bukin_n6_hvp, by value;
    bukin_n6, bukin_n6_derivative, bukin_n6_hessian; [-9.0, 2.0], [-11.5, 0.3]);
over_pair!(easom_against_reference: easom, easom_backward, easom_jvp, easom_hvp, by value;
    easom, easom_derivative, easom_hessian; [3.0, 2.5], [3.5, 3.2]);
over_pair!(holder_table_against_reference: holder_table, holder_table_backward, holder_table_jvp,
    holder_table_hvp, by value;
    holder_table, holder_table_derivative, holder_table_hessian; [8.0, 9.5], [2.0, -1.0], [-1.0, 0.5]);
over_pair!(matyas_against_reference: matyas, matyas_backward, matyas_jvp, matyas_hvp, by value;
    matyas, matyas_derivative, matyas_hessian; [1.0, -2.0], [0.3, 0.8]);
over_pair!(picheny_against_reference: picheny, picheny_backward, picheny_jvp, picheny_hvp, by reference;
    picheny, picheny_derivative, picheny_hessian; [0.3, 0.6], [0.7, 0.2]);
over_pair!(schaffer_n4_against_reference: schaffer_n4, schaffer_n4_backward, schaffer_n4_jvp,
    schaffer_n4_hvp, by value;
    schaffer_n4, schaffer_n4_derivative, schaffer_n4_hessian; [0.6, 1.1], [-2.0, 0.5]);

over_two_floats!(booth_against_reference: booth, booth_backward, booth_jvp, booth_hvp;
    booth, booth_derivative, booth_hessian; [1.0, 3.0], [-4.0, 2.5]);
over_two_floats!(cross_in_tray_against_reference: cross_in_tray, cross_in_tray_backward,
    cross_in_tray_jvp, cross_in_tray_hvp;
    cross_in_tray, cross_in_tray_derivative, cross_in_tray_hessian; [1.3, -1.4], [-3.0, 2.0]);
over_two_floats!(eggholder_against_reference: eggholder, eggholder_backward, eggholder_jvp, eggholder_hvp;
    eggholder, eggholder_derivative, eggholder_hessian; [100.0, 200.0], [-300.0, 150.0]);
over_two_floats!(goldstein_price_against_reference: goldstein_price, goldstein_price_backward,
    goldstein_price_jvp, goldstein_price_hvp;
    goldsteinprice, goldsteinprice_derivative, goldsteinprice_hessian; [0.5, -0.5], [-1.0, 1.2]);
over_two_floats!(himmelblau_against_reference: himmelblau, himmelblau_backward, himmelblau_jvp,
    himmelblau_hvp;
    himmelblau, himmelblau_derivative, himmelblau_hessian; [3.5, 1.5], [-2.0, 2.5]);
over_two_floats!(levy_n13_against_reference: levy_n13, levy_n13_backward, levy_n13_jvp, levy_n13_hvp;
    levy_n13, levy_n13_derivative, levy_n13_hessian; [0.7, 1.3], [-0.4, 2.2]);
over_two_floats!(mccormick_against_reference: mccormick, mccormick_backward, mccormick_jvp,
    mccormick_hvp;
    mccormick, mccormick_derivative, mccormick_hessian; [-0.5, -1.5], [2.0, 1.0]);
over_two_floats!(schaffer_n2_against_reference: schaffer_n2, schaffer_n2_backward, schaffer_n2_jvp,
    schaffer_n2_hvp;
    schaffer_n2, schaffer_n2_derivative, schaffer_n2_hessian; [0.6, 1.1], [-2.0, 0.5]);
over_two_floats!(three_hump_camel_against_reference: three_hump_camel, three_hump_camel_backward,
    three_hump_camel_jvp, three_hump_camel_hvp;
    threehumpcamel, threehumpcamel_derivative, threehumpcamel_hessian; [1.0, -0.5], [-1.5, 0.7]);

/// The minima the literature gives, as a check that the functions are the
/// textbook ones (and the gradient vanishes where it is smooth there).
#[test]
fn known_minima() {
    agree("rosenbrock", rosenbrock(&[1.0; 5]), 0.0, 1e-12);
    agree("sphere", sphere(&[0.0; 3]), 0.0, 1e-12);
    agree("levy", levy(&[1.0, 1.0, 1.0]), 0.0, 1e-12);
    agree("booth", booth(1.0, 3.0), 0.0, 1e-12);
    agree("beale", beale(&[3.0, 0.5]), 0.0, 1e-12);
    agree("goldstein_price", goldstein_price(0.0, -1.0), 3.0, 1e-12);
    agree("easom", easom([PI, PI]), -1.0, 1e-12);
    agree(
        "picheny",
        picheny(&[0.5, 0.25]),
        -3.385_199_318_203_682_6,
        1e-12,
    );
    agree(
        "styblinski_tang",
        styblinski_tang(&[-2.903534; 2]),
        -39.16616 * 2.0,
        1e-6,
    );
    let (_, g) = himmelblau_backward(3.0, 2.0, 1.0);
    assert_eq!((g.x, g.y), (0.0, 0.0));
    let (_, g) = rosenbrock_backward(&[1.0; 4], 1.0);
    assert_eq!(g.x, vec![0.0; 4]);
}
