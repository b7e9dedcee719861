//! The in-place forward forms (`add_owned`, `tanh_owned`, ...) give the plain
//! op's values bit for bit, and its layout; they reuse the operand's buffer
//! exactly when it can hold the result. A kept shape stands in for the value
//! in every rule that reads only shapes, with the same gradients.

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

#[test]
fn binary_owned_forms_equal_the_plain_ops_and_reuse_the_buffer() {
    let a = grid(4, 3, 0.1);
    let operands: Vec<(&str, ArrayD<f64>)> = vec![
        ("same shape", grid(4, 3, 0.9).into_dyn()),
        ("row", grid(1, 3, 0.4).into_dyn()),
        ("column", grid(4, 1, 0.2).into_dyn()),
        ("bias", Array1::from_vec(vec![0.5, -1.5, 2.0]).into_dyn()),
    ];
    for (what, b) in &operands {
        let a = a.clone().into_dyn();
        for (name, plain, owned) in [
            (
                "add",
                add(&a, b),
                add_owned as fn(ArrayD<f64>, &ArrayD<f64>) -> ArrayD<f64>,
            ),
            ("sub", sub(&a, b), sub_owned),
            ("mul", mul(&a, b), mul_owned),
            ("div", div(&a, b), div_owned),
        ] {
            let buf = a.clone();
            let p = buf.as_ptr();
            let out = owned(buf, b);
            assert_eq!(out.as_ptr(), p, "{name} with a {what} reuses the buffer");
            same(&out, &plain);
        }
    }
}

#[test]
fn owned_forms_allocate_when_the_buffer_cannot_hold_the_result() {
    // The left operand is the one broadcast: a new array, as `add` makes.
    let a = grid(1, 3, 0.3);
    let b = grid(4, 3, 0.7);
    let out = add_owned(a.clone(), &b);
    same(&out, &add(&a, &b));
    assert_eq!(out.shape(), &[4, 3]);
    // A column-major buffer: ndarray's `&a + &b` gives a row-major result, so
    // the buffer is not reused (the layout, and later sums, stay the same).
    let f = Array2::from_shape_vec((3, 2).f(), vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0]).unwrap();
    let g = grid(3, 2, 0.5);
    let plain = sub(&f, &g);
    let fp = f.as_ptr();
    let out = sub_owned(f, &g);
    assert_ne!(out.as_ptr(), fp);
    same(&out, &plain);
    // A scalar with an array: the array is the result.
    let out = mul_owned(2.0_f64, &g);
    same(&out, &mul(&2.0_f64, &g));
    // An array with a scalar: in place.
    let gp = g.as_ptr();
    let plain = div(&g, &3.0_f64);
    let out = div_owned(g, &3.0_f64);
    assert_eq!(out.as_ptr(), gp);
    same(&out, &plain);
    // Two scalars.
    assert_eq!(add_owned(1.5_f64, &2.25_f64), 3.75);
}

#[test]
fn incompatible_shapes_panic_as_the_plain_op_does() {
    let a = grid(2, 3, 0.0);
    let b = grid(3, 2, 0.0);
    let plain = std::panic::catch_unwind(|| add(&a, &b)).unwrap_err();
    let owned = std::panic::catch_unwind(|| add_owned(a.clone(), &b)).unwrap_err();
    let text = |e: &Box<dyn std::any::Any + Send>| {
        e.downcast_ref::<String>()
            .cloned()
            .or_else(|| e.downcast_ref::<&str>().map(|s| s.to_string()))
            .unwrap_or_default()
    };
    assert_eq!(text(&plain), text(&owned));
}

#[test]
fn unary_owned_forms_equal_the_plain_ops() {
    let x = grid(5, 4, 0.2);
    let pos = x.mapv(f64::abs) + 0.1;
    let with_edges = array![
        [0.0, -0.0, f64::NAN, f64::INFINITY],
        [-3.0, 700.0, -700.0, 1e-300]
    ];
    type Pair = (
        &'static str,
        fn(&Array2<f64>) -> Array2<f64>,
        fn(Array2<f64>) -> Array2<f64>,
    );
    let ops: [Pair; 7] = [
        ("exp", |x| exp(x), exp_owned),
        ("sqrt", |x| sqrt(x), sqrt_owned),
        ("tan", |x| tan(x), tan_owned),
        ("tanh", |x| tanh(x), tanh_owned),
        ("sigmoid", |x| sigmoid(x), sigmoid_owned),
        ("recip", |x| recip(x), recip_owned),
        ("relu", |x| relu(x), relu_owned),
    ];
    for (name, plain, owned) in ops {
        for input in [&x, &pos, &with_edges] {
            let expected = plain(input);
            let buf = input.clone();
            let p = buf.as_ptr();
            let out = owned(buf);
            assert_eq!(out.as_ptr(), p, "{name} in place");
            assert_eq!(out.shape(), expected.shape());
            for (a, b) in out.iter().zip(&expected) {
                assert!(a.to_bits() == b.to_bits(), "{name}: {a} vs {b}");
            }
        }
    }
    assert_eq!(tanh_owned(0.5_f64), tanh(0.5_f64));
    assert_eq!(neg_owned(x.clone()), neg(&x));
}

