//! Models as parameters of differentiable functions: a struct that
//! `wrt(..)` names, and `&self` of a differentiable method. Its fields are
//! read like any value (`model.w1`, `model.layers[i].w`, `self.head.b`),
//! constant fields drive loops and `match`, and the gradient is a value of
//! the model's own type. Each function is checked against central
//! differences, and against the same function over loose arrays bit for
//! bit where there is one.

use backprop::prelude::*;
use backprop_testkit::networks::mlp_backward;
use backprop_testkit::random;

#[derive(Clone, Debug, PartialEq, Differentiable)]
struct Mlp {
    w1: Array2<f64>,
    b1: Array1<f64>,
    w2: Array2<f64>,
    b2: Array1<f64>,
}

fn mlp(seed: &mut u64) -> Mlp {
    Mlp {
        w1: random((3, 4), seed),
        b1: random(4, seed),
        w2: random((4, 2), seed),
        b2: random(2, seed),
    }
}

#[differentiable(wrt(model))]
fn mlp_loss(model: &Mlp, x: &Array2<f64>, labels: &[usize]) -> f64 {
    let h = relu(&(x.dot(&model.w1) + &model.b1));
    softmax_cross_entropy(&(h.dot(&model.w2) + &model.b2), labels)
}

#[test]
fn the_mlp_as_a_struct_equals_the_mlp_with_loose_arrays() {
    let mut seed = 7;
    let model = mlp(&mut seed);
    let x = random((5, 3), &mut seed);
    let labels = [0, 1, 1, 0, 1];
    let (v, g) = mlp_loss_backward(&model, &x, &labels, 1.0);
    assert_eq!(v, mlp_loss(&model, &x, &labels));
    // The same network over loose arrays (`backprop_testkit::networks::mlp`).
    let (v2, g2) = mlp_backward(&model.w1, &model.b1, &model.w2, &model.b2, &x, &labels, 1.0);
    assert_eq!(v.to_bits(), v2.to_bits());
    let loose = Mlp {
        w1: g2.w1,
        b1: g2.b1,
        w2: g2.w2,
        b2: g2.b2,
    };
    assert_eq!(g.model, loose, "bit for bit");
    gradcheck(&model, |m| {
        let (v, g) = mlp_loss_backward(m, &x, &labels, 1.0);
        (v, g.model)
    })
    .unwrap();
}

