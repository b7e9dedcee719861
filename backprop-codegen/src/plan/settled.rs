//! Settled rows: a loop that writes the rows of a carried buffer in order
//! (`h.row_mut(t + 1).assign(&v)`, `t` counting up) never writes a row
//! again once it is past it. A row the body reads (`h.row(t)`) or writes
//! (`v`) is then still there, unchanged, in the buffer the loop leaves
//! behind, and the reverse sweep reads it back from there as a view
//! instead of each iteration keeping it.
//!
//! ```text
//! Before: for t in t_start..t_end {
//!             let h_1_in = h_1;
//!             let next_1 = bp::copy(&bp::row(&h_1_in, t));
//!             let next_2 = bp::dot(w, &next_1);
//!             let next = bp::zip_map(next_2, &next_3, bp::Add, bp::Tanh);
//!             let h_2 = bp::set_row(h_1_in, &next, t + 1);
//!             steps.push((next_1, .., next, ..));
//!             h_1 = h_2;
//!         }
//!         ... for (t, (next_1, .., next, ..)) in .. { .. }
//! After:  let mut next_spare = bp::Spare::new();
//!         for t in t_start..t_end {
//!             let h_1_in = h_1;
//!             let next_1 = bp::row(&h_1_in, t);
//!             let next_2 = bp::dot_reuse(&mut next_spare, w, &next_1);
//!             let next = bp::zip_map(next_2, &next_3, bp::Add, bp::Tanh);
//!             let h_2 = bp::set_row(h_1_in, &next, t + 1);
//!             let next_shape = bp::shape_of(&next);
//!             steps.push((.., next_shape, ..));
//!             next_spare.put(next);
//!             h_1 = h_2;
//!         }
//!         ... for (t, (.., next_shape, ..)) in .. {
//!             let next_1 = bp::row(&h_1, t);
//!             let next = bp::written_row(&h_1, t + 1, &bp::stand_in(&next_shape));
//!             ..
//!         }
//! ```
//!
//! A row read at `t + a` is settled when every write of the body is at
//! `t + b` with `b > a`; a row written at `t + b` when no other write is
//! at `t + b` or below after it, nor below it at all. A written value may
//! be a vector of one element that `assign` broadcast: its shape is kept
//! (a few bytes) and the row is read back at that length. Once a written
//! value is kept nowhere, its buffer is the spare the next iteration's
//! product is computed into.
//!
//! Only in the function's own body (whose reverse sweep follows the loop
//! in one block, with the buffer in scope), for a plain ascending range,
//! and when nothing after the loop takes the buffer over.

use super::region::{Loop as LoopPlan, Region};
use super::Shared;
use crate::graph::{Loop, Node, NodeId};
use crate::vocab::{Op, Ty, SAME_TYPE};
use proc_macro2::Ident;

/// A value of a loop body that the reverse sweep reads back from a row of
/// the buffer the loop leaves behind.
pub struct Settled {
    /// The body's local.
    pub local: Ident,
    /// The carried variable whose buffer holds it.
    pub k: usize,
    /// Its row: the loop's variable plus this.
    pub offset: i64,
    /// A written value: the local that keeps its shape, per iteration.
    pub shape: Option<Ident>,
}

/// A written value's buffer, once the forward pass no longer needs it,
/// given to the spare that the product of the next iteration is computed
/// into.
pub struct Recycled {
    pub local: Ident,
    pub spare: Ident,
}

