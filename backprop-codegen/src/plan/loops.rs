//! Loops: the body is a region planned once for every iteration. The
//! forward loop keeps what each iteration's reverse step reads, and the
//! reverse loop runs the iterations backwards.
//!
//! ```text
//! Before: for t in 0..n { h = tanh(&(w.dot(&h) + xs.row(t))); }
//! After:  let t_start = 0; let t_end = n;
//!         let mut h_1 = bp::copy(&h);
//!         let mut steps = Vec::with_capacity(..);
//!         let mut h_1_rows = bp::Rows::with_steps(..);
//!         let mut h_1_spare = bp::Spare::new();
//!         for t in t_start..t_end {
//!             let h_1_in = h_1;
//!             h_1_rows.push(&h_1_in);
//!             let h_2 = bp::dot_reuse(&mut h_1_spare, w, &h_1_in);
//!             ... one `let` per step of the body ...
//!             steps.push((..., h_3));
//!             h_1_spare.put(h_1_in);
//!             h_1 = h_5;
//!         }
//!         h_1_rows.push(&h_1);
//! ```
//!
//! With `Options::loop_buffers`, a carried array that the reverse sweep
//! reads is kept as rows of one buffer (`Rows`: the value at the start of
//! each iteration, and the last value), the product that starts its new
//! value writes into the buffer of the value before (`Spare`), and a
//! weight's outer products are kept by the loop's `Outers` and added after
//! it by one matrix product. Other values an iteration's reverse reads are
//! moved into `steps`; a new value the reverse reads is handed back from
//! one iteration to the one before instead of kept.

use super::region::{Init, KeptRows, Next, Operand, Part, Region, RevStep};
use super::{forward, reads, routing, Shared};
use crate::ast::Kind;
use crate::graph::{Loop, Node, NodeId};
use crate::vocab::{Op, Ty, ROW_OUT, SAME_TYPE, VIEW};
use proc_macro2::Ident;

/// How a carried adjoint starts before the reverse loop.
pub enum DStart {
    /// `let mut d = bp::copy(parts..);`: a borrowed upstream gradient.
    Copy(Vec<Part>),
    /// `let mut d = parts..;`
    Sum(Vec<Part>),
    /// `let mut d = d;`
    Same,
    /// `let mut d = bp::zeros_in(state);`: the last state's buffer.
    ZerosIn,
    /// `let mut d = zeros(&state);`
    Zeros,
}

/// Where a term of the loop's `Outers` reads its `v`s.
pub enum Rows {
    /// The rows of a carried state.
    State(Ident),
    /// The rows `start..end` of a captured matrix the loop walks through.
    Input(Operand),
    /// The rows `start + offset..end + offset` of the buffer a carried
    /// variable is after the loop (see `settled`).
    Settled { state: Ident, offset: i64 },
}

/// A term of the loop's `Outers`.
pub struct Term {
    /// Its name: a local holding its number.
    pub name: Ident,
    pub acc: Ident,
    /// The earlier term whose `u`s this one's are.
    pub u_from: Option<Ident>,
    pub v_from: Option<Rows>,
}

/// What the reverse loop needs beyond the forward's plan.
#[derive(Default)]
pub struct Reverse {
    /// How each carried adjoint starts: the carried variable, its adjoint.
    pub d_start: Vec<(usize, Ident, DStart)>,
    /// The spare buffer that serves zero gradients, where in scope.
    pub spare: Option<Ident>,
    pub terms: Vec<Term>,
    /// The contributions to the carried variables' initial values.
    pub targets: Vec<(Ident, Ident)>,
    /// An accumulator that starts from a contribution the reverse sweep
    /// wrote before the loop (instead of a zero, added at the end).
    pub acc_starts: Vec<(Ident, Ident)>,
}

/// The value each carried variable has at the end of an iteration.
fn nexts(l: &super::region::Loop, sh: &Shared, lp: &Loop) -> Vec<Next> {
    lp.body
        .outputs
        .iter()
        .map(|o| match l.body.node(*o) {
            Node::Op { .. } | Node::Const(_) | Node::Out { .. } => {
                Next::Local(l.body.name(*o).clone())
            }
            Node::Input(j) if *j < lp.carried => Next::Local(l.ins[*j].clone()),
            _ if sh.opts.plain_scalars && l.body.scalar[o.index()] => {
                Next::Value(l.body.operand(&sh.func.params, *o))
            }
            _ if l.body.ty[o.index()].is_none() && !l.body.active(*o) => {
                Next::Const(l.body.operand(&sh.func.params, *o))
            }
            _ => Next::Copy(l.body.operand(&sh.func.params, *o)),
        })
        .collect()
}

