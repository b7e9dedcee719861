//! `gradcheck` itself: it passes correct backward functions (built here by
//! hand from the runtime's rules), and fails wrong ones, naming the field and
//! the element.

use backprop_runtime::gradcheck::{flatten, FieldReport};
use backprop_runtime::kernels::map_vjp_out;
use backprop_runtime::ops::*;
use backprop_runtime::{gradcheck, GradCheck, GradcheckError, Gradient};
use ndarray::{array, Array1, Array2, ShapeBuilder};

/// The gradient of `layer`: what the macro would generate.
#[derive(Clone, Debug)]
struct LayerGrad<F> {
    w: Array2<F>,
    b: Array1<F>,
}

impl<F: backprop_runtime::Float> Gradient for LayerGrad<F> {
    fn fields(&self) -> Vec<(&'static str, Vec<f64>)> {
        vec![("w", flatten(&self.w)), ("b", flatten(&self.b))]
    }
}

/// `sum(tanh(x·wᵀ + b))` and its gradient, by hand from the runtime's rules.
fn layer_backward<F: backprop_runtime::Float>(
    w: &Array2<F>,
    b: &Array1<F>,
    x: &Array2<F>,
    d_out: F,
) -> (F, LayerGrad<F>) {
    let wt = t(w);
    let z = dot(x, &wt);
    let zb = add(&z, b);
    let h = tanh(&zb);
    let out = sum(&h);
    let d_h = sum_vjp(d_out, &h);
    let d_zb = map_vjp_out(d_h, &h, Tanh);
    let d_b = zip_vjp_rhs(&d_zb, &z, b, Add).value();
    let d_z = zip_vjp_lhs(d_zb, &z, b, Add).value();
    let d_wt = dot_vjp_rhs(d_z, x, &wt).value();
    let d_w = t_vjp(d_wt, w);
    (out, LayerGrad { w: d_w, b: d_b })
}

fn inputs() -> (Array2<f64>, Array1<f64>, Array2<f64>) {
    let w = array![[0.3, -0.2, 0.5], [0.1, 0.4, -0.6]];
    let b = array![0.05, -0.1];
    let x = array![
        [1.0, 0.5, -1.5],
        [0.2, -0.3, 0.8],
        [-0.7, 1.1, 0.4],
        [0.0, 0.9, -0.2]
    ];
    (w, b, x)
}

#[test]
fn passes_a_correct_backward() {
    let (w, b, x) = inputs();
    let report = gradcheck(&(w, b), |(w, b)| layer_backward(w, b, &x, 1.0)).unwrap();
    assert_eq!(report.fields.len(), 2);
    assert_eq!(report.fields[0].name, "w");
    assert_eq!(report.fields[0].len, 6);
    assert_eq!(report.fields[1].name, "b");
    assert!(report.max_error("w").unwrap() < 1e-8, "{report}");
    assert!(report.max_error("b").unwrap() < 1e-8, "{report}");
    assert_eq!(report.max_error("nope"), None);
    assert_eq!((report.eps, report.rtol, report.atol), (1e-6, 1e-5, 1e-7));
    assert!(report.to_string().contains("w: 6 elements"));
}

#[test]
fn fails_naming_the_field_and_element() {
    let (w, b, x) = inputs();
    let err = gradcheck(&(w.clone(), b.clone()), |(w, b)| {
        let (v, mut g) = layer_backward(w, b, &x, 1.0);
        g.w[[1, 2]] += 0.1;
        (v, g)
    })
    .unwrap_err();
    match &err {
        GradcheckError::Mismatch {
            field,
            index,
            position,
            analytic,
            numeric,
            failures,
            len,
            total_failures,
            ..
        } => {
            assert_eq!(*field, "w");
            assert_eq!(*index, 5);
            assert_eq!(position, &vec![1, 2]);
            assert!((analytic - numeric - 0.1).abs() < 1e-6);
            assert_eq!((*failures, *len, *total_failures), (1, 6, 1));
        }
        other => panic!("wrong error: {other}"),
    }
    let text = err.to_string();
    assert!(
        text.contains("`w`") && text.contains("element 5") && text.contains("[1, 2]"),
        "{text}"
    );
    assert_eq!(format!("{err:?}"), text, "Debug reads as Display");

    // A wrong second field, several elements.
    let err = gradcheck(&(w, b), |(w, b)| {
        let (v, mut g) = layer_backward(w, b, &x, 1.0);
        g.b *= 2.0;
        (v, g)
    })
    .unwrap_err();
    match err {
        GradcheckError::Mismatch {
            field,
            index,
            failures,
            ..
        } => {
            assert_eq!((field, index, failures), ("b", 0, 2));
        }
        other => panic!("wrong error: {other}"),
    }
}

