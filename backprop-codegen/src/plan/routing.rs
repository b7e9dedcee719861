//! The reverse walk: for each active node, latest first, its adjoint (the
//! sum of its contributions, the fork rule) and where each of its rules'
//! contributions goes.
//!
//! A contribution is a new local (`let d_x_from_y = rule(..)`), or, where
//! `Options::accumulate` allows, it is added into a buffer written before:
//!
//! ```text
//! Before: let d_a1_from_loss_b_2 = bp::dot_vjp_lhs(&d_loss_b_2, &a1, &w);
//!         let d_a1_from_loss_a_2 = bp::dot_vjp_lhs(&d_loss_a_2, &a1, &v);
//!         let d_a1 = d_a1_from_loss_b_2 + d_a1_from_loss_a_2;
//! After:  let d_a1_from_loss_b_2 = bp::dot_vjp_lhs(&d_loss_b_2, &a1, &w);
//!         let d_a1 = bp::dot_vjp_lhs_add(d_a1_from_loss_b_2, &d_loss_a_2, &a1, &v);
//! ```
//!
//! In a loop body, a contribution to a value every iteration reads goes
//! into the loop's accumulator (`bp::add_vjp_rhs_acc(&mut d_b, ..)`), a
//! weight's outer product into the loop's `Outers`, and one to a carried
//! value into the carried adjoint. The two operands of a sum of arrays that
//! were not broadcast share one gradient (`Options::lend`).

use super::region::{OuterTerm, Part, Region, RevStep, Upstream};
use super::{branches, loops, Shared};
use crate::graph::{Node, NodeId};
use crate::vocab::{Op, ACCUMULATES, LENDS, RULES_SKIP_FIRST};
use proc_macro2::Ident;

/// Plans the reverse sweep of a region.
pub fn plan<'g>(r: &mut Region<'g>, sh: &mut Shared) {
    for id in r.graph.ids().rev() {
        match r.node(id) {
            Node::Loop(lp) => {
                if r.live(id) {
                    loops::plan_reverse(r, sh, id, lp);
                }
                continue;
            }
            Node::Branch(b) => {
                if r.live(id) {
                    branches::plan_reverse(r, sh, id, b);
                }
                continue;
            }
            _ => {}
        }
        if !r.active(id) {
            continue;
        }
        if matches!(r.node(id), Node::Out { .. }) || r.unmade.contains(&id) {
            // The loop reads (and sums) this adjoint; a square that was
            // never made has none (its sum's rule skips it).
            continue;
        }
        if let Some(components) = r.graph.tuple_call(id) {
            // Each component's adjoint is complete here: its readers come
            // after it, and it after the call.
            let upstreams = components
                .iter()
                .map(|&o| component_upstream(r, o))
                .collect();
            let inputs = r.inputs(id);
            call(r, sh, id, inputs, upstreams);
            continue;
        }
        if let Some(sum) = adjoint_sum(r, id) {
            r.reverse.push(sum);
        }
        if let Some(&(x, over)) = r.sum_squares.get(&id) {
            let target = contribution_target(r, sh, x, id);
            r.reverse.push(RevStep::SumSquare {
                id,
                x,
                target,
                over,
            });
            continue;
        }
        let Node::Op { op, inputs, .. } = r.node(id) else {
            continue;
        };
        if let Op::Call(_) = op {
            let upstream = Upstream::Adj(r.adj(id).clone());
            call(r, sh, id, inputs, vec![upstream]);
            continue;
        }
        rules(r, sh, id, *op, inputs);
    }
}

/// The upstream gradient a call whose value is a tuple is passed for its
/// component `o`: the component's adjoint, the sum of its contributions
/// (the fork rule), or a zero of its value where it has none.
fn component_upstream(r: &mut Region, o: NodeId) -> Upstream {
    if !r.active(o) {
        return Upstream::Zero(o);
    }
    if let Some(sum) = adjoint_sum(r, o) {
        r.reverse.push(sum);
    }
    Upstream::Adj(r.adj(o).clone())
}

/// A call's contributions: one per argument that has an adjoint.
fn call(r: &mut Region, sh: &mut Shared, id: NodeId, inputs: &[NodeId], upstreams: Vec<Upstream>) {
    let Node::Op {
        op: Op::Call(k), ..
    } = r.node(id)
    else {
        unreachable!("a call")
    };
    let call = &r.graph.calls[*k as usize];
    let mut targets = Vec::new();
    for a in &call.args {
        match a {
            crate::graph::CallArg::Input { input, .. } if r.active(inputs[*input]) => {
                targets.push(Some(contribution_target(r, sh, inputs[*input], id)));
            }
            _ => targets.push(None),
        }
    }
    r.reverse.push(RevStep::Call {
        id,
        targets,
        upstreams,
    });
}

