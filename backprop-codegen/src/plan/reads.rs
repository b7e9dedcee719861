//! What a region's reverse sweep reads: the names of the locals its
//! decisions pass to rules, calls and nested regions. A loop keeps exactly
//! the locals of its body that its body's reverse sweep reads.

use super::loops::{DStart, Rows};
use super::region::{Operand, Part, Raw, Region, RevStep, Upstream};
use super::Shared;
use crate::graph::{CallArg, ConstArg, Node, NodeId, SliceElems};
use crate::vocab::{self, ScalarRule, CONTRIBUTES, OPERATOR, PART};
use proc_macro2::Ident;
use std::collections::HashSet;
use syn::visit::Visit;

/// The names the reverse sweep of `r` reads.
pub fn reverse(r: &Region, sh: &Shared) -> HashSet<Ident> {
    reverse_split(r, sh).0
}

/// The names the reverse sweep of `r` reads, and those of them it reads
/// only for their shapes (a part's rule, a zero of the value's shape).
pub fn reverse_split(r: &Region, sh: &Shared) -> (HashSet<Ident>, HashSet<Ident>) {
    let mut reads = Reads {
        r,
        sh,
        names: HashSet::new(),
        values: HashSet::new(),
    };
    for step in &r.reverse {
        reads.step(step);
    }
    // A value computed again reads its operands and its index instead,
    // but for those computed again themselves.
    for &id in &r.remade {
        match r.node(id) {
            Node::Op { inputs, consts, .. } => {
                consts.iter().for_each(|c| reads.constant(c));
                inputs.iter().for_each(|i| reads.node_operand(*i));
            }
            Node::Const(c) => reads.constant(c),
            _ => {}
        }
    }
    for &id in &r.remade {
        reads.names.remove(r.name(id));
        reads.values.remove(r.name(id));
    }
    let shapes = reads.names.difference(&reads.values).cloned().collect();
    (reads.names, shapes)
}

struct Reads<'a, 'g> {
    r: &'a Region<'g>,
    sh: &'a Shared<'a>,
    names: HashSet<Ident>,
    /// The names read for their values (the others only for shapes).
    values: HashSet<Ident>,
}

impl Reads<'_, '_> {
    fn add(&mut self, name: &Ident) {
        self.names.insert(name.clone());
        self.values.insert(name.clone());
    }

    /// A name read only for its value's shape.
    fn shape(&mut self, name: &Ident) {
        self.names.insert(name.clone());
    }

    /// A node read only for its shape: a local by its name, anything
    /// else as `node_operand` reads it.
    fn node_shape(&mut self, id: NodeId) {
        match self.r.operand(&self.sh.func.params, id) {
            Operand::Local(ident) => self.shape(&ident),
            o => self.operand(&o),
        }
    }

    /// The names a nested region's reverse sweep reads, as it reads them.
    fn nested(&mut self, (names, shapes): (HashSet<Ident>, HashSet<Ident>)) {
        for n in &names {
            if shapes.contains(n) {
                self.shape(n);
            } else {
                self.add(n);
            }
        }
    }

    fn operand(&mut self, o: &Operand) {
        match o {
            Operand::Param { ident, .. }
            | Operand::Local(ident)
            | Operand::StandIn(ident)
            | Operand::Ref(ident) => self.add(ident),
            Operand::Literal(_) => {}
        }
    }

    fn raw(&mut self, raw: &Raw) {
        if let Raw::Local(i) = raw {
            self.add(i);
        }
    }

    fn node_operand(&mut self, id: NodeId) {
        let o = self.r.operand(&self.sh.func.params, id);
        self.operand(&o);
    }

    fn part(&mut self, p: &Part) {
        self.add(p.ident());
    }

    /// Every name a constant expression mentions, a binding as its local.
    fn constant(&mut self, c: &ConstArg) {
        struct Names<'c, 'a, 'b, 'g> {
            c: &'c ConstArg,
            reads: &'c mut Reads<'a, 'g>,
            _b: std::marker::PhantomData<&'b ()>,
        }
        impl<'ast> Visit<'ast> for Names<'_, '_, '_, '_> {
            fn visit_expr(&mut self, e: &'ast syn::Expr) {
                if let syn::Expr::Path(p) = e {
                    if let (None, Some(ident)) = (&p.qself, p.path.get_ident()) {
                        if let Some((id, _)) = self.c.resolve(&ident.to_string()) {
                            let raw = self.reads.r.raw(id);
                            self.reads.raw(&raw);
                            return;
                        }
                    }
                }
                syn::visit::visit_expr(self, e);
            }
            fn visit_ident(&mut self, i: &'ast Ident) {
                self.reads.add(i);
            }
            fn visit_macro(&mut self, m: &'ast syn::Macro) {
                // `s![..]`: its expressions, which `ConstArg::render` renames.
                if let Some(elems) = SliceElems::of(m) {
                    for (e, step) in &elems.0 {
                        self.visit_expr(e);
                        if let Some(step) = step {
                            self.visit_expr(step);
                        }
                    }
                }
            }
        }
        let mut v = Names {
            c,
            reads: self,
            _b: std::marker::PhantomData,
        };
        v.visit_expr(&c.expr);
    }

