//! `match` on constants (an enum parameter, an integer, a `bool`) and with
//! guards that compare differentiable values: the arm taken is a constant
//! of the gradient, as a branch's is. Each function is checked against the
//! original's value bit for bit, by central differences and by its
//! closed-form gradient.

use backprop::prelude::*;
use backprop_testkit::random;

/// An activation chosen by the caller.
#[derive(Clone, Copy, Debug)]
pub enum Act {
    Relu,
    Tanh,
    Scaled(i32),
}

/// A layer whose activation is a `match` on an enum parameter.
#[differentiable(wrt(w, b))]
fn layer(w: &Array2<f64>, b: &Array1<f64>, x: &Array1<f64>, act: Act) -> f64 {
    let z = w.dot(x) + b;
    let a = match act {
        Act::Relu => relu(&z),
        Act::Tanh => z.tanh(),
        Act::Scaled(2) => &z * 2.0,
        Act::Scaled(_) => z.clone(),
    };
    a.sum()
}

#[test]
fn a_match_on_an_activation() {
    let mut seed = 5;
    let w = random((3, 4), &mut seed);
    let b = random(3, &mut seed);
    let x = random(4, &mut seed);
    let z = w.dot(&x) + &b;
    for act in [Act::Relu, Act::Tanh, Act::Scaled(2), Act::Scaled(7)] {
        let (v, g) = layer_backward(&w, &b, &x, act, 1.0);
        assert_eq!(v, layer(&w, &b, &x, act));
        let dz = match act {
            Act::Relu => z.mapv(|z| if z > 0.0 { 1.0 } else { 0.0 }),
            Act::Tanh => z.mapv(|z| 1.0 - z.tanh() * z.tanh()),
            Act::Scaled(2) => z.mapv(|_| 2.0),
            Act::Scaled(_) => z.mapv(|_| 1.0),
        };
        assert!(
            (&g.b - &dz).iter().all(|e| e.abs() < 1e-15),
            "{act:?}: {} {dz}",
            g.b
        );
        gradcheck(&(w.clone(), b.clone()), |(w, b)| {
            layer_backward(w, b, &x, act, 1.0)
        })
        .unwrap_or_else(|e| panic!("{act:?}: {e}"));
    }
}

/// Or-patterns, ranges and a `bool`; a `match` as a statement assigning a
/// variable, in a loop.
#[differentiable]
fn piecewise(x: f64, n: usize, flip: bool) -> f64 {
    let mut acc = 0.0;
    for i in 0..n {
        match i % 4 {
            0 | 1 => acc += x * x,
            2..=3 => acc -= x.sin(),
            _ => {}
        }
    }
    match flip {
        true => -acc,
        false => acc,
    }
}

#[test]
fn integer_patterns_and_a_bool() {
    let x = 0.7;
    for n in [0, 1, 3, 6] {
        for flip in [false, true] {
            let (v, g) = piecewise_backward(x, n, flip, 1.0);
            assert_eq!(v, piecewise(x, n, flip));
            let squares = (0..n).filter(|i| i % 4 < 2).count() as f64;
            let sines = n as f64 - squares;
            let d = 2.0 * x * squares - x.cos() * sines;
            let d = if flip { -d } else { d };
            assert!(
                (g.x - d).abs() < 1e-15,
                "n = {n}, flip = {flip}: {} {d}",
                g.x
            );
            gradcheck(&(x,), |(x,)| piecewise_backward(*x, n, flip, 1.0)).unwrap();
        }
    }
}

/// Huber loss with guards on a differentiable residual.
#[differentiable]
fn huber(pred: f64, target: f64, delta: f64) -> f64 {
    let r = pred - target;
    match () {
        _ if r.abs() <= delta => 0.5 * r * r,
        _ if r > 0.0 => delta * (r - 0.5 * delta),
        _ => delta * (-r - 0.5 * delta),
    }
}

#[test]
fn guards_on_a_differentiable_value() {
    for (p, t) in [(0.3, 0.0), (3.0, 1.0), (-2.5, 0.0)] {
        let (v, g) = huber_backward(p, t, 1.0, 1.0);
        assert_eq!(v, huber(p, t, 1.0));
        let r: f64 = p - t;
        let dp = if r.abs() <= 1.0 { r } else { r.signum() };
        assert_eq!(g.pred, dp);
        assert_eq!(g.target, -dp);
        gradcheck(&(p, t, 1.0), |(p, t, d)| huber_backward(*p, *t, *d, 1.0)).unwrap();
    }
}

/// A shape of the caller's choosing, with numbers bound in the patterns.
#[derive(Clone, Copy, Debug)]
pub enum Penalty {
    None,
    L2(f64),
    Elastic(f64, f64),
    Power(i32),
}