/// One accumulator per captured value that gets a gradient, by its position
/// among the loop's inputs (in a loop body, the enclosing loop's own where
/// it has one: those are also the second list).
#[allow(clippy::type_complexity, reason = "the accumulators, and those shared")]
fn accumulators(
    r: &mut Region,
    sh: &mut Shared,
    id: NodeId,
    lp: &Loop,
) -> (Vec<(usize, Ident)>, Vec<Ident>) {
    let mut accs: Vec<(usize, Ident)> = Vec::new();
    let mut shared_accs = Vec::new();
    for j in lp.carried..lp.inputs.len() {
        let p = lp.inputs[j];
        if r.a.loops[&id].body.active[lp.body.inputs[j].index()] && r.active(p) {
            if let Some(acc) = super::nested::enclosing_acc(r, sh, p) {
                shared_accs.push(acc.clone());
                accs.push((j, acc));
                continue;
            }
            let acc = routing::contribution_target(r, sh, p, id);
            r.loop_accs.insert(acc.clone());
            accs.push((j, acc));
        }
    }
    (accs, shared_accs)
}

/// Plans a loop where it stands in the forward pass: its accumulators, its
/// body (forward and reverse), what each iteration keeps.
pub fn plan_forward<'g>(r: &mut Region<'g>, sh: &mut Shared, id: NodeId, lp: &'g Loop) {
    let active = r.loop_active(id, lp);
    let d_state = if active {
        d_state(r, sh, id, lp)
    } else {
        Vec::new()
    };
    let (accs, shared_accs) = if active {
        accumulators(r, sh, id, lp)
    } else {
        Default::default()
    };
    // A loop result that the enclosing region gives back is read after
    // the reverse sweep: its value cannot be handed back.
    let outs = r.outs_of(id);
    let given_back: Vec<bool> = (0..lp.carried)
        .map(|k| outs.iter().any(|(kk, o)| *kk == k && r.results.contains(o)))
        .collect();
    let flat: Vec<bool> = accs
        .iter()
        .map(|(j, _)| flat(r, sh, lp.inputs[*j]))
        .collect();
    // The carried variables that may be arrays (a scalar is kept in the
    // steps for free).
    let arrays: Vec<bool> = lp.inputs[..lp.carried]
        .iter()
        .map(|p| !r.scalar.get(p.index()).copied().unwrap_or(false))
        .collect();
    // An initial value that nothing else reads is moved in, not copied.
    let readers = r.readers();
    let init: Vec<Init> = lp.inputs[..lp.carried]
        .iter()
        .map(|p| {
            if movable_init(r, *p, &readers) {
                Init::Moved(r.name(*p).clone())
            } else if sh.opts.plain_scalars && r.scalar[p.index()] {
                Init::Value(r.operand(&sh.func.params, *p))
            } else if r.ty[p.index()].is_none() && !r.active(*p) {
                Init::Const(r.operand(&sh.func.params, *p))
            } else {
                Init::Copy(r.operand(&sh.func.params, *p))
            }
        })
        .collect();
    let mut l = r.loops.remove(&id).expect("a loop plan");
    l.active = active;
    l.init = init;
    l.shared_accs = shared_accs;
    // The product that starts each carried array's new buffer may write
    // into the buffer of the value before (decided once the reverse is).
    let mut spares: Vec<Option<(NodeId, Ident)>> = vec![None; lp.carried];
    if active && sh.opts.loop_buffers {
        for (k, spare) in spares.iter_mut().enumerate() {
            let head = l.body.buffer_head(lp.body.outputs[k]);
            if arrays[k] && spare_candidate(&l.body, head) {
                let name = sh.namer.fresh(&format!("{}_spare", l.state[k]));
                *spare = Some((head, name));
            }
        }
    }
    for ((j, acc), flat) in accs.iter().zip(flat) {
        l.body.acc_into.insert(lp.body.inputs[*j], acc.clone());
        if flat {
            l.body.flat.insert(lp.body.inputs[*j]);
        }
    }
    l.accs = accs;
    // The body's new values are seeded with the carried adjoints before
    // anything in it is planned: a nested loop that reads one of them names
    // its contribution now, and must see that it is not the only one.
    for (k, d) in d_state.iter().enumerate() {
        if let Some(d) = d {
            l.body
                .seed(lp.body.outputs[k], Part::Name(d.clone()), false);
            l.body.acc_seed.insert(lp.body.outputs[k], d.clone());
        }
    }
    super::remat::carried_shapes(&mut l.body, sh, lp, &d_state);
    forward::plan(&mut l.body, sh);
    flatten(&mut l.body, sh);
    l.next = nexts(&l, sh, lp);
    if active {
        plan_kept(
            r,
            &mut l,
            sh,
            id,
            lp,
            &d_state,
            &given_back,
            &arrays,
            &spares,
        );
    }
    l.d_state = d_state;
    super::fused::plan(r, &mut l, sh, lp);
    r.defined.extend(l.state.iter().cloned());
    l.bounds_again = super::remat::bounds_again(r, sh, lp);
    if !l.bounds_again {
        r.defined.extend([l.start.clone(), l.end.clone()]);
    }
    if active {
        r.defined.push(l.steps.clone());
    }
    r.loops.insert(id, l);
}

