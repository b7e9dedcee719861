//! `gmm`: the log posterior of a Gaussian mixture with a Wishart prior on the
//! precision matrices, and its gradient in `alpha`, `mu`, `q` and `l`.
//!
//! Component `c` has the lower triangular `Q_c`: `exp(q[c])` on the diagonal
//! and `l[c]` below it, filled column by column; its precision matrix is
//! `Q_cᵀ Q_c`. With `β[i, c] = α_c + Σ_j q[c, j] − ½‖Q_c (x_i − μ_c)‖²`,
//!
//! ```text
//! F = −N (D/2 ln 2π + lse(α)) + Σ_i lse(β_i)
//!     + K (nD ln(γ/√2) − ln Γ_D(n/2)) − γ²/2 Σ_c ‖Q_c‖²_F + m Σ_c Σ_j q[c, j]
//! ```
//!
//! with `n = D + m + 1`.

use backprop::prelude::*;
use serde_json::{json, Value};

use super::Output;

/// `ln Γ_p(a)`, the multivariate gamma function's logarithm.
fn log_multigamma(a: f64, p: usize) -> f64 {
    let mut out = 0.25 * (p * (p - 1)) as f64 * std::f64::consts::PI.ln();
    for j in 1..=p {
        out += ln_gamma(a + 0.5 * (1.0 - j as f64));
    }
    out
}

/// `ln Γ(x)` for `x > 0`, by Lanczos' approximation (g = 7, 9 terms), good to
/// about 1e-15 relative.
fn ln_gamma(x: f64) -> f64 {
    const G: f64 = 7.0;
    const C: [f64; 9] = [
        0.999_999_999_999_809_9,
        676.520_368_121_885_1,
        -1_259.139_216_722_402_8,
        771.323_428_777_653_1,
        -176.615_029_162_140_6,
        12.507_343_278_686_905,
        -0.138_571_095_265_720_12,
        9.984_369_578_019_572e-6,
        1.505_632_735_149_311_6e-7,
    ];
    if x < 0.5 {
        // Reflection: Γ(x) Γ(1 − x) = π / sin(πx).
        let pi = std::f64::consts::PI;
        return (pi / (pi * x).sin()).ln() - ln_gamma(1.0 - x);
    }
    let x = x - 1.0;
    let mut a = C[0];
    let t = x + G + 0.5;
    for (i, &c) in C.iter().enumerate().skip(1) {
        a += c / (x + i as f64);
    }
    0.5 * (2.0 * std::f64::consts::PI).ln() + (x + 0.5) * t.ln() - t + a.ln()
}

/// `Q`: `diag` on the diagonal and `lower` below it, filled column by column.
#[differentiable]
pub fn precision_factor(diag: &Array1<f64>, lower: &Array1<f64>) -> Array2<f64> {
    let d = diag.len();
    let mut qc = Array2::<f64>::zeros((d, d));
    for j in 0..d {
        qc[[j, j]] = diag[j];
        let column = j * (2 * d - j - 1) / 2;
        qc.slice_mut(s![j + 1.., j])
            .assign(&lower.slice(s![column..column + d - j - 1]));
    }
    qc
}

/// The log posterior. `x` holds the points as rows; `gamma` and `m` are the
/// Wishart prior's precision and extra degrees of freedom.
#[differentiable(wrt(alpha, mu, q, l))]
pub fn objective(
    alpha: &Array1<f64>,
    mu: &Array2<f64>,
    q: &Array2<f64>,
    l: &Array2<f64>,
    x: &Array2<f64>,
    gamma: f64,
    m: usize,
) -> f64 {
    let (n, d) = x.dim();
    let k = alpha.len();
    let sum_qs = q.sum_axis(Axis(1));
    let qdiag = q.mapv(f64::exp);
    let mut beta = Array2::<f64>::zeros((n, k));
    for c in 0..k {
        let qc = precision_factor(&qdiag.row(c).to_owned(), &l.row(c).to_owned());
        // Q (x_i − μ) for every point at once, as x Qᵀ − Qμ.
        let qx = x.dot(&qc.t()) - qc.dot(&mu.row(c));
        let sq = (&qx * &qx).sum_axis(Axis(1));
        beta.column_mut(c)
            .assign(&(sq * -0.5 + (alpha[c] + sum_qs[c])));
    }
    let dn = d as f64;
    let big_n = n as f64;
    let dof = (d + m + 1) as f64;
    let constant = -big_n * dn * 0.5 * (2.0 * std::f64::consts::PI).ln()
        + k as f64
            * (dof * dn * (gamma.ln() - 0.5 * std::f64::consts::LN_2)
                - log_multigamma(0.5 * dof, d));
    let likelihood = logsumexp(&beta).sum() - big_n * logsumexp(alpha);
    let frobenius = (&qdiag * &qdiag).sum() + (l * l).sum();
    let prior = -0.5 * gamma * gamma * frobenius + m as f64 * sum_qs.sum();
    constant + likelihood + prior
}

