//! The ops with an owned array passed by value (`add(a, &b)`, `tanh(a)`,
//! `zip_map(a, &b, Add, Relu)`, ...) give the op's values by reference bit
//! for bit, and its layout; they reuse the operand's buffer exactly when it
//! can hold the result. A kept shape stands in for the value in every rule
//! that reads only shapes, with the same gradients.

use backprop_runtime::kernels::{map_vjp_g, map_vjp_out, zip_map, Unary};
use backprop_runtime::ops::*;
use backprop_runtime::value::{shape_of, stand_in};
use ndarray::{array, Array, Array1, Array2, ArrayD, IxDyn, ShapeBuilder};

fn grid(rows: usize, cols: usize, seed: f64) -> Array2<f64> {
    Array2::from_shape_fn((rows, cols), |(i, j)| {
        ((i * cols + j) as f64 * 0.37 + seed).sin() * 1.7
    })
}

/// Same values, same bits, same shape and strides.
fn same<D: ndarray::Dimension>(a: &Array<f64, D>, b: &Array<f64, D>) {
    assert_eq!(a.shape(), b.shape());
    assert_eq!(a.strides(), b.strides());
    for (x, y) in a.iter().zip(b) {
        assert_eq!(x.to_bits(), y.to_bits(), "{x} vs {y}");
    }
}

/// `add(a, &b)` and the other binary ops with `a` owned and passed by value
/// write into `a`'s buffer when it has the result's shape and the standard
/// layout, whatever `b` is (the same shape, a row, a column, a bias), with
/// the bits, shape and strides of `&a ⊕ &b`.
#[test]
fn binary_ops_by_value_equal_the_plain_ops_and_reuse_the_buffer() {
    let a = grid(4, 3, 0.1);
    let operands: Vec<(&str, ArrayD<f64>)> = vec![
        ("same shape", grid(4, 3, 0.9).into_dyn()),
        ("row", grid(1, 3, 0.4).into_dyn()),
        ("column", grid(4, 1, 0.2).into_dyn()),
        ("bias", Array1::from_vec(vec![0.5, -1.5, 2.0]).into_dyn()),
        ("one element", array![1.25].into_dyn()),
        ("column-major", {
            let mut f = Array2::zeros((4, 3).f());
            f.assign(&grid(4, 3, 0.6));
            f.into_dyn()
        }),
    ];
    type ByValue = fn(ArrayD<f64>, &ArrayD<f64>) -> ArrayD<f64>;
    for (what, b) in &operands {
        let a = a.clone().into_dyn();
        let ops: [(&str, ArrayD<f64>, ByValue); 7] = [
            ("add", add(&a, b), add),
            ("sub", sub(&a, b), sub),
            ("mul", mul(&a, b), mul),
            ("div", div(&a, b), div),
            ("max", max(&a, b), max),
            ("min", min(&a, b), min),
            ("powf", powf(&a, b), powf),
        ];
        for (name, plain, by_value) in ops {
            let buf = a.clone();
            let p = buf.as_ptr();
            let out = by_value(buf, b);
            assert_eq!(out.as_ptr(), p, "{name} with a {what} reuses the buffer");
            same(&out, &plain);
        }
        same(&add(a.clone(), b), &(&a + b));
        same(&sub(a.clone(), b), &(&a - b));
        same(&mul(a.clone(), b), &(&a * b));
        same(&div(a.clone(), b), &(&a / b));
    }
}

