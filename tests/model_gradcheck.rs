//! `gradcheck` over models: a model as the parameters, a model as an
//! element of the parameter tuple, and failures named by path.

use backprop::prelude::*;
use backprop::{GradcheckError, Gradient};
use backprop_testkit::networks::mlp_backward;
use backprop_testkit::random;

#[derive(Clone, Debug, Differentiable)]
struct Dense {
    w: Array2<f64>,
    b: Array1<f64>,
}

/// Three layers, tanh between them, and a constant that the loss reads.
#[derive(Clone, Debug, Differentiable)]
struct Mlp {
    layers: Vec<Dense>,
    half: bool,
}

fn model(sizes: &[usize], seed: &mut u64) -> Mlp {
    let layers = sizes
        .windows(2)
        .map(|s| Dense {
            w: random((s[0], s[1]), seed) * 0.5,
            b: random(s[1], seed) * 0.1,
        })
        .collect();
    Mlp { layers, half: true }
}

/// `Σ out² (· ½ when half)` and its gradient with respect to the model and
/// the input, by hand: what `#[differentiable]` will write for a method.
fn loss_backward(m: &Mlp, x: &Array2<f64>) -> (f64, Mlp, Array2<f64>) {
    let mut hs = vec![x.clone()];
    let last = m.layers.len() - 1;
    for (i, l) in m.layers.iter().enumerate() {
        let z = hs[i].dot(&l.w) + &l.b;
        hs.push(if i == last { z } else { z.mapv(f64::tanh) });
    }
    let scale = if m.half { 0.5 } else { 1.0 };
    let out = &hs[last + 1];
    let value = scale * out.mapv(|v| v * v).sum();
    let mut d = out * (2.0 * scale);
    let mut grad = m.zeros_like();
    for i in (0..=last).rev() {
        if i != last {
            d = d * hs[i + 1].mapv(|h| 1.0 - h * h);
        }
        grad.layers[i].w = hs[i].t().dot(&d);
        grad.layers[i].b = d.sum_axis(Axis(0));
        d = d.dot(&m.layers[i].w.t());
    }
    (value, grad, d)
}

fn inputs() -> (Mlp, Array2<f64>) {
    let mut seed = 3;
    let m = model(&[3, 4, 5, 2], &mut seed);
    let x = random((6, 3), &mut seed);
    (m, x)
}

#[test]
fn a_model_is_checked_field_by_field() {
    let (m, x) = inputs();
    let report = gradcheck(&m, |m| {
        let (v, g, _) = loss_backward(m, &x);
        (v, g)
    })
    .unwrap();
    assert_eq!(report.fields.len(), 1);
    assert_eq!(report.fields[0].name, "layers");
    assert_eq!(report.fields[0].len, 12 + 4 + 20 + 5 + 10 + 2);

    let err = gradcheck(&m, |m| {
        let (v, mut g, _) = loss_backward(m, &x);
        g.layers[1].w[[0, 2]] += 0.1;
        (v, g)
    })
    .unwrap_err();
    match &err {
        GradcheckError::Mismatch {
            field,
            index,
            position,
            path,
            ..
        } => {
            assert_eq!((*field, path.as_str()), ("layers", "layers[1].w[[0, 2]]"));
            assert_eq!((*index, position.as_slice()), (16 + 2, &[0, 2][..]));
        }
        other => panic!("wrong error: {other}"),
    }
    assert!(err.to_string().contains("`layers[1].w[[0, 2]]`"), "{err}");
}

/// The gradient of `f(model, x)`: a field of the model's type.
#[derive(Clone, Debug, Differentiable)]
struct FGrad {
    model: Mlp,
    x: Array2<f64>,
}

