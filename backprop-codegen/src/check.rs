//! Activity analysis: which nodes are computed, which carry an adjoint, and
//! the uses whose contributions make up each adjoint (the fork rule).
//!
//! A loop body is analysed as a graph of its own, with two fixed points: a
//! carried value that varies at the end of an iteration varies at its start
//! (from the second iteration on), and a carried value whose start is needed
//! by a useful result needs the adjoint of its end (from the next iteration).

use crate::graph::Lowered;
use crate::graph::{Branch, Graph, Loop, Node, NodeId};
use std::collections::HashMap;

/// What the emitter needs to know about a graph.
pub struct Analysis {
    /// The node is needed to compute the value (through inputs or constant arguments).
    pub live: Vec<bool>,
    /// The node depends on a differentiable parameter and reaches the value
    /// through differentiable edges: it gets an adjoint.
    pub active: Vec<bool>,
    /// For each active node, its uses by active consumers, as (consumer,
    /// position), in forward order: one contribution each. A loop is a
    /// consumer of its inputs.
    pub uses: Vec<Vec<(NodeId, usize)>>,
    /// The analysis of each live loop's body.
    pub loops: HashMap<NodeId, LoopAnalysis>,
    /// The analysis of each live branch's arms.
    pub branches: HashMap<NodeId, BranchAnalysis>,
}

/// The analysis of the two arms of a branch.
pub struct BranchAnalysis {
    pub arms: [Analysis; 2],
    /// Which results of the branch have an adjoint.
    pub seeded: Vec<bool>,
}

/// The analysis of a loop body.
pub struct LoopAnalysis {
    pub body: Analysis,
    /// Which carried values have an adjoint flowing back through the iterations.
    pub seeded: Vec<bool>,
}

/// Analyses the function body.
pub fn analyse(l: &Lowered, params: &[bool]) -> Analysis {
    analyse_graph(&l.graph, params, &[], &l.outputs, &l.outputs)
}

/// Which nodes vary, given which parameters and inputs do.
fn varying_pass(
    g: &Graph,
    params: &[bool],
    inputs: &[bool],
) -> (Vec<bool>, HashMap<NodeId, Vec<bool>>) {
    let mut varying = vec![false; g.len()];
    let mut loop_out = HashMap::new();
    for id in g.ids() {
        varying[id.index()] = match &g.get(id).node {
            Node::Param(i) => params[*i],
            Node::Input(j) => inputs[*j],
            Node::Op { inputs, .. } => inputs.iter().any(|i| varying[i.index()]),
            Node::Loop(lp) => {
                let parent: Vec<bool> = lp.inputs.iter().map(|i| varying[i.index()]).collect();
                let (_, out) = loop_varying(lp, params, parent);
                loop_out.insert(id, out);
                false
            }
            Node::Branch(b) => {
                let out = branch_varying(b, params, &varying);
                loop_out.insert(id, out);
                false
            }
            // A component of a call varies with the call.
            Node::Out { of, k } => loop_out.get(of).map_or(varying[of.index()], |out| out[*k]),
            Node::Float(_) | Node::Int(_) | Node::Const(_) | Node::Error | Node::LoopVar => false,
        };
    }
    (varying, loop_out)
}

/// Which results of a branch vary: those that vary in either arm.
fn branch_varying(b: &Branch, params: &[bool], varying: &[bool]) -> Vec<bool> {
    let mut out = vec![false; b.outputs];
    for (arm, inputs) in b.arms.iter().zip(&b.arm_inputs) {
        let parent: Vec<bool> = inputs.iter().map(|i| varying[i.index()]).collect();
        let (v, _) = varying_pass(&arm.graph, params, &parent);
        for (k, o) in arm.outputs.iter().enumerate() {
            out[k] |= v[o.index()];
        }
    }
    out
}