/// The loops of a loop's body (through its arms) that keep records keep
/// them in one vector of the whole function, declared before its forward
/// pass: a run of such a loop pushes its records, and the reverse sweep,
/// which visits the runs in the reverse order, drains them from the mark
/// the run set (`steps.drain(steps_at..)`). The enclosing loop keeps that
/// mark, not a vector per run: one buffer for all, grown as needed.
fn flatten(r: &mut Region, sh: &mut Shared) {
    let Region {
        loops,
        branches,
        defined,
        ..
    } = r;
    let mut ids: Vec<NodeId> = loops.keys().copied().collect();
    ids.sort();
    for id in ids {
        let l = loops.get_mut(&id).expect("a loop plan");
        if l.records() && l.flat.is_none() {
            let mark = sh.namer.fresh(&format!("{}_at", l.steps));
            if let Some(at) = defined.iter().position(|n| *n == l.steps) {
                defined[at] = mark.clone();
            }
            l.flat = Some(mark);
        }
    }
    let mut ids: Vec<NodeId> = branches.keys().copied().collect();
    ids.sort();
    for id in ids {
        for arm in &mut branches.get_mut(&id).expect("a branch plan").arms {
            flatten(arm, sh);
        }
    }
}

/// The body's reverse sweep, then what each iteration keeps for it: the
/// locals it reads, a state as rows, a new value handed back.
#[allow(clippy::too_many_arguments)]
fn plan_kept<'g>(
    r: &mut Region<'g>,
    l: &mut super::region::Loop<'g>,
    sh: &mut Shared,
    id: NodeId,
    lp: &'g Loop,
    d_state: &[Option<Ident>],
    given_back: &[bool],
    arrays: &[bool],
    spares: &[Option<(NodeId, Ident)>],
) {
    let outputs = &lp.body.outputs;
    routing::plan(&mut l.body, sh);
    let (mut read, mut shapes) = reads::reverse_split(&l.body, sh);
    super::remat::plan(&mut l.body, sh, lp, &read);
    if !l.body.remade.is_empty() {
        (read, shapes) = reads::reverse_split(&l.body, sh);
    }
    for (k, d) in d_state.iter().enumerate() {
        if d.is_some() && !l.body.active(lp.body.inputs[k]) {
            read.insert(l.ins[k].clone());
        }
    }
    // Read by the body's reverse, or by the bounds of a nested loop that
    // the reverse computes again (`for j in i..n`).
    l.var_read = l.body.loop_var.as_ref().is_some_and(|v| read.contains(v))
        || l.body.loops.iter().any(|(id, inner)| {
            inner.bounds_again
                && matches!(l.body.node(*id), Node::Loop(nested)
                    if super::remat::bounds_read(nested, |b| matches!(l.body.node(b), Node::LoopVar)))
        });
    let mut kept: Vec<Ident> = l
        .ins
        .iter()
        .chain(&l.body.defined)
        .filter(|n| read.contains(*n))
        .cloned()
        .collect();
    for k in 0..lp.carried {
        let o = outputs[k];
        if given_back[k] || !matches!(l.body.node(o), Node::Op { .. } | Node::Const(_)) {
            continue;
        }
        let local = l.body.name(o).clone();
        let once = l.next.iter().filter(|n| n.is(&local)).count() == 1;
        let Some(at) = kept.iter().position(|n| *n == local) else {
            continue;
        };
        if !once || l.body.views.contains(&local) {
            continue;
        }
        kept.remove(at);
        if !kept.contains(&l.ins[k]) {
            kept.push(l.ins[k].clone());
        }
        let carry = sh.namer.fresh(&format!("{}_after", l.state[k]));
        l.handoff.push((k, local, carry));
    }
    super::settled::plan(r, l, sh, id, lp, &mut kept);
    // A carried array that the reverse reads is kept as rows of one
    // buffer, its new value as the next row, and its buffer, once copied,
    // is the spare that the next value is computed into.
    for k in 0..lp.carried {
        let handed = l.handoff.iter().position(|(kk, ..)| *kk == k);
        if !sh.opts.loop_buffers
            || !arrays[k]
            || !kept.contains(&l.ins[k])
            || !rows_ok(&l.body, lp.body.inputs[k], handed.map(|_| outputs[k]))
        {
            continue;
        }
        let next = handed.map(|at| l.handoff.remove(at).1);
        kept.retain(|n| *n != l.ins[k]);
        let moved = l.next.iter().any(|n| n.is(&l.ins[k]));
        let spare = match &spares[k] {
            Some((head, spare)) if !moved => {
                l.body.spares.insert(*head, spare.clone());
                Some(spare.clone())
            }
            _ => None,
        };
        let rows = sh.namer.fresh(&format!("{}_rows", l.state[k]));
        r.defined.push(rows.clone());
        l.rows.push(KeptRows {
            k,
            rows,
            next,
            spare,
        });
    }
    if !l.rows.is_empty() || l.body.step.is_some() {
        l.step = Some(
            l.body
                .step
                .clone()
                .unwrap_or_else(|| sh.namer.fresh("step")),
        );
    }
    super::branches::views_first(&mut kept, &l.body.views);
    l.saves = super::branches::keep(&l.body, &kept, &l.next);
    super::remat::shapes_only(&l.body, sh, lp, &l.ins, &shapes, &mut l.saves);
    l.kept = kept;
    super::nested::moved_inits(l, sh, lp);
}

