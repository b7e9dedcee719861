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
//! iteration keeps them if they are its own. So is a sum or product of
//! such elements, literals and values from outside the loop
//! (`y[i - 1] + c * k[i - 1]`), and a cast or arithmetic of the loop's
//! variable (`i as f64 + 1.0`): a few flops at the head instead of a
//! number in each record.
//!
//! Also the shape of a carried array that the body writes into in place
//! (`c[[k, j]] = ..`), which the rules of its reads need once its buffer is
//! the next value's: the body only writes into it, so the carried adjoint
//! the iteration's reverse starts from has that shape, and the head reads
//! it there (`let c_in_shape = bp::shape_of(&d_c);`) instead of each
//! iteration keeping it.
//!
//! The bounds of a loop nested in another (`for j in 0..n` in the body of
//! `for i in ..`), made of literals, the enclosing loop's variable and
//! integer parameters: the reverse computes them again before it runs the
//! inner loop backwards (`let j_start = 0; let j_end = n;`) instead of each
//! outer iteration keeping them.
//!
//! And an array the reverse sweep reads only for its shape (a part's rule,
//! `bp::index_vjp(g, &h, [k, j])`; an accumulator's zero): the iteration
//! keeps its shape (`bp::shape_of(&h)`) in the place of a copy, and the
//! reverse lends it to the rules as a stand-in of the same name
//! (`let h = bp::stand_in(&h);`, a view of zeros of that shape).

use super::region::{Kept, Operand, Region};
use super::Shared;
use crate::graph::{Loop, Node, NodeId};
use crate::vocab::{Op, Ty, RULES_SKIP_FIRST};
use proc_macro2::Ident;
use std::collections::HashSet;

/// The nodes of a loop body whose values its reverse sweep reads (`read`)
/// and may compute again: an element of a borrowed parameter, and a few
/// flops of floats ([`CHEAP`]) made of such elements, literals and values
/// from outside the iteration (`y[i - 1] + c * k[i - 1]`), with the
/// values they are made from. Not a value the body gives back (a carried
/// value is the next iteration's input).
pub fn plan(body: &mut Region, sh: &Shared, lp: &Loop, read: &HashSet<Ident>) {
    if !sh.opts.remat {
        return;
    }
    let mut again = vec![false; body.graph.len()];
    for id in body.graph.ids() {
        if !body.live(id) || body.results.contains(&id) || body.unmade.contains(&id) {
            continue;
        }
        again[id.index()] = match body.node(id) {
            Node::Op {
                op: Op::Index,
                inputs,
                ..
            } => borrowed_param(body, sh, inputs[0]),
            Node::Op { op, inputs, .. } if CHEAP.contains(op) && body.plain.contains(&id) => inputs
                .iter()
                .all(|i| again[i.index()] || outside(body, lp, *i)),
            // `i as f64 + 1.0` of the loop's variable.
            Node::Const(c) if !c.place && arithmetic(&c.expr) => c.deps.iter().all(|d| {
                again[d.index()] || outside(body, lp, *d) || matches!(body.node(*d), Node::LoopVar)
            }),
            _ => false,
        };
    }
    // The values read, and those they are made from (operands, and the
    // values their constant arguments mention).
    let mut remade = vec![false; body.graph.len()];
    let mut todo: Vec<NodeId> = body
        .graph
        .ids()
        .filter(|id| again[id.index()] && read.contains(body.name(*id)))
        .collect();
    while let Some(id) = todo.pop() {
        if !std::mem::replace(&mut remade[id.index()], true) {
            let deps = body.graph.deps(id);
            todo.extend(deps.into_iter().filter(|d| again[d.index()]));
        }
    }
    body.remade = body.graph.ids().filter(|id| remade[id.index()]).collect();
}

/// The scalar ops computed again rather than kept: cheaper than a store
/// and a load of the record.
const CHEAP: &[Op] = &[Op::Add, Op::Sub, Op::Mul, Op::Neg];

/// Whether a constant is a cast or arithmetic of literals and names: as
/// cheap to compute again as to keep.
fn arithmetic(e: &syn::Expr) -> bool {
    crate::types::arithmetic_of(e, &mut |leaf| match leaf {
        syn::Expr::Lit(_) => true,
        syn::Expr::Path(p) => p.qself.is_none() && p.path.get_ident().is_some(),
        syn::Expr::Cast(c) => arithmetic(&c.expr),
        _ => false,
    })
}