    /// The operands and constants a rule of `id` is passed.
    fn rule_args(&mut self, id: NodeId) {
        let r = self.r;
        if let Node::Op { consts, .. } = r.node(id) {
            consts.iter().for_each(|c| self.constant(c));
        }
        let rule_takes = r.rule_takes.contains(&id);
        let skip = r.op(id).rule_skips();
        for (p, i) in r.inputs(id).iter().enumerate().skip(skip) {
            if rule_takes && p == 0 {
                self.add(r.name(*i));
            } else if p == 0 && r.op(id).has(PART) {
                // A part's rule reads only the shape of what it is part of.
                self.node_shape(*i);
            } else {
                self.node_operand(*i);
            }
        }
        self.add(r.adj(id));
    }

    /// An operator's rule on scalars (`crate::vocab::ScalarRule`): the
    /// operands its arithmetic reads.
    fn scalar_rule(&mut self, id: NodeId, pos: usize) {
        let inputs = self.r.inputs(id);
        self.add(self.r.adj(id));
        let reads: &[usize] = match self.r.op(id).def().scalar_rules[pos.min(1)] {
            ScalarRule::G | ScalarRule::NegG => &[],
            ScalarRule::TimesRhs | ScalarRule::OverRhs => &[1],
            ScalarRule::TimesLhs => &[0],
            ScalarRule::Quotient => {
                // `-(g * y) / b`, `y` the quotient.
                self.node_operand(id);
                &[1]
            }
        };
        for &k in reads {
            self.node_operand(inputs[k]);
        }
    }

    fn step(&mut self, step: &RevStep) {
        let r = self.r;
        let arithmetic = |id: &NodeId| r.plain.contains(id) && r.op(*id).has(OPERATOR);
        match step {
            RevStep::Rule {
                id, pos, target, ..
            }
            | RevStep::AddInto {
                id, pos, target, ..
            } if arithmetic(id) => {
                self.add(target);
                if let RevStep::AddInto { prev, .. } = step {
                    self.part(prev);
                }
                self.scalar_rule(*id, *pos);
            }
            RevStep::Acc { id, pos, acc, .. } if arithmetic(id) => {
                self.add(acc);
                self.scalar_rule(*id, *pos);
            }
            RevStep::Both { id, lhs, rhs, .. } if arithmetic(id) => {
                self.add(lhs);
                self.add(rhs);
                self.scalar_rule(*id, 0);
                self.scalar_rule(*id, 1);
            }
            RevStep::Sum { adj, parts, .. } => {
                self.add(adj);
                parts.iter().for_each(|p| self.part(p));
            }
            RevStep::SumSquare {
                id,
                x,
                target,
                over,
            } => {
                self.add(target);
                self.add(r.adj(*id));
                if *over {
                    self.add(r.name(*x));
                } else {
                    self.node_operand(*x);
                }
            }
            RevStep::Call {
                id,
                targets,
                upstreams,
            } => {
                targets.iter().flatten().for_each(|t| self.add(t));
                for u in upstreams {
                    match u {
                        Upstream::Adj(adj) => self.add(adj),
                        // The zero is made from the component's value.
                        Upstream::Zero(o) => self.node_operand(*o),
                    }
                }
                self.call(*id);
            }
            RevStep::Lend {
                id,
                lhs,
                rhs,
                own,
                lent,
                ..
            } => {
                [lhs, rhs, own, lent].iter().for_each(|n| self.add(n));
                self.rule_args(*id);
            }
            RevStep::Both { id, lhs, rhs, .. } => {
                self.add(lhs);
                self.add(rhs);
                self.rule_args(*id);
            }
            RevStep::Acc { id, acc, .. } => {
                self.add(acc);
                self.rule_args(*id);
            }
            RevStep::Defer {
                id,
                outers,
                step,
                term,
                acc,
                ..
            } => {
                [outers, step, term, acc].iter().for_each(|n| self.add(n));
                self.rule_args(*id);
            }
            RevStep::AddInto {
                id, target, prev, ..
            } => {
                self.add(target);
                self.part(prev);
                self.rule_args(*id);
            }
            RevStep::Rule { id, target, .. } => {
                self.add(target);
                self.rule(*id);
            }
            RevStep::Loop(id) => self.looped(*id),
            RevStep::Branch(id) => self.branch(*id),
        }
    }

    /// What the rule of `id` that makes a new gradient is passed: a unary
    /// kernel's what it reads (and the kernel's constants), any other op's
    /// operands, constants and output or saved value.
    fn rule(&mut self, id: NodeId) {
        let r = self.r;
        let Node::Op { op, consts, .. } = r.node(id) else {
            unreachable!("an op")
        };
        consts.iter().for_each(|c| self.constant(c));
        if let Some(k) = op.unary_kernel() {
            self.add(r.adj(id));
            match (k.reads, r.sin_cos.get(&id)) {
                // `sin x`'s rule reads the forward's `cos x` instead of `x`.
                (vocab::Reads::X, Some(&partner)) => self.node_operand(partner),
                (vocab::Reads::X | vocab::Reads::XOut, _) => self.node_operand(r.inputs(id)[0]),
                _ => {}
            }
            if matches!(k.reads, vocab::Reads::Out | vocab::Reads::XOut) {
                self.node_operand(id);
            }
            return;
        }
        self.rule_args(id);
        match &r.saved[id.index()] {
            Some(saved) => self.add(saved),
            None if op.def().reads_out && !op.has(CONTRIBUTES) => self.node_operand(id),
            None => {}
        }
    }

