//! Helpers shared by the test files: deterministic inputs, an independent
//! central-difference estimate of a vector-Jacobian product, and the
//! `check_vjp!` / `check_vjp2!` macros that test one adjoint rule.
#![allow(
    dead_code,
    unused_macros,
    reason = "every test file uses a different subset of the helpers"
)]

use backprop_runtime::{Float, Value};
use ndarray::{Array, Dimension, ShapeBuilder};

/// Step and tolerances of a check. Passes when
/// `|analytic − numeric| ≤ atol + rtol · |numeric|`.
#[derive(Clone, Copy, Debug)]
pub struct Tol {
    pub eps: f64,
    pub rtol: f64,
    pub atol: f64,
}

pub const F64: Tol = Tol {
    eps: 1e-6,
    rtol: 1e-6,
    atol: 1e-8,
};
pub const F32: Tol = Tol {
    eps: 1e-2,
    rtol: 1e-2,
    atol: 1e-3,
};

/// A uniform pseudo-random number in `[0, 1)` (splitmix64 of `k`).
pub fn unit(k: u64) -> f64 {
    let mut z = k.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^= z >> 31;
    (z >> 11) as f64 / (1u64 << 53) as f64
}

/// A deterministic array of values in `[lo, hi)`; `shape` may be `.f()`.
pub fn rand<Sh: ShapeBuilder>(shape: Sh, seed: u64, lo: f64, hi: f64) -> Array<f64, Sh::Dim> {
    let mut k = seed.wrapping_mul(1000);
    Array::from_shape_fn(shape, |_| {
        k += 1;
        lo + (hi - lo) * unit(k)
    })
}

/// A deterministic array of values with `lo ≤ |v| < hi` and random signs
/// (away from the kinks at 0).
pub fn rand_away<Sh: ShapeBuilder>(shape: Sh, seed: u64, lo: f64, hi: f64) -> Array<f64, Sh::Dim> {
    let mut k = seed.wrapping_mul(1000) + 500;
    rand(shape, seed, lo, hi).mapv_into(|v| {
        k += 1;
        if unit(k) < 0.5 {
            -v
        } else {
            v
        }
    })
}

/// A deterministic scalar in `[lo, hi)`.
pub fn scalar(seed: u64, lo: f64, hi: f64) -> f64 {
    lo + (hi - lo) * unit(seed.wrapping_mul(7919))
}

/// An `f32` copy.
pub fn f32s<D: Dimension>(a: &Array<f64, D>) -> Array<f32, D> {
    a.mapv(|v| v as f32)
}

/// A deterministic upstream gradient of `out`'s shape, values in `[-1, 1)`,
/// none of them tiny.
pub fn upstream_like<V: Value>(out: &V, seed: u64) -> V::Owned {
    let mut k = seed.wrapping_mul(31337);
    out.map_elems(|_| {
        k += 1;
        let u = unit(k);
        let v = if u < 0.5 {
            -0.25 - 1.5 * u
        } else {
            0.25 + 1.5 * (u - 0.5)
        };
        V::Elem::from_f64(v)
    })
}

/// An owned copy of any value (to return a view's data from a closure).
pub fn own<V: Value>(v: V) -> V::Owned {
    v.to_owned_value()
}

/// The elements in logical row-major order, as `f64`.
pub fn elems<V: Value>(v: &V) -> Vec<f64> {
    v.view().iter().map(|&x| Float::to_f64(x)).collect()
}

/// `⟨g, y⟩ = Σ g ⊙ y` in `f64`, for two values of the same shape.
pub fn pair<G: Value, Y: Value>(g: &G, y: &Y) -> f64 {
    assert_eq!(g.shape(), y.shape(), "upstream and output shapes differ");
    elems(g).iter().zip(elems(y)).map(|(g, y)| g * y).sum()
}

/// A value that the central differences can perturb element by element
/// (logical row-major order). Deliberately independent of `gradcheck`.
pub trait Probe: Value + Clone {
    fn count(&self) -> usize;
    fn get(&self, k: usize) -> f64;
    fn set(&mut self, k: usize, v: f64);
}

impl Probe for f64 {
    fn count(&self) -> usize {
        1
    }
    fn get(&self, _: usize) -> f64 {
        *self
    }
    fn set(&mut self, _: usize, v: f64) {
        *self = v;
    }
}

impl Probe for f32 {
    fn count(&self) -> usize {
        1
    }
    fn get(&self, _: usize) -> f64 {
        f64::from(*self)
    }
    fn set(&mut self, _: usize, v: f64) {
        *self = v as f32;
    }
}

impl<F: Float, D: Dimension> Probe for Array<F, D> {
    fn count(&self) -> usize {
        self.len()
    }
    fn get(&self, k: usize) -> f64 {
        Float::to_f64(*self.iter().nth(k).unwrap())
    }
    fn set(&mut self, k: usize, v: f64) {
        *self.iter_mut().nth(k).unwrap() = F::from_f64(v);
    }
}