/// Where `a`'s buffer cannot hold the result as the op by reference lays it
/// out (a broadcast `a`, a column-major `a`), the op by value allocates,
/// with the bits of `&a ⊕ &b`.
#[test]
fn ops_by_value_allocate_when_the_buffer_cannot_hold_the_result() {
    // The left operand is the one broadcast: a new array, as `add` makes.
    let a = grid(1, 3, 0.3);
    let b = grid(4, 3, 0.7);
    let plain = add(&a, &b);
    same(&plain, &(&a + &b));
    let ap = a.as_ptr();
    let out = add(a, &b);
    assert_ne!(out.as_ptr(), ap);
    same(&out, &plain);
    assert_eq!(out.shape(), &[4, 3]);
    // A broadcast of lower rank, and a column against a matrix.
    let v = Array1::from_vec(vec![0.5, -1.5, 2.0]);
    let plain = &v + &b;
    let vp = v.as_ptr();
    let out = add(v, &b);
    assert_ne!(out.as_ptr(), vp);
    same(&out, &plain);
    let c = grid(4, 1, 0.8);
    let plain = &c * &b;
    let cp = c.as_ptr();
    let out = mul(c, &b);
    assert_ne!(out.as_ptr(), cp);
    same(&out, &plain);
    // A column-major buffer: ndarray's `&a + &b` gives a row-major result, so
    // the buffer is not reused (the layout, and later sums, stay the same).
    let f = Array2::from_shape_vec((3, 2).f(), vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0]).unwrap();
    let g = grid(3, 2, 0.5);
    let plain = sub(&f, &g);
    same(&plain, &(&f - &g));
    let fp = f.as_ptr();
    let out = sub(f.clone(), &g);
    assert_ne!(out.as_ptr(), fp);
    same(&out, &plain);
    let plain = &f + &g;
    let fp = f.as_ptr();
    let out = add(f, &g);
    assert_ne!(out.as_ptr(), fp);
    same(&out, &plain);
    // A scalar with an array: the array is the result.
    let out = mul(2.0_f64, &g);
    same(&out, &mul(&2.0_f64, &g));
    // An array with a scalar: in place.
    let gp = g.as_ptr();
    let plain = div(&g, &3.0_f64);
    let out = div(g, &3.0_f64);
    assert_eq!(out.as_ptr(), gp);
    same(&out, &plain);
    // Two scalars.
    assert_eq!(add(1.5_f64, &2.25_f64), 3.75);
}

#[test]
fn incompatible_shapes_panic_as_the_plain_op_does() {
    let a = grid(2, 3, 0.0);
    let b = grid(3, 2, 0.0);
    let plain = std::panic::catch_unwind(|| add(&a, &b)).unwrap_err();
    let owned = std::panic::catch_unwind(|| add(a.clone(), &b)).unwrap_err();
    let text = |e: &Box<dyn std::any::Any + Send>| {
        e.downcast_ref::<String>()
            .cloned()
            .or_else(|| e.downcast_ref::<&str>().map(|s| s.to_string()))
            .unwrap_or_default()
    };
    assert_eq!(text(&plain), text(&owned));
}

/// Every elementwise op with an owned array passed by value (`tanh(a)`)
/// computes in `a`'s buffer, with the bits, shape and strides of the op by
/// reference (`tanh(&a)`), in either layout and at the edge values.
#[test]
fn unary_ops_by_value_equal_the_plain_ops_and_reuse_the_buffer() {
    let x = grid(5, 4, 0.2);
    let pos = x.mapv(f64::abs) + 0.1;
    let with_edges = array![
        [0.0, -0.0, f64::NAN, f64::INFINITY],
        [-3.0, 700.0, -700.0, 1e-300]
    ];
    let column_major = {
        let mut m = Array2::zeros((5, 4).f());
        m.assign(&x);
        m
    };
    type Pair = (
        &'static str,
        fn(&Array2<f64>) -> Array2<f64>,
        fn(Array2<f64>) -> Array2<f64>,
    );
    let ops: &[Pair] = &[
        ("exp", |x| exp(x), |x| exp(x)),
        ("ln", |x| ln(x), |x| ln(x)),
        ("sqrt", |x| sqrt(x), |x| sqrt(x)),
        ("square", |x| square(x), |x| square(x)),
        ("abs", |x| abs(x), |x| abs(x)),
        ("sin", |x| sin(x), |x| sin(x)),
        ("cos", |x| cos(x), |x| cos(x)),
        ("tan", |x| tan(x), |x| tan(x)),
        ("tanh", |x| tanh(x), |x| tanh(x)),
        ("sigmoid", |x| sigmoid(x), |x| sigmoid(x)),
        ("relu", |x| relu(x), |x| relu(x)),
        ("recip", |x| recip(x), |x| recip(x)),
        ("softplus", |x| softplus(x), |x| softplus(x)),
        ("log_sigmoid", |x| log_sigmoid(x), |x| log_sigmoid(x)),
        ("sinh", |x| sinh(x), |x| sinh(x)),
        ("cosh", |x| cosh(x), |x| cosh(x)),
        ("asinh", |x| asinh(x), |x| asinh(x)),
        ("acosh", |x| acosh(x), |x| acosh(x)),
        ("atanh", |x| atanh(x), |x| atanh(x)),
        ("asin", |x| asin(x), |x| asin(x)),
        ("acos", |x| acos(x), |x| acos(x)),
        ("atan", |x| atan(x), |x| atan(x)),
        ("exp2", |x| exp2(x), |x| exp2(x)),
        ("exp_m1", |x| exp_m1(x), |x| exp_m1(x)),
        ("ln_1p", |x| ln_1p(x), |x| ln_1p(x)),
        ("log2", |x| log2(x), |x| log2(x)),
        ("log10", |x| log10(x), |x| log10(x)),
        ("cbrt", |x| cbrt(x), |x| cbrt(x)),
        ("to_degrees", |x| to_degrees(x), |x| to_degrees(x)),
        ("to_radians", |x| to_radians(x), |x| to_radians(x)),
        ("signum", |x| signum(x), |x| signum(x)),
        ("floor", |x| floor(x), |x| floor(x)),
        ("ceil", |x| ceil(x), |x| ceil(x)),
        ("round", |x| round(x), |x| round(x)),
        ("trunc", |x| trunc(x), |x| trunc(x)),
        ("fract", |x| fract(x), |x| fract(x)),
        ("clamp", |x| clamp(x, -0.5, 1.0), |x| clamp(x, -0.5, 1.0)),
        ("powi 3", |x| powi(x, 3), |x| powi(x, 3)),
        ("powi -2", |x| powi(x, -2), |x| powi(x, -2)),
        ("neg", |x| neg(x), |x| neg(x)),
    ];
    for &(name, plain, by_value) in ops {
        for input in [&x, &pos, &with_edges, &column_major] {
            let expected = plain(input);
            let buf = input.clone();
            let p = buf.as_ptr();
            let out = by_value(buf);
            assert_eq!(out.as_ptr(), p, "{name} in place");
            assert_eq!(out.shape(), expected.shape());
            assert_eq!(out.strides(), expected.strides(), "{name} layout");
            for (a, b) in out.iter().zip(&expected) {
                assert!(a.to_bits() == b.to_bits(), "{name}: {a} vs {b}");
            }
        }
    }
    // `tanh(a)` by value: the bits of `tanh(&a)`, in `a`'s buffer.
    let a = grid(3, 7, 1.3);
    let want = tanh(&a);
    let p = a.as_ptr();
    let got = tanh(a);
    assert_eq!(got.as_ptr(), p);
    same(&got, &want);
    // Scalars by value and by reference.
    assert_eq!(tanh(0.5_f64).to_bits(), tanh(&0.5_f64).to_bits());
    assert_eq!(neg(0.5_f64), -0.5);
    same(&neg(x.clone()), &neg(&x));
    same(&neg(x.clone()), &-&x);
}