#[test]
fn upstream_scales_a_scalar_output() {
    let (w, b, x) = inputs();
    GradCheck::new()
        .upstream(&2.5)
        .check(&(w.clone(), b.clone()), |(w, b)| {
            layer_backward(w, b, &x, 2.5)
        })
        .unwrap();
    // The backward ignored the upstream: wrong by a factor 2.5.
    let err = GradCheck::new()
        .upstream(&2.5)
        .check(&(w, b), |(w, b)| layer_backward(w, b, &x, 1.0))
        .unwrap_err();
    assert!(
        matches!(
            err,
            GradcheckError::Mismatch {
                field: "w",
                index: 0,
                ..
            }
        ),
        "{err}"
    );
}

#[test]
fn single_precision() {
    let (w, b, x) = inputs();
    let (w, b, x) = (
        w.mapv(|v| v as f32),
        b.mapv(|v| v as f32),
        x.mapv(|v| v as f32),
    );
    let report = gradcheck(&(w.clone(), b.clone()), |(w, b)| {
        layer_backward(w, b, &x, 1.0)
    })
    .unwrap();
    assert_eq!((report.eps, report.rtol, report.atol), (1e-3, 1e-2, 1e-3));
    let err = gradcheck(&(w, b), |(w, b)| {
        let (v, mut g) = layer_backward(w, b, &x, 1.0);
        g.b[1] += 0.05;
        (v, g)
    })
    .unwrap_err();
    assert!(
        matches!(
            err,
            GradcheckError::Mismatch {
                field: "b",
                index: 1,
                ..
            }
        ),
        "{err}"
    );
}

/// `y = softmax(a · v)`: an array output.
struct SoftGrad {
    a: f64,
    v: Array1<f64>,
}

impl Gradient for SoftGrad {
    fn fields(&self) -> Vec<(&'static str, Vec<f64>)> {
        vec![("a", flatten(&self.a)), ("v", flatten(&self.v))]
    }
}

fn soft_backward(a: f64, v: &Array1<f64>, d_out: &Array1<f64>) -> (Array1<f64>, SoftGrad) {
    let z = mul(&a, v);
    let y = softmax(&z);
    let d_z = softmax_vjp(d_out, &z, &y);
    let d_a = zip_vjp_lhs(&d_z, &a, v, Mul).value();
    let d_v = zip_vjp_rhs(d_z, &a, v, Mul).value();
    (y, SoftGrad { a: d_a, v: d_v })
}

#[test]
fn array_output_with_upstream() {
    let v = array![0.3, -1.2, 0.8, 0.1];
    let d_out = array![1.0, -0.5, 0.25, 2.0];
    let params = (0.7, v);
    GradCheck::new()
        .upstream(&d_out)
        .check(&params, |(a, v)| soft_backward(*a, v, &d_out))
        .unwrap();
    // Against another upstream the same gradient is wrong.
    let other = array![0.0, 1.0, 0.0, 0.0];
    let err = GradCheck::new()
        .upstream(&other)
        .check(&params, |(a, v)| soft_backward(*a, v, &d_out))
        .unwrap_err();
    assert!(matches!(err, GradcheckError::Mismatch { .. }), "{err}");
}

