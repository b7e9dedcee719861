//! Activity analysis: which nodes are computed, which carry an adjoint, and
//! the uses whose contributions make up each adjoint (the fork rule).

use crate::graph::{Node, NodeId};
use crate::lower::Lowered;

/// What the emitter needs to know about the whole graph.
pub struct Analysis {
    /// The node is needed to compute the value (through inputs or constant arguments).
    pub live: Vec<bool>,
    /// The node depends on a differentiable parameter and reaches the value
    /// through differentiable edges: it gets an adjoint.
    pub active: Vec<bool>,
    /// For each active node, its uses by active consumers, as (consumer,
    /// position), in forward order: one contribution each.
    pub uses: Vec<Vec<(NodeId, usize)>>,
}

pub fn analyse(l: &Lowered) -> Analysis {
    let g = &l.graph;
    let n = g.len();
    let mut live = vec![false; n];
    let mut useful = vec![false; n];
    live[l.output.index()] = true;
    useful[l.output.index()] = true;
    for id in g.ids().rev() {
        if live[id.index()] {
            for d in g.deps(id) {
                live[d.index()] = true;
            }
        }
        if useful[id.index()] {
            if let Node::Op { inputs, .. } = &g.get(id).node {
                for i in inputs {
                    useful[i.index()] = true;
                }
            }
        }
    }
    let active: Vec<bool> = (0..n).map(|i| useful[i] && l.varying[i]).collect();
    let mut uses = vec![Vec::new(); n];
    for id in g.ids() {
        if !active[id.index()] {
            continue;
        }
        if let Node::Op { inputs, .. } = &g.get(id).node {
            for (pos, i) in inputs.iter().enumerate() {
                if active[i.index()] {
                    uses[i.index()].push((id, pos));
                }
            }
        }
    }
    Analysis { live, active, uses }
}
