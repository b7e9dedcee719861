//! The generated code reuses buffers: a temporary that one op reads lends it
//! its buffer (`add_owned`, `tanh_owned`, ...), `sum(square(x))` is one
//! reduction whose rule may write over `x`, `mse` writes its residual over a
//! dead `pred`. Each function here takes one of those paths, or is built so
//! that it must not (the value is read again, the square is used twice); the
//! value must equal the original function's bit for bit and every gradient
//! must pass central differences, with exact values where they are known.

use backprop::prelude::*;
use backprop_testkit::random;

/// `c` is read only by the sum of squares: `2c` is written over it.
#[differentiable]
fn sq_sub(a: &Array2<f64>, b: &Array2<f64>) -> f64 {
    let c = a - b;
    sum(&(&c * &c))
}

/// `c` is read again after the sum of squares: the rule borrows it.
#[differentiable]
fn sq_then_mean(a: &Array2<f64>, b: &Array2<f64>) -> f64 {
    let c = a - b;
    sum(&(&c * &c)) + mean(&c) * 3.0
}

/// A parameter's sum of squares (a weight decay): the rule borrows it.
#[differentiable]
fn decay(w: &Array1<f64>) -> f64 {
    sum(&square(w)) + sum(w)
}

/// The square is read twice: it is made, and summed as an array.
#[differentiable]
fn square_twice(a: &Array2<f64>) -> f64 {
    let q = square(a);
    sum(&q) + q[[0, 1]]
}

/// Ridge regression: a product and a bias reuse their buffers, the residual's
/// sum of squares writes over the residual, and the decay borrows `w`.
#[differentiable(wrt(w, b))]
fn ridge(w: &Array1<f64>, b: f64, x: &Array2<f64>, y: &Array1<f64>, lambda: f64) -> f64 {
    let r = x.dot(w) + b - y;
    sum(&(&r * &r)) / (y.len() as f64) + lambda * sum(&(w * w))
}

/// The same paths inside a loop, with a branch: each iteration's residual and
/// activations reuse buffers, and `mse` writes over its prediction.
#[differentiable(wrt(w, u))]
fn in_a_loop(w: &Array2<f64>, u: &Array1<f64>, xs: &Array2<f64>, ys: &Array2<f64>) -> f64 {
    let mut total = 0.0;
    for t in 0..xs.nrows() {
        let h = sigmoid(&(w.dot(&xs.row(t)) + u));
        let r = &h - &ys.row(t);
        if t % 2 == 0 {
            total += sum(&(&r * &r));
        } else {
            total += mse(&(exp(&(-&h)) * 0.5), &ys.row(t));
        }
    }
    total
}

/// Activations that read only their output take their operand's buffer;
/// `sqrt` and `recip` of a positive temporary, `relu` and `neg` too.
#[differentiable]
fn activations(a: &Array2<f64>, b: &Array1<f64>) -> f64 {
    let p = sqrt(&(square(a) + 1.0));
    let q = backprop::ops::recip(&(&p + b));
    let r = relu(&(-(&q - 0.6)));
    sum(&(tanh(&(r * 2.0)) + exp(&(a * 0.1)))) + sum(&(a / 2.0 / b))
}

#[test]
fn sum_of_squares_writes_over_its_operand() {
    let a = array![[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]];
    let b = array![[0.5], [2.0]];
    let (v, g) = sq_sub_backward(&a, &b, 1.0);
    assert_eq!(v.to_bits(), sq_sub(&a, &b).to_bits());
    // c = [[0.5, 1.5, 2.5], [2, 3, 4]]: L = 8.75 + 29 = 37.75, ∂a = 2c, ∂b = −2 Σ_j c.
    assert_eq!(v, 37.75);
    assert_eq!(g.a, array![[1.0, 3.0, 5.0], [4.0, 6.0, 8.0]]);
    assert_eq!(g.b, array![[-9.0], [-18.0]]);
    let mut s = 3;
    let (a, b) = (random((5, 4), &mut s), random((5, 1), &mut s));
    assert_eq!(
        sq_sub_backward(&a, &b, 1.0).0.to_bits(),
        sq_sub(&a, &b).to_bits()
    );
    gradcheck(&(a.clone(), b.clone()), |(a, b)| sq_sub_backward(a, b, 1.0)).unwrap();
    // Column-major and broadcast-row inputs.
    let af = a.t().to_owned().reversed_axes();
    let br = random((1, 4), &mut s);
    assert_eq!(
        sq_sub_backward(&af, &br, 1.0).0.to_bits(),
        sq_sub(&af, &br).to_bits()
    );
    gradcheck(&(af, br), |(a, b)| sq_sub_backward(a, b, 1.0)).unwrap();
}

