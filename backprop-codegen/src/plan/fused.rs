//! Sums fused with their reverse sweep: a loop whose one carried adjoint
//! is a float it only adds to (`s += e`, `s -= e`, where `e` does not read
//! `s`) passes that adjoint from each iteration to the one before
//! unchanged. Every iteration's reverse is then seeded by the same number,
//! the adjoint of the loop's result, and is linear in it: the forward loop
//! runs each iteration's reverse right after it, seeded with one, into
//! accumulators of its own, and the reverse sweep scales them by the
//! adjoint once it is known. Nothing is kept from one iteration for later,
//! and the elements the reverse reads are the forward's own locals.
//!
//! ```text
//! Before: for i in i_start..i_end { ..; let s_12 = s_in + s_11; steps.push((s_2, s_5)); s = s_12; }
//!         let mut d_s = d_out; let mut d_x = bp::zeros_like(&x);
//!         for (i, (s_2, s_5)) in (i_start..i_end).zip(steps).rev() { ..; d_s = d_s_in_step; }
//! After:  let mut d_s = bp::one_like(&s); let mut d_x = bp::zeros_like(&x);
//!         for i in i_start..i_end { ..; let s_12 = s_in + s_11; .. the reverse ..; d_s = d_s_in_step; s = s_12; }
//!         let mut d_s = d_out; let d_x = bp::scaled(d_x, d_s);
//! ```
//!
//! Only in the function's own body (whose reverse sweep follows in one
//! block, with the forward's accumulators in scope), for a `for` loop,
//! when each accumulator is of a float or an array, and when the body's
//! reverse reads only locals it owns (nothing kept as a shape, as rows,
//! handed back, or deferred as outer products).

use super::region::{Kept, Loop as LoopPlan, Region};
use super::Shared;
use crate::graph::{Loop, Node, NodeId};
use crate::vocab::{Op, Ty};

/// Whether the loop `lp` (planned as `l`, its carried adjoints `d_state`)
/// in the region `r` is a sum fused with its reverse sweep.
pub fn plan(r: &Region, l: &LoopPlan, sh: &Shared, lp: &Loop) -> bool {
    if !sh.opts.fused_sums || !r.inputs.is_empty() || lp.cond.is_some() || !l.active {
        return false;
    }
    let body = &l.body;
    // One carried float with an adjoint, which only the sum reads.
    let active: Vec<usize> = (0..lp.carried)
        .filter(|&k| l.d_state.get(k).is_some_and(Option::is_some))
        .collect();
    let [k] = active[..] else {
        return false;
    };
    let input = lp.body.inputs[k];
    if body.ty[input.index()] != Some(Ty::Float) || !adds_to(body, lp.body.outputs[k], input) {
        return false;
    }
    let uses: usize = lp
        .body
        .graph
        .ids()
        .map(|id| {
            lp.body
                .graph
                .deps(id)
                .iter()
                .filter(|d| **d == input)
                .count()
        })
        .sum::<usize>()
        + lp.body.outputs.iter().filter(|o| **o == input).count();
    if uses != 1 {
        return false;
    }
    // Each accumulator a float or an array (not a model's gradient).
    let accs = l
        .accs
        .iter()
        .all(|(j, _)| matches!(r.ty[lp.inputs[*j].index()], Some(Ty::Float | Ty::Array(_))));
    // The reverse reads only what the iteration owns.
    let owned = l.saves.iter().all(|s| matches!(s, Kept::Moved(_)));
    accs && owned
        && l.shared_accs.is_empty()
        && l.rows.is_empty()
        && l.settled.is_empty()
        && l.handoff.is_empty()
        && l.recycled.is_empty()
        && l.step.is_none()
        && body.outers.is_none()
        && body.shapes_from.is_empty()
}

/// Whether `out` is `x + e` or `x - e`.
fn adds_to(r: &Region, out: NodeId, x: NodeId) -> bool {
    match r.node(out) {
        Node::Op {
            op: Op::Add,
            inputs,
            ..
        } => inputs.len() == 2 && (inputs[0] == x) != (inputs[1] == x),
        Node::Op {
            op: Op::Sub,
            inputs,
            ..
        } => inputs.len() == 2 && inputs[0] == x && inputs[1] != x,
        _ => false,
    }
}
