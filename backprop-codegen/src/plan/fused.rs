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
//! block, with the forward's accumulators in scope), and in the loops
//! nested in such a sum through which it adds (seeded with one as it is,
//! into its accumulators), for a `for` or a `while` loop (whose condition
//! is a constant of the gradient, even where it reads the sum), when each
//! accumulator is of a float or an array, and when the body's
//! reverse reads only locals it owns (nothing kept as a shape, as rows,
//! handed back, or deferred as outer products).

use super::region::{Kept, Loop as LoopPlan, Region};
use super::Shared;
use crate::graph::{Loop, Node, NodeId};
use crate::vocab::{Op, Ty};

/// Whether the loop `lp` (planned as `l`, its carried adjoints `d_state`)
/// in the region `r` is a sum fused with its reverse sweep; if it is, so
/// are the loops nested in it through which it adds (`for i { for j { s +=
/// e } }`): each inner iteration's reverse runs right after it, seeded with
/// one as the outer's, into the outer's accumulators.
pub fn plan(r: &Region, l: &mut LoopPlan, sh: &Shared, lp: &Loop) -> bool {
    if !sh.opts.fused_sums || !r.inputs.is_empty() {
        return false;
    }
    let Some(inner) = sum_loop(r, l, lp, None) else {
        return false;
    };
    fuse(l);
    let mut cur = l;
    for id in inner {
        cur = cur.body.loops.get_mut(&id).expect("a nested loop's plan");
        fuse(cur);
    }
    true
}

/// A loop fused: nothing kept for a later reverse.
fn fuse(l: &mut LoopPlan) {
    l.fused = true;
    l.saves.clear();
    l.kept.clear();
}

/// Whether `l` only adds to its one carried float (carried as the `k`th,
/// where that is given), and keeps nothing the iteration does not own:
/// the nested loops it adds through, outermost first.
fn sum_loop(r: &Region, l: &LoopPlan, lp: &Loop, k: Option<usize>) -> Option<Vec<NodeId>> {
    if !l.active {
        return None;
    }
    let body = &l.body;
    // One carried float with an adjoint, which only the sum reads.
    let active: Vec<usize> = (0..lp.carried)
        .filter(|&k| l.d_state.get(k).is_some_and(Option::is_some))
        .collect();
    let [j] = active[..] else {
        return None;
    };
    if k.is_some_and(|k| k != j) {
        return None;
    }
    let input = lp.body.inputs[j];
    if body.ty[input.index()] != Some(Ty::Float) {
        return None;
    }
    let inner = sum_through(l, lp.body.outputs[j], input)?;
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
        return None;
    }
    // Each accumulator a float or an array (not a model's gradient), or
    // the enclosing sum's.
    let accs = l.accs.iter().all(|(j, acc)| {
        l.shared_accs.contains(acc)
            || matches!(r.ty[lp.inputs[*j].index()], Some(Ty::Float | Ty::Array(_)))
    });
    // The reverse reads only what the iteration owns.
    let owned = l.saves.iter().all(|s| matches!(s, Kept::Moved(_)));
    let plain = accs
        && owned
        && l.rows.is_empty()
        && l.settled.is_empty()
        && l.handoff.is_empty()
        && l.recycled.is_empty()
        && l.step.is_none()
        && body.outers.is_none()
        && body.shapes_from.is_empty();
    plain.then_some(inner)
}

/// Whether `out` adds to `x` (`x + e`, `x - e`), or is the sum of a loop
/// nested in `l`'s body that starts from `x` and only adds to it: the
/// nested loops it adds through, outermost first.
fn sum_through(l: &LoopPlan, out: NodeId, x: NodeId) -> Option<Vec<NodeId>> {
    if adds_to(&l.body, out, x) {
        return Some(Vec::new());
    }
    let Node::Out { of, k } = *l.body.node(out) else {
        return None;
    };
    let Node::Loop(inner) = l.body.node(of) else {
        return None;
    };
    if k >= inner.carried || inner.inputs[k] != x {
        return None;
    }
    let plan = l.body.loops.get(&of)?;
    let mut chain = sum_loop(&l.body, plan, inner, Some(k))?;
    chain.insert(0, of);
    Some(chain)
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