#[test]
fn a_value_read_again_is_borrowed() {
    let a = array![[1.0, 2.0], [3.0, 4.0]];
    let b = array![[1.0], [1.0]];
    let (v, g) = sq_then_mean_backward(&a, &b, 1.0);
    assert_eq!(v.to_bits(), sq_then_mean(&a, &b).to_bits());
    // c = [[0, 1], [2, 3]]: ∂a = 2c + 3/4.
    assert_eq!(g.a, array![[0.75, 2.75], [4.75, 6.75]]);
    gradcheck(&(a, b), |(a, b)| sq_then_mean_backward(a, b, 1.0)).unwrap();

    let w = array![1.0, -2.0, 0.5];
    let (v, g) = decay_backward(&w, 1.0);
    assert_eq!(v, decay(&w));
    assert_eq!(g.w, array![3.0, -3.0, 2.0]);
    gradcheck(&(w,), |(w,)| decay_backward(w, 1.0)).unwrap();

    let a = array![[1.0, 2.0], [3.0, 4.0]];
    let (v, g) = square_twice_backward(&a, 1.0);
    assert_eq!(v, square_twice(&a));
    assert_eq!(g.a, array![[2.0, 8.0], [6.0, 8.0]]);
    gradcheck(&(a,), |(a,)| square_twice_backward(a, 1.0)).unwrap();
}

#[test]
fn ridge_regression() {
    let mut s = 11;
    let x = random((20, 3), &mut s);
    let y = random(20, &mut s);
    let w = random(3, &mut s);
    let (v, g) = ridge_backward(&w, 0.2, &x, &y, 0.1, 1.0);
    assert_eq!(v.to_bits(), ridge(&w, 0.2, &x, &y, 0.1).to_bits());
    // ∂w = (2/n) Xᵀ r + 2λw, ∂b = (2/n) Σ r.
    let r = x.dot(&w) + 0.2 - &y;
    let dw = x.t().dot(&r) * (2.0 / 20.0) + &w * 0.2;
    for (a, b) in g.w.iter().zip(&dw) {
        assert!((a - b).abs() < 1e-14, "{a} vs {b}");
    }
    assert!((g.b - r.sum() * 2.0 / 20.0).abs() < 1e-14);
    gradcheck(&(w, 0.2), |(w, b)| ridge_backward(w, *b, &x, &y, 0.1, 1.0)).unwrap();
}

#[test]
fn reuse_inside_loops_and_branches() {
    let mut s = 5;
    let w = random((3, 4), &mut s);
    let u = random(3, &mut s);
    let xs = random((6, 4), &mut s);
    let ys = random((6, 3), &mut s);
    let (v, _) = in_a_loop_backward(&w, &u, &xs, &ys, 1.0);
    assert_eq!(v.to_bits(), in_a_loop(&w, &u, &xs, &ys).to_bits());
    gradcheck(&(w, u), |(w, u)| in_a_loop_backward(w, u, &xs, &ys, 1.0)).unwrap();
}

#[test]
fn activations_over_reused_buffers() {
    let mut s = 9;
    let a = random((4, 3), &mut s);
    let b = random(3, &mut s).mapv(|v| v.abs() + 0.5);
    let (v, _) = activations_backward(&a, &b, 1.0);
    assert_eq!(v.to_bits(), activations(&a, &b).to_bits());
    gradcheck(&(a, b), |(a, b)| activations_backward(a, b, 1.0)).unwrap();
}

/// An arithmetic op over a product, then an elementwise function, in one pass
/// over the product's buffer (`add_owned_map(.., relu_elem)` and the like),
/// for each of `+ - * /` and each function that reads only its output.
#[differentiable]
fn fused(x: &Array2<f64>, w: &Array2<f64>, b: &Array1<f64>, wp: &Array2<f64>) -> f64 {
    let p = relu(&(x.dot(w) + b));
    let q = tanh(&(p.dot(w) - b));
    let r = sigmoid(&(q.dot(w) * 0.5));
    let s = exp(&(r.dot(w) / 4.0));
    let t = -(s.dot(w) + 1.0);
    let u = sqrt(&(r.dot(wp) + 0.5));
    let v = backprop::ops::recip(&(u.dot(wp) + 2.0));
    let y = tan(&(v.dot(w) * 0.3));
    sum(&p) + sum(&q) + sum(&r) + sum(&s) + mean(&t) + sum(&u) + sum(&v) + sum(&y)
}

#[test]
fn arithmetic_and_activation_in_one_pass() {
    let mut s = 21;
    let x = random((5, 3), &mut s);
    let w = random((3, 3), &mut s);
    let b = random(3, &mut s);
    let wp = random((3, 3), &mut s).mapv(f64::abs);
    let (v, _) = fused_backward(&x, &w, &b, &wp, 1.0);
    assert_eq!(v.to_bits(), fused(&x, &w, &b, &wp).to_bits());
    gradcheck(&(x, w, b, wp.clone()), |(x, w, b, wp)| {
        fused_backward(x, w, b, wp, 1.0)
    })
    .unwrap();
}

