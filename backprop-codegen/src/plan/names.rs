//! Names: every local and adjoint of a region gets its name, from the user's
//! names where there is one (`h1`, `d_h1`), numbered after the binding it
//! belongs to otherwise (`h1_2`), and never one the user's function uses.

use super::region::{Branch, InputForm, Loop, Operand, Raw, Region};
use super::{in_place, plain, sin_cos, Shared};
use crate::graph::{Name, Node, NodeId};

use crate::vocab::Op;
use proc_macro2::Ident;

/// Names every local of the region, then every adjoint, then plans where
/// its values live, then names the loops' bodies and the branches' arms.
/// `outputs` are the function's values and their upstream gradients, at
/// the top (each output that is no other component).
pub fn assign<'g>(r: &mut Region<'g>, sh: &mut Shared, outputs: &[(NodeId, Ident)]) {
    in_place::plan(r, sh);
    plain::plan(r, sh);
    sin_cos::plan(r, sh);
    let mut loop_ids = Vec::new();
    let mut branch_ids = Vec::new();
    for id in r.graph.ids() {
        let data = r.graph.get(id);
        let name = match (&data.node, &data.name) {
            (Node::Param(i), _) => {
                let ident = sh.func.params[*i].ident.clone();
                sh.namer.reserve(&ident);
                Some(ident)
            }
            (Node::Float(_) | Node::Int(_) | Node::Error | Node::Input(_), _) => None,
            (Node::LoopVar, _) => r.loop_var.clone(),
            _ if !r.live(id) || r.unnamed(id) => None,
            (Node::Loop(lp), _) => {
                let plan = new_loop(r, sh, id, lp);
                r.loops.insert(id, plan);
                loop_ids.push(id);
                None
            }
            (Node::Branch(b), _) => {
                let plan = new_branch(r, sh, id, b);
                r.branches.insert(id, plan);
                branch_ids.push(id);
                None
            }
            // `let (r, theta) = polar(x, y);` binds its components, not itself.
            (Node::Op { .. }, _) if r.graph.tuple_call(id).is_some() => None,
            (Node::Out { of, k }, _) if r.loops.contains_key(of) => {
                Some(r.loops[of].state[*k].clone())
            }
            (_, Name::User(n)) => Some(sh.namer.user(n)),
            (_, Name::Temp(base)) => Some(sh.namer.numbered(base)),
            (_, Name::Output) => Some(sh.namer.fresh("out")),
            (_, Name::Component(k)) => Some(sh.namer.fresh(&format!("out_{k}"))),
        };
        let saved = match (&data.node, &name) {
            // A mapped closure keeps its local derivatives.
            (
                Node::Op {
                    op: Op::Call(k), ..
                },
                Some(n),
            ) => r.graph.calls[*k as usize]
                .map
                .as_ref()
                .map(|_| sh.namer.fresh(&format!("{n}_local"))),
            (Node::Op { op, .. }, Some(n)) => op
                .def()
                .saves
                .map(|(s, _)| sh.namer.fresh(&format!("{n}_{s}"))),
            _ => None,
        };
        r.names.push(name);
        r.saved.push(saved);
    }
    name_unmade(r, sh);
    for id in r.graph.ids() {
        let top_output = outputs.iter().find(|(o, _)| {
            *o == id && matches!(r.graph.get(id).name, Name::Output | Name::Component(_))
        });
        // A square summed at once has no adjoint: its sum's rule skips it;
        // nor has a call whose value is a tuple: its components have.
        let adj = if !r.active(id) || r.unmade.contains(&id) || r.graph.tuple_call(id).is_some() {
            None
        } else if let Some((_, d_out)) = top_output {
            Some(d_out.clone())
        } else {
            let base = match r.node(id) {
                Node::Input(j) => format!("{}_step", raw_text(&r.inputs[*j].name)),
                _ => r.name(id).to_string(),
            };
            Some(sh.namer.fresh(&format!("d_{base}")))
        };
        r.adj.push(adj);
    }
    for id in loop_ids {
        let mut lp_plan = r.loops.remove(&id).expect("a loop plan");
        if let Node::Loop(lp) = r.node(id) {
            lp_plan.body.input_ty = crate::types::loop_input_types(lp, sh.func, &r.ty);
        }
        assign(&mut lp_plan.body, sh, &[]);
        r.loops.insert(id, lp_plan);
    }
    for id in branch_ids {
        let mut b = r.branches.remove(&id).expect("a branch plan");
        if let Node::Branch(branch) = r.node(id) {
            // An arm's input is the enclosing value.
            for (arm, inputs) in b.arms.iter_mut().zip(&branch.arm_inputs) {
                arm.input_ty = inputs.iter().map(|p| r.ty[p.index()]).collect();
            }
        }
        for arm in &mut b.arms {
            assign(arm, sh, &[]);
        }
        r.branches.insert(id, b);
    }
}

