//! Constants behave as Rust: an expression that mentions no differentiable
//! value passes through as written, whatever its type (integer arithmetic on
//! shape queries and integer parameters, fields of a borrowed struct,
//! constant arrays made in the body with ndarray's constructors and macros).
//! Each function is checked against the original's value bit for bit, by
//! central differences, and by its closed-form gradient.

use backprop::prelude::*;
use backprop_testkit::random;

/// `Σ (x[i+1] - x[i])²`, its length from `x.len() - 1`.
#[differentiable]
fn roughness(x: &Array1<f64>) -> f64 {
    let n = x.len() - 1;
    let mut s = 0.0;
    for i in 0..n {
        let d = x[i + 1] - x[i];
        s += d * d;
    }
    s
}

#[test]
fn integer_arithmetic_on_a_shape_query() {
    let x = array![1.0, 3.0, 2.0, 6.0];
    let (v, g) = roughness_backward(&x, 1.0);
    assert_eq!(v, roughness(&x));
    assert_eq!(v, 4.0 + 1.0 + 16.0);
    // ∂/∂x_i = 2(x_i - x_{i-1}) - 2(x_{i+1} - x_i).
    assert_eq!(g.x, array![-4.0, 4.0 + 2.0, -2.0 - 8.0, 8.0]);
    gradcheck(&(x.clone(),), |(x,)| roughness_backward(x, 1.0)).unwrap();
}

/// A valid 1-D correlation: `m = x.len() - k.len() + 1` outputs, an integer
/// parameter `stride`, and `i * stride + j` as an index.
#[differentiable]
fn correlate(x: &Array1<f64>, k: &Array1<f64>, stride: usize) -> f64 {
    let m = (x.len() - k.len()) / stride + 1;
    let mut s = 0.0;
    for i in 0..m {
        let mut y = 0.0;
        for j in 0..k.len() {
            y += x[i * stride + j] * k[j];
        }
        s += y * y;
    }
    s
}

#[test]
fn integer_parameters_and_shape_queries_in_indices() {
    let mut seed = 3;
    let x = random(7, &mut seed);
    let k = random(3, &mut seed);
    for stride in [1, 2] {
        let (v, g) = correlate_backward(&x, &k, stride, 1.0);
        assert_eq!(v, correlate(&x, &k, stride));
        // By hand: y_i = Σ_j x[i s + j] k_j, ∂/∂k_j = Σ_i 2 y_i x[i s + j].
        let m = (x.len() - k.len()) / stride + 1;
        let mut dk = Array1::<f64>::zeros(3);
        let mut dx = Array1::<f64>::zeros(7);
        for i in 0..m {
            let y: f64 = (0..3).map(|j| x[i * stride + j] * k[j]).sum();
            for j in 0..3 {
                dk[j] += 2.0 * y * x[i * stride + j];
                dx[i * stride + j] += 2.0 * y * k[j];
            }
        }
        assert!((&g.k - &dk).iter().all(|e| e.abs() < 1e-14), "{} {dk}", g.k);
        assert!((&g.x - &dx).iter().all(|e| e.abs() < 1e-14), "{} {dx}", g.x);
        gradcheck(&(x.clone(), k.clone()), |(x, k)| {
            correlate_backward(x, k, stride, 1.0)
        })
        .unwrap();
    }
}

/// A data set as a user keeps it: fields read in the body.
pub struct Dataset {
    pub x: Array2<f64>,
    pub y: Array1<f64>,
    pub labels: Vec<usize>,
    pub weight: f64,
}

/// Ridge regression on a borrowed data set: `data.x.dot(w)`, `&data.y`,
/// a float field, and the row count through a field.
#[differentiable(wrt(w))]
fn ridge(data: &Dataset, w: &Array1<f64>, lambda: f64) -> f64 {
    let r = data.x.dot(w) - &data.y;
    let n = data.x.nrows() as f64;
    r.dot(&r) * data.weight / n + lambda * w.dot(w)
}