#[test]
fn softmax_cross_entropy_over_its_logits_buffer() {
    let logits = grid(6, 3, 0.8);
    let labels = [0, 2, 1, 1, 0, 2];
    let (value, probs) = softmax_cross_entropy_fwd(&logits, &labels);
    let p = logits.as_ptr();
    let (value_owned, probs_owned) = softmax_cross_entropy_fwd_owned(logits, &labels);
    assert_eq!(value.to_bits(), value_owned.to_bits());
    assert_eq!(probs_owned.as_ptr(), p);
    same(&probs, &probs_owned);
}

#[test]
fn a_kept_shape_stands_in_for_the_value_in_shape_only_rules() {
    let a = grid(4, 3, 0.3);
    let b = grid(1, 3, 0.6);
    let g = grid(4, 3, 0.9);
    let kept = shape_of(&a);
    let s = stand_in(&kept);
    assert_eq!(s.shape(), a.shape());
    let (da, db) = add_vjp_both(g.clone(), &a, &b);
    let (sa, sb) = add_vjp_both(g.clone(), &s, &b);
    assert_eq!((da.clone(), db.clone()), (sa, sb));
    let (da, db) = sub_vjp_both(g.clone(), &a, &b);
    assert_eq!((da, db), sub_vjp_both(g.clone(), &s, &b));
    // `∂a` of `a * b` and `a / b` reads only `b`.
    assert_eq!(mul_vjp_lhs(&g, &a, &b), mul_vjp_lhs(&g, &s, &b));
    assert_eq!(div_vjp_lhs(&g, &a, &b), div_vjp_lhs(&g, &s, &b));
    assert_eq!(neg_vjp(&g, &a), neg_vjp(&g, &s));
    // The rules that read only the output.
    let out = tanh(&a);
    assert_eq!(tanh_vjp(&g, &a, &out), tanh_vjp(&g, &s, &out));
    let out = relu(&a);
    assert_eq!(relu_vjp(&g, &a, &out), relu_vjp(&g, &s, &out));
    let out = sigmoid(&a);
    assert_eq!(sigmoid_vjp(&g, &a, &out), sigmoid_vjp(&g, &s, &out));
    let out = exp(&a);
    assert_eq!(exp_vjp(&g, &a, &out), exp_vjp(&g, &s, &out));
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
        let got = add_owned(a.clone(), &b);
        assert_eq!(got, expected, "{:?} + {:?}", a.shape(), b.shape());
        let mapped = add_owned_map(a.clone(), &b, relu_elem);
        assert_eq!(mapped, expected.mapv(relu_elem));
    }
    // A strided (non-contiguous) row.
    let got = add_owned(a2.clone(), &wide.slice(ndarray::s![1, ..;2]));
    assert_eq!(got, &a2 + &strided_row);
    for b in [
        Array::from_shape_fn(4, |k| k as f64 - 1.5).into_dyn(),
        Array::from_shape_fn((1, 1, 4), |(_, _, k)| k as f64 * 0.5).into_dyn(),
        Array::from_shape_fn((3, 1), |(j, _)| j as f64 + 0.25).into_dyn(),
        Array::from_shape_fn((2, 1, 4), |(i, _, k)| (i + k) as f64).into_dyn(),
    ] {
        let expected = &a3 + &b;
        assert_eq!(add_owned(a3.clone(), &b), expected, "{:?}", b.shape());
        assert_eq!(sub_owned(a3.clone(), &b), &a3 - &b);
        assert_eq!(
            mul_owned_map(a3.clone(), &b, relu_elem),
            (&a3 * &b).mapv(relu_elem)
        );
    }
}

/// `relu_vjp` passes `g` where the output is positive, gives 0 where it is
/// 0, and NaN where it is NaN (the output of a NaN input), in any layout.
#[test]
fn relu_vjp_masks_by_the_output() {
    let x = array![[1.5, -2.0, 0.0], [f64::NAN, 3.0, -0.0]];
    let out = relu(&x);
    let g = array![[0.5, 0.25, 4.0], [1.0, -2.0, 8.0]];
    let d = relu_vjp(g.clone(), &x, &out);
    assert_eq!(d.row(0), array![0.5, 0.0, 0.0]);
    assert!(d[[1, 0]].is_nan());
    assert_eq!((d[[1, 1]], d[[1, 2]]), (-2.0, 0.0));
    assert!(d
        .iter()
        .all(|v| v.is_nan() || v.to_bits() != (-0.0f64).to_bits()));
    let mut g_f = Array2::zeros((2, 3).f());
    g_f.assign(&g);
    let d_f = relu_vjp(g_f, &x, &out);
    assert_eq!(d_f.row(0), d.row(0));
    assert!(d_f[[1, 0]].is_nan());
}