/// `softmax_cross_entropy_fwd` with the logits passed by value writes the
/// probabilities over them, with the bits of the call by reference.
#[test]
fn softmax_cross_entropy_over_its_logits_buffer() {
    let logits = grid(6, 3, 0.8);
    let labels = [0, 2, 1, 1, 0, 2];
    let (value, probs) = softmax_cross_entropy_fwd(&logits, &labels);
    let p = logits.as_ptr();
    let (value_owned, probs_owned) = softmax_cross_entropy_fwd(logits, &labels);
    assert_eq!(value.to_bits(), value_owned.to_bits());
    assert_eq!(probs_owned.as_ptr(), p);
    same(&probs, &probs_owned);
}

#[test]
fn a_kept_shape_stands_in_for_the_value_in_shape_only_rules() {
    use ndarray::Axis;
    let a = grid(4, 3, 0.3);
    let b = grid(1, 3, 0.6);
    let g = grid(4, 3, 0.9);
    let kept = shape_of(&a);
    let s = stand_in(&kept);
    assert_eq!(s.shape(), a.shape());
    let (da, db) = zip_vjp_both(g.clone(), &a, &b, Add);
    let (sa, sb) = zip_vjp_both(g.clone(), &s, &b, Add);
    assert_eq!((da.clone(), db.clone()), (sa, sb));
    let (da, db) = zip_vjp_both(g.clone(), &a, &b, Sub);
    assert_eq!((da, db), zip_vjp_both(g.clone(), &s, &b, Sub));
    assert_eq!(
        add_vjp_lend(g.clone(), &a, &grid(4, 3, 0.1), Rhs).0,
        add_vjp_lend(g.clone(), &s, &grid(4, 3, 0.1), Rhs).0
    );
    // The rule of `+` for either operand, accumulated.
    let mut acc = grid(1, 3, 0.2);
    let mut acc_s = acc.clone();
    zip_vjp_rhs(&g, &a, &b, Add).add_to(&mut acc);
    zip_vjp_rhs(&g, &s, &b, Add).add_to(&mut acc_s);
    assert_eq!(acc, acc_s);
    // `∂a` of `a * b` and `a / b` reads only `b`.
    assert_eq!(
        zip_vjp_lhs(&g, &a, &b, Mul).value(),
        zip_vjp_lhs(&g, &s, &b, Mul).value()
    );
    assert_eq!(
        zip_vjp_lhs(&g, &a, &b, Div).value(),
        zip_vjp_lhs(&g, &s, &b, Div).value()
    );
    // The rules of the reductions and of the structure ops read only shapes.
    assert_eq!(sum_vjp(0.5, &a), sum_vjp(0.5, &s));
    assert_eq!(mean_vjp(0.5, &a), mean_vjp(0.5, &s));
    let g1 = Array1::from_vec(vec![0.5, -1.0, 2.0]);
    assert_eq!(
        sum_axis_vjp(&g1, &a, Axis(0)),
        sum_axis_vjp(&g1, &s, Axis(0))
    );
    assert_eq!(
        mean_axis_vjp(&g1, &a, Axis(0)),
        mean_axis_vjp(&g1, &s, Axis(0))
    );
    assert_eq!(row_vjp(&g1, &a, 2).value(), row_vjp(&g1, &s, 2).value());
    let g4 = Array1::from_vec(vec![0.5, -1.0, 2.0, 0.25]);
    assert_eq!(
        column_vjp(&g4, &a, 1).value(),
        column_vjp(&g4, &s, 1).value()
    );
    assert_eq!(
        index_vjp(1.5, &a, [3, 2]).value(),
        index_vjp(1.5, &s, [3, 2]).value()
    );
    assert_eq!(copy_vjp(&g, &a), copy_vjp(&g, &s));
    assert_eq!(t_vjp(&g.t().to_owned(), &a), t_vjp(&g.t().to_owned(), &s));
    let g3 = g.clone().insert_axis(Axis(1));
    assert_eq!(
        insert_axis_vjp(&g3, &a, Axis(1)),
        insert_axis_vjp(&g3, &s, Axis(1))
    );
    // The rules that read only the output (`tanh`, `relu`, `sigmoid`, `exp`)
    // or nothing (`neg`) take no input at all now: nothing to stand in for.
    assert_eq!(neg_vjp(&g), map_vjp_g(&g, Neg));
    assert_eq!(neg_vjp(&g), -&g);
    let labels = [0, 1, 2, 1];
    let (_, probs) = softmax_cross_entropy_fwd(&a, &labels);
    assert_eq!(
        softmax_cross_entropy_vjp(0.5, &a, &labels, &probs),
        softmax_cross_entropy_vjp(0.5, &s, &labels, &probs)
    );
    // A scalar keeps itself; an empty or dynamic array keeps its shape.
    assert_eq!(stand_in(&shape_of(&2.5_f64)), 2.5);
    let empty = Array2::<f64>::zeros((0, 3));
    assert_eq!(stand_in(&shape_of(&empty)).shape(), &[0, 3]);
    let dynamic = ArrayD::<f64>::zeros(IxDyn(&[2, 1, 3]));
    assert_eq!(stand_in(&shape_of(&dynamic)).shape(), &[2, 1, 3]);
}

