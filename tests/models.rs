//! `#[derive(Differentiable)]`: which fields are leaves, nested models and
//! constants, the paths, generics, and the trait's methods on derived
//! models (zero, scale, `axpy`, the flat vector, zips that do not fit).

use backprop::model::{Leaf, Path};
use backprop::prelude::*;
use backprop::Float;
use std::panic::{catch_unwind, AssertUnwindSafe};

#[derive(Clone, Copy, Debug, PartialEq)]
enum Activation {
    Relu,
    Tanh,
}

#[derive(Clone, Debug, PartialEq, Differentiable)]
struct Dense {
    w: Array2<f64>,
    b: Array1<f64>,
}

#[derive(Clone, Debug, PartialEq, Differentiable)]
struct Mlp {
    layers: Vec<Dense>,
    act: Activation,
    name: String,
    sizes: Vec<usize>,
    ids: Array1<usize>,
    tag: &'static str,
    dropout_seed: u64,
}

fn dense(n: usize, m: usize, start: f64) -> Dense {
    Dense {
        w: Array2::from_shape_fn((n, m), |(i, j)| start + (i * m + j) as f64),
        b: Array1::from_shape_fn(m, |j| -start - j as f64),
    }
}

fn mlp() -> Mlp {
    Mlp {
        layers: vec![dense(2, 3, 1.0), dense(3, 1, 10.0)],
        act: Activation::Tanh,
        name: "mlp".into(),
        sizes: vec![2, 3, 1],
        ids: array![7, 8],
        tag: "t",
        dropout_seed: 9,
    }
}

#[test]
fn leaves_are_the_float_fields_in_order_and_constants_are_kept() {
    let m = mlp();
    assert_eq!(
        m.leaf_paths(),
        ["layers[0].w", "layers[0].b", "layers[1].w", "layers[1].b"]
    );
    assert_eq!(m.num_params(), 6 + 3 + 3 + 1);
    let flat = m.to_flat();
    assert_eq!(&flat[..6], &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0]);
    assert_eq!(&flat[6..9], &[-1.0, -2.0, -3.0]);
    assert_eq!(flat[12], -10.0);
    assert_eq!(m.from_flat(&flat), m);

    let zero = m.zeros_like();
    assert!(zero.to_flat().iter().all(|&v| v == 0.0));
    assert_eq!(zero.act, Activation::Tanh);
    assert_eq!((zero.name.as_str(), zero.tag), ("mlp", "t"));
    assert_eq!(zero.sizes, m.sizes);
    assert_eq!(zero.ids, m.ids);
    assert_eq!(zero.dropout_seed, 9);
}

#[test]
fn scale_axpy_and_add_assign_go_leaf_by_leaf() {
    let m = mlp();
    let mut y = m.clone();
    y.scale(2.0);
    assert_eq!(
        y.to_flat(),
        m.to_flat().iter().map(|v| 2.0 * v).collect::<Vec<_>>()
    );
    y.axpy(-0.5, &m);
    assert_eq!(
        y.to_flat(),
        m.to_flat().iter().map(|v| 1.5 * v).collect::<Vec<_>>()
    );
    Differentiable::add_assign(&mut y, &m);
    assert_eq!(
        y.to_flat(),
        m.to_flat().iter().map(|v| 2.5 * v).collect::<Vec<_>>()
    );
    assert_eq!(y.name, "mlp");
}

#[test]
fn from_flat_of_the_wrong_length_panics_with_the_counts() {
    let m = mlp();
    let err = catch_unwind(|| m.from_flat(&[1.0; 12])).unwrap_err();
    let msg = err.downcast_ref::<String>().unwrap();
    assert!(
        msg.contains("13 float parameters") && msg.contains("12 elements"),
        "{msg}"
    );
}

fn panic_message(f: impl FnOnce()) -> String {
    let err = catch_unwind(AssertUnwindSafe(f)).unwrap_err();
    err.downcast_ref::<String>().cloned().unwrap_or_default()
}

#[test]
fn zipping_models_that_do_not_fit_panics_with_the_path() {
    let m = mlp();
    let mut short = m.clone();
    short.layers.pop();
    let msg = panic_message(|| m.clone().axpy(1.0, &short));
    assert!(
        msg.contains("at `layers`") && msg.contains("2 elements") && msg.contains("1 elements"),
        "{msg}"
    );

    let mut wide = m.clone();
    wide.layers[1].w = Array2::zeros((3, 2));
    let msg = panic_message(|| m.clone().add_assign(&wide));
    assert!(
        msg.contains("at `layers[1].w`") && msg.contains("[3, 1]") && msg.contains("[3, 2]"),
        "{msg}"
    );
}

/// One model for `f32` and `f64`.
#[derive(Clone, Debug, Differentiable)]
struct Affine<T: Float> {
    w: Array1<T>,
    b: T,
    act: Activation,
}

#[test]
fn a_generic_model_serves_both_precisions() {
    let single = Affine {
        w: array![1.5_f32, -2.0],
        b: 0.25_f32,
        act: Activation::Relu,
    };
    let double = Affine {
        w: array![1.5_f64, -2.0],
        b: 0.25_f64,
        act: Activation::Relu,
    };
    assert_eq!(single.leaf_paths(), ["w", "b"]);
    assert_eq!(single.to_flat(), double.to_flat());
    let leaves = single.leaves();
    assert!(matches!(leaves[0], Leaf::F32(_)) && matches!(leaves[1], Leaf::F32(_)));
    let mut s = single.clone();
    s.scale(0.5);
    assert_eq!(s.w, array![0.75_f32, -1.0]);
    assert_eq!(s.b, 0.125_f32);
    assert_eq!(s.act, Activation::Relu);
}

