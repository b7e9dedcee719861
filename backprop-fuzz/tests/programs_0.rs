//! The generated programs, part 0 of 4 (see the crate docs): each a random
//! differentiable function and its test.
#![allow(
    unused_imports,
    unused_variables,
    unused_parens,
    unused_assignments,
    unused_mut,
    dead_code,
    clippy::all,
    reason = "generated code: dead lets, self-assignments and parentheses are part of what it tests"
)]

include!(concat!(env!("OUT_DIR"), "/programs_0.rs"));