/// `zip_with1` over a broadcast operand runs lane by lane: the same values as
/// an elementwise loop, for any layout of either side and any rank.
#[test]
fn zip_with1_broadcasts_like_ndarray() {
    use backprop_runtime::Tensor;
    let g3 = Array::from_shape_fn((3, 4, 5).f(), |(i, j, k)| (i * 20 + j * 5 + k) as f64 * 0.5);
    for x in [
        Array::from_shape_fn((4, 5), |(j, k)| (j * 5 + k) as f64 - 3.0).into_dyn(),
        Array::from_shape_fn((4, 1), |(j, _)| j as f64 + 0.25).into_dyn(),
        Array::from_shape_fn((3, 1, 5), |(i, _, k)| (i * 5 + k) as f64).into_dyn(),
        Array::from_shape_fn(5, |k| k as f64 * 2.0).into_dyn(),
    ] {
        let expected = {
            let xb = x.broadcast(g3.shape()).unwrap();
            let mut e = g3.clone().into_dyn();
            ndarray::Zip::from(&mut e)
                .and(&xb)
                .for_each(|g, &x| *g = *g * 3.0 - x);
            e
        };
        let out = g3.clone().into_dyn().zip_with1(&x, |g, x| g * 3.0 - x);
        assert_eq!(out, expected);
    }
    let m = grid(3, 4, 0.4).reversed_axes();
    let out = m.clone().zip_with1(&grid(4, 1, 0.1), |g, x| g + x);
    assert_eq!(out, &m + &grid(4, 1, 0.1));
}