/// The central-difference estimate of `∇ₓ ⟨g, f(x)⟩`, element by element.
pub fn numeric_vjp<X: Probe, Y: Value, G: Value>(
    f: impl Fn(&X) -> Y,
    x: &X,
    g: &G,
    eps: f64,
) -> Vec<f64> {
    let mut x = x.clone();
    (0..x.count())
        .map(|k| {
            let x0 = x.get(k);
            x.set(k, x0 + eps);
            let xp = x.get(k);
            let fp = pair(g, &f(&x));
            x.set(k, x0 - eps);
            let xm = x.get(k);
            let fm = pair(g, &f(&x));
            x.set(k, x0);
            (fp - fm) / (xp - xm)
        })
        .collect()
}

/// Asserts that `analytic` has `x`'s shape and matches `numeric`.
pub fn assert_grad<A: Value, X: Value>(what: &str, analytic: &A, x: &X, numeric: &[f64], tol: Tol) {
    assert_eq!(
        analytic.shape(),
        x.shape(),
        "{what}: the gradient does not have the operand's shape"
    );
    let analytic = elems(analytic);
    assert_eq!(analytic.len(), numeric.len());
    for (k, (a, n)) in analytic.iter().zip(numeric).enumerate() {
        assert!(
            a.is_finite() && (a - n).abs() <= tol.atol + tol.rtol * n.abs(),
            "{what}: element {k}: analytic {a:e} vs numeric {n:e}\n  analytic {analytic:?}\n  numeric  {numeric:?}"
        );
    }
}

/// Asserts that two values have the same shape and the same bits.
pub fn assert_same<A: Value, B: Value>(what: &str, a: &A, b: &B) {
    assert_eq!(a.shape(), b.shape(), "{what}: shapes differ");
    let (ea, eb) = (elems(a), elems(b));
    let same = ea.iter().zip(&eb).all(|(x, y)| x.to_bits() == y.to_bits());
    assert!(same, "{what}: values differ:\n  {ea:?}\n  {eb:?}");
}

/// Tests the adjoint of a one-operand op against central differences of
/// `⟨g, f(x)⟩`, with an owned and a borrowed upstream `g` (which must agree
/// bit for bit):
///
/// `check_vjp!("what", tol, input, |x| forward(x), |g, out| adjoint(g, x, out))`
///
/// `x` is bound to `&input` in both expressions.
macro_rules! check_vjp {
    ($what:expr, $tol:expr, $input:expr, |$x:ident| $fwd:expr, |$g:ident, $o:ident| $vjp:expr) => {{
        let input = $input;
        let out = {
            let $x = &input;
            $fwd
        };
        let upstream = common::upstream_like(&out, 17);
        // A rule may read neither the input nor the output (`neg_vjp(g)`).
        #[allow(unused_variables)]
        let by_value = {
            let ($x, $o, $g) = (&input, &out, upstream.clone());
            $vjp
        };
        #[allow(unused_variables)]
        let by_ref = {
            let ($x, $o, $g) = (&input, &out, &upstream);
            $vjp
        };
        common::assert_same(
            &format!("{}: owned vs borrowed g", $what),
            &by_value,
            &by_ref,
        );
        let numeric = common::numeric_vjp(|$x| common::own($fwd), &input, &upstream, $tol.eps);
        common::assert_grad(&format!("{}", $what), &by_value, &input, &numeric, $tol);
    }};
}

/// Tests both adjoints of a two-operand op:
///
/// `check_vjp2!("what", tol, a, b, |x, y| forward(x, y), |g, out| lhs(g, x, y, out), |g, out| rhs(g, x, y, out))`
macro_rules! check_vjp2 {
    ($what:expr, $tol:expr, $a:expr, $b:expr, |$x:ident, $y:ident| $fwd:expr,
     |$g:ident, $o:ident| $lhs:expr, |$g2:ident, $o2:ident| $rhs:expr) => {{
        let (in_a, in_b) = ($a, $b);
        let out = {
            let ($x, $y) = (&in_a, &in_b);
            $fwd
        };
        let upstream = common::upstream_like(&out, 23);
        let lhs = {
            let ($x, $y, $o, $g) = (&in_a, &in_b, &out, upstream.clone());
            $lhs
        };
        let lhs_ref = {
            let ($x, $y, $o, $g) = (&in_a, &in_b, &out, &upstream);
            $lhs
        };
        let rhs = {
            let ($x, $y, $o2, $g2) = (&in_a, &in_b, &out, upstream.clone());
            $rhs
        };
        let rhs_ref = {
            let ($x, $y, $o2, $g2) = (&in_a, &in_b, &out, &upstream);
            $rhs
        };
        common::assert_same(
            &format!("{} lhs: owned vs borrowed g", $what),
            &lhs,
            &lhs_ref,
        );
        common::assert_same(
            &format!("{} rhs: owned vs borrowed g", $what),
            &rhs,
            &rhs_ref,
        );
        let num_a = common::numeric_vjp(
            |$x| {
                let $y = &in_b;
                common::own($fwd)
            },
            &in_a,
            &upstream,
            $tol.eps,
        );
        let num_b = common::numeric_vjp(
            |$y| {
                let $x = &in_a;
                common::own($fwd)
            },
            &in_b,
            &upstream,
            $tol.eps,
        );
        common::assert_grad(&format!("{} lhs", $what), &lhs, &in_a, &num_a, $tol);
        common::assert_grad(&format!("{} rhs", $what), &rhs, &in_b, &num_b, $tol);
    }};
}
