//! With the `serde` feature, `#[derive(Differentiable)]` also makes a model
//! `Serialize + Deserialize` (`cargo test --features serde --test
//! models_serde`; CI runs it).
#![cfg(feature = "serde")]

use backprop::prelude::*;
use backprop::Float;

#[derive(Clone, Debug, PartialEq, Differentiable)]
struct Dense<T: Float> {
    w: Array2<T>,
    b: Array1<T>,
}

/// An enum of the user's, saved with the model: serde's own impls, by hand
/// (this crate does not depend on serde_derive).
#[derive(Clone, Copy, Debug, PartialEq)]
enum Activation {
    Relu,
    Tanh,
}

impl serde::Serialize for Activation {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(match self {
            Activation::Relu => "relu",
            Activation::Tanh => "tanh",
        })
    }
}

impl<'de> serde::Deserialize<'de> for Activation {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        match String::deserialize(d)?.as_str() {
            "relu" => Ok(Activation::Relu),
            "tanh" => Ok(Activation::Tanh),
            other => Err(serde::de::Error::custom(format!("no activation {other}"))),
        }
    }
}

#[derive(Clone, Debug, PartialEq, Differentiable)]
struct Mlp {
    layers: Vec<Dense<f64>>,
    act: Activation,
    r#type: String,
    #[backprop(constant)]
    temperature: f64,
}

fn mlp() -> Mlp {
    Mlp {
        layers: vec![
            Dense {
                w: array![[1.0, -2.0], [0.5, 0.25]],
                b: array![0.1, 0.2],
            },
            Dense {
                w: array![[3.0], [4.0]],
                b: array![-1.0],
            },
        ],
        act: Activation::Tanh,
        r#type: "classifier".into(),
        temperature: 0.5,
    }
}

