//! The ndarray vocabulary: broadcasting, linear algebra, reductions, structure,
//! row-wise functions and losses, checked by central differences (and by hand
//! where the answer is simple).

use backprop::prelude::*;
// A two-layer MLP with ReLU and softmax cross-entropy on a batch.
use backprop_testkit::networks::{mlp, mlp_backward};
use backprop_testkit::random;

#[test]
fn two_layer_mlp_on_a_batch() {
    let mut s = 11;
    let (n, d, hidden, k) = (16, 3, 8, 4);
    let x = random((n, d), &mut s);
    let labels: Vec<usize> = (0..n).map(|i| (i * 7 + 3) % k).collect();
    let params = (
        random((d, hidden), &mut s),
        random(hidden, &mut s),
        random((hidden, k), &mut s),
        random(k, &mut s),
    );
    let (w1, b1, w2, b2) = &params;
    let (v, g) = mlp_backward(w1, b1, w2, b2, &x, &labels, 1.0);
    assert_eq!(v, mlp(w1, b1, w2, b2, &x, &labels));
    assert_eq!(g.w1.shape(), w1.shape());
    assert_eq!(g.b2.shape(), b2.shape());
    gradcheck(&params, |(w1, b1, w2, b2)| {
        mlp_backward(w1, b1, w2, b2, &x, &labels, 1.0)
    })
    .unwrap();
}

/// Both operands broadcast: (2, 1) with (1, 3); (4, 3) with (3,); a scalar
/// parameter times an array gets the full sum.
#[differentiable]
fn broadcasts(
    col: &Array2<f64>,
    row: &Array2<f64>,
    m: &Array2<f64>,
    v: &Array1<f64>,
    s: f64,
) -> f64 {
    let outer = col * row;
    let shifted = m + v;
    let scaled = s * &shifted;
    sum(&outer) + sum(&(scaled / (v * v + 1.0))) - mean(&(s - m))
}

#[test]
fn broadcasting_in_every_direction() {
    let mut seed = 5;
    let col = random((2, 1), &mut seed);
    let row = random((1, 3), &mut seed);
    let m = random((4, 3), &mut seed);
    let v = random(3, &mut seed);
    let s = 0.7;
    let (val, g) = broadcasts_backward(&col, &row, &m, &v, s, 1.0);
    assert_eq!(val, broadcasts(&col, &row, &m, &v, s));
    assert_eq!(g.col.shape(), &[2, 1]);
    assert_eq!(g.row.shape(), &[1, 3]);
    assert_eq!(g.v.shape(), &[3]);
    // d(sum(col * row))/d col_i = sum(row)
    let expect_col = row.sum();
    assert!(g.col.iter().all(|&c| (c - expect_col).abs() < 1e-12));
    gradcheck(
        &(col.clone(), row.clone(), m.clone(), v.clone(), s),
        |(col, row, m, v, s)| broadcasts_backward(col, row, m, v, *s, 1.0),
    )
    .unwrap();
}

/// Matrix-vector, vector-matrix and vector-vector products, transposes, views
/// and arrays by value.
#[differentiable]
fn products(a: ArrayView2<f64>, x: Array1<f64>, y: &Array1<f64>) -> f64 {
    let ax = a.dot(&x);
    let ya = y.dot(&a);
    let at = a.t().dot(y);
    ax.dot(y) + ya.dot(&x) * 0.5 + at.dot(&at) + x.view().dot(&x)
}

#[test]
fn every_kind_of_dot() {
    let mut seed = 3;
    let a = random((3, 3), &mut seed);
    let x = random(3, &mut seed);
    let y = random(3, &mut seed);
    let (v, g) = products_backward(a.view(), x.clone(), &y, 1.0);
    assert_eq!(v, products(a.view(), x.clone(), &y));
    let _: &Array2<f64> = &g.a;
    gradcheck(&(a.clone(), x.clone(), y.clone()), |(a, x, y)| {
        products_backward(a.view(), x.clone(), y, 1.0)
    })
    .unwrap();
}

/// Reductions and structure: sum_axis (method and function), mean_axis, rows,
/// columns and element reads.
#[differentiable]
fn structure(m: &Array2<f64>, v: &Array1<f64>) -> f64 {
    let by_col = m.sum_axis(Axis(0));
    let by_row = mean_axis(m, Axis(1));
    let r = m.row(1);
    let c = m.column(2);
    let both = sum_axis(&(m * m), Axis(1));
    by_col.dot(v) + sum(&by_row) * m[[0, 1]] + r.dot(&c) + v[2] * both[0] + mean(&both)
}

#[test]
fn reductions_rows_columns_and_elements() {
    let mut seed = 9;
    let m = random((3, 3), &mut seed);
    let v = random(3, &mut seed);
    let (val, _) = structure_backward(&m, &v, 1.0);
    assert_eq!(val, structure(&m, &v));
    gradcheck(&(m.clone(), v.clone()), |(m, v)| {
        structure_backward(m, v, 1.0)
    })
    .unwrap();
}

/// Elementwise functions on arrays, and the row-wise functions.
#[differentiable]
fn elementwise(z: &Array2<f64>, p: &Array2<f64>) -> f64 {
    let pos = exp(z) + sqrt(&(square(z) + 1.0)) + ln(&(abs(z) + 0.5));
    let waves = sin(z) * cos(z) + tanh(z) + sigmoid(z) + relu(z) + powi(z, 3);
    let rows = softmax(&pos) + log_softmax(&waves);
    sum(&(rows * p)) + sum(&logsumexp(z)) + mse(z, p)
}

