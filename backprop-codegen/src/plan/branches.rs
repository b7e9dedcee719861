//! Branches: each arm is a region; the forward pass keeps the values of the
//! arm it took that its reverse sweep reads, and the reverse sweep takes the
//! same arm.
//!
//! ```text
//! Before: let l = if r.abs() <= d { 0.5 * r * r } else { d * (r.abs() - 0.5 * d) };
//! After:  let cond = r.abs() <= d;
//!         let (l, then_saved) = if cond {
//!             let l_1 = 0.5 * r;
//!             let l_2 = l_1 * r;
//!             (l_2, Some((l_1,)))          // `∂r` of `l_1 * r` reads `l_1`
//!         } else {
//!             ...                          // nothing kept: the rules read `r`, `d`
//!             (l_6, None)
//!         };
//!         let (d_r,) = if cond {
//!             let (l_1,) = Option::unwrap(then_saved);
//!             ... the `then` arm's reverse sweep ...
//!         } else { ... };
//! ```
//!
//! A result of an arm that its reverse reads is borrowed from the branch's
//! result after the branch (`let l_2 = &l;`), not cloned.

use super::region::{Kept, Next, Part, Region, RevStep};
use super::{forward, reads, routing, Shared};
use crate::graph::{Branch, Node, NodeId};
use proc_macro2::Ident;
use std::collections::HashSet;

/// Plans a branch's forward pass: its arms, their results, what they keep.
pub fn plan_forward<'g>(r: &mut Region<'g>, sh: &mut Shared, id: NodeId, b: &'g Branch) {
    let active = r.branch_active(id);
    let outs = r.outs_of(id);
    let results: Vec<Option<proc_macro2::Ident>> = (0..b.outputs)
        .map(|k| match outs.iter().find(|(kk, _)| *kk == k) {
            Some((_, o)) if r.live(*o) => Some(r.name(*o).clone()),
            _ => None,
        })
        .collect();
    let seeds = if active {
        arm_seeds(r, id, b)
    } else {
        Vec::new()
    };
    let mut bp = r.branches.remove(&id).expect("a branch plan");
    bp.active = active;
    for a in 0..2 {
        let arm = &mut bp.arms[a];
        // Each arm's results are seeded with the branch's adjoints before
        // anything in it is planned: a loop in the arm that reads one of
        // them names its contribution now, and must see that it is not the
        // only one. Both arms must give owned gradients: a borrowed `d_out`
        // is copied in the arm that passes it through.
        for (k, seed) in seeds.iter().enumerate() {
            match seed {
                Some((d, true)) => arm.seed(b.arms[a].outputs[k], Part::CopyOf(d.clone()), false),
                Some((d, false)) => arm.seed(b.arms[a].outputs[k], Part::Name(d.clone()), false),
                None => {}
            }
        }
        forward::plan(arm, sh);
        let next: Vec<Next> = b.arms[a]
            .outputs
            .iter()
            .map(|o| match arm.node(*o) {
                Node::Op { .. } | Node::Const(_) | Node::Out { .. } => {
                    Next::Local(arm.name(*o).clone())
                }
                _ if sh.opts.plain_scalars && arm.scalar[o.index()] => {
                    Next::Value(arm.operand(&sh.func.params, *o))
                }
                _ if arm.ty[o.index()].is_none() && !arm.active(*o) => {
                    Next::Const(arm.operand(&sh.func.params, *o))
                }
                _ => Next::Copy(arm.operand(&sh.func.params, *o)),
            })
            .collect();
        bp.next[a] = next;
    }
    r.defined.push(bp.cond.clone());
    r.defined.extend(results.into_iter().flatten());
    if active {
        r.defined.extend(bp.saved.iter().cloned());
    }
    r.branches.insert(id, bp);
}

/// The adjoint that seeds each of a branch's results, and whether it is
/// borrowed (`None`: the result has none).
fn arm_seeds(r: &Region, id: NodeId, b: &Branch) -> Vec<Option<(Ident, bool)>> {
    let seeded = &r.a.branches[&id].seeded;
    let mut seeds = vec![None; b.outputs];
    for (k, o) in r.outs_of(id) {
        if seeded[k] && r.active(o) {
            seeds[k] = Some((r.adj(o).clone(), r.borrowed[o.index()]));
        }
    }
    seeds
}