#[derive(Clone, Debug, Differentiable)]
struct Dense {
    w: Array2<f64>,
    b: Array1<f64>,
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Act {
    Tanh,
    Relu,
}

#[derive(Clone, Debug, Differentiable)]
struct Deep {
    layers: Vec<Dense>,
    act: Act,
    scale: f64,
}

/// Three layers in a `Vec`, an activation chosen by a constant field, a
/// scalar parameter.
#[differentiable(wrt(net))]
fn deep_loss(net: &Deep, x: &Array2<f64>) -> f64 {
    let mut h = x.to_owned();
    for i in 0..net.layers.len() {
        let z = h.dot(&net.layers[i].w) + &net.layers[i].b;
        h = match net.act {
            Act::Tanh => z.tanh(),
            Act::Relu => relu(&z),
        };
    }
    (&h * &h).sum() * net.scale
}

fn deep(act: Act, seed: &mut u64) -> Deep {
    let sizes = [3, 4, 4, 2];
    Deep {
        layers: (0..3)
            .map(|k| Dense {
                w: random((sizes[k], sizes[k + 1]), seed),
                b: random(sizes[k + 1], seed),
            })
            .collect(),
        act,
        scale: 0.75,
    }
}

#[test]
fn a_vec_of_layers_with_a_constant_activation() {
    let mut seed = 11;
    let x = random((5, 3), &mut seed);
    for act in [Act::Tanh, Act::Relu] {
        let net = deep(act, &mut seed);
        let (v, g) = deep_loss_backward(&net, &x, 1.0);
        assert_eq!(v, deep_loss(&net, &x));
        assert_eq!(g.net.layers.len(), 3);
        assert_eq!(g.net.act, act, "a constant field is cloned");
        // ∂scale = the loss over the scale.
        assert!((g.net.scale - v / net.scale).abs() < 1e-12);
        gradcheck(&net, |n| {
            let (v, g) = deep_loss_backward(n, &x, 1.0);
            (v, g.net)
        })
        .unwrap();
    }
}

#[derive(Clone, Debug, Differentiable)]
struct Encoder {
    l1: Dense,
    l2: Dense,
}

#[derive(Clone, Debug, Differentiable)]
struct AutoEncoder {
    body: Encoder,
    head: Dense,
    n_extra: usize,
}

impl AutoEncoder {
    /// A method: `self`'s gradient is a value of `Self`.
    #[differentiable]
    fn loss(&self, x: &Array2<f64>) -> f64 {
        let h = (x.dot(&self.body.l1.w) + &self.body.l1.b).tanh();
        let h = (h.dot(&self.body.l2.w) + &self.body.l2.b).tanh();
        let y = h.dot(&self.head.w) + &self.head.b;
        let mut extra = 0.0;
        for k in 0..self.n_extra {
            // An element of a field: its gradient goes to that element.
            extra += self.head.w[[k, 0]] * self.head.w[[k, 0]];
        }
        (&y - x).mapv(|e| e * e).sum() + extra
    }
}

#[test]
fn a_method_of_a_model_nested_two_levels_deep() {
    let mut seed = 3;
    let model = AutoEncoder {
        body: Encoder {
            l1: Dense {
                w: random((3, 4), &mut seed),
                b: random(4, &mut seed),
            },
            l2: Dense {
                w: random((4, 2), &mut seed),
                b: random(2, &mut seed),
            },
        },
        head: Dense {
            w: random((2, 3), &mut seed),
            b: random(3, &mut seed),
        },
        n_extra: 2,
    };
    let x = random((4, 3), &mut seed);
    let (v, g): (f64, AutoEncoder) = model.loss_backward(&x, 1.0);
    assert_eq!(v, model.loss(&x));
    assert_eq!(g.n_extra, 2);
    gradcheck(&model, |m| m.loss_backward(&x, 1.0)).unwrap();
}

/// A physics model with scalar fields: a chain of springs, its energy
/// under a displacement.
#[derive(Clone, Debug, Differentiable)]
struct Springs {
    masses: Vec<f64>,
    stiffness: Vec<f64>,
    gravity: f64,
}

#[differentiable(wrt(s, x))]
fn energy(s: &Springs, x: &Array1<f64>) -> f64 {
    let mut e = 0.0;
    for i in 0..s.stiffness.len() {
        let stretch = x[i + 1] - x[i];
        e += 0.5 * s.stiffness[i] * stretch * stretch;
    }
    for i in 0..s.masses.len() {
        e += s.masses[i] * s.gravity * x[i];
    }
    e
}

#[test]
fn scalar_fields_and_a_differentiable_array_beside_the_model() {
    let s = Springs {
        masses: vec![1.0, 2.0, 0.5],
        stiffness: vec![4.0, 8.0],
        gravity: 9.75,
    };
    let x = array![0.0, 0.25, 1.0];
    let (v, g) = energy_backward(&s, &x, 1.0);
    assert_eq!(v, energy(&s, &x));
    // ∂k_i = stretch²/2; ∂m_i = g x_i; ∂g = Σ m_i x_i.
    assert_eq!(g.s.stiffness, vec![0.5 * 0.0625, 0.5 * 0.5625]);
    assert_eq!(g.s.masses, vec![0.0, 9.75 * 0.25, 9.75]);
    assert_eq!(g.s.gravity, 0.5 + 0.5);
    // ∂x_0 = -k_0 (x_1 - x_0) + m_0 g.
    assert_eq!(g.x[0], -4.0 * 0.25 + 9.75);
    gradcheck(&(s.clone(), x.clone()), |(s, x)| energy_backward(s, x, 1.0)).unwrap();
}

#[derive(Clone, Debug, Differentiable)]
struct Tied {
    w: Array2<f64>,
    b1: Array1<f64>,
    b2: Array1<f64>,
}

/// One weight read by two layers (the second through its transpose): its
/// gradient is the sum of both (the fork rule over a field).
#[differentiable(wrt(m))]
fn tied(m: &Tied, x: &Array2<f64>) -> f64 {
    let h = (x.dot(&m.w) + &m.b1).tanh();
    let y = h.dot(&m.w.t()) + &m.b2;
    (&y - x).mapv(|e| e * e).sum()
}

#[test]
fn a_tied_weight_read_by_two_layers() {
    let mut seed = 5;
    let m = Tied {
        w: random((3, 2), &mut seed),
        b1: random(2, &mut seed),
        b2: random(3, &mut seed),
    };
    let x = random((4, 3), &mut seed);
    let (v, g) = tied_backward(&m, &x, 1.0);
    assert_eq!(v, tied(&m, &x));
    gradcheck(&m, |m| {
        let (v, g) = tied_backward(m, &x, 1.0);
        (v, g.m)
    })
    .unwrap();
    assert_eq!(g.m.w.shape(), &[3, 2]);
}

#[derive(Clone, Debug, Differentiable)]
struct Stack {
    layers: Vec<Dense>,
    gains: Vec<f64>,
}

impl Stack {
    /// `for layer in &self.layers`: each layer a place of the model.
    #[differentiable]
    fn forward_sum(&self, x: &Array2<f64>) -> f64 {
        let mut h = x.to_owned();
        for layer in &self.layers {
            h = (h.dot(&layer.w) + &layer.b).tanh();
        }
        let mut total = 0.0;
        for (i, layer) in self.layers.iter().enumerate() {
            total += layer.b.sum() * self.gains[i];
        }
        h.sum() + total
    }

