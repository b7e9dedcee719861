//! Differential fuzzing of `#[differentiable]`: random differentiable
//! programs, generated at build time, each with a test.
//!
//! The generator (module [`gen`]) writes seeded random functions over the
//! vocabulary of the macro: scalars and arrays of broadcasting shapes, the
//! elementwise functions of the op table (drawn from
//! `backprop_codegen::vocabulary()`, with a domain for each kept in
//! `gen/vocab.rs`), reductions, products, views, closures, constants made
//! in the body, `let mut` and compound assignment, `for`/`while`/`loop`
//! with labelled exits and `break` values, early `return`, `match`, `if`
//! as a statement and a value, writes into arrays (nested in loops too),
//! loops over iterators, tuple outputs, calls of earlier generated
//! functions (tuple patterns too), `wrt` subsets and constant parameters,
//! `f32` programs, names the generated code uses itself, and loops whose
//! carried variables are reassigned. Each program's test compares the
//! forward value of `NAME_backward` with the original's bit for bit,
//! gradchecks it, and checks `NAME_jvp` against reverse mode and `NAME_hvp`
//! against differences of the gradient.
//!
//! # How the programs are built and run
//!
//! `build.rs` includes the generator's source (`#[path = "src/gen/mod.rs"]
//! mod gen;`) rather than depending on a crate of its own, so the generator
//! is one module of this crate, tested here, and the build script is a few
//! lines. It writes the programs to `OUT_DIR/programs_0.rs` ..
//! `programs_3.rs`, and `tests/programs_0.rs` .. `programs_3.rs` each
//! `include!` one: four test crates, which cargo compiles in parallel.
//! Nothing generated is committed.
//!
//! ```text
//! cargo test -p backprop-fuzz                  # the default 2,000 programs
//! BACKPROP_FUZZ_SEED=7 BACKPROP_FUZZ_COUNT=10000 cargo test --release -p backprop-fuzz
//! ```
//!
//! `BACKPROP_FUZZ_SEED` (default 20261202) and `BACKPROP_FUZZ_COUNT`
//! (default 2,000) choose the programs; `BACKPROP_FUZZ_OPTIONS` turns on
//! what the generator avoids by default (see [`gen::Options::parse`]). To
//! read the programs, write them out with the binary (the same seed and
//! count give the same files):
//!
//! ```text
//! cargo run -p backprop-fuzz -- --seed 7 --count 100 --out /tmp/fuzz
//! cargo run -p backprop-fuzz -- --stats --count 2000     # construct counts
//! ```
#![warn(missing_docs)]

#[allow(
    missing_docs,
    reason = "the generator's items are documented where they matter, not each field"
)]
pub mod gen;
