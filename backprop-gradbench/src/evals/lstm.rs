//! `lstm`: the loss of ADBench's LSTM (diagonal weights) predicting each
//! character of a text from the ones before it, and its gradient in the main
//! and extra parameters.
//!
//! Layer `k` has, in `main_params`, its weights in row `2k` and its biases in
//! row `2k + 1`, each the four gates' `b` values side by side (forget, input,
//! output, change); `extra_params` holds the input weights, the output
//! weights and the output biases; `state` holds each layer's hidden (row
//! `2k`) and cell (row `2k + 1`) values. For each character `t` but the last,
//! the stack predicts `ŷ`, and the loss is `−Σ_t ⟨x_{t+1}, ŷ_t − lse(ŷ_t)⟩ /
//! ((c − 1) b)`, with ADBench's `lse(v) = ln(Σ exp(v) + 2)`.

use backprop::prelude::*;
use serde_json::{json, Value};

use super::Output;

/// The loss. `sequence` holds one character's bits per row.
#[differentiable(wrt(main_params, extra_params))]
pub fn objective(
    main_params: &Array2<f64>,
    extra_params: &Array2<f64>,
    state: &Array2<f64>,
    sequence: &Array2<f64>,
) -> f64 {
    let layers = main_params.nrows() / 2;
    let (c, b) = sequence.dim();
    // Row 0 of `hidden` is the stack's input; row k + 1 is layer k's
    // hidden state, `cell` row k its cell state.
    let mut hidden = Array2::zeros((layers + 1, b));
    let mut cell = Array2::zeros((layers, b));
    for k in 0..layers {
        hidden.row_mut(k + 1).assign(&state.row(2 * k));
        cell.row_mut(k).assign(&state.row(2 * k + 1));
    }
    let mut total = 0.0;
    for t in 0..c - 1 {
        hidden
            .row_mut(0)
            .assign(&(&sequence.row(t) * &extra_params.row(0)));
        // The weights are diagonal: bit j of each layer reads bit j of the
        // layer below only. Layer by layer, the bits are independent.
        for k in 0..layers {
            let (w, bias) = (2 * k, 2 * k + 1);
            for j in 0..b {
                let input = hidden[[k, j]];
                let h = hidden[[k + 1, j]];
                let forget = sigmoid(input * main_params[[w, j]] + main_params[[bias, j]]);
                let ingate = sigmoid(h * main_params[[w, b + j]] + main_params[[bias, b + j]]);
                let outgate =
                    sigmoid(input * main_params[[w, 2 * b + j]] + main_params[[bias, 2 * b + j]]);
                let change =
                    (h * main_params[[w, 3 * b + j]] + main_params[[bias, 3 * b + j]]).tanh();
                let next = cell[[k, j]] * forget + ingate * change;
                cell[[k, j]] = next;
                hidden[[k + 1, j]] = outgate * next.tanh();
            }
        }
        let mut sum_exp = 2.0;
        let mut gold_dot_pred = 0.0;
        for j in 0..b {
            let pred = hidden[[layers, j]] * extra_params[[1, j]] + extra_params[[2, j]];
            sum_exp += pred.exp();
            gold_dot_pred += sequence[[t + 1, j]] * pred;
        }
        // Σ_j gold_j (pred_j − lse) = ⟨gold, pred⟩ − lse Σ_j gold_j.
        let gold_sum = sequence.row(t + 1).sum();
        total += gold_dot_pred - sum_exp.ln() * gold_sum;
    }
    -total / ((c - 1) * b) as f64
}

fn rows_of(input: &Value, name: &str) -> Result<Array2<f64>, String> {
    let items = input
        .get(name)
        .and_then(Value::as_array)
        .ok_or_else(|| format!("lstm: the input has no list `{name}`"))?;
    let cols = items.first().and_then(Value::as_array).map_or(0, Vec::len);
    let mut flat = Vec::with_capacity(items.len() * cols);
    for item in items {
        let row = item
            .as_array()
            .filter(|r| r.len() == cols)
            .ok_or_else(|| format!("lstm: `{name}` is not a list of lists of equal length"))?;
        for v in row {
            flat.push(
                v.as_f64()
                    .ok_or_else(|| format!("lstm: `{name}` holds a non-number"))?,
            );
        }
    }
    Array2::from_shape_vec((items.len(), cols), flat).map_err(|e| e.to_string())
}

/// The eval's input, parsed and checked.
struct Input {
    main_params: Array2<f64>,
    extra_params: Array2<f64>,
    state: Array2<f64>,
    sequence: Array2<f64>,
}

fn parse(input: &Value) -> Result<Input, String> {
    let main_params = rows_of(input, "main_params")?;
    let extra_params = rows_of(input, "extra_params")?;
    let state = rows_of(input, "state")?;
    let sequence = rows_of(input, "sequence")?;
    let b = sequence.ncols();
    let layers = main_params.nrows() / 2;
    if b == 0 || sequence.nrows() < 2 {
        return Err("lstm: `sequence` needs two characters or more, of one bit or more".into());
    }
    if main_params.dim() != (2 * layers, 4 * b) || layers == 0 {
        return Err(format!(
            "lstm: `main_params` must be an even number of rows of {}",
            4 * b
        ));
    }
    if extra_params.dim() != (3, b) {
        return Err(format!("lstm: `extra_params` must be 3 rows of {b}"));
    }
    if state.dim() != (2 * layers, b) {
        return Err(format!("lstm: `state` must be {} rows of {b}", 2 * layers));
    }
    Ok(Input {
        main_params,
        extra_params,
        state,
        sequence,
    })
}

/// Parses `input` and returns one evaluation of `function`: `objective` (the
/// loss) or `jacobian` (the gradient of `main_params` then of
/// `extra_params`, each flattened row by row, as one list).
pub fn prepare(function: &str, input: &Value) -> Result<super::Prepared, String> {
    let i = parse(input)?;
    match function {
        "objective" => Ok(Box::new(move || {
            let v = objective(&i.main_params, &i.extra_params, &i.state, &i.sequence);
            Output::later(move || json!(v))
        })),
        "jacobian" => Ok(Box::new(move || {
            let (_, g) =
                objective_backward(&i.main_params, &i.extra_params, &i.state, &i.sequence, 1.0);
            Output::later(move || {
                let flat: Vec<f64> = g
                    .main_params
                    .iter()
                    .chain(g.extra_params.iter())
                    .copied()
                    .collect();
                json!(flat)
            })
        })),
        _ => Err(format!("lstm: no function `{function}`")),
    }
}