    /// A call's rule: its arguments as the user passed them (its upstream
    /// gradients are the step's).
    fn call(&mut self, id: NodeId) {
        let r = self.r;
        let Node::Op {
            op: crate::vocab::Op::Call(k),
            inputs,
            ..
        } = r.node(id)
        else {
            unreachable!("a call")
        };
        let call = &r.graph.calls[*k as usize];
        if call.map.is_some() {
            // A mapped closure's reverse reads the local derivatives it kept.
            let saved = r.saved[id.index()]
                .as_ref()
                .expect("a closure's kept derivatives");
            self.add(saved);
            return;
        }
        for a in &call.args {
            match a {
                CallArg::Const(c) => self.constant(c),
                CallArg::Input {
                    input,
                    view,
                    by_ref,
                } => {
                    let id = inputs[*input];
                    if *by_ref && !*view {
                        self.node_operand(id);
                    } else if !matches!(r.node(id), Node::Float(_)) {
                        let raw = r.raw(id);
                        self.raw(&raw);
                    }
                }
            }
        }
    }

    /// A nested loop's reverse sweep.
    fn looped(&mut self, id: NodeId) {
        let r = self.r;
        let Node::Loop(lp) = r.node(id) else {
            unreachable!("a loop")
        };
        let l = &r.loops[&id];
        let rev = &l.rev;
        for (k, d, start) in &rev.d_start {
            self.add(d);
            match start {
                DStart::Copy(c) | DStart::Sum(c) => c.iter().for_each(|p| self.part(p)),
                DStart::Same => {}
                DStart::ZerosIn => self.add(&l.state[*k]),
                DStart::Zeros => self.shape(&l.state[*k]),
            }
        }
        if let Some(spare) = &rev.spare {
            self.add(spare);
        }
        for (j, acc) in &l.accs {
            self.add(acc);
            // Its start, a zero of the input's shape.
            self.node_shape(lp.inputs[*j]);
        }
        for t in &rev.terms {
            self.add(&t.acc);
            match &t.v_from {
                Some(Rows::State(rows)) => self.add(rows),
                Some(Rows::Input(m)) => self.operand(m),
                Some(Rows::Settled { state, .. }) => self.add(state),
                None => {}
            }
        }
        for s in &l.settled {
            self.add(&l.state[s.k]);
        }
        if let Some(outers) = &l.body.outers {
            self.add(outers);
        }
        for (k, local, carry) in &l.handoff {
            self.add(&l.state[*k]);
            self.add(local);
            self.add(carry);
            self.add(&l.ins[*k]);
        }
        self.nested(reverse_split(&l.body, self.sh));
        if let Some(v) = &l.body.loop_var {
            self.add(v);
        }
        if let Some(step) = &l.step {
            self.add(step);
        }
        l.kept.iter().for_each(|n| self.add(n));
        self.add(&l.start);
        self.add(&l.end);
        if l.records() {
            self.add(l.flat.as_ref().unwrap_or(&l.steps));
        }
        for rows in &l.rows {
            self.add(&rows.rows);
            self.add(&l.ins[rows.k]);
            if let Some(next) = &rows.next {
                self.add(next);
            }
        }
        for (j, acc) in &l.accs {
            self.add(acc);
            let input = lp.body.inputs[*j];
            if l.body.active(input) {
                self.add(l.body.adj(input));
            }
        }
        for (k, d) in l.d_state.iter().enumerate() {
            if let Some(d) = d {
                self.add(d);
                let input = lp.body.inputs[k];
                if l.body.active(input) {
                    self.add(l.body.adj(input));
                } else {
                    self.add(&l.ins[k]);
                }
            }
        }
        for (target, d) in &rev.targets {
            self.add(target);
            self.add(d);
        }
    }

    /// A nested branch's reverse sweep.
    fn branch(&mut self, id: NodeId) {
        let r = self.r;
        let b = &r.branches[&id];
        self.add(&b.cond);
        b.targets.iter().for_each(|t| self.add(t));
        for (a, arm) in b.arms.iter().enumerate() {
            if !b.kept[a].is_empty() {
                self.add(&b.saved[a]);
            }
            b.kept[a].iter().for_each(|n| self.add(n));
            for (local, result, _) in &b.borrowed[a] {
                self.add(local);
                self.node_operand(*result);
            }
            self.nested(reverse_split(arm, self.sh));
            for (d, p) in b.results[a].iter().zip(&b.inputs) {
                match d {
                    Some(d) => self.add(d),
                    None => self.node_operand(*p),
                }
            }
        }
    }
}