/// Whether a value is the same in every iteration and defined outside it:
/// a literal, a parameter, a value the loop captures.
fn outside(r: &Region, lp: &Loop, id: NodeId) -> bool {
    match r.node(id) {
        Node::Float(_) | Node::Int(_) | Node::Param(_) => true,
        Node::Input(j) => *j >= lp.carried,
        _ => false,
    }
}

/// Whether a value is a parameter the function borrows (`&Array2<f64>`)
/// or plain data, here or passed into the region: nothing writes it while
/// the function runs.
fn borrowed_param(r: &Region, sh: &Shared, id: NodeId) -> bool {
    let operand = match r.node(id) {
        Node::Param(_) | Node::Input(_) => r.operand(&sh.func.params, id),
        _ => return false,
    };
    match operand {
        Operand::Param { by_ref: true, .. } => true,
        // Plain data (`&[f64]`, `Vec<f64>`, `[f64; N]`), held as a view of
        // the parameter: a write into it writes a copy.
        Operand::Param { ident, .. } => sh
            .func
            .params
            .iter()
            .any(|p| p.ident == ident && p.kind.plain().is_some()),
        _ => false,
    }
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

/// The locals a loop keeps (`saves`) that its reverse sweep reads only for
/// their shapes (`shapes`, see `reads::reverse_split`) and that are arrays
/// the iteration owns: kept as their shapes.
pub fn shapes_only(
    body: &Region,
    sh: &Shared,
    lp: &Loop,
    ins: &[Ident],
    shapes: &HashSet<Ident>,
    saves: &mut [Kept],
) {
    if !sh.opts.remat {
        return;
    }
    for k in saves.iter_mut() {
        let (Kept::Moved(n) | Kept::Clone(n)) = k else {
            continue;
        };
        if !shapes.contains(n) {
            continue;
        }
        let node = match ins.iter().position(|i| i == n) {
            Some(j) if j < lp.carried => Some(lp.body.inputs[j]),
            Some(_) => None,
            None => body
                .graph
                .ids()
                .find(|id| body.names.get(id.index()).and_then(Option::as_ref) == Some(n)),
        };
        if node.is_some_and(|id| owned_array(body, id)) {
            *k = Kept::Shape(n.clone());
        }
    }
}

/// Whether a node's local owns an array: a carried value (of this loop or
/// of a nested one) or an op's (not a call's, whose type is its callee's),
/// neither a view nor a reference.
fn owned_array(r: &Region, id: NodeId) -> bool {
    let made = match r.node(id) {
        Node::Input(_) => true,
        Node::Out { of, .. } => matches!(r.node(*of), Node::Loop(_)),
        Node::Op { op, .. } => !matches!(op, Op::Call(_)),
        _ => false,
    };
    made && matches!(r.ty.get(id.index()), Some(Some(Ty::Array(_))))
        && !r.is_view(id)
        && !r.holds_ref(id)
}

/// Whether the bounds of the loop `lp`, in the region `r` of an enclosing
/// loop or arm, are computed again by the reverse sweep (see the module's
/// docs): a `for` loop whose bounds read only literals, the enclosing
/// loop's variable, and parameters that are integers, references or plain
/// data (held as views: what nothing moves while the function runs).
pub fn bounds_again(r: &Region, sh: &Shared, lp: &Loop) -> bool {
    if !sh.opts.remat || r.inputs.is_empty() || lp.cond.is_some() {
        return false;
    }
    let again = |id: NodeId| match r.node(id) {
        Node::LoopVar | Node::Int(_) | Node::Float(_) => true,
        Node::Param(_) | Node::Input(_) => match r.operand(&sh.func.params, id) {
            Operand::Literal(_) => true,
            Operand::Param { ident, by_ref } => {
                by_ref
                    || sh.func.params.iter().any(|p| {
                        p.ident == ident
                            && (crate::ast::is_integer_type(&p.ty) || p.kind.plain().is_some())
                    })
            }
            _ => false,
        },
        _ => false,
    };
    !bounds_read(lp, |id| !again(id))
}

/// Whether the bounds of the loop `lp` (its range and its `step_by`) read
/// a node that `test` holds for.
pub fn bounds_read(lp: &Loop, test: impl Fn(NodeId) -> bool) -> bool {
    let any = |c: &crate::graph::ConstArg| {
        c.deps
            .iter()
            .chain(c.refs.iter().map(|(_, id, _)| id))
            .any(|id| test(*id))
    };
    any(&lp.start)
        || any(&lp.end)
        || lp.adapters.iter().any(|a| match a {
            crate::graph::Adapter::StepBy(k) => any(k),
            crate::graph::Adapter::Rev => false,
        })
}