#[test]
fn a_model_round_trips_through_json() {
    let m = mlp();
    let json = serde_json::to_string(&m).unwrap();
    assert!(json.starts_with(r#"{"layers":[{"w":"#), "{json}");
    assert!(
        json.contains(r#""act":"tanh","type":"classifier","temperature":0.5"#),
        "{json}"
    );
    let back: Mlp = serde_json::from_str(&json).unwrap();
    assert_eq!(back, m);
}

#[test]
fn a_generic_model_and_a_tuple_struct_round_trip() {
    let d = Dense::<f32> {
        w: array![[1.5_f32]],
        b: array![2.5_f32],
    };
    let back: Dense<f32> = serde_json::from_str(&serde_json::to_string(&d).unwrap()).unwrap();
    assert_eq!(back, d);

    #[derive(Clone, Debug, PartialEq, Differentiable)]
    struct Pair(Array1<f64>, usize);
    let p = Pair(array![1.0, 2.0], 3);
    let json = serde_json::to_string(&p).unwrap();
    assert!(json.starts_with('[') && json.ends_with(",3]"), "{json}");
    assert_eq!(serde_json::from_str::<Pair>(&json).unwrap(), p);

    #[derive(Clone, Debug, PartialEq, Differentiable)]
    struct Empty;
    assert_eq!(serde_json::to_string(&Empty).unwrap(), "{}");
    assert_eq!(serde_json::from_str::<Empty>("{}").unwrap(), Empty);
}

#[test]
fn loading_reports_missing_and_repeated_fields_and_ignores_unknown_ones() {
    let m = mlp();
    let mut value = serde_json::to_value(&m).unwrap();
    value["comment"] = serde_json::json!("ignored");
    assert_eq!(serde_json::from_value::<Mlp>(value.clone()).unwrap(), m);

    value.as_object_mut().unwrap().remove("act");
    let err = serde_json::from_value::<Mlp>(value).unwrap_err();
    assert!(err.to_string().contains("missing field `act`"), "{err}");

    let w = r#"{"v":1,"dim":[1,1],"data":[1.0]}"#;
    let twice = format!(r#"{{"w": {w}, "w": {w}, "b": {{"v":1,"dim":[1],"data":[0.0]}}}}"#);
    let err = serde_json::from_str::<Dense<f64>>(&twice).unwrap_err();
    assert!(err.to_string().contains("duplicate field `w`"), "{err}");

    // A struct may also be read as a sequence of its fields, in order.
    let seq = r#"[{"v":1,"dim":[1,1],"data":[2.0]}, {"v":1,"dim":[1],"data":[3.0]}]"#;
    let d: Dense<f64> = serde_json::from_str(seq).unwrap();
    assert_eq!((d.w[[0, 0]], d.b[0]), (2.0, 3.0));
    let err =
        serde_json::from_str::<Dense<f64>>(r#"[{"v":1,"dim":[1,1],"data":[2.0]}]"#).unwrap_err();
    assert!(err.to_string().contains("invalid length 1"), "{err}");
}

/// A user's type named like the macro's helpers, and fields named like its
/// locals: the generated impls still read them.
#[derive(Clone, Debug, PartialEq)]
struct Visit(u8);

impl serde::Serialize for Visit {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_u8(self.0)
    }
}

impl<'de> serde::Deserialize<'de> for Visit {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        u8::deserialize(d).map(Visit)
    }
}

#[derive(Clone, Debug, PartialEq, Differentiable)]
struct Names {
    map: f64,
    key: f64,
    state: f64,
    read: usize,
    value: Vec<f64>,
    serializer: Visit,
}

#[test]
fn field_names_do_not_clash_with_the_generated_code() {
    let n = Names {
        map: 1.0,
        key: 2.0,
        state: 3.0,
        read: 4,
        value: vec![5.0],
        serializer: Visit(6),
    };
    let json = serde_json::to_string(&n).unwrap();
    assert_eq!(serde_json::from_str::<Names>(&json).unwrap(), n);
    assert_eq!(n.leaf_paths(), ["map", "key", "state", "value[0]"]);
}

/// A `&'static str` constant is read only from `'static` input.
#[derive(Clone, Debug, PartialEq, Differentiable)]
struct Tagged {
    w: f64,
    tag: &'static str,
}

#[test]
fn a_static_str_field_loads_from_static_input() {
    let t: Tagged = serde_json::from_str(r#"{"w": 1.5, "tag": "x"}"#).unwrap();
    assert_eq!(t, Tagged { w: 1.5, tag: "x" });
}

/// A model with a field that serde cannot save is simply not `Serialize`
/// (and the feature, turned on by any crate of a build, breaks no model).
#[test]
#[allow(
    clippy::needless_borrow,
    reason = "the borrow is the probe: without it only one method is found"
)]
fn a_model_with_a_field_serde_cannot_save_is_not_serialize() {
    use std::marker::PhantomData;
    struct Probe<T>(PhantomData<T>);
    trait Saveable {
        fn saveable(&self) -> bool {
            true
        }
    }
    impl<T: serde::Serialize> Saveable for Probe<T> {}
    trait NotSaveable {
        fn saveable(&self) -> bool {
            false
        }
    }
    impl<T> NotSaveable for &Probe<T> {}

    #[derive(Clone, Debug)]
    struct Plain;
    #[derive(Clone, Debug, Differentiable)]
    struct WithPlain {
        w: f64,
        plain: Plain,
    }
    assert!(!(&Probe::<WithPlain>(PhantomData)).saveable());
    assert!((&Probe::<Mlp>(PhantomData)).saveable());
}

/// A model whose parameters are nalgebra values (with the `nalgebra`
/// feature): saved as nalgebra saves them.
#[cfg(feature = "nalgebra")]
#[derive(Clone, Debug, PartialEq, Differentiable)]
struct Pose {
    w: backprop::nalgebra::Vector3<f64>,
    t: backprop::nalgebra::Vector3<f64>,
    k: backprop::nalgebra::Matrix2<f64>,
}

#[cfg(feature = "nalgebra")]
#[test]
fn a_model_of_nalgebra_values_round_trips() {
    use backprop::nalgebra::{Matrix2, Vector3};
    let pose = Pose {
        w: Vector3::new(0.1, -0.2, 0.3),
        t: Vector3::new(1.0, 2.0, 3.0),
        k: Matrix2::new(1.0, 2.0, 3.0, 4.0),
    };
    let json = serde_json::to_string(&pose).unwrap();
    let back: Pose = serde_json::from_str(&json).unwrap();
    assert_eq!(back, pose);
    assert_eq!(pose.num_params(), 10);
}