    /// The same by index.
    #[differentiable]
    fn forward_sum_by_index(&self, x: &Array2<f64>) -> f64 {
        let mut h = x.to_owned();
        for i in 0..self.layers.len() {
            h = (h.dot(&self.layers[i].w) + &self.layers[i].b).tanh();
        }
        let mut total = 0.0;
        for i in 0..self.layers.len() {
            total += self.layers[i].b.sum() * self.gains[i];
        }
        h.sum() + total
    }

    /// The same with each layer bound to a name (`let layer =
    /// &self.layers[i];`), and a layer's own method called through one.
    #[differentiable]
    fn forward_sum_named(&self, x: &Array2<f64>) -> f64 {
        let mut h = x.to_owned();
        for i in 0..self.layers.len() {
            let layer = &self.layers[i];
            h = (h.dot(&layer.w) + &layer.b).tanh();
        }
        let mut total = 0.0;
        for i in 0..self.layers.len() {
            let layer: &Dense = &self.layers[i];
            let gain = self.gains[i];
            total += layer.b.sum() * gain;
        }
        let first = &self.layers[0];
        h.sum() + total + first.apply_sum(x)
    }

    /// `forward_sum_named` with every place read where it is used.
    #[differentiable]
    fn forward_sum_in_place(&self, x: &Array2<f64>) -> f64 {
        self.forward_sum_by_index(x) + self.layers[0].apply_sum(x)
    }
}

#[test]
fn a_layer_bound_to_a_name_is_its_place() {
    let mut seed = 19;
    let sizes = [3, 4, 3];
    let stack = Stack {
        layers: (0..2)
            .map(|k| Dense {
                w: random((sizes[k], sizes[k + 1]), &mut seed),
                b: random(sizes[k + 1], &mut seed),
            })
            .collect(),
        gains: vec![0.5, -1.5],
    };
    let x = random((4, 3), &mut seed);
    let (v, g) = stack.forward_sum_named_backward(&x, 1.0);
    assert_eq!(v.to_bits(), stack.forward_sum_named(&x).to_bits());
    let (v2, g2) = stack.forward_sum_in_place_backward(&x, 1.0);
    assert_eq!(v.to_bits(), v2.to_bits());
    let close = g
        .to_flat()
        .iter()
        .zip(g2.to_flat())
        .all(|(a, b)| (a - b).abs() <= 1e-14 * b.abs().max(1.0));
    assert!(close, "{g:?}\n{g2:?}");
    gradcheck(&stack, |s| s.forward_sum_named_backward(&x, 1.0)).unwrap();
}

#[test]
fn a_loop_over_the_layers_of_a_vec() {
    let mut seed = 17;
    let sizes = [3, 4, 4, 2];
    let stack = Stack {
        layers: (0..3)
            .map(|k| Dense {
                w: random((sizes[k], sizes[k + 1]), &mut seed),
                b: random(sizes[k + 1], &mut seed),
            })
            .collect(),
        gains: vec![0.5, -1.0, 2.0],
    };
    let x = random((5, 3), &mut seed);
    let (v, g) = stack.forward_sum_backward(&x, 1.0);
    assert_eq!(v, stack.forward_sum(&x));
    let (v2, g2) = stack.forward_sum_by_index_backward(&x, 1.0);
    assert_eq!(v.to_bits(), v2.to_bits());
    assert_eq!(g.to_flat(), g2.to_flat(), "bit for bit");
    assert_eq!(g.gains.len(), 3, "a Vec's gradient has the model's length");
    gradcheck(&stack, |s| s.forward_sum_backward(&x, 1.0)).unwrap();
}

#[derive(Clone, Debug, Differentiable)]
struct Block {
    inner: Dense,
    outer: Dense,
}

impl Dense {
    /// A layer's forward, differentiable: its gradient is a `Dense`.
    #[differentiable]
    fn apply_sum(&self, x: &Array2<f64>) -> f64 {
        (x.dot(&self.w) + &self.b).tanh().sum()
    }
}

impl Block {
    /// Calls of its fields' differentiable methods, and of a free
    /// function that takes a model.
    #[differentiable]
    fn loss(&self, x: &Array2<f64>) -> f64 {
        let a = self.inner.apply_sum(x);
        let b = dense_penalty(&self.outer, 0.5);
        a * self.outer.b.sum() + b
    }
}

#[differentiable(wrt(layer))]
fn dense_penalty(layer: &Dense, lambda: f64) -> f64 {
    (&layer.w * &layer.w).sum() * lambda + layer.b.sum()
}

#[test]
fn methods_of_fields_and_functions_that_take_a_model() {
    let mut seed = 23;
    let block = Block {
        inner: Dense {
            w: random((3, 2), &mut seed),
            b: random(2, &mut seed),
        },
        outer: Dense {
            w: random((2, 2), &mut seed),
            b: random(2, &mut seed),
        },
    };
    let x = random((4, 3), &mut seed);
    let (v, g) = block.loss_backward(&x, 1.0);
    assert_eq!(v, block.loss(&x));
    // ∂outer.w = 2 λ w exactly.
    assert_eq!(g.outer.w, &block.outer.w * 1.0);
    gradcheck(&block, |b| b.loss_backward(&x, 1.0)).unwrap();
}

/// A function generic over its float type.
#[differentiable]
fn generic_dot<T: backprop::Float>(x: T, w: &Array1<T>, v: &Array1<T>) -> T {
    (w * x).dot(v).tanh() + w.sum() * x
}

/// The same, bounded by `num_traits::Float` and a `where` clause.
#[differentiable]
fn generic_square<T>(x: T, w: &Array1<T>) -> T
where
    T: num_traits::Float + backprop::Float,
{
    let s = w.mapv(|a| a * x).sum();
    s * s
}

#[test]
fn generic_functions_serve_both_precisions() {
    let w = array![0.5, -1.0, 2.0];
    let v = array![1.0, 0.25, -0.5];
    let (value, g) = generic_dot_backward(0.75, &w, &v, 1.0);
    assert_eq!(value, generic_dot(0.75, &w, &v));
    gradcheck(&(0.75, w.clone(), v.clone()), |(x, w, v)| {
        generic_dot_backward(*x, w, v, 1.0)
    })
    .unwrap();
    let w32 = w.mapv(|a| a as f32);
    let v32 = v.mapv(|a| a as f32);
    let (value32, g32) = generic_dot_backward(0.75_f32, &w32, &v32, 1.0);
    assert_eq!(value32, generic_dot(0.75_f32, &w32, &v32));
    assert!((g32.x as f64 - g.x).abs() < 1e-5);
    let (s, gs) = generic_square_backward(2.0_f32, &w32, 1.0);
    assert_eq!(s, generic_square(2.0_f32, &w32));
    // s = x Σw: ∂x = 2 s Σw.
    assert_eq!(gs.x, 2.0 * 3.0 * 1.5);
}

#[derive(Clone, Debug, Differentiable)]
struct Linear<T: backprop::Float> {
    w: Array2<T>,
    b: Array1<T>,
}

#[differentiable(wrt(model))]
fn linear_loss<T: backprop::Float + num_traits::FromPrimitive>(
    model: &Linear<T>,
    x: &Array2<T>,
    y: &Array2<T>,
) -> T {
    let e = x.dot(&model.w) + &model.b - y;
    (&e * &e).mean().unwrap()
}

#[test]
fn a_model_generic_over_its_float_type() {
    let mut seed = 29;
    let model = Linear {
        w: random((3, 2), &mut seed),
        b: random(2, &mut seed),
    };
    let (x, y) = (random((5, 3), &mut seed), random((5, 2), &mut seed));
    let (v, g) = linear_loss_backward(&model, &x, &y, 1.0);
    assert_eq!(v, linear_loss(&model, &x, &y));
    gradcheck(&model, |m| {
        let (v, g) = linear_loss_backward(m, &x, &y, 1.0);
        (v, g.model)
    })
    .unwrap();
    let model32 = Linear {
        w: model.w.mapv(|a| a as f32),
        b: model.b.mapv(|a| a as f32),
    };
    let (x32, y32) = (x.mapv(|a| a as f32), y.mapv(|a| a as f32));
    let (v32, g32) = linear_loss_backward(&model32, &x32, &y32, 1.0);
    assert!((v32 as f64 - v).abs() < 1e-5);
    assert!((g32.model.w[[0, 0]] as f64 - g.model.w[[0, 0]]).abs() < 1e-5);
}

#[derive(Clone, Debug, Differentiable)]
struct Affine {
    w: Array2<f64>,
    b: Array1<f64>,
}

/// `#[differentiable]` on the `impl` block: a method may differentiate its
/// other parameters beside `self`, its gradient a struct written beside the
/// block (fields `self_` and `x`).
#[differentiable]
impl Affine {
    #[differentiable(wrt(self, x))]
    fn energy(&self, x: &Array2<f64>, scale: f64) -> f64 {
        let y = x.dot(&self.w) + &self.b;
        (&y * &y).sum() * scale
    }

