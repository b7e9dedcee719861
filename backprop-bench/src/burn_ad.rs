//! burn's autodiff over its ndarray CPU backend, in `f64`: the device, the
//! conversions from ndarray arrays, and reading values and gradients back.
//!
//! In burn 0.22 a [`Tensor`] carries no backend type: the backend is chosen
//! at run time by the [`Device`] it lives on. The device here is
//! `Device::ndarray().autodiff()`, i.e. `Autodiff<NdArray>`, configured once
//! so that its default float type is `f64`; every tensor is also created with
//! an explicit `DType::F64`, and the readers check the dtype again.

use crate::check::flat;
use crate::Grads;
use backprop::ndarray::{Array1, Array2};
use burn::tensor::{DType, Device, FloatDType, Int, Tensor, TensorData};
use std::sync::OnceLock;

pub use burn::tensor::Gradients;

/// The autodiff device over burn's ndarray backend, with `f64` as its float
/// type. Configured on first use (a device's settings can be set only once,
/// before any tensor is created on it).
pub fn device() -> &'static Device {
    static DEVICE: OnceLock<Device> = OnceLock::new();
    DEVICE.get_or_init(|| {
        let mut device = ndarray_device().autodiff();
        device
            .configure(FloatDType::F64)
            .expect("burn's ndarray backend accepts f64 as its default float type");
        assert_eq!(device.settings().float_dtype, FloatDType::F64);
        device
    })
}

/// burn's ndarray CPU device. `Device::ndarray` is deprecated since burn
/// 0.22 (in favour of `Device::flex`), but the ndarray backend is the one
/// asked for, and it is still shipped; the allowance covers this call only.
#[allow(deprecated)]
fn ndarray_device() -> Device {
    Device::ndarray()
}

/// The creation options of every float tensor: the device, `f64` explicitly.
fn f64_on_device() -> (&'static Device, DType) {
    (device(), DType::F64)
}

/// A 0-d number as a one-element tensor (burn has no 0-d tensors).
pub fn scalar(v: f64) -> Tensor<1> {
    Tensor::from_data(TensorData::new(vec![v], [1]), f64_on_device())
}

/// An ndarray vector as a constant tensor.
pub fn tensor1(a: &Array1<f64>) -> Tensor<1> {
    Tensor::from_data(TensorData::new(flat(a), [a.len()]), f64_on_device())
}

/// An ndarray matrix as a constant tensor.
pub fn tensor2(a: &Array2<f64>) -> Tensor<2> {
    let (r, c) = a.dim();
    Tensor::from_data(TensorData::new(flat(a), [r, c]), f64_on_device())
}

/// An ndarray vector as a leaf whose gradient is kept.
pub fn param1(a: &Array1<f64>) -> Tensor<1> {
    tensor1(a).require_grad()
}

/// An ndarray matrix as a leaf whose gradient is kept.
pub fn param2(a: &Array2<f64>) -> Tensor<2> {
    tensor2(a).require_grad()
}

/// Class labels as an `(n, 1)` integer tensor, for `gather`.
pub fn labels(labels: &[usize]) -> Tensor<2, Int> {
    let l: Vec<i64> = labels.iter().map(|&l| l as i64).collect();
    Tensor::from_data(TensorData::new(l, [labels.len(), 1]), device())
}

/// Mean softmax cross-entropy in burn: `−mean(log_softmax(z)[label])`, with
/// burn's own `log_softmax` (candle-core has none, so candle's is
/// `z − log_sum_exp(z)`; burn's is the same log-sum-exp with a detached max).
pub fn xent(logits: Tensor<2>, labels: Tensor<2, Int>) -> Tensor<1> {
    burn::tensor::activation::log_softmax(logits, 1)
        .gather(1, labels)
        .mean()
        .neg()
}

/// The elements of an `f64` tensor in row-major order (panics on any other
/// dtype: nothing is converted).
pub fn flat_burn<const D: usize>(t: Tensor<D>) -> Vec<f64> {
    assert_eq!(t.dtype(), DType::F64, "burn tensors are f64 throughout");
    t.into_data()
        .try_into_vec::<f64>()
        .expect("an f64 tensor reads back as f64")
}

/// Reads one leaf's gradient out of `grads`.
pub fn grad<const D: usize>(leaf: &Tensor<D>, grads: &Gradients) -> Vec<f64> {
    flat_burn(leaf.grad(grads).expect("a gradient for every parameter"))
}

/// The loss value of a one-element `f64` tensor.
pub fn value(loss: Tensor<1>) -> f64 {
    let v = flat_burn(loss);
    assert_eq!(v.len(), 1, "the loss is one number");
    v[0]
}

/// Value and gradients of a burn run, in the comparison format: `leaves`
/// gives each parameter's name and its gradient read out of the store.
pub fn result(
    (loss, grads): (Tensor<1>, Gradients),
    leaves: impl FnOnce(&Gradients) -> Grads,
) -> (f64, Grads) {
    let g = leaves(&grads);
    (value(loss), g)
}
