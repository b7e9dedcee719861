//! `ba`: bundle adjustment's residuals and their sparse Jacobian.
//!
//! Observation `i` sees point `i mod m` from camera `i mod n` (GradBench
//! repeats one camera, one point, one weight and one feature). A camera is
//! 11 numbers: a Rodrigues rotation `r`, a centre `C`, a focal length `f`, a
//! principal point `u` and two radial distortion coefficients `κ`. The
//! residual of an observation is `w (proj(cam, X) − feat)`, with
//! `proj = f · distort(p) + u` where `p` is the projection of `R(r) (X − C)`;
//! the weight's own residual is `1 − w²`.
//!
//! Each residual reads one camera, one point and one weight, so its two rows
//! of the Jacobian are two vector-Jacobian products of
//! [`reprojection_error`] (upstream `(1, 0)` then `(0, 1)`), 15 numbers each:
//! one forward pass and two reverse sweeps (`reprojection_error_backward_each`).

use backprop::prelude::*;
use serde_json::{json, Value};

use super::Output;

/// The residual of one observation, as 15 numbers in: the camera's 11
/// (`r`, `C`, `f`, `u`, `κ`), the point's 3 and the weight; the feature is
/// a constant.
#[allow(clippy::too_many_arguments, reason = "one scalar per parameter")]
#[allow(
    unused_assignments,
    reason = "`let (y0, ..) = if ..` is not supported; both arms assign"
)]
#[differentiable(
    backward_each,
    wrt(r0, r1, r2, c0, c1, c2, f, u0, u1, k0, k1, x0, x1, x2, w)
)]
pub fn reprojection_error(
    r0: f64,
    r1: f64,
    r2: f64,
    c0: f64,
    c1: f64,
    c2: f64,
    f: f64,
    u0: f64,
    u1: f64,
    k0: f64,
    k1: f64,
    x0: f64,
    x1: f64,
    x2: f64,
    w: f64,
    feat: (f64, f64),
) -> (f64, f64) {
    // The point in the camera's frame, before rotation.
    let (p0, p1, p2) = (x0 - c0, x1 - c1, x2 - c2);
    let sqtheta = r0 * r0 + r1 * r1 + r2 * r2;
    let (mut y0, mut y1, mut y2) = (0.0, 0.0, 0.0);
    if sqtheta != 0.0 {
        // Rodrigues: p cos θ + (n × p) sin θ + n (n · p)(1 − cos θ).
        let theta = sqtheta.sqrt();
        let (cos, sin) = (theta.cos(), theta.sin());
        let inv = 1.0 / theta;
        let (n0, n1, n2) = (r0 * inv, r1 * inv, r2 * inv);
        let tmp = (n0 * p0 + n1 * p1 + n2 * p2) * (1.0 - cos);
        y0 = p0 * cos + (n1 * p2 - n2 * p1) * sin + n0 * tmp;
        y1 = p1 * cos + (n2 * p0 - n0 * p2) * sin + n1 * tmp;
        y2 = p2 * cos + (n0 * p1 - n1 * p0) * sin + n2 * tmp;
    } else {
        // First order at θ = 0: p + r × p.
        y0 = p0 + (r1 * p2 - r2 * p1);
        y1 = p1 + (r2 * p0 - r0 * p2);
        y2 = p2 + (r0 * p1 - r1 * p0);
    }
    let (q0, q1) = (y0 / y2, y1 / y2);
    let rsq = q0 * q0 + q1 * q1;
    let distortion = 1.0 + k0 * rsq + k1 * rsq * rsq;
    let proj0 = q0 * distortion * f + u0;
    let proj1 = q1 * distortion * f + u1;
    (w * (proj0 - feat.0), w * (proj1 - feat.1))
}

/// The weight's residual, `1 − w²`.
#[differentiable]
pub fn weight_error(w: f64) -> f64 {
    1.0 - w * w
}

/// The eval's input, with its repetitions written out.
struct Input {
    n: usize,
    m: usize,
    p: usize,
    cams: Vec<[f64; 11]>,
    points: Vec<[f64; 3]>,
    weights: Vec<f64>,
    feats: Vec<(f64, f64)>,
    /// Observation `i` is camera `obs[i].0` seeing point `obs[i].1`.
    obs: Vec<(usize, usize)>,
}

fn numbers<const N: usize>(input: &Value, name: &str) -> Result<[f64; N], String> {
    let items = input
        .get(name)
        .and_then(Value::as_array)
        .filter(|v| v.len() == N)
        .ok_or_else(|| format!("ba: `{name}` must be a list of {N} numbers"))?;
    let mut out = [0.0; N];
    for (o, v) in out.iter_mut().zip(items) {
        *o = v
            .as_f64()
            .ok_or_else(|| format!("ba: `{name}` holds a non-number"))?;
    }
    Ok(out)
}

fn count(input: &Value, name: &str) -> Result<usize, String> {
    match input.get(name).and_then(Value::as_u64) {
        Some(v) if v > 0 => Ok(v as usize),
        _ => Err(format!("ba: `{name}` must be a positive integer")),
    }
}