/// An op's contributions to its operands.
fn rules(r: &mut Region, sh: &mut Shared, id: NodeId, op: Op, inputs: &[NodeId]) {
    let def = op.def();
    let active: Vec<usize> = (0..inputs.len()).filter(|&p| r.active(inputs[p])).collect();
    let borrowed = r.borrowed[id.index()];
    // Where a contribution can be added into an accumulator, the
    // accumulated operands go first (borrowing the gradient) and the
    // last rule takes it.
    let accumulates = |r: &Region, p: usize| {
        acc_target(r, sh, op, inputs[p]).is_some() || partial(r, sh, op, inputs[p]).is_some()
    };
    let mut active = active;
    active.sort_by_key(|&p| !accumulates(r, p));
    if op.has(RULES_SKIP_FIRST) {
        // A write's rules: the new value's reads the written part of the
        // gradient, then the old value's takes the gradient and clears it.
        active.sort_by_key(|&p| p == 0);
    }
    let any_acc = active.iter().any(|&p| accumulates(r, p));
    if let (true, 2, false, Some(later)) = (
        def.flags & LENDS != 0,
        active.len(),
        any_acc,
        lender(r, sh, inputs),
    ) {
        // Both operands' gradients are the upstream one when neither
        // was broadcast: the one whose rule runs first borrows it.
        let lhs = contribution_target(r, sh, inputs[0], id);
        let rhs = contribution_target(r, sh, inputs[1], id);
        let (own, lent) = if later == 1 {
            (lhs.clone(), rhs.clone())
        } else {
            (rhs.clone(), lhs.clone())
        };
        r.lent_from.insert(lent.clone(), own.clone());
        r.reverse.push(RevStep::Lend {
            id,
            rhs_borrows: later == 1,
            lhs,
            rhs,
            own,
            lent,
        });
        return;
    }
    if op.binary_kernel().is_some() && active.len() == 2 && !any_acc {
        // One call decides at run time which operand gets the buffer.
        let lhs = contribution_target(r, sh, inputs[0], id);
        let rhs = contribution_target(r, sh, inputs[1], id);
        r.reverse.push(RevStep::Both { id, lhs, rhs });
        return;
    }
    for (j, &pos) in active.iter().enumerate() {
        // An array output's upstream gradient arrives by reference already.
        let borrow = !(j + 1 == active.len() || borrowed);
        operand_rule(r, sh, id, op, pos, borrow);
    }
}

/// The contribution of `op`'s rule to operand `pos`: into an accumulator,
/// deferred to the loop's `Outers`, added into one planned before, or new.
fn operand_rule(r: &mut Region, sh: &mut Shared, id: NodeId, op: Op, pos: usize, borrow: bool) {
    let input = r.inputs(id)[pos];
    let adj = r.adj(id).clone();
    if let Some((acc, captured)) = acc_target(r, sh, op, input) {
        // A weight every iteration reads, or a carried value's adjoint:
        // the contribution is added into it, with no array of its own.
        if captured && op == Op::Dot && !r.flat.contains(&input) && sh.opts.loop_buffers {
            // A weight's outer products are added after the loop, by
            // one matrix product.
            let u = r.lent_from.get(&adj).unwrap_or(&adj);
            let term = OuterTerm {
                name: sh.namer.fresh(&format!("{acc}_term")),
                acc: acc.clone(),
                u: u.clone(),
                v: (pos == 0).then(|| r.inputs(id)[1]),
            };
            let (outers, step, term) = outer_term(r, sh, term);
            r.reverse.push(RevStep::Defer {
                id,
                pos,
                outers,
                step,
                term,
                acc,
                borrow,
            });
        } else {
            r.reverse.push(RevStep::Acc {
                id,
                pos,
                acc,
                borrow,
            });
        }
        if captured {
            *r.accumulated.entry(input).or_insert(0) += 1;
        }
        return;
    }
    if let Some(k) = partial(r, sh, op, input) {
        // The fork rule, summed as it goes: this contribution is added
        // into one written before (no array of its own).
        let prev = r.contributions[input.index()][k].clone();
        let written = r.contributions[input.index()].len() - r.seeds[input.index()]
            + r.merged.get(&input).copied().unwrap_or(0);
        let whole = written + 1 == r.a.uses[input.index()].len()
            && r.contributions[input.index()].len() == 1;
        let target = if whole {
            r.adj(input).clone()
        } else {
            let name = format!("{}_from_{}", r.adj(input), r.name(id));
            sh.namer.fresh(&name)
        };
        r.reverse.push(RevStep::AddInto {
            id,
            pos,
            target: target.clone(),
            prev,
            borrow,
        });
        r.contributions[input.index()][k] = Part::Name(target);
        *r.merged.entry(input).or_insert(0) += 1;
        return;
    }
    let target = contribution_target(r, sh, input, id);
    r.reverse.push(RevStep::Rule {
        id,
        pos,
        target,
        borrow,
    });
}