/// Names bound by a `match` on a constant are constants of the gradient.
#[differentiable(wrt(w))]
fn penalised(w: &Array1<f64>, penalty: Penalty) -> f64 {
    let fit = w.sum();
    match penalty {
        Penalty::None => fit,
        Penalty::L2(l) => fit + l * w.dot(w),
        Penalty::Elastic(l1, l2) => fit + l1 * w.abs().sum() + l2 * w.dot(w),
        Penalty::Power(p) if p > 1 => fit + w.mapv(|v| v.powi(p)).sum(),
        Penalty::Power(_) => fit,
    }
}

#[test]
fn names_bound_by_a_match_on_a_constant() {
    let w = array![0.5, -1.5, 2.0];
    for penalty in [
        Penalty::None,
        Penalty::L2(0.1),
        Penalty::Elastic(0.2, 0.3),
        Penalty::Power(3),
        Penalty::Power(1),
    ] {
        let (v, g) = penalised_backward(&w, penalty, 1.0);
        assert_eq!(v, penalised(&w, penalty));
        let exact = match penalty {
            Penalty::None | Penalty::Power(_) if !matches!(penalty, Penalty::Power(3)) => {
                w.mapv(|_| 1.0)
            }
            Penalty::L2(l) => w.mapv(|v| 1.0 + 2.0 * l * v),
            Penalty::Elastic(l1, l2) => w.mapv(|v| 1.0 + l1 * v.signum() + 2.0 * l2 * v),
            _ => w.mapv(|v| 1.0 + 3.0 * v * v),
        };
        assert!(
            (&g.w - &exact).iter().all(|e| e.abs() < 1e-15),
            "{penalty:?}: {} {exact}",
            g.w
        );
        gradcheck(&(w.clone(),), |(w,)| penalised_backward(w, penalty, 1.0))
            .unwrap_or_else(|e| panic!("{penalty:?}: {e}"));
    }
}

/// The README's second example, as written there.
#[derive(Clone, Copy, Debug)]
pub enum Reg {
    None,
    L2(f64),
}

#[differentiable(wrt(w))]
fn poisson_nll(x: &Array2<f64>, y: &Array1<f64>, w: &Array1<f64>, reg: Reg) -> f64 {
    let rate = x.dot(w).mapv(f64::exp);
    let mut nll = 0.0;
    for (i, &yi) in y.iter().enumerate() {
        nll += rate[i] - yi * rate[i].ln();
    }
    match reg {
        Reg::None => nll,
        Reg::L2(l) => nll + l * w.mapv(|v| v * v).sum(),
    }
}

#[test]
fn the_readme_example() {
    let mut seed = 2;
    let x = random((5, 3), &mut seed);
    let y = array![0.0, 1.0, 2.0, 1.0, 3.0];
    let w = random(3, &mut seed);
    for reg in [Reg::None, Reg::L2(0.1)] {
        let (v, g) = poisson_nll_backward(&x, &y, &w, reg, 1.0);
        assert_eq!(v, poisson_nll(&x, &y, &w, reg));
        let l = if let Reg::L2(l) = reg { l } else { 0.0 };
        let exact = x.t().dot(&(x.dot(&w).mapv(f64::exp) - &y)) + &w * (2.0 * l);
        assert!(
            (&g.w - &exact).iter().all(|e| e.abs() < 1e-12),
            "{} {exact}",
            g.w
        );
        gradcheck(&(w.clone(),), |(w,)| {
            poisson_nll_backward(&x, &y, w, reg, 1.0)
        })
        .unwrap();
    }
}

/// Found by fuzzing (seed 601, f0382): a `match` of constants that assigns
/// constants was passed through as one constant expression, so the
/// assignments changed generated locals behind the macro's back and the
/// backward's value differed from the function's.
#[differentiable(wrt(x))]
fn constant_match_assigning(x: &Array1<f64>, c: &Array1<f64>) -> f64 {
    let mut a = c * 1.5;
    let mut b = c.mapv(f64::exp);
    for i in 0..3 {
        a -= &b;
        match i % 3 {
            0 => a += &b,
            1 | 2 => {
                b += &a.mapv(|e| e * 0.5);
            }
            _ => {}
        }
    }
    (x * &a).sum() + b.sum()
}

#[test]
fn a_constant_match_that_assigns() {
    let x = array![0.5, -1.0];
    let c = array![0.2, 0.4];
    let (v, g) = constant_match_assigning_backward(&x, &c, 1.0);
    assert_eq!(v, constant_match_assigning(&x, &c));
    gradcheck(&(x.clone(),), |(x,)| {
        constant_match_assigning_backward(x, &c, 1.0)
    })
    .unwrap();
    // ∂x = a, the constant the loop made.
    let mut a = &c * 1.5;
    let mut b = c.mapv(f64::exp);
    for i in 0..3 {
        a -= &b;
        if i % 3 == 0 {
            a += &b;
        } else {
            b += &a.mapv(|e| e * 0.5);
        }
    }
    assert_eq!(g.x, a);
}