/// The adjoint of each carried state of a loop that has one: the adjoint of
/// the loop's result where it is active, else a fresh name (for a zero).
fn d_state(r: &Region, sh: &mut Shared, id: NodeId, lp: &Loop) -> Vec<Option<Ident>> {
    let seeded = &r.a.loops[&id].seeded;
    let outs = r.outs_of(id);
    (0..lp.carried)
        .map(|k| {
            if !seeded[k] {
                return None;
            }
            match outs.iter().find(|(kk, o)| *kk == k && r.active(*o)) {
                Some((_, o)) => Some(r.adj(*o).clone()),
                None => Some(sh.namer.fresh(&format!("d_{}", r.loops[&id].state[k]))),
            }
        })
        .collect()
}

/// A captured value known to be a vector or a scalar: its gradient is
/// never an outer product.
fn flat(r: &Region, sh: &Shared, p: NodeId) -> bool {
    match r.node(p) {
        Node::Param(i) => match &sh.func.params[*i].kind {
            Kind::Array { .. } => r.ty[p.index()] == Some(Ty::Array(1)),
            _ => true,
        },
        _ => false,
    }
}

/// Whether `head` is a plain product, which `bp::dot_reuse` may compute
/// into a spare buffer.
pub(super) fn spare_candidate(body: &Region, head: NodeId) -> bool {
    matches!(body.node(head), Node::Op { op: Op::Dot, .. })
        && body.live(head)
        && !body.deferred.contains(&head)
        && !body.fused.contains_key(&head)
        && !body.unmade.contains(&head)
}