#[test]
fn elementwise_and_row_wise_on_arrays() {
    let mut seed = 21;
    let z = random((4, 3), &mut seed);
    let p = random((4, 3), &mut seed);
    let (val, _) = elementwise_backward(&z, &p, 1.0);
    assert_eq!(val, elementwise(&z, &p));
    gradcheck(&(z.clone(), p.clone()), |(z, p)| {
        elementwise_backward(z, p, 1.0)
    })
    .unwrap();
}

/// An array output: the backward is a vector-Jacobian product with `d_out`.
#[differentiable]
fn layer(w: &Array2<f64>, b: &Array1<f64>, x: &Array2<f64>) -> Array2<f64> {
    tanh(&(x.dot(w) + b))
}

#[test]
fn array_output_vjp() {
    let mut seed = 17;
    let w = random((3, 2), &mut seed);
    let b = random(2, &mut seed);
    let x = random((5, 3), &mut seed);
    let up = random((5, 2), &mut seed);
    let (y, g) = layer_backward(&w, &b, &x, &up);
    assert_eq!(y, layer(&w, &b, &x));
    // By hand: d_z = up * (1 - y²); d_w = xᵀ d_z; d_b = Σ_rows d_z.
    let dz = &up * &y.mapv(|t| 1.0 - t * t);
    let dw = x.t().dot(&dz);
    assert!((&g.w - &dw).iter().all(|e| e.abs() < 1e-12));
    assert!((&g.b - &dz.sum_axis(Axis(0)))
        .iter()
        .all(|e| e.abs() < 1e-12));
    GradCheck::new()
        .upstream(&up)
        .check(&(w.clone(), b.clone(), x.clone()), |(w, b, x)| {
            layer_backward(w, b, x, &up)
        })
        .unwrap();
}

/// f32 arrays.
#[differentiable(wrt(w))]
fn single(w: &Array2<f32>, x: &Array2<f32>, y: &Array2<f32>) -> f32 {
    let pred = sigmoid(&x.dot(w));
    mse(&pred, y) + 0.01 * sum(&(w * w))
}

#[test]
fn f32_arrays() {
    let w = array![[0.5_f32, -0.25], [0.125, 1.0]];
    let x = array![[1.0_f32, 2.0], [-1.0, 0.5], [0.25, -0.75]];
    let y = array![[1.0_f32, 0.0], [0.0, 1.0], [1.0, 1.0]];
    let (v, _) = single_backward(&w, &x, &y, 1.0);
    assert_eq!(v, single(&w, &x, &y));
    gradcheck(&(w.clone(),), |(w,)| single_backward(w, &x, &y, 1.0)).unwrap();
}

/// Dynamic and 3-d arrays, and a cast of a constant shape.
#[differentiable]
fn dynamic(t: &ArrayD<f64>, cube: &Array3<f64>) -> f64 {
    let n = t.len() as f64;
    sum(&(t * t)) / n + sum(&cube.sum_axis(Axis(2))) * 0.5
}

#[test]
fn dynamic_dimensions() {
    let mut seed = 2;
    let t = random((2, 3), &mut seed).into_dyn();
    let cube = random((2, 2, 2), &mut seed);
    let (v, g) = dynamic_backward(&t, &cube, 1.0);
    assert_eq!(v, dynamic(&t, &cube));
    assert!(g.cube.iter().all(|&c| c == 0.5));
    gradcheck(&(t.clone(), cube.clone()), |(t, cube)| {
        dynamic_backward(t, cube, 1.0)
    })
    .unwrap();
}

#[test]
fn a_shape_error_panics_in_the_forward_pass_with_ndarrays_message() {
    let w = Array2::<f64>::zeros((3, 2));
    let b = Array1::<f64>::zeros(4);
    let x = Array2::<f64>::zeros((5, 3));
    let up = Array2::<f64>::zeros((5, 2));
    let message = |e: Box<dyn std::any::Any + Send>| {
        e.downcast_ref::<String>()
            .cloned()
            .or_else(|| e.downcast_ref::<&str>().map(|s| s.to_string()))
    };
    let ours = message(std::panic::catch_unwind(|| layer_backward(&w, &b, &x, &up)).unwrap_err());
    let original = message(std::panic::catch_unwind(|| layer(&w, &b, &x)).unwrap_err());
    assert!(ours.is_some());
    assert_eq!(ours, original);
}

/// `insert_axis` for a reduction kept as a column (keepdims), and centring rows.
#[differentiable]
fn centred(x: &Array2<f64>) -> f64 {
    let means = mean_axis(x, Axis(1)).insert_axis(Axis(1));
    let c = x - &means;
    sum(&(&c * &c)) + sum(&x.sum_axis(Axis(0)).insert_axis(Axis(0)))
}

#[test]
fn insert_axis_keeps_a_reduced_axis() {
    let mut seed = 31;
    let x = random((3, 4), &mut seed);
    let (v, _) = centred_backward(&x, 1.0);
    assert_eq!(v, centred(&x));
    gradcheck(&(x.clone(),), |(x,)| centred_backward(x, 1.0)).unwrap();
}