    /// Self only, as without the block's attribute.
    #[differentiable]
    fn bias_norm(&self) -> f64 {
        (&self.b * &self.b).sum()
    }

    /// Not differentiable: left as it is.
    fn size(&self) -> usize {
        self.w.len()
    }
}

#[test]
fn a_method_that_differentiates_self_and_an_input() {
    let mut seed = 31;
    let m = Affine {
        w: random((3, 2), &mut seed),
        b: random(2, &mut seed),
    };
    let x = random((4, 3), &mut seed);
    let (v, g) = m.energy_backward(&x, 0.5, 1.0);
    assert_eq!(v, m.energy(&x, 0.5));
    let g: AffineEnergyGrad = g;
    assert_eq!(g.x.shape(), &[4, 3]);
    assert_eq!(g.self_.w.shape(), &[3, 2]);
    // ∂b = 2 scale Σ_rows y.
    let y = x.dot(&m.w) + &m.b;
    assert_eq!(g.self_.b, y.sum_axis(Axis(0)) * 1.0);
    gradcheck(&(m.clone(), x.clone()), |(m, x)| {
        m.energy_backward(x, 0.5, 1.0)
    })
    .unwrap();
    let (n, gb): (f64, Affine) = m.bias_norm_backward(1.0);
    assert_eq!(n, m.bias_norm());
    assert_eq!(gb.b, &m.b * 2.0);
    assert_eq!(m.size(), 6);
}

#[derive(Clone, Debug, Differentiable)]
struct Layer {
    w: Array2<f64>,
    b: Array1<f64>,
}

impl Layer {
    /// An array-valued method: its backward takes the upstream gradient
    /// by reference and returns `(Array2<f64>, Self)`.
    #[differentiable]
    fn forward(&self, x: &Array2<f64>) -> Array2<f64> {
        (x.dot(&self.w) + &self.b).tanh()
    }