/// Whether a loop body's carried input `x` (and the body's new value `o`
/// of it, when the reverse reads that too) may be read back as a view of
/// a row: only the vocabulary's own ops read them, whose rules take any
/// array (a called function's rule takes the types its user wrote, and
/// some ops one type for all operands), and `o` is made by an op whose
/// rule takes its output as any array.
fn rows_ok(body: &Region, x: NodeId, o: Option<NodeId>) -> bool {
    let made_ok = o.is_none_or(|o| matches!(body.node(o), Node::Op { op, .. } if op.has(ROW_OUT)));
    made_ok
        && body.graph.ids().all(|id| {
            let reads = body.graph.deps(id).iter().any(|d| *d == x || Some(*d) == o);
            !reads
                || !body.live(id)
                || matches!(body.node(id), Node::Op { op, .. } if !matches!(op, Op::Call(_)) && !op.has(SAME_TYPE))
        })
}

/// Whether a loop may take the buffer of `p`, its carried variable's
/// initial value, instead of a copy: an array made here by an op, read by
/// nothing but the loop, and not by its own rule either; not a local that
/// borrows a place (a model's field), which has no buffer to give.
fn movable_init(r: &Region, p: NodeId, readers: &[usize]) -> bool {
    if r.by_ref.contains(&p) {
        return false;
    }
    let Node::Op { op, .. } = r.node(p) else {
        return false;
    };
    let view_or_call = op.has(VIEW) || matches!(op, Op::Call(_));
    let rule_reads = op.rule_reads_out() && r.active(p);
    readers[p.index()] == 1
        && !view_or_call
        && !rule_reads
        && !r.given.contains_key(&p)
        && !r.scalar[p.index()]
        && !r.views.contains(r.name(p))
}

/// Plans a loop's reverse sweep where it stands: how its carried adjoints
/// start, its `Outers`, the contributions to its initial values.
pub fn plan_reverse<'g>(r: &mut Region<'g>, sh: &mut Shared, id: NodeId, lp: &'g Loop) {
    if !r.loop_active(id, lp) {
        return;
    }
    let mut rev = Reverse::default();
    let outs = r.outs_of(id);
    let l = &r.loops[&id];
    let d_state = l.d_state.clone();
    for &(k, o) in &outs {
        let Some(d) = &d_state[k] else { continue };
        if r.active(o) {
            let c = r.contributions[o.index()].clone();
            let start = if r.borrowed[o.index()] {
                DStart::Copy(c)
            } else if r.parts(o) > 1 || r.seeds[o.index()] == 1 {
                DStart::Sum(c)
            } else {
                DStart::Same
            };
            rev.d_start.push((k, d.clone(), start));
        }
    }
    // The gradients that start from zero: a last state that nothing reads
    // gives its own buffer, the loop's spare buffer serves the first of its
    // size (where the spare is in scope: the forward pass and the reverse
    // sweep of a loop body or a branch arm are two blocks).
    rev.spare = l
        .rows
        .iter()
        .find_map(|r| r.spare.clone())
        .filter(|_| r.top_level);
    for (k, d) in d_state.iter().enumerate() {
        let active_out = outs.iter().any(|(kk, o)| *kk == k && r.active(*o));
        if let (Some(d), false) = (d, active_out) {
            let unread = outs.iter().all(|(kk, o)| {
                *kk != k || (r.a.uses[o.index()].is_empty() && !r.results.contains(o))
            });
            let read_back = l.settled.iter().any(|s| s.k == k);
            let start = if unread && !read_back && !l.handoff.iter().any(|(kk, ..)| *kk == k) {
                DStart::ZerosIn
            } else {
                DStart::Zeros
            };
            rev.d_start.push((k, d.clone(), start));
        }
    }
    // The outer products of the loop's weights, term by term: a term reads
    // its vectors where the loop keeps them (a state's rows, the rows of an
    // input it walks through) and shares the gradient of an earlier term of
    // the same gradient.
    for (k, t) in l.body.terms.iter().enumerate() {
        rev.terms.push(Term {
            name: t.name.clone(),
            acc: t.acc.clone(),
            u_from: l.body.terms[..k]
                .iter()
                .find(|o| o.u == t.u)
                .map(|o| o.name.clone()),
            v_from: t.v.and_then(|v| rows_of(r, sh, id, lp, v)),
        });
    }
    // What flows to the carried variables' initial values.
    for (k, d) in d_state.iter().enumerate() {
        let p = lp.inputs[k];
        if let Some(d) = d {
            if r.active(p) {
                let target = routing::contribution_target(r, sh, p, id);
                rev.targets.push((target, d.clone()));
            }
        }
    }
    // An accumulator starts from the latest contribution written before
    // the loop's reverse sweep, which then is not summed again.
    if sh.opts.accumulate {
        let accs = r.loops[&id].accs.clone();
        let shared = r.loops[&id].shared_accs.clone();
        for (j, acc) in accs.iter().filter(|(_, acc)| !shared.contains(acc)) {
            let p = lp.inputs[*j];
            let c = &r.contributions[p.index()];
            let earlier = (r.seeds[p.index()]..c.len()).rev().find(|&k| {
                matches!(&c[k], Part::Name(n) if !r.loop_accs.contains(n) && *n != *acc)
                    && r.reverse.iter().any(|s| writes(s, c[k].ident()))
            });
            if let Some(k) = earlier {
                let prev = r.contributions[p.index()].remove(k);
                rev.acc_starts.push((acc.clone(), prev.ident().clone()));
            }
        }
    }
    r.loops.get_mut(&id).expect("a loop plan").rev = rev;
    r.reverse.push(RevStep::Loop(id));
}