/// What an arm keeps for its reverse sweep: the locals it reads, views
/// first; a result it reads is borrowed from the branch's result instead.
fn keep_read(
    arm: &mut Region,
    kept: &mut Vec<Ident>,
    saves: &mut Vec<Kept>,
    borrowed: &mut Vec<(Ident, NodeId, bool)>,
    sh: &Shared,
    next: &[Next],
    outer: &[Option<NodeId>],
) {
    let read = reads::reverse(arm, sh);
    for (k, n) in next.iter().enumerate() {
        let (Next::Local(local), Some(result)) = (n, &outer[k]) else {
            continue;
        };
        if !read.contains(local) || borrowed.iter().any(|(l, ..)| l == local) {
            continue;
        }
        let o = arm.results[k];
        let scalar = arm.scalar[o.index()];
        if !scalar {
            arm.borrowed_results.insert(o);
        }
        borrowed.push((local.clone(), *result, scalar));
    }
    // A nested branch's arms read those results as the enclosing reverse
    // holds them: by reference.
    for id in arm.graph.ids() {
        let Node::Branch(b) = arm.node(id) else {
            continue;
        };
        let borrowed_inputs: Vec<Vec<bool>> = b
            .arm_inputs
            .iter()
            .map(|inputs| {
                inputs
                    .iter()
                    .map(|p| arm.borrowed_results.contains(p))
                    .collect()
            })
            .collect();
        if let Some(inner) = arm.branches.get_mut(&id) {
            for (region, flags) in inner.arms.iter_mut().zip(&borrowed_inputs) {
                for (form, &flag) in region.inputs.iter_mut().zip(flags) {
                    form.borrowed_in_reverse |= flag;
                }
            }
        }
    }
    *kept = arm
        .defined
        .iter()
        .filter(|n| read.contains(*n) && !borrowed.iter().any(|(l, ..)| l == *n))
        .cloned()
        .collect();
    views_first(kept, &arm.views);
    // A local also returned as the arm's result (one the branch's code does
    // not read after it) is cloned into the record.
    *saves = keep(arm, kept, next);
}

/// The locals a region keeps for its reverse sweep, moved, except those that
/// also leave the region as its results, which are cloned. A view borrows
/// the local it views, so it is kept as an owned copy, and views come first
/// (see [`views_first`]), before the locals they borrow are moved.
pub fn keep(r: &Region, locals: &[Ident], next: &[Next]) -> Vec<Kept> {
    // A float is copied by moving it.
    let scalars: HashSet<&Ident> = r
        .graph
        .ids()
        .filter(|id| r.scalar.get(id.index()).copied().unwrap_or(false))
        .filter_map(|id| r.names[id.index()].as_ref())
        .collect();
    locals
        .iter()
        .map(|n| {
            if r.views.contains(n) {
                Kept::Copy(n.clone())
            } else if next.iter().any(|x| x.is(n)) && !scalars.contains(n) {
                Kept::Clone(n.clone())
            } else {
                Kept::Moved(n.clone())
            }
        })
        .collect()
}

/// The locals a region keeps, views first.
pub fn views_first(locals: &mut [Ident], views: &HashSet<Ident>) {
    locals.sort_by_key(|n| !views.contains(n));
}

/// Plans a branch's reverse sweep: the seeds of its arms, their reverse
/// sweeps, and the contributions to the enclosing values they read.
pub fn plan_reverse<'g>(r: &mut Region<'g>, sh: &mut Shared, id: NodeId, b: &'g Branch) {
    if !r.branch_active(id) {
        return;
    }
    for (k, o) in r.outs_of(id) {
        if r.a.branches[&id].seeded[k] && r.active(o) {
            if let Some(sum) = routing::adjoint_sum(r, o) {
                r.reverse.push(sum);
            }
        }
    }
    let inputs: Vec<NodeId> = crate::check::branch_inputs(b)
        .into_iter()
        .filter(|p| r.a.uses[p.index()].iter().any(|(c, _)| *c == id))
        .collect();
    let mut targets = Vec::new();
    for p in &inputs {
        targets.push(routing::contribution_target(r, sh, *p, id));
    }
    // The branch's result after it, by result index.
    let outer: Vec<Option<NodeId>> = (0..b.outputs)
        .map(|k| {
            r.outs_of(id)
                .into_iter()
                .find(|(kk, o)| *kk == k && r.live(*o))
                .map(|(_, o)| o)
        })
        .collect();
    let mut bp = r.branches.remove(&id).expect("a branch plan");
    for a in 0..2 {
        let arm = &mut bp.arms[a];
        routing::plan(arm, sh);
        keep_read(
            arm,
            &mut bp.kept[a],
            &mut bp.saves[a],
            &mut bp.borrowed[a],
            sh,
            &bp.next[a],
            &outer,
        );
        bp.results[a] = inputs
            .iter()
            .map(|p| {
                let j = b.arm_inputs[a].iter().position(|q| q == p);
                match j.map(|j| b.arms[a].inputs[j]) {
                    Some(input) if arm.active(input) => Some(arm.adj(input).clone()),
                    _ => None,
                }
            })
            .collect();
    }
    bp.inputs = inputs;
    bp.targets = targets;
    r.branches.insert(id, bp);
    r.reverse.push(RevStep::Branch(id));
}