    /// Calls a differentiable method of `self`, twice (the fork rule over
    /// `self`).
    #[differentiable]
    fn twice(&self, x: &Array2<f64>) -> f64 {
        let h = self.forward(x);
        self.forward(x).sum() + (&h * &h).sum()
    }
}

#[test]
fn an_array_valued_method_and_calls_of_methods_of_self() {
    let mut seed = 37;
    let layer = Layer {
        w: random((3, 2), &mut seed),
        b: random(2, &mut seed),
    };
    let x = random((4, 3), &mut seed);
    let d = random((4, 2), &mut seed);
    let (y, g): (Array2<f64>, Layer) = layer.forward_backward(&x, &d);
    assert_eq!(y, layer.forward(&x));
    GradCheck::new()
        .upstream(&d)
        .check(&layer, |l| l.forward_backward(&x, &d))
        .unwrap();
    // ∂b = Σ_rows d ⊙ (1 - y²).
    let db = (&d * &y.mapv(|v| 1.0 - v * v)).sum_axis(Axis(0));
    assert!(g.b.iter().zip(&db).all(|(a, b)| (a - b).abs() < 1e-15));
    let (v, _) = layer.twice_backward(&x, 1.0);
    assert_eq!(v, layer.twice(&x));
    gradcheck(&layer, |l| l.twice_backward(&x, 1.0)).unwrap();
}

/// Bounded by `num_traits::Float` alone: the generated items add
/// `T: backprop::Float`, so they serve `f32` and `f64`.
#[differentiable]
fn weighted_sum<T: num_traits::Float>(x: T, w: &Array1<T>) -> T {
    w.mapv(|a| a * x + a).sum()
}

#[test]
fn a_function_bounded_by_num_traits_float_alone() {
    let w = array![0.5, -1.0, 2.0];
    let (v, g) = weighted_sum_backward(2.0, &w, 1.0);
    assert_eq!(v, weighted_sum(2.0, &w));
    assert_eq!(g.x, 1.5);
    assert_eq!(g.w, array![3.0, 3.0, 3.0]);
    let w32 = w.mapv(|a| a as f32);
    let (v32, g32) = weighted_sum_backward(2.0_f32, &w32, 1.0);
    assert_eq!(v32, weighted_sum(2.0_f32, &w32));
    assert_eq!(g32.x, 1.5);
}

#[derive(Clone, Debug, Differentiable)]
struct Scaler<T: backprop::Float> {
    w: Array1<T>,
    gain: T,
}

/// Methods of a generic `impl`: with `#[differentiable]` on the block, the
/// block's float type parameter is theirs.
#[differentiable]
impl<T: backprop::Float> Scaler<T> {
    #[differentiable]
    fn loss(&self, x: &Array1<T>) -> T {
        (&self.w * x).sum() * self.gain
    }