/// Whether a decision of a reverse sweep defines the local `name`.
fn writes(step: &RevStep, name: &Ident) -> bool {
    match step {
        RevStep::Rule { target, .. }
        | RevStep::AddInto { target, .. }
        | RevStep::SumSquare { target, .. } => target == name,
        RevStep::Call { targets, .. } => targets.iter().flatten().any(|t| t == name),
        RevStep::Lend { lhs, rhs, .. } | RevStep::Both { lhs, rhs, .. } => {
            lhs == name || rhs == name
        }
        RevStep::Sum { adj, .. } => adj == name,
        RevStep::Acc { .. } | RevStep::Defer { .. } | RevStep::Loop(_) | RevStep::Branch(_) => {
            false
        }
    }
}

/// Where the loop `id` keeps the values its body node `v` takes, one row
/// per iteration: the rows of a carried state (`v` is the state at the
/// start of an iteration), or the rows of a captured matrix that
/// `v = m.row(i)` walks through with `i` the loop's index.
fn rows_of(r: &Region, sh: &Shared, id: NodeId, lp: &Loop, v: NodeId) -> Option<Rows> {
    let l = &r.loops[&id];
    let body = &lp.body.graph;
    match &body.nodes[v.index()].node {
        Node::Input(k) if *k < lp.carried => l
            .rows
            .iter()
            .find(|rows| rows.k == *k)
            .map(|rows| Rows::State(rows.rows.clone())),
        Node::Op {
            op: Op::Row,
            inputs,
            consts,
        } => {
            let (Some(var), [m], [index]) = (&lp.var, &inputs[..], &consts[..]) else {
                return None;
            };
            // The rows `start..end` in order: a plain range.
            if !lp.adapters.is_empty() {
                return None;
            }
            let Node::Input(j) = body.nodes[m.index()].node else {
                return None;
            };
            // A row read back from the buffer the loop leaves behind (not
            // behind the loop's start, which `start - n` would pass for an
            // empty loop).
            let local = l.body.names[v.index()].as_ref();
            if let Some(s) = l.settled.iter().find(|s| Some(&s.local) == local) {
                let ahead = s.shape.is_none() && s.k == j && s.offset >= 0;
                return ahead.then(|| Rows::Settled {
                    state: l.state[j].clone(),
                    offset: s.offset,
                });
            }
            // The index is the loop's variable and nothing else.
            let by_var = match &index.expr {
                syn::Expr::Path(p) if p.qself.is_none() => match p.path.get_ident() {
                    Some(i) => match index.resolve(&i.to_string()) {
                        Some((d, _)) => matches!(body.nodes[d.index()].node, Node::LoopVar),
                        None => i == var,
                    },
                    None => false,
                },
                _ => false,
            };
            if j < lp.carried || !by_var {
                return None;
            }
            Some(Rows::Input(r.operand(&sh.func.params, lp.inputs[j])))
        }
        _ => None,
    }
}