/// The in-place zip's fast paths (a contiguous bias row over contiguous rows,
/// two standard-layout arrays of one shape) and its general paths (a column,
/// a middle axis, a column-major or strided operand) all give `&a + &b`'s
/// values, and the fused map the plain map of them.
#[test]
fn every_broadcast_of_the_in_place_sum_is_the_plain_sums() {
    let a2 = grid(5, 4, 0.3);
    let a3 = Array::from_shape_fn((2, 3, 4), |(i, j, k)| {
        ((i * 12 + j * 4 + k) as f64 * 0.7).cos()
    });
    let wide = grid(3, 8, 1.1);
    let strided_row = wide.slice(ndarray::s![1, ..;2]).to_owned();
    let f_order = {
        let mut m = Array2::zeros((5, 4).f());
        m.assign(&a2);
        m
    };
    let row = array![0.5, -1.0, 2.0, 0.25];
    let cases2: Vec<(Array2<f64>, ArrayD<f64>)> = vec![
        (a2.clone(), row.clone().into_dyn()),
        (
            a2.clone(),
            row.clone().insert_axis(ndarray::Axis(0)).into_dyn(),
        ),
        (a2.clone(), grid(5, 1, 2.0).into_dyn()),
        (a2.clone(), grid(5, 4, 2.5).into_dyn()),
        (a2.clone(), f_order.clone().into_dyn()),
        (f_order.clone(), row.clone().into_dyn()),
        (f_order.clone(), grid(5, 4, 2.5).into_dyn()),
        (a2.clone(), array![3.0].into_dyn()),
    ];
    for (a, b) in cases2 {
        let expected = &a + &b;
        let what = format!("{:?} + {:?}", a.shape(), b.shape());
        let got = add(a.clone(), &b);
        assert_eq!(got, expected, "{what}");
        // In `a`'s buffer exactly when it is in the standard layout (every
        // `b` here broadcasts to `a`'s shape).
        let buf = a.clone();
        let p = buf.as_ptr();
        let mapped = zip_map(buf, &b, Add, Relu);
        assert_eq!(mapped, expected.mapv(|v| Relu.f(v)), "{what}");
        assert_eq!(mapped.as_ptr() == p, a.is_standard_layout(), "{what}");
    }
    // A strided (non-contiguous) row.
    let got = add(a2.clone(), &wide.slice(ndarray::s![1, ..;2]));
    assert_eq!(got, &a2 + &strided_row);
    for b in [
        Array::from_shape_fn(4, |k| k as f64 - 1.5).into_dyn(),
        Array::from_shape_fn((1, 1, 4), |(_, _, k)| k as f64 * 0.5).into_dyn(),
        Array::from_shape_fn((3, 1), |(j, _)| j as f64 + 0.25).into_dyn(),
        Array::from_shape_fn((2, 1, 4), |(i, _, k)| (i + k) as f64).into_dyn(),
    ] {
        let expected = &a3 + &b;
        assert_eq!(add(a3.clone(), &b), expected, "{:?}", b.shape());
        assert_eq!(sub(a3.clone(), &b), &a3 - &b);
        let buf = a3.clone();
        let p = buf.as_ptr();
        let mapped = zip_map(buf, &b, Mul, Relu);
        assert_eq!(mapped.as_ptr(), p, "{:?}", b.shape());
        assert_eq!(mapped, (&a3 * &b).mapv(|v| Relu.f(v)));
    }
}

/// The rule of `relu` (`map_vjp_out(g, &out, Relu)`) passes `g` where the
/// output is positive, gives 0 where it is 0, and NaN where it is NaN (the
/// output of a NaN input), in any layout.
#[test]
fn relu_rule_masks_by_the_output() {
    let x = array![[1.5, -2.0, 0.0], [f64::NAN, 3.0, -0.0]];
    let out = relu(&x);
    let g = array![[0.5, 0.25, 4.0], [1.0, -2.0, 8.0]];
    let d = map_vjp_out(g.clone(), &out, Relu);
    assert_eq!(d.row(0), array![0.5, 0.0, 0.0]);
    assert!(d[[1, 0]].is_nan());
    assert_eq!((d[[1, 1]], d[[1, 2]]), (-2.0, 0.0));
    assert!(d
        .iter()
        .all(|v| v.is_nan() || v.to_bits() != (-0.0f64).to_bits()));
    let mut g_f = Array2::zeros((2, 3).f());
    g_f.assign(&g);
    let d_f = map_vjp_out(g_f, &out, Relu);
    assert_eq!(d_f.row(0), d.row(0));
    assert!(d_f[[1, 0]].is_nan());
}