#[test]
fn array_output_without_upstream_is_an_error() {
    let params = (0.7, array![0.3, -1.2]);
    let d_out = array![1.0, 1.0];
    let err = gradcheck(&params, |(a, v)| soft_backward(*a, v, &d_out)).unwrap_err();
    assert_eq!(err, GradcheckError::MissingUpstream { shape: vec![2] });
    assert!(err.to_string().contains(".upstream(&d_out)"), "{err}");
    let err = GradCheck::new()
        .upstream(&array![1.0, 1.0, 1.0])
        .check(&params, |(a, v)| soft_backward(*a, v, &d_out))
        .unwrap_err();
    assert_eq!(
        err,
        GradcheckError::UpstreamShape {
            output: vec![2],
            upstream: vec![3]
        }
    );
}

#[test]
fn field_count_and_size_mismatches_are_errors() {
    let (w, b, x) = inputs();
    let err = gradcheck(&(w.clone(),), |(w,)| layer_backward(w, &b, &x, 1.0)).unwrap_err();
    assert_eq!(
        err,
        GradcheckError::FieldCount {
            fields: vec!["w", "b"],
            params: 1
        }
    );
    assert!(err.to_string().contains("2 fields"), "{err}");
    // Parameters in the wrong order: `b` is paired with the matrix.
    let err = gradcheck(&(b.clone(), w.clone()), |(b, w)| {
        layer_backward(w, b, &x, 1.0)
    })
    .unwrap_err();
    match &err {
        GradcheckError::FieldSize {
            field,
            position,
            expected,
            got,
            ..
        } => {
            assert_eq!((*field, *position, *expected, *got), ("w", 0, 2, 6));
        }
        other => panic!("wrong error: {other}"),
    }
    assert!(err.to_string().contains("field `w`"), "{err}");
}

#[test]
fn elements_are_numbered_row_major_whatever_the_layout() {
    let (w, b, x) = inputs();
    let mut wf = Array2::zeros((2, 3).f());
    wf.assign(&w);
    gradcheck(&(wf.clone(), b.clone()), |(w, b)| {
        layer_backward(w, b, &x, 1.0)
    })
    .unwrap();
    let err = gradcheck(&(wf, b), |(w, b)| {
        let (v, mut g) = layer_backward(w, b, &x, 1.0);
        g.w[[0, 1]] -= 0.3;
        (v, g)
    })
    .unwrap_err();
    assert!(
        matches!(
            err,
            GradcheckError::Mismatch {
                field: "w",
                index: 1,
                ..
            }
        ),
        "{err}"
    );
}

#[test]
fn nan_gradients_fail() {
    let (w, b, x) = inputs();
    let err = gradcheck(&(w, b), |(w, b)| {
        let (v, mut g) = layer_backward(w, b, &x, 1.0);
        g.b[0] = f64::NAN;
        (v, g)
    })
    .unwrap_err();
    assert!(
        matches!(
            err,
            GradcheckError::Mismatch {
                field: "b",
                index: 0,
                ..
            }
        ),
        "{err}"
    );
}

#[test]
fn tolerances_can_be_set() {
    let (w, b, x) = inputs();
    let slightly_wrong = |(w, b): &(Array2<f64>, Array1<f64>)| {
        let (v, mut g) = layer_backward(w, b, &x, 1.0);
        g.w *= 1.001;
        (v, g)
    };
    assert!(gradcheck(&(w.clone(), b.clone()), slightly_wrong).is_err());
    let report = GradCheck::new()
        .rtol(1e-2)
        .atol(1e-3)
        .eps(1e-5)
        .check(&(w, b), slightly_wrong)
        .unwrap();
    assert_eq!((report.eps, report.rtol, report.atol), (1e-5, 1e-2, 1e-3));
    let FieldReport { max_rel_error, .. } = report.fields[0];
    assert!(max_rel_error > 5e-4 && max_rel_error < 2e-3, "{report}");
}

/// Twelve scalar parameters: `Σ k · x_k²`.
struct Twelve([f64; 12]);