/// The varying inputs of a loop body (a fixed point over the carried values)
/// and the varying results of the loop.
///
/// A result is the value the body gives it in the last iteration or, where
/// the loop may run no iteration at all, the value from before the loop: a
/// variable the body resets to a constant still varies after a loop of
/// `0..n`.
fn loop_varying(lp: &Loop, params: &[bool], mut inputs: Vec<bool>) -> (Vec<bool>, Vec<bool>) {
    loop {
        let (body, _) = varying_pass(&lp.body.graph, params, &inputs);
        let mut out: Vec<bool> = lp.body.outputs.iter().map(|o| body[o.index()]).collect();
        let mut changed = false;
        for (k, v) in out.iter().enumerate() {
            if *v && !inputs[k] {
                inputs[k] = true;
                changed = true;
            }
        }
        if !changed {
            if !lp.runs_at_least_once() {
                for (k, o) in out.iter_mut().enumerate() {
                    *o |= inputs[k];
                }
            }
            return (inputs, out);
        }
    }
}

/// Analyses a graph whose results `useful_roots` carry adjoints and whose
/// `live_roots` are needed.
fn analyse_graph(
    g: &Graph,
    params: &[bool],
    inputs: &[bool],
    useful_roots: &[NodeId],
    live_roots: &[NodeId],
) -> Analysis {
    let n = g.len();
    let (varying, _) = varying_pass(g, params, inputs);
    let mut useful = vec![false; n];
    let mut live = vec![false; n];
    for r in useful_roots {
        useful[r.index()] = true;
    }
    for r in live_roots {
        live[r.index()] = true;
    }
    // The Out nodes of each loop, by carried index.
    let mut outs: HashMap<NodeId, Vec<NodeId>> = HashMap::new();
    for id in g.ids() {
        if let Node::Out { of, .. } = g.get(id).node {
            outs.entry(of).or_default().push(id);
        }
    }
    let mut loops = HashMap::new();
    let mut branches = HashMap::new();
    for id in g.ids().rev() {
        let (u, lv) = (useful[id.index()], live[id.index()]);
        match &g.get(id).node {
            Node::Op { inputs, .. } if u => {
                for i in inputs {
                    useful[i.index()] = true;
                }
            }
            Node::Out { of, .. } => {
                useful[of.index()] |= u;
                live[of.index()] |= lv;
            }
            Node::Loop(lp) if lv || u => {
                let la = analyse_loop(g, id, lp, params, &varying, &useful, &outs);
                for (j, p) in lp.inputs.iter().enumerate() {
                    let flows = if j < lp.carried {
                        la.seeded[j]
                    } else {
                        la.body.active[lp.body.inputs[j].index()]
                    };
                    useful[p.index()] |= flows;
                }
                loops.insert(id, la);
            }
            Node::Branch(b) if lv || u => {
                let out_varying = branch_varying(b, params, &varying);
                let mut seeded = vec![false; b.outputs];
                for o in outs.get(&id).map(Vec::as_slice).unwrap_or(&[]) {
                    if let Node::Out { k, .. } = g.get(*o).node {
                        seeded[k] |= useful[o.index()] && out_varying[k];
                    }
                }
                let arms = [0, 1].map(|a| {
                    let arm = &b.arms[a];
                    let parent: Vec<bool> =
                        b.arm_inputs[a].iter().map(|i| varying[i.index()]).collect();
                    let roots: Vec<NodeId> = (0..b.outputs)
                        .filter(|k| seeded[*k])
                        .map(|k| arm.outputs[k])
                        .collect();
                    analyse_graph(&arm.graph, params, &parent, &roots, &arm.outputs)
                });
                for ((analysis, arm), inputs) in arms.iter().zip(&b.arms).zip(&b.arm_inputs) {
                    for (j, p) in inputs.iter().enumerate() {
                        useful[p.index()] |= analysis.active[arm.inputs[j].index()];
                    }
                }
                branches.insert(id, BranchAnalysis { arms, seeded });
            }
            _ => {}
        }
        if live[id.index()] {
            for d in g.deps(id) {
                live[d.index()] = true;
            }
        }
    }
    let active: Vec<bool> = (0..n).map(|i| useful[i] && varying[i]).collect();
    // A call whose value is a tuple is passed one upstream gradient per
    // component: a component that gets none is bound all the same, since
    // its zero is made from its value.
    for id in g.ids() {
        if let Some(components) = g.tuple_call(id).filter(|_| active[id.index()]) {
            for o in components {
                live[o.index()] = true;
            }
        }
    }
    let uses = uses_of(g, &active, &loops, &branches);
    Analysis {
        live,
        active,
        uses,
        loops,
        branches,
    }
}

