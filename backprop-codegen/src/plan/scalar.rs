//! Which values are scalars: known at compile time from the parameters'
//! types and the ops (an elementwise op of scalars is a scalar, a reduction
//! is one), through loops (a carried variable keeps its initial value's
//! type) and branches (an arm's result has the type of the other's). A
//! value that may be an array is not marked.

use super::region::Region;
use super::Shared;
use crate::ast::{Function, Kind};
use crate::graph::{Graph, Node, NodeId};
use crate::vocab::SCALAR_OUT;
use std::collections::HashMap;

/// Marks the region's scalars.
pub fn plan(r: &mut Region, sh: &Shared) {
    r.scalar = scalars(r.graph, sh.func, &r.input_scalar);
}

/// The scalars of a graph whose inputs are scalars where `inputs` says.
pub fn scalars(g: &Graph, func: &Function, inputs: &[bool]) -> Vec<bool> {
    let mut scalar = vec![false; g.len()];
    // The scalar results of each loop and branch, by result index.
    let mut results: HashMap<NodeId, Vec<bool>> = HashMap::new();
    for id in g.ids() {
        scalar[id.index()] = match &g.get(id).node {
            Node::Param(i) => matches!(func.params[*i].kind, Kind::Scalar(_)),
            Node::Input(j) => inputs.get(*j).copied().unwrap_or(false),
            Node::Float(_) | Node::Int(_) => true,
            Node::Op { op, inputs, .. } => {
                op.has(SCALAR_OUT) || (op.elementwise() && inputs.iter().all(|i| scalar[i.index()]))
            }
            Node::Loop(lp) => {
                let carried = lp.inputs[..lp.carried]
                    .iter()
                    .map(|p| scalar[p.index()])
                    .collect();
                results.insert(id, carried);
                false
            }
            Node::Branch(b) => {
                let mut out = vec![false; b.outputs];
                for (arm, arm_inputs) in b.arms.iter().zip(&b.arm_inputs) {
                    let inputs: Vec<bool> = arm_inputs.iter().map(|p| scalar[p.index()]).collect();
                    let s = scalars(&arm.graph, func, &inputs);
                    for (k, o) in arm.outputs.iter().enumerate() {
                        out[k] |= s[o.index()];
                    }
                }
                results.insert(id, out);
                false
            }
            Node::Out { of, k } => results.get(of).is_some_and(|r| r[*k]),
            Node::Const(_) | Node::Error | Node::LoopVar => false,
        };
    }
    scalar
}