#[test]
fn a_model_in_a_tuple_is_named_by_its_gradient_field() {
    let (m, x) = inputs();
    let f = |(m, x): &(Mlp, Array2<f64>)| {
        let (v, model, x) = loss_backward(m, x);
        (v, FGrad { model, x })
    };
    let report = gradcheck(&(m.clone(), x.clone()), f).unwrap();
    assert_eq!(report.fields[0].name, "model");
    assert_eq!(report.fields[1].name, "x");

    let err = gradcheck(&(m.clone(), x.clone()), |p| {
        let (v, mut g) = f(p);
        g.model.layers[1].w[[0, 2]] -= 0.2;
        (v, g)
    })
    .unwrap_err();
    match &err {
        GradcheckError::Mismatch { path, .. } => assert_eq!(path, "model.layers[1].w[[0, 2]]"),
        other => panic!("wrong error: {other}"),
    }
    let err = gradcheck(&(m, x), |p| {
        let (v, mut g) = f(p);
        g.x[[5, 1]] *= 3.0;
        (v, g)
    })
    .unwrap_err();
    match &err {
        GradcheckError::Mismatch { path, field, .. } => {
            assert_eq!((*field, path.as_str()), ("x", "x[[5, 1]]"))
        }
        other => panic!("wrong error: {other}"),
    }
}

/// A model whose gradient is another struct with as many fields.
#[derive(Clone, Debug, Differentiable)]
struct Wrong {
    weights: Vec<Dense>,
}

#[test]
fn a_gradient_of_another_type_is_refused() {
    let (m, x) = inputs();
    let err = gradcheck(&m, |m| {
        let (v, g, _) = loss_backward(m, &x);
        (v, Wrong { weights: g.layers })
    })
    .unwrap_err();
    assert_eq!(
        err,
        GradcheckError::FieldNames {
            fields: vec!["weights"],
            params: vec!["layers"]
        }
    );
    assert!(err.to_string().contains("as a tuple"), "{err}");
}

#[test]
fn a_vec_or_an_array_is_one_parameter() {
    let (m, x) = inputs();
    let layers = m.layers.clone();
    let err = gradcheck(&layers, |layers| {
        let m = Mlp {
            layers: layers.clone(),
            half: true,
        };
        let (v, mut g, _) = loss_backward(&m, &x);
        g.layers[2].b[1] = 0.0;
        (v, g.layers)
    })
    .unwrap_err();
    match &err {
        GradcheckError::Mismatch { path, field, .. } => {
            assert_eq!((*field, path.as_str()), ("", "[2].b[1]"))
        }
        other => panic!("wrong error: {other}"),
    }
    assert!(
        err.to_string()
            .starts_with("gradcheck: the gradient is wrong"),
        "{err}"
    );
    // An array and a generated gradient struct of one field, positionally.
    let w = m.layers[0].w.clone();
    gradcheck(&w, |w| {
        let (v, g, _) = loss_backward(
            &Mlp {
                layers: vec![Dense {
                    w: w.clone(),
                    b: m.layers[0].b.clone(),
                }],
                half: false,
            },
            &x,
        );
        (v, g.layers.into_iter().next().unwrap().w)
    })
    .unwrap();
}

/// A generated gradient struct (`MlpGrad` of the testkit's `mlp`) is a
/// model: its fields are what `gradcheck` reads.
#[test]
fn a_generated_gradient_struct_is_a_gradient_and_a_model() {
    let mut seed = 11;
    let (w1, b1) = (random((2, 8), &mut seed), random(8, &mut seed) * 0.1);
    let (w2, b2) = (random((8, 3), &mut seed), random(3, &mut seed) * 0.1);
    let x = random((5, 2), &mut seed);
    let labels = [0, 2, 1, 1, 0];
    let (_, g) = mlp_backward(&w1, &b1, &w2, &b2, &x, &labels, 1.0);
    let names: Vec<&str> = g.fields().iter().map(|(n, _)| *n).collect();
    assert_eq!(names, ["w1", "b1", "w2", "b2"]);
    assert_eq!(g.leaf_paths(), ["w1", "b1", "w2", "b2"]);
    assert_eq!(g.num_params(), 16 + 8 + 24 + 3);
    gradcheck(&(w1, b1, w2, b2), |(w1, b1, w2, b2)| {
        mlp_backward(w1, b1, w2, b2, &x, &labels, 1.0)
    })
    .unwrap();
}