/// The analysis of a loop's body, given which of the loop's results are useful.
fn analyse_loop(
    g: &Graph,
    id: NodeId,
    lp: &Loop,
    params: &[bool],
    varying: &[bool],
    useful: &[bool],
    outs: &HashMap<NodeId, Vec<NodeId>>,
) -> LoopAnalysis {
    let parent: Vec<bool> = lp.inputs.iter().map(|i| varying[i.index()]).collect();
    let (inputs, out_varying) = loop_varying(lp, params, parent);
    let mut seeded = vec![false; lp.carried];
    for o in outs.get(&id).map(Vec::as_slice).unwrap_or(&[]) {
        if let Node::Out { k, .. } = g.get(*o).node {
            seeded[k] |= useful[o.index()] && out_varying[k];
        }
    }
    loop {
        let roots: Vec<NodeId> = (0..lp.carried)
            .filter(|k| seeded[*k])
            .map(|k| lp.body.outputs[k])
            .collect();
        let body = analyse_graph(&lp.body.graph, params, &inputs, &roots, &lp.body.outputs);
        let mut changed = false;
        for (k, s) in seeded.iter_mut().enumerate() {
            if !*s && body.active[lp.body.inputs[k].index()] {
                *s = true;
                changed = true;
            }
        }
        if !changed {
            return LoopAnalysis { body, seeded };
        }
    }
}

/// The enclosing nodes either arm of a branch reads, each once, in order.
pub fn branch_inputs(b: &Branch) -> Vec<NodeId> {
    let mut all: Vec<NodeId> = Vec::new();
    for p in b.arm_inputs.iter().flatten() {
        if !all.contains(p) {
            all.push(*p);
        }
    }
    all
}

/// For each active node, its uses by active consumers, as (consumer,
/// position), in forward order: one contribution each.
fn uses_of(
    g: &Graph,
    active: &[bool],
    loops: &HashMap<NodeId, LoopAnalysis>,
    branches: &HashMap<NodeId, BranchAnalysis>,
) -> Vec<Vec<(NodeId, usize)>> {
    let mut uses = vec![Vec::new(); g.len()];
    for id in g.ids() {
        if let Node::Op { inputs, .. } = &g.get(id).node {
            if !active[id.index()] {
                continue;
            }
            for (pos, i) in inputs.iter().enumerate() {
                if active[i.index()] {
                    uses[i.index()].push((id, pos));
                }
            }
        }
        if let (Node::Loop(lp), Some(la)) = (&g.get(id).node, loops.get(&id)) {
            for (j, p) in lp.inputs.iter().enumerate() {
                let flows = if j < lp.carried {
                    la.seeded[j]
                } else {
                    la.body.active[lp.body.inputs[j].index()]
                };
                if flows && active[p.index()] {
                    uses[p.index()].push((id, j));
                }
            }
        }
    }
    for (id, ba) in branches {
        let Node::Branch(b) = &g.get(*id).node else {
            unreachable!("a branch")
        };
        for p in branch_inputs(b) {
            let flows = (0..2).any(|a| {
                b.arm_inputs[a]
                    .iter()
                    .position(|q| *q == p)
                    .is_some_and(|j| ba.arms[a].active[b.arms[a].inputs[j].index()])
            });
            if flows && active[p.index()] {
                uses[p.index()].push((*id, 0));
            }
        }
    }
    for u in &mut uses {
        u.sort();
    }
    uses
}