    #[differentiable(wrt(self, x))]
    fn both(&self, x: &Array1<T>) -> T {
        (&self.w * x).mapv(|v| v * v).sum() * self.gain
    }
}

#[test]
fn methods_of_a_generic_impl() {
    let s = Scaler {
        w: array![0.5, -1.0],
        gain: 2.0,
    };
    let x = array![1.0, 3.0];
    let (v, g) = s.loss_backward(&x, 1.0);
    assert_eq!(v, s.loss(&x));
    assert_eq!(g.w, array![2.0, 6.0]);
    assert_eq!(g.gain, -2.5);
    let s32 = Scaler {
        w: array![0.5_f32, -1.0],
        gain: 2.0_f32,
    };
    let (v32, g32) = s32.loss_backward(&array![1.0_f32, 3.0], 1.0);
    assert_eq!(v32, -5.0);
    assert_eq!(g32.gain, -2.5);
    let (b, gb): (f64, ScalerBothGrad<f64>) = s.both_backward(&x, 1.0);
    assert_eq!(b, s.both(&x));
    gradcheck(&(s.clone(), x.clone()), |(s, x)| s.both_backward(x, 1.0)).unwrap();
    assert_eq!(gb.x.len(), 2);
}

/// Second order of methods of a generic `impl` whose `self` is the model:
/// the copy runs on the model over duals (`Scaler<Dual<f64>>`).
#[derive(Clone, Debug, Differentiable)]
struct Scaled<T: backprop::Float> {
    w: Array1<T>,
    gain: T,
}

#[differentiable]
impl<T: backprop::Float> Scaled<T> {
    /// `gain Σ wᵢ xᵢ`, of the model alone.
    #[differentiable(hvp)]
    fn linear(&self, x: &Array1<T>) -> T {
        (&self.w * x).sum() * self.gain
    }