/// For a sum `a + b` of two arrays: the position of the operand whose
/// gradient may borrow the other's. Each operand's gradient must be this
/// sum's contribution alone, and both made by ops (the borrower's rule
/// reads the gradient as a `Cot`, and nothing else does). The borrower is
/// the later of the two, whose rule the reverse sweep writes first, so
/// the borrow ends before the other gradient is used.
fn lender(r: &Region, sh: &Shared, inputs: &[NodeId]) -> Option<usize> {
    let [a, b] = inputs else { return None };
    if !sh.opts.lend {
        return None;
    }
    let alone = |x: &NodeId| r.parts(*x) == 1 && !r.scalar.get(x.index()).copied().unwrap_or(true);
    if a == b || !alone(a) || !alone(b) {
        return None;
    }
    // Both made by ops: a parameter or a loop's value is more often a
    // broadcast bias or a scalar, where there is nothing to share.
    let made = |x: &NodeId| {
        matches!(r.node(*x), Node::Op { op, .. } if !matches!(op, Op::Call(_)))
            && !r.unmade.contains(x)
    };
    (made(a) && made(b)).then_some(if b > a { 1 } else { 0 })
}

/// A new term of the loop's `Outers`: the `Outers`, the iteration's index
/// and the term's name.
fn outer_term(r: &mut Region, sh: &mut Shared, term: OuterTerm) -> (Ident, Ident, Ident) {
    let outers = r
        .outers
        .get_or_insert_with(|| sh.namer.fresh("outers"))
        .clone();
    let step = r.step.get_or_insert_with(|| sh.namer.fresh("step")).clone();
    let name = term.name.clone();
    r.terms.push(term);
    (outers, step, name)
}

/// The accumulator a contribution of `op` to `input` may be added into: in
/// a loop body, the loop's gradient of a captured value (`true`), or the
/// carried adjoint that seeds `input` (`false`). Products, sums and
/// differences have accumulating rules.
fn acc_target(r: &Region, sh: &Shared, op: Op, input: NodeId) -> Option<(Ident, bool)> {
    if !op.has(ACCUMULATES) || !sh.opts.accumulate {
        return None;
    }
    if let Some(acc) = r.acc_into.get(&input) {
        return Some((acc.clone(), true));
    }
    r.acc_seed.get(&input).map(|d| (d.clone(), false))
}

/// The contribution already planned for `input` (by position in its list)
/// that a product's, sum's or difference's contribution may be added into:
/// the latest one a rule or region wrote, never a seed (`d_out` may be
/// borrowed).
fn partial(r: &Region, sh: &Shared, op: Op, input: NodeId) -> Option<usize> {
    if !op.has(ACCUMULATES) || !sh.opts.accumulate || r.parts(input) < 2 {
        return None;
    }
    let c = &r.contributions[input.index()];
    // A loop's accumulator is named before the loop's reverse sweep
    // writes it.
    (r.seeds[input.index()]..c.len())
        .rev()
        .find(|&k| !r.loop_accs.contains(c[k].ident()))
}

/// `let d_x = c1 + c2;` once all contributions to `d_x` are planned (the
/// fork rule), or `let d_x = seed;`; nothing when the single contribution
/// was written under the adjoint's own name.
pub fn adjoint_sum(r: &Region, id: NodeId) -> Option<RevStep> {
    let adj = r.adj(id);
    let c = &r.contributions[id.index()];
    let sum = || RevStep::Sum {
        id,
        adj: adj.clone(),
        parts: c.clone(),
    };
    if let Some(k) = r.accumulated.get(&id) {
        // Products added into the loop's accumulator directly; the rest
        // is summed here (and added by the loop).
        return (*k < r.parts(id) && !c.is_empty()).then(sum);
    }
    let wanted = r.parts(id) > 1 || r.seeds[id.index()] == 1;
    (wanted && !(c.len() == 1 && c[0].is(adj))).then(sum)
}

/// The name of the contribution of `consumer` to the adjoint of `input`:
/// the adjoint itself when it is the only one.
pub fn contribution_target(
    r: &mut Region,
    sh: &mut Shared,
    input: NodeId,
    consumer: NodeId,
) -> Ident {
    if r.parts(input) == 1 {
        return r.adj(input).clone();
    }
    let consumer_name = match (r.names[consumer.index()].as_ref(), r.node(consumer)) {
        (Some(n), _) => n.to_string(),
        (None, Node::Branch(_)) => "branch".to_owned(),
        // A call whose value is a tuple, by the names it binds (`r_theta`).
        (None, Node::Op { .. }) => match &r.graph.get(consumer).name {
            crate::graph::Name::User(n) | crate::graph::Name::Temp(n) => n.clone(),
            _ => "call".to_owned(),
        },
        (None, _) => "loop".to_owned(),
    };
    let want = format!("{}_from_{}", r.adj(input), consumer_name);
    let c = sh.namer.fresh(&want);
    r.contributions[input.index()].push(Part::Name(c.clone()));
    c
}
