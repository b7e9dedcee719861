//! Values a loop's reverse sweep reads computed again there instead of
//! kept: an element of an array the function borrows (`w[[k, j]]` of
//! `w: &Array2<f64>`). Kept, each iteration stores it in its record and
//! the reverse sweep loads it back; read again, it is one load from an
//! array nothing writes, at the head of the iteration's reverse:
//!
//! ```text
//! for (j, (x, forget)) in (0..b).zip(steps).rev() {
//!     let forget_1 = bp::index(w, [k, j]);   // not in the record
//!     ...
//! ```
//!
//! The index's own names (`k`, `j`) are read there instead, so the
//! iteration keeps them if they are its own.
//!
//! Also the shape of a carried array that the body writes into in place
//! (`c[[k, j]] = ..`), which the rules of its reads need once its buffer is
//! the next value's: the body only writes into it, so the carried adjoint
//! the iteration's reverse starts from has that shape, and the head reads
//! it there (`let c_in_shape = bp::shape_of(&d_c);`) instead of each
//! iteration keeping it.

use super::region::{Operand, Region};
use super::Shared;
use crate::graph::{Loop, Node, NodeId};
use crate::vocab::{Op, RULES_SKIP_FIRST};
use proc_macro2::Ident;
use std::collections::HashSet;

/// The nodes of a loop body whose values its reverse sweep reads (`read`)
/// and may compute again: an element of a borrowed parameter. Not a value
/// the body gives back (a carried value is the next iteration's input).
pub fn plan(body: &mut Region, sh: &Shared, read: &HashSet<Ident>) {
    if !sh.opts.remat {
        return;
    }
    body.remade = body
        .graph
        .ids()
        .filter(|id| body.live(*id) && !body.results.contains(id))
        .filter(|id| matches!(body.node(*id), Node::Op { op: Op::Index, .. }))
        .filter(|id| borrowed_param(body, sh, body.inputs(*id)[0]))
        .filter(|id| read.contains(body.name(*id)))
        .collect();
}

/// Whether a value is a parameter the function borrows, here or passed
/// into the region: nothing writes it while the function runs.
fn borrowed_param(r: &Region, sh: &Shared, id: NodeId) -> bool {
    let operand = match r.node(id) {
        Node::Param(_) | Node::Input(_) => r.operand(&sh.func.params, id),
        _ => return false,
    };
    matches!(operand, Operand::Param { by_ref: true, .. })
}

/// The carried inputs of a loop body whose kept shapes its reverse reads
/// from the carried adjoints (`d_state`, by carried variable): those whose
/// new value is the input written into, write after write.
pub fn carried_shapes(body: &mut Region, sh: &Shared, lp: &Loop, d_state: &[Option<Ident>]) {
    if !sh.opts.remat {
        return;
    }
    for (k, d) in d_state.iter().enumerate() {
        let (input, output) = (lp.body.inputs[k], lp.body.outputs[k]);
        let (Some(d), Some(_)) = (d, body.shape(input)) else {
            continue;
        };
        if written_from(body, output, input) {
            body.shapes_from.insert(input, d.clone());
        }
    }
}

/// Whether `value` is `x` after writes into it (each write's first
/// operand the array written into, of the same shape as its value).
fn written_from(r: &Region, mut value: NodeId, x: NodeId) -> bool {
    loop {
        if value == x {
            return true;
        }
        match r.node(value) {
            Node::Op { op, inputs, .. } if op.has(RULES_SKIP_FIRST) => value = inputs[0],
            _ => return false,
        }
    }
}