/// The eval's input, parsed.
struct Input {
    alpha: Array1<f64>,
    mu: Array2<f64>,
    q: Array2<f64>,
    l: Array2<f64>,
    x: Array2<f64>,
    gamma: f64,
    m: usize,
}

fn field<'a>(input: &'a Value, name: &str) -> Result<&'a Value, String> {
    input
        .get(name)
        .ok_or_else(|| format!("gmm: the input has no `{name}`"))
}

fn count(input: &Value, name: &str) -> Result<usize, String> {
    field(input, name)?
        .as_u64()
        .map(|v| v as usize)
        .ok_or_else(|| format!("gmm: `{name}` is not a non-negative integer"))
}

fn vector(value: &Value, name: &str) -> Result<Vec<f64>, String> {
    let items = value
        .as_array()
        .ok_or_else(|| format!("gmm: `{name}` is not an array"))?;
    items
        .iter()
        .map(|v| {
            v.as_f64()
                .ok_or_else(|| format!("gmm: `{name}` holds a non-number"))
        })
        .collect()
}

/// A list of `rows` lists of `cols` numbers, as a matrix.
fn matrix(input: &Value, name: &str, rows: usize, cols: usize) -> Result<Array2<f64>, String> {
    let items = field(input, name)?
        .as_array()
        .ok_or_else(|| format!("gmm: `{name}` is not an array"))?;
    if items.len() != rows {
        return Err(format!(
            "gmm: `{name}` has {} rows, not {rows}",
            items.len()
        ));
    }
    let mut flat = Vec::with_capacity(rows * cols);
    for item in items {
        let row = vector(item, name)?;
        if row.len() != cols {
            return Err(format!(
                "gmm: a row of `{name}` has {} numbers, not {cols}",
                row.len()
            ));
        }
        flat.extend(row);
    }
    Array2::from_shape_vec((rows, cols), flat).map_err(|e| e.to_string())
}

fn parse(input: &Value) -> Result<Input, String> {
    let d = count(input, "d")?;
    let k = count(input, "k")?;
    let n = count(input, "n")?;
    if d == 0 || k == 0 {
        return Err("gmm: `d` and `k` must be positive".into());
    }
    let alpha = vector(field(input, "alpha")?, "alpha")?;
    if alpha.len() != k {
        return Err(format!("gmm: `alpha` has {} numbers, not {k}", alpha.len()));
    }
    let gamma = field(input, "gamma")?
        .as_f64()
        .ok_or("gmm: `gamma` is not a number")?;
    Ok(Input {
        alpha: Array1::from(alpha),
        mu: matrix(input, "mu", k, d)?,
        q: matrix(input, "q", k, d)?,
        l: matrix(input, "l", k, d * (d - 1) / 2)?,
        x: matrix(input, "x", n, d)?,
        gamma,
        m: count(input, "m")?,
    })
}

fn rows(a: &Array2<f64>) -> Value {
    Value::from(a.rows().into_iter().map(|r| r.to_vec()).collect::<Vec<_>>())
}

/// Parses `input` and returns one evaluation of `function` (`objective` or
/// `jacobian`), whose output is the `manual` tool's: the log posterior, or
/// `{"alpha", "mu", "q", "l"}` with the gradient's rows as lists.
pub fn prepare(function: &str, input: &Value) -> Result<super::Prepared, String> {
    let i = parse(input)?;
    match function {
        "objective" => Ok(Box::new(move || {
            let v = objective(&i.alpha, &i.mu, &i.q, &i.l, &i.x, i.gamma, i.m);
            Output::later(move || json!(v))
        })),
        "jacobian" => Ok(Box::new(move || {
            let (_, g) = objective_backward(&i.alpha, &i.mu, &i.q, &i.l, &i.x, i.gamma, i.m, 1.0);
            Output::later(move || {
                json!({
                    "alpha": g.alpha.to_vec(),
                    "mu": rows(&g.mu),
                    "q": rows(&g.q),
                    "l": rows(&g.l),
                })
            })
        })),
        _ => Err(format!("gmm: no function `{function}`")),
    }
}