    /// `gain Σ (wᵢ xᵢ)²`, of the model and `x`.
    #[differentiable(hvp, wrt(self, x))]
    fn squares(&self, x: &Array1<T>) -> T {
        (&self.w * x).mapv(|v| v * v).sum() * self.gain
    }
}

#[test]
fn second_order_of_methods_of_a_generic_model() {
    let s = Scaled {
        w: array![0.5, -1.0],
        gain: 2.0,
    };
    let t = Scaled {
        w: array![1.0, 0.25],
        gain: -0.5,
    };
    let x = array![1.0, 3.0];
    // H·t of gain Σ wᵢ xᵢ: (xᵢ t_gain, Σ xᵢ t_wᵢ).
    let (v, g, h) = s.linear_hvp(&x, &t);
    assert_eq!(v, s.linear(&x));
    assert_eq!((g.w.clone(), g.gain), (array![4.0, 12.0] / 2.0, -2.5));
    assert_eq!(h.w, array![-0.5, -1.5]);
    assert_eq!(h.gain, 1.0 + 0.75);
    let (jv, d) = s.linear_jvp(&x, &t);
    assert_eq!(jv, v);
    assert_eq!(d, g.w.dot(&t.w) + g.gain * t.gain);
    hvpcheck(&s, &t, |s, t| s.linear_hvp(&x, t)).unwrap();
    gradcheck(&s, |s| s.linear_backward(&x, 1.0)).unwrap();
    // gain Σ (wᵢ xᵢ)² in (w, gain, x), along (t, tx).
    let tx = array![0.5, -1.0];
    let (v, g, h) = s.squares_hvp(&x, &t, &tx);
    assert_eq!(v, s.squares(&x));
    let (gain, w) = (s.gain, &s.w);
    assert_eq!(g.self_.gain, (w * &x).mapv(|v| v * v).sum());
    let hx: Array1<f64> = (0..2)
        .map(|i| {
            let (wi, xi) = (w[i], x[i]);
            // ∂/∂xᵢ = 2 gain wᵢ² xᵢ, differentiated along (t, tx).
            2.0 * t.gain * wi * wi * xi
                + 4.0 * gain * wi * t.w[i] * xi
                + 2.0 * gain * wi * wi * tx[i]
        })
        .collect();
    for (a, e) in h.x.iter().zip(&hx) {
        assert!((a - e).abs() < 1e-12, "{a} against {e}");
    }
    hvpcheck(
        &(s.clone(), x.clone()),
        &(t.clone(), tx.clone()),
        |(s, x), (t, tx)| s.squares_hvp(x, t, tx),
    )
    .unwrap();
    jvpcheck(
        &(s.clone(), x.clone()),
        &(t.clone(), tx.clone()),
        |(s, x)| s.squares_backward(x, 1.0),
        |(s, x), (t, tx)| s.squares_jvp(x, t, tx),
    )
    .unwrap();
}

#[derive(Clone, Debug, Differentiable)]
struct Gain {
    g: f64,
    v: Array1<f64>,
}

impl Gain {
    /// A field as the first operand of arithmetic (`self.g * x`,
    /// `&self.v * x`): borrowed, never written over.
    #[differentiable]
    fn apply(&self, x: f64, y: &Array1<f64>) -> f64 {
        self.g * x + (&self.v * y).sum() + self.g * self.g
    }
}

#[test]
fn a_field_as_the_first_operand_is_not_written_over() {
    let m = Gain {
        g: 1.5,
        v: array![0.5, -2.0],
    };
    let y = array![2.0, 1.0];
    let (v, g) = m.apply_backward(3.0, &y, 1.0);
    assert_eq!(v, m.apply(3.0, &y));
    assert_eq!(v, 4.5 - 1.0 + 2.25);
    assert_eq!(g.g, 3.0 + 3.0);
    assert_eq!(g.v, y);
    assert_eq!(m.v, array![0.5, -2.0], "the model is unchanged");
    gradcheck(&m, |m| m.apply_backward(3.0, &y, 1.0)).unwrap();
}

#[derive(Clone, Debug, Differentiable)]
struct Knobs {
    g: f64,
    w: Array1<f64>,
    n: usize,
}

impl Knobs {
    /// A field in a branch condition and arms, and in a `while` loop whose
    /// bound is a constant field.
    #[differentiable]
    fn branchy(&self, x: &Array1<f64>) -> f64 {
        let s = (&self.w * x).sum();
        let t = if s > 0.0 { s * self.g } else { s - self.g };
        let mut k = 0;
        let mut acc = 0.0;
        while k < self.n {
            acc += self.w[k] * self.g;
            k += 1;
        }
        t + acc
    }

