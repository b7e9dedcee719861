//! Whether a function's reverse sweep can run again after it has run once,
//! on the same forward pass: what `NAME_backward_each` needs (one forward
//! pass, then one reverse sweep per upstream gradient, see `emit::each`).
//!
//! A sweep may run again when it leaves the forward pass's values as it
//! found them. That holds when every value of the body is a float: a float
//! local is copied where it is read, never moved, and no rule writes over
//! it. Arrays are not accepted (a rule may take a temporary's buffer and
//! write its gradient over it, see `in_place`), nor loops (the reverse loop
//! takes each iteration's record from the vector the forward loop filled).
//!
//! ```text
//! Accepted: fn polar(r: f64, t: f64) -> (f64, f64) { (r * t.cos(), r * t.sin()) }
//! Rejected: fn f(x: &Array1<f64>) -> (f64, f64) { (x.sum(), sum(&(x * x))) }
//! ```
//!
//! The emitted sweep is also a closure that must be `Fn`, so that a sweep
//! which wrote over a value it captured would not compile: this check is
//! what keeps that from happening to an accepted function.

use super::Region;
use crate::graph::Node;
use proc_macro2::Span;

/// Why the reverse sweep cannot run again, at the user's tokens.
#[derive(Debug)]
pub enum Unrepeatable {
    /// The body has a loop.
    Loop(Span),
    /// A value that is not known to be a float.
    NotFloat(Span),
}

/// Checks `r`, the function's body, and the arms of its branches.
pub fn check(r: &Region) -> Result<(), Unrepeatable> {
    in_region(r, &[])
}

/// Checks a region whose `Input(j)` is a parameter where `params[j]`.
fn in_region(r: &Region, params: &[bool]) -> Result<(), Unrepeatable> {
    for id in r.graph.ids() {
        match r.node(id) {
            Node::Loop(_) => return Err(Unrepeatable::Loop(r.graph.get(id).span)),
            // A parameter is only read by the sweep (a copy or a borrow);
            // a differentiable one is a float, or its reader is rejected.
            Node::Param(_) | Node::Float(_) | Node::Int(_) | Node::Const(_) | Node::Error => {}
            // A parameter an arm reads (an element of a fixed-size array).
            Node::Input(j) if params.get(*j).copied().unwrap_or(false) => {}
            Node::Branch(b) => {
                for (arm, outer) in r.branches[&id].arms.iter().zip(&b.arm_inputs) {
                    let params: Vec<bool> = outer
                        .iter()
                        .map(|o| match r.node(*o) {
                            Node::Param(_) => true,
                            Node::Input(j) => params.get(*j).copied().unwrap_or(false),
                            _ => false,
                        })
                        .collect();
                    in_region(arm, &params)?;
                }
            }
            Node::Op { .. } | Node::Out { .. } | Node::Input(_) | Node::LoopVar => {
                if r.live(id) && !r.scalar[id.index()] {
                    return Err(Unrepeatable::NotFloat(r.graph.get(id).span));
                }
            }
        }
    }
    // Unreachable with floats only: a buffer given away or written over.
    let in_place = [
        r.takes.iter().next(),
        r.rule_takes.iter().next(),
        r.given.keys().next(),
        r.spares.keys().next(),
    ];
    match in_place.into_iter().flatten().next() {
        Some(&id) => Err(Unrepeatable::NotFloat(r.graph.get(id).span)),
        None => Ok(()),
    }
}