/// Takes out of `kept` the locals of the loop `id` that are settled rows,
/// and plans how its reverse sweep reads them back.
pub fn plan(
    r: &Region,
    l: &mut LoopPlan,
    sh: &mut Shared,
    id: NodeId,
    lp: &Loop,
    kept: &mut Vec<Ident>,
) {
    if !sh.opts.settled_rows || !r.top_level || lp.cond.is_some() || !lp.adapters.is_empty() {
        return;
    }
    // The reverse loop binds the loop's variable to read the rows at.
    let (Some(var), Some(_)) = (&lp.var, &l.body.loop_var) else {
        return;
    };
    // What is settled, found first, then planned: (node, local, carried
    // variable, offset, a written value, read by nothing after the writes).
    let mut found: Vec<(NodeId, Ident, usize, i64, bool, bool)> = Vec::new();
    let body = &l.body;
    for k in 0..lp.carried {
        if l.handoff.iter().any(|(kk, ..)| *kk == k) || !final_buffer_stays(r, id, k) {
            continue;
        }
        let x = lp.body.inputs[k];
        let Some(writes) = writes(body, x, lp.body.outputs[k], var) else {
            continue;
        };
        for c in body.graph.ids().filter(|c| body.live(*c)) {
            let Node::Op { op, inputs, consts } = body.node(c) else {
                continue;
            };
            let Some(local) = body.names[c.index()].clone() else {
                continue;
            };
            if !kept.contains(&local) || !views_ok(body, c) {
                continue;
            }
            // A row of the carried buffer as it was when the iteration began.
            if *op == Op::Row && inputs[0] == x {
                let Some(a) = offset(body, &consts[0], var) else {
                    continue;
                };
                let before = body.graph.ids().all(|d| {
                    !body.live(d)
                        || !body.graph.deps(d).contains(&c)
                        || writes.iter().all(|w| d < w.0)
                });
                if writes.iter().all(|w| w.1 > a) {
                    found.push((c, local, k, a, false, before));
                }
                continue;
            }
            // A vector the body writes into a row.
            let Some(at) = writes.iter().position(|w| body.inputs(w.0)[1] == c) else {
                continue;
            };
            let b = writes[at].1;
            let last = writes
                .iter()
                .enumerate()
                .all(|(j, w)| j == at || w.1 > b || (w.1 == b && w.0 < writes[at].0));
            if last
                && body.ty[c.index()] == Some(Ty::Array(1))
                && !body.given.contains_key(&c)
                && !l.next.iter().any(|n| n.is(&local))
            {
                found.push((c, local, k, b, true, false));
            }
        }
    }
    for (c, local, k, offset, written, before) in found {
        kept.retain(|n| *n != local);
        // A row read by nothing after the first write: a view of the
        // buffer, not a copy.
        if before {
            l.body.copied.remove(&c);
        }
        let shape = written.then(|| sh.namer.fresh(&format!("{local}_shape")));
        if let Some(shape) = &shape {
            kept.push(shape.clone());
            let head = l.body.buffer_head(c);
            if super::loops::spare_candidate(&l.body, head) && !l.body.spares.contains_key(&head) {
                let spare = sh.namer.fresh(&format!("{local}_spare"));
                l.body.spares.insert(head, spare.clone());
                l.recycled.push(Recycled {
                    local: local.clone(),
                    spare,
                });
            }
        }
        l.settled.push(Settled {
            local,
            k,
            offset,
            shape,
        });
    }
    if !l.settled.is_empty() {
        l.var_read = true;
    }
}

/// The writes that make a carried buffer's new value from its value at the
/// start of an iteration `x`: each `(node, b)` a row set at the loop's
/// variable plus `b`, in order; `None` if anything else makes it.
fn writes(body: &Region, x: NodeId, out: NodeId, var: &syn::Ident) -> Option<Vec<(NodeId, i64)>> {
    let mut chain = Vec::new();
    let mut at = out;
    while at != x {
        let Node::Op {
            op: Op::SetRow,
            inputs,
            consts,
        } = body.node(at)
        else {
            return None;
        };
        chain.push((at, offset(body, &consts[0], var)?));
        at = inputs[0];
    }
    chain.reverse();
    (!chain.is_empty()).then_some(chain)
}

/// The index `var`, `var + n` or `var - n` as `n`, the loop's variable
/// being `var` (and no binding of the body of that name).
fn offset(body: &Region, index: &crate::graph::ConstArg, var: &syn::Ident) -> Option<i64> {
    let is_var = |e: &syn::Expr| match e {
        syn::Expr::Path(p) if p.qself.is_none() => p.path.get_ident().is_some_and(|i| {
            i == var
                && index
                    .resolve(&i.to_string())
                    .is_none_or(|(d, _)| matches!(body.node(d), Node::LoopVar))
        }),
        _ => false,
    };
    let literal = |e: &syn::Expr| match e {
        syn::Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Int(n),
            ..
        }) => n.base10_parse::<i64>().ok(),
        _ => None,
    };
    let mut e = &index.expr;
    while let syn::Expr::Paren(p) = e {
        e = &p.expr;
    }
    match e {
        e if is_var(e) => Some(0),
        syn::Expr::Binary(b) if is_var(&b.left) => match b.op {
            syn::BinOp::Add(_) => literal(&b.right),
            syn::BinOp::Sub(_) => literal(&b.right).map(|n| -n),
            _ => None,
        },
        syn::Expr::Binary(b) if is_var(&b.right) && matches!(b.op, syn::BinOp::Add(_)) => {
            literal(&b.left)
        }
        _ => None,
    }
}

/// Whether every live reader of `c` is an op of the vocabulary whose rules
/// take any array, so that `c` may be a view of a row where it is read.
fn views_ok(body: &Region, c: NodeId) -> bool {
    body.graph.ids().all(|id| {
        !body.live(id)
            || !body.graph.deps(id).contains(&c)
            || matches!(body.node(id), Node::Op { op, .. } if !matches!(op, Op::Call(_)) && !op.has(SAME_TYPE))
    })
}

/// Whether the buffer that the loop `id` leaves in its carried variable `k`
/// stays as it is until the loop's reverse sweep: nothing after the loop
/// takes it over, in the forward pass or in a rule.
fn final_buffer_stays(r: &Region, id: NodeId, k: usize) -> bool {
    r.outs_of(id)
        .iter()
        .filter(|(kk, _)| *kk == k)
        .all(|(_, o)| {
            !r.given.contains_key(o)
                && !r.sum_squares.values().any(|(x, over)| x == o && *over)
                && r.graph.ids().all(|c| {
                    !r.live(c)
                        || !r.graph.deps(c).contains(o)
                        || (!r.takes.contains(&c)
                            && !r.rule_takes.contains(&c)
                            && !r.fused.contains_key(&c))
                })
        })
}
