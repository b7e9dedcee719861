//! Second order: the Hessian-vector product that `#[differentiable(hvp)]`
//! writes (`NAME_hvp`, forward mode over the generated reverse sweep)
//! against the gradient (`NAME_backward`) of the same function at the same
//! point, for the MLP of workload (c) and the scalar network of (a). The
//! issue's target is a ratio of at most 4 on both.

use crate::check::close;
use crate::networks::{mlp_hvp, network_backward, network_hvp, MlpGrad, NetworkGrad};
use crate::{mlp, scalar_net};
use backprop::Gradient;
use backprop_testkit::random;

/// The MLP's inputs and a direction, one array per parameter.
#[allow(missing_docs)]
pub struct MlpInputs {
    pub at: mlp::Inputs,
    pub t_w1: backprop::ndarray::Array2<f64>,
    pub t_b1: backprop::ndarray::Array1<f64>,
    pub t_w2: backprop::ndarray::Array2<f64>,
    pub t_b2: backprop::ndarray::Array1<f64>,
}

impl MlpInputs {
    /// Workload (c)'s point and a random direction.
    pub fn new() -> Self {
        let at = mlp::Inputs::new(mlp::BATCH);
        let mut s = 7;
        MlpInputs {
            t_w1: random(at.w1.dim(), &mut s),
            t_b1: random(at.b1.dim(), &mut s),
            t_w2: random(at.w2.dim(), &mut s),
            t_b2: random(at.b2.dim(), &mut s),
            at,
        }
    }
}

impl Default for MlpInputs {
    fn default() -> Self {
        Self::new()
    }
}

/// The MLP's gradient (the generated `mlp_backward`).
#[inline(never)]
pub fn mlp_gradient(i: &MlpInputs) -> (f64, MlpGrad) {
    mlp::generated(&i.at)
}

/// The MLP's value, gradient and Hessian-vector product (`mlp_hvp`).
#[inline(never)]
pub fn mlp_hessian(i: &MlpInputs) -> (f64, MlpGrad, MlpGrad) {
    let a = &i.at;
    mlp_hvp(
        &a.w1, &a.b1, &a.w2, &a.b2, &a.x, &a.labels, &i.t_w1, &i.t_b1, &i.t_w2, &i.t_b2,
    )
}

/// The scalar network's point and a direction.
#[derive(Clone, Copy)]
#[allow(missing_docs)]
pub struct NetworkInputs {
    pub at: scalar_net::Inputs,
    pub t: [f64; 9],
}

impl NetworkInputs {
    /// The lesson's point and a fixed direction.
    pub fn new() -> Self {
        NetworkInputs {
            at: scalar_net::Inputs::lesson(),
            t: [0.3, -0.2, 0.5, 0.1, -0.4, 0.7, -0.6, 0.25, 0.15],
        }
    }
}

impl Default for NetworkInputs {
    fn default() -> Self {
        Self::new()
    }
}

/// The scalar network's gradient (the generated `network_backward`).
#[inline(never)]
pub fn network_gradient(i: &NetworkInputs) -> (f64, NetworkGrad) {
    let [w11, w12, b1, w21, w22, b2, v1, v2, c] = i.at.p;
    let [x1, x2, y] = i.at.xy;
    network_backward(w11, w12, b1, w21, w22, b2, v1, v2, c, x1, x2, y, 1.0)
}

/// The scalar network's value, gradient and Hessian-vector product.
#[inline(never)]
pub fn network_hessian(i: &NetworkInputs) -> (f64, NetworkGrad, NetworkGrad) {
    let [w11, w12, b1, w21, w22, b2, v1, v2, c] = i.at.p;
    let [x1, x2, y] = i.at.xy;
    let [t11, t12, tb1, t21, t22, tb2, tv1, tv2, tc] = i.t;
    network_hvp(
        w11, w12, b1, w21, w22, b2, v1, v2, c, x1, x2, y, t11, t12, tb1, t21, t22, tb2, tv1, tv2,
        tc,
    )
}

/// Checks that the HVP's value and gradient are the gradient's and that
/// its product agrees with central differences of the gradient along the
/// direction (to 1e-6 relative), before anything is timed.
pub fn verify() -> Result<(), String> {
    let m = MlpInputs::new();
    let (v, g) = mlp_gradient(&m);
    let (hv, hg, hd) = mlp_hessian(&m);
    same_gradient("mlp", (v, &g), (hv, &hg))?;
    let step = |h: f64| {
        let mut a = m.at.clone();
        a.w1.scaled_add(h, &m.t_w1);
        a.b1.scaled_add(h, &m.t_b1);
        a.w2.scaled_add(h, &m.t_w2);
        a.b2.scaled_add(h, &m.t_b2);
        mlp::generated(&a).1
    };
    central("mlp", &hd, &step(1e-5), &step(-1e-5), 1e-5)?;
    let n = NetworkInputs::new();
    let (v, g) = network_gradient(&n);
    let (hv, hg, hd) = network_hessian(&n);
    same_gradient("network", (v, &g), (hv, &hg))?;
    let step = |h: f64| {
        let mut a = n;
        for (p, t) in a.at.p.iter_mut().zip(n.t) {
            *p += h * t;
        }
        network_gradient(&a).1
    };
    central("network", &hd, &step(1e-5), &step(-1e-5), 1e-5)
}

fn same_gradient<G: Gradient>(w: &str, a: (f64, &G), b: (f64, &G)) -> Result<(), String> {
    if a.0 != b.0 {
        return Err(format!(
            "{w}: the HVP's value {} is not the gradient's {}",
            b.0, a.0
        ));
    }
    for ((name, x), (_, y)) in a.1.fields().into_iter().zip(b.1.fields()) {
        if let Some((k, (p, q))) = x
            .iter()
            .zip(&y)
            .enumerate()
            .find(|(_, (p, q))| !close(**p, **q))
        {
            return Err(format!(
                "{w}: the HVP's d{name}[{k}] = {q}, the gradient's {p}"
            ));
        }
    }
    Ok(())
}

/// `hv` against `(g(x + h t) − g(x − h t)) / 2h`.
fn central<G: Gradient>(w: &str, hv: &G, plus: &G, minus: &G, h: f64) -> Result<(), String> {
    for (((name, x), (_, p)), (_, m)) in hv
        .fields()
        .into_iter()
        .zip(plus.fields())
        .zip(minus.fields())
    {
        for (k, ((x, p), m)) in x.iter().zip(&p).zip(&m).enumerate() {
            let fd = (p - m) / (2.0 * h);
            if (x - fd).abs() > 1e-6 * (1.0 + fd.abs()) {
                return Err(format!(
                    "{w}: (H·t)_{name}[{k}] = {x}, central differences {fd}"
                ));
            }
        }
    }
    Ok(())
}