/// Classification on the same data set: labels from a field, and a row of a
/// field in a loop.
#[differentiable(wrt(w))]
fn classify(data: &Dataset, w: &Array2<f64>) -> f64 {
    let logits = data.x.dot(w);
    let mut extra = 0.0;
    for i in 0..data.x.nrows() {
        let row = data.x.row(i);
        extra += row.dot(&w.column(data.labels[i]));
    }
    softmax_cross_entropy(&logits, &data.labels) - extra * 0.1
}

fn dataset() -> Dataset {
    let mut seed = 17;
    Dataset {
        x: random((5, 3), &mut seed),
        y: random(5, &mut seed),
        labels: vec![0, 1, 1, 0, 1],
        weight: 0.5,
    }
}

#[test]
fn fields_of_a_borrowed_struct() {
    let data = dataset();
    let mut seed = 29;
    let w = random(3, &mut seed);
    let (v, g) = ridge_backward(&data, &w, 0.25, 1.0);
    assert_eq!(v, ridge(&data, &w, 0.25));
    // ∂/∂w = 2 weight Xᵀ r / n + 2 λ w.
    let r = data.x.dot(&w) - &data.y;
    let exact = data.x.t().dot(&r) * (2.0 * 0.5 / 5.0) + &w * 0.5;
    assert!(
        (&g.w - &exact).iter().all(|e| e.abs() < 1e-14),
        "{} {exact}",
        g.w
    );
    gradcheck(&(w.clone(),), |(w,)| ridge_backward(&data, w, 0.25, 1.0)).unwrap();

    let w2 = random((3, 2), &mut seed);
    let (v, _) = classify_backward(&data, &w2, 1.0);
    assert_eq!(v, classify(&data, &w2));
    gradcheck(&(w2.clone(),), |(w,)| classify_backward(&data, w, 1.0)).unwrap();
}

/// A model kept by the user: arrays and floats in `Vec` fields.
pub struct Relatives {
    pub base_relatives: Vec<Array2<f64>>,
    pub scales: Vec<f64>,
}

/// An element of a `Vec` field of a constant struct read in a loop, as a
/// receiver, through a reference binding and as a float.
#[differentiable(wrt(w))]
fn relatives(model: &Relatives, w: &Array1<f64>) -> f64 {
    let mut total = 0.0;
    for b in 0..model.base_relatives.len() {
        let tr = w * model.scales[b];
        total += model.base_relatives[b].dot(&tr).sum();
        let r = &model.base_relatives[b];
        total += r.dot(w).dot(w) * 0.5;
    }
    total
}

#[test]
fn elements_of_vec_fields() {
    let model = Relatives {
        base_relatives: vec![
            array![[1.0, 2.0], [3.0, 4.0]],
            array![[0.5, 0.0], [1.0, -1.0]],
        ],
        scales: vec![2.0, -0.5],
    };
    let w = array![0.5, -1.0];
    let (v, g) = relatives_backward(&model, &w, 1.0);
    assert_eq!(v, relatives(&model, &w));
    // Σ_b s_b 1ᵀ M_b w + ½ wᵀ M_b w: ∂w = Σ_b s_b M_bᵀ 1 + ½ (M_b + M_bᵀ) w.
    let mut exact = Array1::<f64>::zeros(2);
    for (m, s) in model.base_relatives.iter().zip(&model.scales) {
        exact = exact + m.t().dot(&Array1::ones(2)) * *s + (m + &m.t()).dot(&w) * 0.5;
    }
    assert!(
        (&g.w - &exact).iter().all(|e| e.abs() < 1e-14),
        "{} {exact}",
        g.w
    );
    gradcheck(&(w.clone(),), |(w,)| relatives_backward(&model, w, 1.0)).unwrap();
}