/// The values made where their reader is get a name from it: the sum under
/// a fused function is `{result}_pre`, a product added into a sum
/// `{sum}_product`; then each kept shape is named `{value}_shape`.
fn name_unmade(r: &mut Region, sh: &mut Shared) {
    let mut fused: Vec<(NodeId, NodeId)> = r.fused.iter().map(|(f, x)| (*x, *f)).collect();
    fused.sort();
    for (x, f) in fused {
        let name = sh.namer.fresh(&format!("{}_pre", r.name(f)));
        r.names[x.index()] = Some(name);
    }
    let mut products: Vec<(NodeId, NodeId)> = r.dot_adds.iter().map(|(s, d)| (*d, *s)).collect();
    products.sort();
    for (d, s) in products {
        let name = sh.namer.fresh(&format!("{}_product", r.name(s)));
        r.names[d.index()] = Some(name);
    }
    let mut kept: Vec<NodeId> = r
        .given
        .iter()
        .filter(|(_, kept)| **kept)
        .map(|(x, _)| *x)
        .collect();
    kept.sort();
    for x in kept {
        let name = sh.namer.fresh(&format!("{}_shape", r.local(x)));
        r.shapes.insert(x, name);
    }
}

/// A name as text (a literal as its tokens).
fn raw_text(raw: &Raw) -> String {
    match raw {
        Raw::Local(i) => i.to_string(),
        Raw::Literal(t) => format!("({t})"),
    }
}

/// The names of a loop, and its body's region with the forms of its inputs.
fn new_loop<'g>(
    r: &Region<'g>,
    sh: &mut Shared,
    id: NodeId,
    lp: &'g crate::graph::Loop,
) -> Loop<'g> {
    let state: Vec<Ident> = (0..lp.carried)
        .map(|k| sh.namer.user(&r.carried_name(id, k)))
        .collect();
    let ins: Vec<Ident> = state
        .iter()
        .map(|s| sh.namer.fresh(&format!("{s}_in")))
        .collect();
    let var = lp.var.as_ref().map(|v| sh.namer.user(&v.to_string()));
    let base = var.as_ref().map_or("range".to_owned(), |v| v.to_string());
    let start = sh.namer.fresh(&format!("{base}_start"));
    let end = sh.namer.fresh(&format!("{base}_end"));
    let steps = sh.namer.fresh("steps");
    let mut inputs: Vec<InputForm> = ins
        .iter()
        .map(|i| InputForm {
            operand: Operand::Local(i.clone()),
            name: Raw::Local(i.clone()),
            borrowed_in_reverse: false,
            view: false,
        })
        .collect();
    for p in &lp.inputs[lp.carried..] {
        inputs.push(InputForm {
            operand: r.operand(&sh.func.params, *p),
            name: r.raw(*p),
            borrowed_in_reverse: false,
            view: r.is_view(*p),
        });
    }
    let la = &r.a.loops[&id];
    let mut body = Region::new(
        &lp.body.graph,
        &la.body,
        inputs,
        var,
        lp.body.outputs.clone(),
    );
    body.owned_inputs = lp.carried;
    Loop {
        body,
        state,
        ins,
        start,
        end,
        bounds_again: false,
        fused: false,
        steps,
        flat: None,
        active: false,
        d_state: Vec::new(),
        init: Vec::new(),
        next: Vec::new(),
        kept: Vec::new(),
        saves: Vec::new(),
        accs: Vec::new(),
        handoff: Vec::new(),
        rows: Vec::new(),
        step: None,
        var_read: false,
        rev: Default::default(),
        settled: Vec::new(),
        recycled: Vec::new(),
        shared_accs: Vec::new(),
    }
}

/// The names of a branch, and its arms' regions with the forms of their inputs.
fn new_branch<'g>(
    r: &Region<'g>,
    sh: &mut Shared,
    id: NodeId,
    b: &'g crate::graph::Branch,
) -> Branch<'g> {
    let ba = &r.a.branches[&id];
    let arms = [0, 1].map(|a| {
        let inputs = b.arm_inputs[a]
            .iter()
            .map(|p| InputForm {
                operand: r.operand(&sh.func.params, *p),
                name: r.raw(*p),
                borrowed_in_reverse: false,
                view: r.is_view(*p),
            })
            .collect();
        Region::new(
            &b.arms[a].graph,
            &ba.arms[a],
            inputs,
            r.loop_var.clone(),
            b.arms[a].outputs.clone(),
        )
    });
    let cond = sh.namer.fresh("cond");
    let saved = [sh.namer.fresh("then_saved"), sh.namer.fresh("else_saved")];
    Branch {
        arms,
        cond,
        saved,
        active: false,
        next: [Vec::new(), Vec::new()],
        kept: [Vec::new(), Vec::new()],
        saves: [Vec::new(), Vec::new()],
        borrowed: [Vec::new(), Vec::new()],
        inputs: Vec::new(),
        targets: Vec::new(),
        results: [Vec::new(), Vec::new()],
    }
}