    /// A scalar field bound with its type (`let g: f64`), which a closure
    /// may then capture, and a closure mapped over an array field.
    #[differentiable]
    fn closures(&self, x: &Array1<f64>) -> f64 {
        let g: f64 = self.g;
        x.mapv(|v| (v * g).tanh()).sum() + self.w.mapv(|v| v * v).sum() * g
    }
}

#[test]
fn fields_in_branches_while_loops_and_closures() {
    let m = Knobs {
        g: 0.7,
        w: array![0.5, -1.0, 2.0],
        n: 2,
    };
    for x in [array![1.0, 0.5, 0.25], array![-1.0, 0.5, -0.25]] {
        let (v, _) = m.branchy_backward(&x, 1.0);
        assert_eq!(v, m.branchy(&x));
        gradcheck(&m, |m| m.branchy_backward(&x, 1.0)).unwrap();
        let (v, _) = m.closures_backward(&x, 1.0);
        assert_eq!(v, m.closures(&x));
        gradcheck(&m, |m| m.closures_backward(&x, 1.0)).unwrap();
    }
    // s = 0.5 > 0: ∂g = s + (w0 + w1) = 0.5 - 0.5.
    let (_, g) = m.branchy_backward(&array![1.0, 0.5, 0.25], 1.0);
    assert_eq!(g.g, 0.0);
}