#[derive(Clone, Debug, Differentiable)]
struct Body {
    l1: Dense,
    l2: Dense,
}

#[derive(Clone, Debug, Differentiable)]
struct Net {
    body: Body,
    head: Box<Dense>,
    extra: Option<Dense>,
    pair: [Dense; 2],
    scale: f64,
}

#[test]
fn nested_models_two_levels_deep_boxes_options_and_arrays() {
    let net = Net {
        body: Body {
            l1: dense(1, 1, 1.0),
            l2: dense(1, 1, 2.0),
        },
        head: Box::new(dense(1, 1, 3.0)),
        extra: Some(dense(1, 1, 4.0)),
        pair: [dense(1, 1, 5.0), dense(1, 1, 6.0)],
        scale: 7.0,
    };
    assert_eq!(
        net.leaf_paths(),
        [
            "body.l1.w",
            "body.l1.b",
            "body.l2.w",
            "body.l2.b",
            "head.w",
            "head.b",
            "extra.w",
            "extra.b",
            "pair[0].w",
            "pair[0].b",
            "pair[1].w",
            "pair[1].b",
            "scale"
        ]
    );
    let mut none = net.clone();
    none.extra = None;
    assert_eq!(none.num_params(), net.num_params() - 2);
    let msg = panic_message(|| net.clone().axpy(1.0, &none));
    assert!(msg.contains("at `extra`"), "{msg}");
}

/// Tuple structs name their fields by position.
#[derive(Clone, Debug, Differentiable)]
struct Pair(Array1<f64>, f64, usize);

#[test]
fn a_tuple_struct_has_numbered_fields() {
    let p = Pair(array![1.0, 2.0], 3.0, 4);
    assert_eq!(p.leaf_paths(), ["0", "1"]);
    assert_eq!(p.zeros_like().2, 4);
}

/// A field marked constant is not a parameter whatever its type.
#[derive(Clone, Debug, Differentiable)]
struct Scaled {
    w: Array1<f64>,
    #[backprop(constant)]
    temperature: f64,
    #[backprop(constant)]
    frozen: Dense,
}

#[test]
fn a_constant_field_is_left_alone() {
    let mut s = Scaled {
        w: array![1.0],
        temperature: 2.0,
        frozen: dense(1, 1, 3.0),
    };
    assert_eq!(s.leaf_paths(), ["w"]);
    s.scale(10.0);
    assert_eq!(
        (s.w[0], s.temperature, s.frozen.w[[0, 0]]),
        (10.0, 2.0, 3.0)
    );
}

/// A private model inside a public generic one: the `where` bound names a
/// private type, which must not warn (this crate denies warnings in CI).
#[derive(Clone, Debug, Differentiable)]
struct Inner<T: Float> {
    v: Vec<T>,
}

/// Public, generic, with a private field type and a const parameter.
#[derive(Clone, Debug, Differentiable)]
pub struct Outer<T: Float, const N: usize> {
    inner: Inner<T>,
    fixed: [T; N],
    counts: [usize; N],
}

#[test]
fn generic_fields_are_bounded_and_const_generics_work() {
    let o = Outer::<f32, 2> {
        inner: Inner { v: vec![1.0, 2.0] },
        fixed: [3.0, 4.0],
        counts: [5, 6],
    };
    assert_eq!(
        o.leaf_paths(),
        ["inner.v[0]", "inner.v[1]", "fixed[0]", "fixed[1]"]
    );
    assert_eq!(o.to_flat(), [1.0, 2.0, 3.0, 4.0]);
    assert_eq!(o.zeros_like().counts, [5, 6]);
}

/// A struct with no float at all is a model with no parameters.
#[derive(Clone, Debug, Differentiable)]
struct Config {
    act: Activation,
    depth: usize,
}

#[derive(Clone, Debug, Differentiable)]
struct Unit;

#[test]
fn a_model_without_floats_has_no_leaves() {
    let c = Config {
        act: Activation::Relu,
        depth: 3,
    };
    assert_eq!(c.num_params(), 0);
    assert_eq!(c.zeros_like().depth, 3);
    assert!(Unit.to_flat().is_empty());
}

/// A visitor sees paths and leaves; the sequence events give the lengths.
#[test]
fn a_visit_reports_every_sequence_length() {
    struct Lengths(Vec<(String, usize)>);
    impl<'a> backprop::model::Visitor<'a> for Lengths {
        fn leaf(&mut self, _: &Path, _: Leaf<'a>) {}
        fn sequence(&mut self, path: &Path, len: usize) {
            self.0.push((path.to_string(), len));
        }
    }
    let mut lengths = Lengths(Vec::new());
    mlp().visit(&mut Path::new(), &mut lengths);
    assert_eq!(lengths.0, [("layers".to_string(), 2)]);
}

/// A re-exporter names the crate.
mod reexport {
    pub use backprop as bp;
}

#[derive(Clone, Debug, Differentiable)]
#[backprop(crate = reexport::bp)]
struct ThroughReexport {
    w: f64,
}

#[test]
fn the_crate_path_can_be_given() {
    assert_eq!(ThroughReexport { w: 1.5 }.to_flat(), [1.5]);
}