/// Constant arrays made in the body with ndarray's own constructors and
/// macros, mixed with the differentiable `x` (3 × 2).
#[differentiable]
fn made_in_the_body(x: &Array2<f64>) -> f64 {
    let (n, m) = x.dim();
    let zeros = Array2::<f64>::zeros((n, m));
    let ones = Array1::<f64>::ones(m);
    let half = Array2::from_elem((n, m), 0.5);
    let eye = Array2::<f64>::eye(m);
    let ramp = Array1::linspace(0.0, 1.0, m);
    let grid = Array2::from_shape_vec((n, m), vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0]).unwrap();
    let signs = array![1.0, -1.0];
    let a = (x + &zeros) * &half;
    let b = x.dot(&eye) * &ramp + &grid;
    sum(&(&a * &b)) + sum(&x.dot(&ones)) + sum(&(x * &signs))
}

#[test]
fn constant_arrays_made_in_the_body() {
    let x = array![[0.3, -0.7], [0.55, 0.2], [-0.45, 0.85]];
    let (v, g) = made_in_the_body_backward(&x, 1.0);
    assert_eq!(v, made_in_the_body(&x));
    // a = x/2, b = x ⊙ [0, 1] + grid: ∂/∂x = b/2 + a ⊙ [0, 1] + 1 + signs.
    let grid = array![[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]];
    let ramp = array![0.0, 1.0];
    let b = &x * &ramp + &grid;
    let exact = &b * 0.5 + &(&x * 0.5 * &ramp) + 1.0 + &array![1.0, -1.0];
    assert!(
        (&g.x - &exact).iter().all(|e| e.abs() < 1e-15),
        "{} {exact}",
        g.x
    );
    gradcheck(&(x.clone(),), |(x,)| made_in_the_body_backward(x, 1.0)).unwrap();
}

/// The same in `f32`: integer arithmetic and a float cast of a count.
#[differentiable]
fn mean_gap(x: &Array1<f32>) -> f32 {
    let n = x.len() - 1;
    let mut s = 0.0;
    for i in 0..n {
        s += (x[i + 1] - x[i]).abs();
    }
    s / n as f32
}

#[test]
fn integer_arithmetic_in_f32() {
    let x = array![1.0_f32, 3.0, 2.0];
    let (v, g) = mean_gap_backward(&x, 1.0);
    assert_eq!(v, mean_gap(&x));
    assert_eq!(v, 1.5);
    assert_eq!(g.x, array![-0.5_f32, 1.0, -0.5]);
}

/// Forward Euler for `y' = a y` on `[0, 1]` in `s` steps: the step `h` is
/// arithmetic of a cast and literals, a float, so the loop's products are
/// plain arithmetic of floats (and its record keeps only what they read).
#[differentiable(wrt(a, y0))]
fn euler(a: f64, y0: f64, s: usize) -> f64 {
    let h = 1.0 / s as f64;
    let half = -(h / 2.0) * -2.0;
    let mut y = y0;
    for _ in 0..s {
        y += half * a * y;
    }
    y
}

#[test]
fn arithmetic_of_a_cast_is_a_float() {
    for s in [1, 3, 10] {
        let (a, y0) = (0.7, 1.3);
        let (v, g) = euler_backward(a, y0, s, 1.0);
        assert_eq!(v, euler(a, y0, s));
        // y_s = y0 (1 + h a)^s.
        let h = 1.0 / s as f64;
        let grow = 1.0 + h * a;
        let exact_a = y0 * s as f64 * grow.powi(s as i32 - 1) * h;
        assert!(
            (g.a - exact_a).abs() < 1e-12 * exact_a.abs(),
            "{} {exact_a}",
            g.a
        );
        assert!((g.y0 - grow.powi(s as i32)).abs() < 1e-12, "{}", g.y0);
        gradcheck(&(a, y0), |&(a, y0)| euler_backward(a, y0, s, 1.0)).unwrap();
    }
}