impl Gradient for Twelve {
    fn fields(&self) -> Vec<(&'static str, Vec<f64>)> {
        const NAMES: [&str; 12] = [
            "x1", "x2", "x3", "x4", "x5", "x6", "x7", "x8", "x9", "x10", "x11", "x12",
        ];
        NAMES
            .iter()
            .zip(self.0)
            .map(|(n, g)| (*n, vec![g]))
            .collect()
    }
}

#[test]
fn twelve_parameters() {
    type P = (f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64);
    let params: P = (0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0, 1.1, 1.2);
    let f = |wrong: usize| {
        move |p: &P| {
            let x = [p.0, p.1, p.2, p.3, p.4, p.5, p.6, p.7, p.8, p.9, p.10, p.11];
            let value: f64 = x
                .iter()
                .enumerate()
                .map(|(k, v)| (k + 1) as f64 * v * v)
                .sum();
            let mut g = [0.0; 12];
            for (k, v) in x.iter().enumerate() {
                g[k] = 2.0 * (k + 1) as f64 * v;
            }
            if wrong < 12 {
                g[wrong] += 1.0;
            }
            (value, Twelve(g))
        }
    };
    gradcheck(&params, f(99)).unwrap();
    let err = gradcheck(&params, f(11)).unwrap_err();
    assert!(
        matches!(
            err,
            GradcheckError::Mismatch {
                field: "x12",
                index: 0,
                ..
            }
        ),
        "{err}"
    );
}

#[test]
fn flatten_is_row_major() {
    let a = array![[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]];
    assert_eq!(flatten(&a), vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0]);
    assert_eq!(flatten(&a.t()), vec![1.0, 4.0, 2.0, 5.0, 3.0, 6.0]);
    let mut f = Array2::zeros((2, 3).f());
    f.assign(&a);
    assert_eq!(flatten(&f), vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0]);
    assert_eq!(flatten(&1.5_f32), vec![1.5]);
}

/// The gradient of `Σ a_i² b_i`.
#[derive(Clone, Debug)]
struct PairGrad {
    a: Array1<f64>,
    b: Array1<f64>,
}

impl Gradient for PairGrad {
    fn fields(&self) -> Vec<(&'static str, Vec<f64>)> {
        vec![("a", flatten(&self.a)), ("b", flatten(&self.b))]
    }
}

/// `Σ a_i² b_i`, its gradient `(2ab, a²)` and its Hessian times `(da, db)`:
/// `(2 da b + 2 a db, 2 a da)`, by hand.
fn pair_hvp(
    (a, b): &(Array1<f64>, Array1<f64>),
    (da, db): &(Array1<f64>, Array1<f64>),
) -> (f64, PairGrad, PairGrad) {
    let value = (a * a * b).sum();
    let grad = PairGrad {
        a: 2.0 * a * b,
        b: a * a,
    };
    let hv = PairGrad {
        a: 2.0 * da * b + 2.0 * a * db,
        b: 2.0 * a * da,
    };
    (value, grad, hv)
}

#[test]
fn hvp_check_passes_a_right_product_and_names_a_wrong_one() {
    let params = (array![0.5, -1.0, 2.0], array![1.5, 0.25, -0.75]);
    let direction = (array![1.0, 0.5, -2.0], array![0.0, 1.0, 3.0]);
    GradCheck::new()
        .check_hvp(&params, &direction, pair_hvp)
        .unwrap();

    // Both blocks wrong, the second in every element: the first failing
    // element is named, and the failures of both blocks are counted.
    let err = GradCheck::new()
        .check_hvp(&params, &direction, |p, d| {
            let (v, g, mut hv) = pair_hvp(p, d);
            hv.a[1] += 0.1;
            hv.b *= 2.0;
            (v, g, hv)
        })
        .unwrap_err();
    match &err {
        GradcheckError::Mismatch {
            field,
            index,
            failures,
            len,
            total_failures,
            ..
        } => assert_eq!(
            (*field, *index, *failures, *len, *total_failures),
            ("a", 1, 1, 3, 4)
        ),
        other => panic!("wrong error: {other}"),
    }
    assert!(err.to_string().contains("`a`"), "{err}");
}