/// A value read by products, sums and differences on either side, and by
/// other ops: the later contributions are added into the buffer of an earlier
/// one (`dot_vjp_lhs_add`, `add_vjp_rhs_add`, `sub_vjp_rhs_add`, ...), the
/// others summed. Inside a loop too, and beside a loop that reads it.
#[differentiable]
fn forks(w: &Array2<f64>, x: &Array2<f64>, b: &Array1<f64>, n: usize) -> f64 {
    let h = x.dot(w);
    let a = h.dot(w) + &h;
    let c = &h - b;
    let d = tanh(&h);
    let mut total = sum(&a) + sum(&c) + sum(&d) + sum(&(b - &h)) + sum(&(b + &h));
    for _ in 0..n {
        let z = h.dot(w) - &h + &h.dot(&w.t());
        total += mean(&z) * 0.1;
    }
    total + sum(&(&h * &h))
}

#[test]
fn fork_sums_added_in_place() {
    let mut s = 41;
    let w = random((3, 3), &mut s);
    let x = random((4, 3), &mut s);
    let b = random(3, &mut s);
    for n in [0, 1, 3] {
        let (v, _) = forks_backward(&w, &x, &b, n, 1.0);
        assert_eq!(v.to_bits(), forks(&w, &x, &b, n).to_bits());
        gradcheck(&(w.clone(), x.clone(), b.clone()), |(w, x, b)| {
            forks_backward(w, x, b, n, 1.0)
        })
        .unwrap();
    }
}

/// A sum of two products, the second read by nothing else, is one product
/// added into the first's buffer where the runtime can (`add_dot`:
/// matrix-vector and vector-matrix), and two ops otherwise (matrices, a
/// broadcast).
#[differentiable]
fn sums_of_products(m: &Array2<f64>, n: &Array2<f64>, u: &Array1<f64>, v: &Array1<f64>) -> f64 {
    let a = tanh(&(m.dot(u) + n.dot(v) + 0.5));
    let b = v.dot(n) + u.dot(m);
    let c = m.t().dot(n) + n.t().dot(m);
    let d = m.dot(&n.t()) + u.dot(&m.t());
    sum(&a) + sum(&(&b * &b)) + mean(&c) + sum(&d)
}

#[test]
fn products_added_into_a_buffer() {
    let mut s = 61;
    let m = random((3, 3), &mut s);
    let n = random((3, 3), &mut s);
    let u = random(3, &mut s);
    let v = random(3, &mut s);
    let (value, _) = sums_of_products_backward(&m, &n, &u, &v, 1.0);
    assert_eq!(value.to_bits(), sums_of_products(&m, &n, &u, &v).to_bits());
    gradcheck(&(m, n, u, v), |(m, n, u, v)| {
        sums_of_products_backward(m, n, u, v, 1.0)
    })
    .unwrap();
}

/// Sums of two computed arrays: when neither is broadcast both gradients are
/// the upstream one, so the operand whose rule runs first borrows it
/// (`add_vjp_lend_rhs` / `add_vjp_lend_lhs` and `lent`). The later operand
/// on either side; a borrower whose rule would reuse the buffer (`tanh`,
/// which copies a lent gradient); a broadcast sum of two computed arrays
/// (nothing to share, each gets its own); sums of sums.
#[differentiable]
fn lent_sums(a: &Array2<f64>, b: &Array2<f64>, v: &Array1<f64>) -> f64 {
    let p = a * 2.0;
    let q = tanh(b);
    let left_later = &q + &p;
    let right_later = exp(&(a * 0.5)) + tanh(&(b * 0.3));
    let broadcast = sigmoid(a) + sin(v);
    let nested = (a.dot(b) + b.dot(a)) + b * 0.5;
    sum(&(&left_later * &right_later)) + mean(&broadcast) + sum(&nested) * 0.1
}

#[test]
fn sums_of_two_computed_arrays_share_their_gradient() {
    let mut seed = 17;
    let a = random((3, 3), &mut seed);
    let b = random((3, 3), &mut seed);
    let v = random(3, &mut seed);
    let (value, _) = lent_sums_backward(&a, &b, &v, 1.0);
    assert_eq!(value, lent_sums(&a, &b, &v));
    gradcheck(&(a, b, v), |(a, b, v)| lent_sums_backward(a, b, v, 1.0)).unwrap();
}

/// The simplest case, with exact values: `L = Σ (2a + 3b)`, so `∂a = 2` and
/// `∂b = 3` everywhere, whichever side borrows.
#[differentiable]
fn lent_exact(a: &Array1<f64>, b: &Array1<f64>) -> f64 {
    sum(&(a * 2.0 + b * 3.0)) + sum(&(b * 3.0 + a * 2.0))
}

#[test]
fn a_lent_gradient_has_the_exact_values() {
    let a = Array1::from(vec![0.5, -1.0, 2.0]);
    let b = Array1::from(vec![1.5, 0.25, -3.0]);
    let (value, g) = lent_exact_backward(&a, &b, 1.0);
    assert_eq!(value, lent_exact(&a, &b));
    assert_eq!(g.a, Array1::from(vec![4.0; 3]));
    assert_eq!(g.b, Array1::from(vec![6.0; 3]));
    gradcheck(&(a, b), |(a, b)| lent_exact_backward(a, b, 1.0)).unwrap();
}
