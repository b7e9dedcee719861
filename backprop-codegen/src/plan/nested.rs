//! Nested loops: a loop inside a loop body adds the gradients of the
//! values it captures straight into the enclosing loop's accumulators, and
//! takes over the buffer of an enclosing carried variable it starts from
//! instead of copying it.
//!
//! ```text
//! Before: for (j, ..) in .. {                 // the enclosing reverse loop
//!             let mut d_m_step_1 = bp::zeros_like(m);
//!             for (k, ..) in .. { bp::index_vjp(g, m, [k, j]).add_to(&mut d_m_step_1); }
//!             d_m_step = d_m_step + d_m_step_1;
//!         }
//! After:  for (j, ..) in .. {
//!             for (k, ..) in .. { bp::index_vjp(g, m, [k, j]).add_to(&mut d_m_step); }
//!         }
//!
//! Before: for j in .. { let state_3_in = state_3; let mut state_4 = bp::copy(&state_3_in); .. }
//! After:  for j in .. { let state_3_in = state_3; let mut state_4 = state_3_in; .. }
//! ```
//!
//! An accumulator only ever has contributions added into it, so the sum is
//! the same (in another order). A carried variable's value at the start of
//! an iteration is the iteration's own: where the nested loop is its one
//! reader and the enclosing loop keeps nothing of it, the nested loop may
//! write over it.

use super::region::{Init, Loop as LoopPlan, Operand, Region};
use super::Shared;
use crate::graph::{Loop, Node, NodeId};
use proc_macro2::Ident;

/// The enclosing loop's accumulator of the captured value `p` of a loop in
/// the body `r`, which the loop adds its contributions into; counted as
/// accumulated there.
pub fn enclosing_acc(r: &mut Region, sh: &Shared, p: NodeId) -> Option<Ident> {
    if !sh.opts.nested_loops || !sh.opts.accumulate {
        return None;
    }
    let acc = r.acc_into.get(&p)?.clone();
    *r.accumulated.entry(p).or_insert(0) += 1;
    Some(acc)
}

/// Once the loop `l` knows what it keeps: each nested loop that starts a
/// carried variable from one of `l`'s carried variables at the start of
/// an iteration, which nothing else reads, takes it instead of a copy.
pub fn moved_inits(l: &mut LoopPlan, sh: &Shared, lp: &Loop) {
    if !sh.opts.nested_loops {
        return;
    }
    let readers = l.body.readers();
    for k in 0..lp.carried {
        let (x, name) = (lp.body.inputs[k], l.ins[k].clone());
        let body = &l.body;
        let kept_here = l.kept.contains(&name)
            || l.rows.iter().any(|rows| rows.k == k)
            || l.handoff.iter().any(|(kk, ..)| *kk == k)
            || l.next.iter().any(|n| n.is(&name));
        if kept_here
            || readers[x.index()] != 1
            || body.results.contains(&x)
            || body.given.contains_key(&x)
            || body.scalar[x.index()]
            || body.holds_ref(x)
            || body.views.contains(&name)
        {
            continue;
        }
        // Its one reader: a nested loop, as a carried variable's initial value.
        let inner = body.graph.ids().find(|c| {
            body.live(*c)
                && matches!(body.node(*c), Node::Loop(inner) if inner.inputs[..inner.carried].contains(&x))
        });
        let Some(inner) = inner else { continue };
        let Node::Loop(inner_lp) = body.node(inner) else {
            continue;
        };
        let Some(kk) = inner_lp.inputs[..inner_lp.carried]
            .iter()
            .position(|p| *p == x)
        else {
            continue;
        };
        let Some(plan) = l.body.loops.get_mut(&inner) else {
            continue;
        };
        if matches!(&plan.init[kk], Init::Copy(Operand::Local(n)) if *n == name) {
            plan.init[kk] = Init::Moved(name);
        }
    }
}
