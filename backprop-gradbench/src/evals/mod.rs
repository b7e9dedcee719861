//! One module per GradBench eval. Each has the same entry point:
//!
//! ```ignore
//! pub fn prepare(function: &str, input: &serde_json::Value)
//!     -> Result<Box<dyn FnMut() -> serde_json::Value>, String>;
//! ```
//!
//! `prepare` reads the input (untimed) and returns a closure that evaluates
//! the function once (timed by [`crate::protocol`], run as often as the
//! input's `min_runs` and `min_seconds` say) and returns its result as an
//! [`Output`], which becomes JSON in the layout of GradBench's reference
//! `manual` tool after the timing. An input it cannot read,
//! or a function the module does not have, is an `Err` with a message.

use serde_json::Value;

pub mod input;

pub mod det;
pub mod gd;
pub mod hello;
pub mod kmeans;
pub mod llsq;
pub mod lse;
pub mod ode;
pub mod particle;
pub mod saddle;
// The ADBench evals.
pub mod ba;
pub mod gmm;
pub mod ht;
pub mod lstm;

/// A prepared evaluation: one call, one run of the function.
pub type Prepared = Box<dyn FnMut() -> Output>;

/// One run's result, made JSON only when asked, after the timing: the C++
/// tools GradBench compares with time their computation and write its JSON
/// after, and a Jacobian of millions of numbers takes longer to make JSON
/// than to compute.
pub struct Output(Box<dyn FnOnce() -> Value>);

impl Output {
    /// A result whose JSON `to_json` makes.
    pub fn later(to_json: impl FnOnce() -> Value + 'static) -> Output {
        Output(Box::new(to_json))
    }

    /// The result as JSON.
    pub fn json(self) -> Value {
        (self.0)()
    }
}

/// The modules `define` accepts.
pub const MODULES: &[&str] = &[
    "ba", "det", "gmm", "hello", "ht", "kmeans", "llsq", "lse", "lstm", "ode", "particle", "saddle",
];

/// Whether `define` succeeds for `module`, and why not.
pub fn define(module: &str) -> Result<(), String> {
    match module {
        _ if MODULES.contains(&module) => Ok(()),
        _ => Err(format!("backprop has no module `{module}`")),
    }
}

/// Prepares `function` of `module` on `input`.
pub fn prepare(module: &str, function: &str, input: &Value) -> Result<Prepared, String> {
    match module {
        "det" => det::prepare(function, input),
        "hello" => hello::prepare(function, input),
        "kmeans" => kmeans::prepare(function, input),
        "llsq" => llsq::prepare(function, input),
        "lse" => lse::prepare(function, input),
        "ode" => ode::prepare(function, input),
        "particle" => particle::prepare(function, input),
        "saddle" => saddle::prepare(function, input),
        "ba" => ba::prepare(function, input),
        "gmm" => gmm::prepare(function, input),
        "ht" => ht::prepare(function, input),
        "lstm" => lstm::prepare(function, input),
        _ => Err(format!("backprop has no module `{module}`")),
    }
}

/// The error for a function a module does not have.
pub(crate) fn unknown_function(module: &str, function: &str) -> String {
    format!("the `{module}` module has no function `{function}`")
}