fn parse(input: &Value) -> Result<Input, String> {
    let (n, m, p) = (count(input, "n")?, count(input, "m")?, count(input, "p")?);
    if 11 * n + 3 * m + p > u32::MAX as usize || 31 * p > u32::MAX as usize {
        return Err("ba: the Jacobian's indices would not fit 32 bits".into());
    }
    let cam = numbers::<11>(input, "cam")?;
    let x = numbers::<3>(input, "x")?;
    let w = input
        .get("w")
        .and_then(Value::as_f64)
        .ok_or("ba: `w` must be a number")?;
    let feat = numbers::<2>(input, "feat")?;
    Ok(Input {
        n,
        m,
        p,
        cams: vec![cam; n],
        points: vec![x; m],
        weights: vec![w; p],
        feats: vec![(feat[0], feat[1]); p],
        obs: (0..p).map(|i| (i % n, i % m)).collect(),
    })
}

/// Calls `$f` on observation `$i` of `$input`: its camera's 11 numbers, its
/// point's 3, its weight and its feature, then `$extra`.
macro_rules! on_observation {
    ($f:ident($input:expr, $i:expr $(, $extra:expr)*)) => {{
        let input = $input;
        let (c, x) = (&input.cams[input.obs[$i].0], &input.points[input.obs[$i].1]);
        $f(
            c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7], c[8], c[9], c[10], x[0], x[1], x[2],
            input.weights[$i], input.feats[$i] $(, $extra)*
        )
    }};
}

impl Input {
    fn residual(&self, i: usize) -> (f64, f64) {
        on_observation!(reprojection_error(self, i))
    }

    /// The two rows of observation `i`: the derivatives of each component
    /// of its residual, in the order camera, point, weight.
    fn residual_rows(&self, i: usize) -> [[f64; 15]; 2] {
        let (_, rows) = on_observation!(reprojection_error_backward_each(
            self,
            i,
            [(1.0, 0.0), (0.0, 1.0)]
        ));
        rows.map(|g| {
            [
                g.r0, g.r1, g.r2, g.c0, g.c1, g.c2, g.f, g.u0, g.u1, g.k0, g.k1, g.x0, g.x1, g.x2,
                g.w,
            ]
        })
    }
}

/// The residuals: `2p` reprojection errors and `p` weight errors.
fn objective(input: &Input) -> (Vec<f64>, Vec<f64>) {
    let mut reproj = Vec::with_capacity(2 * input.p);
    for i in 0..input.p {
        let (e0, e1) = input.residual(i);
        reproj.push(e0);
        reproj.push(e1);
    }
    let w_err = input.weights.iter().map(|&w| weight_error(w)).collect();
    (reproj, w_err)
}

/// The Jacobian in compressed sparse rows, as the `manual` tool builds it:
/// `rows[r]..rows[r + 1]` index the columns and values of row `r`.
struct SparseJacobian {
    rows: Vec<u32>,
    cols: Vec<u32>,
    vals: Vec<f64>,
}

fn jacobian(input: &Input) -> SparseJacobian {
    let (n, m, p) = (input.n, input.m, input.p);
    let nonzeros = 15 * 2 * p + p;
    let mut jac = SparseJacobian {
        rows: super::output_vec(3 * p + 1),
        cols: super::output_vec(nonzeros),
        vals: super::output_vec(nonzeros),
    };
    jac.rows.push(0);
    for i in 0..p {
        let (cam, point) = input.obs[i];
        for row in input.residual_rows(i) {
            jac.cols.extend((0..11).map(|j| (11 * cam + j) as u32));
            jac.cols
                .extend((0..3).map(|j| (11 * n + 3 * point + j) as u32));
            jac.cols.push((11 * n + 3 * m + i) as u32);
            jac.vals.extend_from_slice(&row);
            jac.rows.push(jac.cols.len() as u32);
        }
    }
    for i in 0..p {
        let (_, g) = weight_error_backward(input.weights[i], 1.0);
        jac.cols.push((11 * n + 3 * m + i) as u32);
        jac.vals.push(g.w);
        jac.rows.push(jac.cols.len() as u32);
    }
    jac
}

/// The first 30 entries and the last, as the `manual` tool sends them.
fn head_and_last<T: Copy + Into<Value>>(v: &[T]) -> Value {
    let mut out: Vec<Value> = v.iter().take(30).map(|&x| x.into()).collect();
    if let Some(&last) = v.last() {
        out.push(last.into());
    }
    Value::from(out)
}

/// Parses `input` and returns one evaluation of `function`. The output is
/// the `manual` tool's: for `objective`, the first observation's residual
/// and the first weight's, each with its repeat count; for `jacobian`, the
/// first 30 entries of the sparse rows, columns and values and the last.
pub fn prepare(function: &str, input: &Value) -> Result<super::Prepared, String> {
    let i = parse(input)?;
    match function {
        "objective" => Ok(Box::new(move || {
            let (reproj, w_err) = objective(&i);
            Output::later(move || {
                json!({
                    "reproj_error": {"elements": [reproj[0], reproj[1]], "repeated": reproj.len() / 2},
                    "w_err": {"element": w_err[0], "repeated": w_err.len()},
                })
            })
        })),
        "jacobian" => Ok(Box::new(move || {
            let jac = jacobian(&i);
            Output::later(move || {
                json!({
                    "rows": head_and_last(&jac.rows),
                    "cols": head_and_last(&jac.cols),
                    "vals": head_and_last(&jac.vals),
                })
            })
        })),
        _ => Err(format!("ba: no function `{function}`")),
    }
}
