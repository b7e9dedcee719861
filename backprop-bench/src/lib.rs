//! Benchmarks of `#[differentiable]` against hand-written code, candle-core
//! and burn.
//!
//! Every workload module has the same five implementations of one loss:
//!
//! 1. `forward`: the value only, hand-written (plain `f64` / ndarray);
//! 2. `hand`: value and gradients, hand-written as a careful person would
//!    (in-place updates, buffers reused, no needless copy): the limit;
//! 3. `generated`: the `_backward` that `#[differentiable]` writes;
//! 4. `candle`: candle-core's autograd (`Var`, `backward()`, CPU, `f64`);
//! 5. `burn`: burn's `Autodiff` over its ndarray backend (`require_grad()`,
//!    `backward()`, CPU, `f64`; see [`burn_ad`]).
//!
//! `verify()` checks that they agree (1e-9 relative) before anything is timed.
//! The crate installs a counting global allocator ([`alloc`]) so that
//! allocations and peak bytes per call can be measured outside the timing loop.

pub mod alloc;
pub mod bsub;
pub mod burn_ad;
pub mod check;
pub mod closure_chain;
pub mod expansion;
pub mod hvp;
pub mod interleave;
pub mod mlp;
pub mod nalgebra_data;
/// The reference networks of `backprop-testkit` (the one source of them),
/// compiled in this crate as a user's code is: a call of a `_backward` in
/// another crate is not inlined, which costs the nine-parameter network
/// 15 % (1.17 against 1.02) and the RNN 3 %.
#[path = "../../backprop-testkit/src/networks.rs"]
pub mod networks;
pub mod parallel;
pub mod plain_data;
pub mod report;
pub mod rnn;
pub mod scalar_net;
pub mod state_buffer;
pub mod two_heads;

/// The gradients of one call, field by field, flattened in row-major order.
pub type Grads = Vec<(&'static str, Vec<f64>)>;

/// Every workload's `verify`, in order: the first disagreement is an error.
pub fn verify_all() -> Result<(), String> {
    scalar_net::verify()?;
    two_heads::verify()?;
    mlp::verify()?;
    bsub::verify()?;
    rnn::verify()?;
    closure_chain::verify()?;
    state_buffer::verify()?;
    parallel::verify()?;
    hvp::verify()?;
    plain_data::verify()?;
    nalgebra_data::verify()?;
    Ok(())
}
