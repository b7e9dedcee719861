//! The forward walk: in node order, the locals each statement defines (what
//! a loop iteration or a branch arm may keep) and the views among them; each
//! loop and branch is planned where it stands.

use super::region::Region;
use super::{branches, loops, Shared};
use crate::graph::{Node, NodeId};
use crate::vocab::VIEW;

/// Plans the forward pass of a region.
pub fn plan(r: &mut Region, sh: &mut Shared) {
    for id in r.graph.ids() {
        if !r.live(id) || r.unmade.contains(&id) {
            continue;
        }
        if r.sum_squares.contains_key(&id) {
            let name = r.name(id).clone();
            r.defined.push(name);
            continue;
        }
        if let Some(components) = r.graph.tuple_call(id) {
            // `let (r, theta) = polar(x, y);` defines its components.
            let bound: Vec<_> = r.bound(components).into_iter().flatten().cloned().collect();
            r.defined.extend(bound);
            continue;
        }
        match r.node(id) {
            Node::Const(_) => {
                let name = r.name(id).clone();
                r.defined.push(name);
            }
            Node::Op { inputs, .. } if r.dot_adds.contains_key(&id) => {
                let d = r.dot_adds[&id];
                keep_shape(r, inputs[0]);
                keep_shape(r, d);
                define(r, id);
            }
            Node::Op { op, inputs, .. } => {
                if r.takes.contains(&id) && !r.fused.contains_key(&id) {
                    keep_shape(r, inputs[0]);
                }
                if r.deferred.contains(&id) {
                    continue;
                }
                if let Some(&x) = r.fused.get(&id) {
                    let name = r.name(id).clone();
                    r.defined.push(name);
                    keep_shape(r, x);
                    continue;
                }
                if let Some(saved) = r.saved[id.index()].clone() {
                    r.defined.push(saved);
                }
                if op.has(VIEW) && !of_param(r, sh, inputs[0]) && !r.copied.contains(&id) {
                    let name = r.name(id).clone();
                    r.views.insert(name);
                }
                define(r, id);
            }
            Node::Loop(lp) => loops::plan_forward(r, sh, id, lp),
            Node::Branch(b) => branches::plan_forward(r, sh, id, b),
            Node::Param(_)
            | Node::Float(_)
            | Node::Int(_)
            | Node::Error
            | Node::Input(_)
            | Node::LoopVar
            | Node::Out { .. } => {}
        }
    }
}

/// The node's local is defined, unless its buffer was given away.
fn define(r: &mut Region, id: NodeId) {
    if !r.given.contains_key(&id) {
        let name = r.name(id).clone();
        r.defined.push(name);
    }
}

/// The kept shape of a value whose buffer is given away, where its rules run.
fn keep_shape(r: &mut Region, x: NodeId) {
    if r.shapes_from.contains_key(&x) {
        return;
    }
    if let Some(shape) = r.shape(x) {
        let shape = shape.clone();
        r.defined.push(shape);
    }
}

/// Whether a value is a parameter (or a loop's input that is one, or a
/// borrowed constant): a view
/// of it may be kept as it is, where a view of a local borrows what the
/// region moves.
fn of_param(r: &Region, sh: &Shared, id: NodeId) -> bool {
    match r.node(id) {
        Node::Param(_) => true,
        // A borrowed constant (`data.x`) outlives the function too.
        Node::Const(c) => c.place,
        Node::Input(j) => match r.inputs[*j].name.ident() {
            Some(source) => sh.func.params.iter().any(|p| p.ident == *source),
            None => false,
        },
        _ => false,
    }
}
