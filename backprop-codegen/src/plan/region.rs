//! The plan of one region (the function's body, a loop body or a branch
//! arm): the names of its locals and adjoints, where each value lives, and
//! the reverse sweep as a list of decisions.

use crate::check::Analysis;
use crate::graph::{Graph, Name, Node, NodeId};
use crate::vocab::{Op, Ty};
use proc_macro2::{Ident, TokenStream};
use std::collections::{HashMap, HashSet};

/// How a region's `Input(j)` node is written: passed to an op, and by name.
#[derive(Clone)]
pub struct InputForm {
    pub operand: Operand,
    pub name: Raw,
    /// An arm's input that the enclosing arm's reverse sweep holds by
    /// reference (a result it borrows, see `borrowed_results`): passed as
    /// it is there.
    pub borrowed_in_reverse: bool,
    /// The enclosing region's value is a view op's (`x.t()`), held as a
    /// view: a call passes it through `bp::call_arg`.
    pub view: bool,
}

/// How an op receives a value.
#[derive(Clone)]
pub enum Operand {
    /// A parameter: bare when it is a reference already, else borrowed.
    Param { ident: Ident, by_ref: bool },
    /// `&local`.
    Local(Ident),
    /// `&lit`.
    Literal(TokenStream),
    /// `&bp::stand_in(&shape)`: a value whose buffer was given away, of
    /// which only the shape is kept.
    StandIn(Ident),
    /// A local that holds a reference to the value: passed as it is.
    Ref(Ident),
}

/// A value by its plain name.
#[derive(Clone)]
pub enum Raw {
    Local(Ident),
    /// A literal, parenthesised.
    Literal(TokenStream),
}

impl Raw {
    /// The local's name, if it is one.
    pub fn ident(&self) -> Option<&Ident> {
        match self {
            Raw::Local(i) => Some(i),
            Raw::Literal(_) => None,
        }
    }
}

/// One contribution to an adjoint, as the sum of the fork rule adds it.
#[derive(Clone)]
pub enum Part {
    /// A local.
    Name(Ident),
    /// A copy of a borrowed gradient (`bp::copy(d)`).
    CopyOf(Ident),
}

impl Part {
    /// The local it names.
    pub fn ident(&self) -> &Ident {
        match self {
            Part::Name(i) | Part::CopyOf(i) => i,
        }
    }

    /// Whether it is the local `name` itself.
    pub fn is(&self, name: &Ident) -> bool {
        matches!(self, Part::Name(i) if i == name)
    }
}

/// One decision of a reverse sweep, in the order the sweep runs.
pub enum RevStep {
    /// `let adj = p1 + p2 + ...;` (or `let adj = seed;`) of node `id`.
    Sum {
        id: NodeId,
        adj: Ident,
        parts: Vec<Part>,
    },
    /// `let target = bp::sum_square_vjp(..)` of the sum node `id`; `over`:
    /// written over `x`.
    SumSquare {
        id: NodeId,
        x: NodeId,
        target: Ident,
        over: bool,
    },
    /// `let (t, _, ..) = f_vjp(args.., adj);` for a call, or
    /// `f_vjp(args.., (u0, u1, ..))` with one upstream gradient per
    /// component for a call whose value is a tuple.
    Call {
        id: NodeId,
        targets: Vec<Option<Ident>>,
        upstreams: Vec<Upstream>,
    },
    /// `let (lhs, rhs) = bp::add_vjp_lend(adj, a, b, borrower);
    /// let lent = bp::lent(lent, &own);`: the right operand borrows where
    /// `rhs_borrows`.
    Lend {
        id: NodeId,
        rhs_borrows: bool,
        lhs: Ident,
        rhs: Ident,
        own: Ident,
        lent: Ident,
    },
    /// `let (lhs, rhs) = bp::zip_vjp_both(adj, a, b, K);`
    Both { id: NodeId, lhs: Ident, rhs: Ident },
    /// `bp::rule(g, a, b).add_to(&mut acc);`: the contribution to operand
    /// `pos`, added into an accumulator.
    Acc {
        id: NodeId,
        pos: usize,
        acc: Ident,
        borrow: bool,
    },
    /// `bp::dot_vjp_lhs(g, a, b).defer(outers.term(k, step), &mut acc);`
    Defer {
        id: NodeId,
        pos: usize,
        outers: Ident,
        step: Ident,
        term: Ident,
        acc: Ident,
        borrow: bool,
    },
    /// `let target = bp::rule(g, a, b).added_to(prev);`
    AddInto {
        id: NodeId,
        pos: usize,
        target: Ident,
        prev: Part,
        borrow: bool,
    },
    /// `let target = bp::rule(g, args.., consts.., tail);`
    Rule {
        id: NodeId,
        pos: usize,
        target: Ident,
        borrow: bool,
    },
    /// A loop's reverse sweep.
    Loop(NodeId),
    /// A branch's reverse sweep.
    Branch(NodeId),
}

/// The upstream gradient a call's rule is passed for its value, or for
/// one component of a value that is a tuple.
pub enum Upstream {
    /// The adjoint of the value (of the component).
    Adj(Ident),
    /// A zero of the component's value, which gets no gradient (it is not
    /// used, or does not reach the function's value): `bp::zeros_like(&c)`.
    Zero(NodeId),
}

/// How a loop's carried variable starts.
pub enum Init {
    /// The initial value's buffer, moved in.
    Moved(Ident),
    /// A copy of the initial value.
    Copy(Operand),
    /// A scalar, by value.
    Value(Operand),
    /// A clone of a constant of another type.
    Const(Operand),
}

/// A carried variable kept in a `bp::Rows`: row `k` is its value at the
/// start of iteration `k`, row `k + 1` its new value.
pub struct KeptRows {
    /// Which carried variable.
    pub k: usize,
    /// The `Rows`.
    pub rows: Ident,
    /// The body's local of the new value, when the reverse sweep reads it
    /// (then the value after the last iteration is a row too).
    pub next: Option<Ident>,
    /// The `Spare` that takes the buffer of the starting value once the
    /// iteration no longer needs it.
    pub spare: Option<Ident>,
}

/// A product of a loop body whose outer products the loop's `Outers` keeps.
pub struct OuterTerm {
    /// The local that names the term (`d_w_term`).
    pub name: Ident,
    /// The accumulator they are added into.
    pub acc: Ident,
    /// The gradient (`u`), by the name of the gradient it borrows if it does:
    /// two terms of one gradient share their `u`s.
    pub u: Ident,
    /// The vector operand (`v`) of a matrix-vector product, whose values may
    /// be read where they are kept; `None` for a vector-matrix product.
    pub v: Option<NodeId>,
}

/// A value each carried variable has at the end of an iteration.
pub enum Next {
    /// A local of the body (or a starting value passed through).
    Local(Ident),
    /// A copy of an operand.
    Copy(Operand),
    /// A scalar, by value.
    Value(Operand),
    /// A clone of a constant the macro knows nothing of (a `bool`, a
    /// count): `bp::copy_const`.
    Const(Operand),
}

impl Next {
    pub fn is(&self, name: &Ident) -> bool {
        matches!(self, Next::Local(n) if n == name)
    }
}

/// A local an iteration or an arm keeps for its reverse sweep.
pub enum Kept {
    /// Moved.
    Moved(Ident),
    /// A view of another local: an owned copy.
    Copy(Ident),
    /// Also a result of the region: a clone.
    Clone(Ident),
    /// An array whose shape alone the reverse sweep reads: its shape, lent
    /// to the rules as a stand-in of that name (see `remat`).
    Shape(Ident),
}

/// The plan of one loop.
pub struct Loop<'g> {
    pub body: Region<'g>,
    /// The carried state, one `let mut` each (the loop's results after it).
    pub state: Vec<Ident>,
    /// The carried values at the start of an iteration.
    pub ins: Vec<Ident>,
    pub start: Ident,
    pub end: Ident,
    /// The bounds are computed again where the reverse sweep runs the loop
    /// backwards, rather than kept by the region around it (see
    /// `remat::bounds_again`).
    pub bounds_again: bool,
    /// A sum whose reverse runs in the forward loop, seeded with one, and
    /// whose accumulators the reverse sweep scales (see `fused`).
    pub fused: bool,
    /// What each iteration keeps for the reverse sweep.
    pub steps: Ident,
    /// In a loop nested in another, `steps` is one vector of the whole
    /// function, and this names where the records of the current run of
    /// the loop start in it (see `loops::flatten`).
    pub flat: Option<Ident>,
    /// Some adjoint flows through the loop.
    pub active: bool,
    /// The adjoint of each carried state that has one.
    pub d_state: Vec<Option<Ident>>,
    /// How each carried variable starts.
    pub init: Vec<Init>,
    /// The value each carried variable has at the end of an iteration.
    pub next: Vec<Next>,
    /// The locals each iteration keeps, and how (moved, copied, cloned).
    pub kept: Vec<Ident>,
    pub saves: Vec<Kept>,
    /// The accumulator of each captured value that gets a gradient, by its
    /// position among the loop's inputs.
    pub accs: Vec<(usize, Ident)>,
    /// A carried value that the reverse sweep reads and that is not kept:
    /// the carried variable, the body's local, and the local that carries
    /// it back from one iteration to the one before.
    pub handoff: Vec<(usize, Ident, Ident)>,
    /// Carried arrays kept as the rows of one buffer.
    pub rows: Vec<KeptRows>,
    /// The index of an iteration among the kept steps, where read.
    pub step: Option<Ident>,
    /// The reverse sweep of the body reads the loop's variable.
    pub var_read: bool,
    /// The reverse loop's own decisions.
    pub rev: super::loops::Reverse,
    /// Locals the reverse sweep reads back from rows of the buffer the
    /// loop leaves behind (see `settled`).
    pub settled: Vec<super::settled::Settled>,
    /// Written values whose buffers the next iteration computes into.
    pub recycled: Vec<super::settled::Recycled>,
    /// The accumulators of `accs` that are the enclosing loop's (see
    /// `nested`): declared there.
    pub shared_accs: Vec<Ident>,
}

impl Loop<'_> {
    /// Whether the forward keeps a record of each iteration: what the
    /// reverse sweep reads of it, or its number (rows, outer products). A
    /// loop whose reverse reads nothing of its iterations walks its range
    /// back without one (every iteration of the range runs: an exit is a
    /// flag).
    pub fn records(&self) -> bool {
        self.active && (!self.saves.is_empty() || self.step.is_some() || self.body.outers.is_some())
    }
}

/// The plan of one branch.
pub struct Branch<'g> {
    pub arms: [Region<'g>; 2],
    pub cond: Ident,
    /// What each arm keeps for the reverse sweep.
    pub saved: [Ident; 2],
    /// Some adjoint flows through the branch.
    pub active: bool,
    /// The value of each result of each arm.
    pub next: [Vec<Next>; 2],
    /// The locals each arm keeps (those its reverse sweep reads), views
    /// first, and how.
    pub kept: [Vec<Ident>; 2],
    pub saves: [Vec<Kept>; 2],
    /// The results of each arm its reverse sweep reads, which it borrows
    /// from the branch's result after the branch (instead of a clone): the
    /// arm's local, the result, and whether it is a scalar (copied).
    pub borrowed: [Vec<(Ident, NodeId, bool)>; 2],
    /// The enclosing values whose adjoints the branch contributes to, their
    /// contributions' names, and for each arm the gradient of each of them
    /// (`None`: a zero, the arm does not read it).
    pub inputs: Vec<NodeId>,
    pub targets: Vec<Ident>,
    pub results: [Vec<Option<Ident>>; 2],
}

/// The plan of one region.
pub struct Region<'g> {
    pub graph: &'g Graph,
    pub a: &'g Analysis,
    pub inputs: Vec<InputForm>,
    /// The loop variable, in a loop body.
    pub loop_var: Option<Ident>,
    /// The local each node lives in (`None` for literals and inputs).
    pub names: Vec<Option<Ident>>,
    /// The saved intermediate of an op that keeps one (softmax probabilities).
    pub saved: Vec<Option<Ident>>,
    /// The adjoint of each active node.
    pub adj: Vec<Option<Ident>>,
    /// How many contributions are known before the sweep (`d_out`, a loop's
    /// state adjoint).
    pub seeds: Vec<usize>,
    /// The contributions to each node's adjoint: seeds, then those planned
    /// so far.
    pub contributions: Vec<Vec<Part>>,
    /// An adjoint that arrives by reference (an array output's `d_out`).
    pub borrowed: Vec<bool>,
    pub loops: HashMap<NodeId, Loop<'g>>,
    pub branches: HashMap<NodeId, Branch<'g>>,
    /// The locals the forward statements define, in order (what a loop keeps).
    pub defined: Vec<Ident>,
    /// Those of them that are views of another local.
    pub views: HashSet<Ident>,
    /// The values the region gives back (the function's value, a region's results).
    pub results: Vec<NodeId>,
    /// What is known of each node's type.
    pub ty: Vec<Option<Ty>>,
    /// The nodes known to be scalars (of type `Ty::Float`).
    pub scalar: Vec<bool>,
    /// In a loop body or an arm: what is known of its inputs' types.
    pub input_ty: Vec<Option<Ty>>,
    /// An op that writes its result over its first operand's buffer.
    pub takes: HashSet<NodeId>,
    /// A temporary whose buffer its one reader takes over; the local that
    /// keeps its shape for the adjoint rules, when they run.
    pub given: HashMap<NodeId, bool>,
    /// The name of each kept shape, by the value whose buffer was given.
    pub shapes: HashMap<NodeId, Ident>,
    /// In a loop body, the carried inputs whose kept shapes the reverse
    /// reads from a carried adjoint (by its name) rather than the
    /// iterations keeping them (see `remat`).
    pub shapes_from: HashMap<NodeId, Ident>,
    /// Views of a value written in place before they are last read: each
    /// is an owned copy of the part it views (see `writes`).
    pub copied: HashSet<NodeId>,
    /// How many of the region's first inputs are locals it owns (a loop
    /// body's carried variables).
    pub owned_inputs: usize,
    /// An op whose rule is the last reader of its first operand, and takes
    /// it by value to write the gradient over it.
    pub rule_takes: HashSet<NodeId>,
    /// `sum(square(x))` as one reduction: the sum, its `x`, and whether its
    /// rule may write over `x`. The square is never made.
    pub sum_squares: HashMap<NodeId, (NodeId, bool)>,
    /// The squares of `sum_squares`.
    pub unmade: HashSet<NodeId>,
    /// An in-place elementwise function over the result of an in-place
    /// arithmetic op, both in one pass: the function's node, and the
    /// arithmetic op's.
    pub fused: HashMap<NodeId, NodeId>,
    /// The arithmetic ops of `fused`, and the products of `dot_adds`, written
    /// where their reader is.
    pub deferred: HashSet<NodeId>,
    /// `x + m·v` with the product added into `x`'s buffer: the sum's node,
    /// and the product's.
    pub dot_adds: HashMap<NodeId, NodeId>,
    /// The scalar ops written as plain Rust.
    pub plain: HashSet<NodeId>,
    /// A float `sin x` whose rule reads the forward's `cos x`, and the
    /// other way round: each, by the other (see `sin_cos`).
    pub sin_cos: HashMap<NodeId, NodeId>,
    /// In a loop body, the values its reverse sweep computes again rather
    /// than keeps (see `remat`), in node order.
    pub remade: Vec<NodeId>,
    /// The values a local holds by reference (a branch arm's result, in its
    /// reverse sweep).
    pub by_ref: HashSet<NodeId>,
    /// A branch arm's results that its reverse sweep reads borrowed from
    /// the branch's result (`let t = &t_1;`): references there only, the
    /// arm's forward has them as values.
    pub borrowed_results: HashSet<NodeId>,
    /// Whether the reverse sweep is being written (see `borrowed_results`).
    pub reversing: std::cell::Cell<bool>,
    /// A product computed into a loop's spare buffer, by the spare's name.
    pub spares: HashMap<NodeId, Ident>,
    /// The decisions of the reverse sweep, in order.
    pub reverse: Vec<RevStep>,
    /// In a loop body: the accumulator outside the loop of each captured
    /// value's gradient.
    pub acc_into: HashMap<NodeId, Ident>,
    /// How many contributions to each of them went into the accumulator.
    pub accumulated: HashMap<NodeId, usize>,
    /// In a loop body: the products whose outer products the loop's
    /// `Outers` keeps, term by term.
    pub terms: Vec<OuterTerm>,
    /// In a loop body: the name of the loop's `Outers`, and of the index of
    /// an iteration among the kept steps, once a rule needs them.
    pub outers: Option<Ident>,
    pub step: Option<Ident>,
    /// A gradient that borrows another's (`bp::lent`), with the other.
    pub lent_from: HashMap<Ident, Ident>,
    /// The function's body, whose forward pass and reverse sweep are one
    /// block (a loop body's or a branch arm's are two).
    pub top_level: bool,
    /// In a loop body: the captured values known to be vectors or scalars,
    /// whose gradients are never outer products.
    pub flat: HashSet<NodeId>,
    /// How many contributions to a value were added into one written before.
    pub merged: HashMap<NodeId, usize>,
    /// The contributions that are loops' accumulators.
    pub loop_accs: HashSet<Ident>,
    /// In a loop body: the carried adjoint that seeds a body output, which
    /// its other contributions may be added into.
    pub acc_seed: HashMap<NodeId, Ident>,
}

impl<'g> Region<'g> {
    pub fn new(
        graph: &'g Graph,
        a: &'g Analysis,
        inputs: Vec<InputForm>,
        loop_var: Option<Ident>,
        results: Vec<NodeId>,
    ) -> Self {
        let n = graph.len();
        // A constant place's local borrows it, as a model's field's does.
        let by_ref = graph
            .ids()
            .filter(|id| match &graph.get(*id).node {
                Node::Const(c) => c.place,
                Node::Op { op, .. } => *op == Op::Field && !graph.float_fields.contains(id),
                _ => false,
            })
            .collect();
        Region {
            graph,
            a,
            inputs,
            loop_var,
            names: Vec::new(),
            saved: Vec::new(),
            adj: Vec::new(),
            seeds: vec![0; n],
            contributions: vec![Vec::new(); n],
            borrowed: vec![false; n],
            loops: HashMap::new(),
            branches: HashMap::new(),
            defined: Vec::new(),
            views: HashSet::new(),
            results,
            ty: Vec::new(),
            scalar: Vec::new(),
            input_ty: Vec::new(),
            takes: HashSet::new(),
            given: HashMap::new(),
            shapes: HashMap::new(),
            shapes_from: HashMap::new(),
            copied: HashSet::new(),
            owned_inputs: 0,
            rule_takes: HashSet::new(),
            sum_squares: HashMap::new(),
            unmade: HashSet::new(),
            fused: HashMap::new(),
            deferred: HashSet::new(),
            dot_adds: HashMap::new(),
            plain: HashSet::new(),
            sin_cos: HashMap::new(),
            remade: Vec::new(),
            by_ref,
            borrowed_results: HashSet::new(),
            reversing: std::cell::Cell::new(false),
            spares: HashMap::new(),
            reverse: Vec::new(),
            acc_into: HashMap::new(),
            accumulated: HashMap::new(),
            terms: Vec::new(),
            outers: None,
            step: None,
            lent_from: HashMap::new(),
            top_level: false,
            flat: HashSet::new(),
            merged: HashMap::new(),
            loop_accs: HashSet::new(),
            acc_seed: HashMap::new(),
        }
    }

    /// A contribution known before the sweep.
    pub fn seed(&mut self, id: NodeId, seed: Part, borrowed: bool) {
        // A contribution named before its value was seeded took the seed's
        // place (and the adjoint's name, if it thought itself alone).
        debug_assert_eq!(
            self.contributions[id.index()].len(),
            self.seeds[id.index()],
            "a value is seeded before any contribution to it is planned"
        );
        self.seeds[id.index()] += 1;
        self.contributions[id.index()].push(seed);
        self.borrowed[id.index()] |= borrowed;
    }

    pub fn node(&self, id: NodeId) -> &'g Node {
        &self.graph.get(id).node
    }

    /// The op of a node that is one.
    pub fn op(&self, id: NodeId) -> Op {
        match self.node(id) {
            Node::Op { op, .. } => *op,
            _ => unreachable!("an op node"),
        }
    }

    /// The inputs of an op node.
    pub fn inputs(&self, id: NodeId) -> &'g [NodeId] {
        match self.node(id) {
            Node::Op { inputs, .. } => inputs,
            _ => &[],
        }
    }

    pub fn name(&self, id: NodeId) -> &Ident {
        self.names[id.index()]
            .as_ref()
            .expect("a node with a local")
    }

    pub fn adj(&self, id: NodeId) -> &Ident {
        self.adj[id.index()].as_ref().expect("an active node")
    }

    pub fn live(&self, id: NodeId) -> bool {
        self.a.live[id.index()]
    }

    pub fn active(&self, id: NodeId) -> bool {
        self.a.active[id.index()]
    }

    /// How many contributions make up a node's adjoint.
    pub fn parts(&self, id: NodeId) -> usize {
        self.a.uses[id.index()].len() + self.seeds[id.index()]
    }

    /// The Out nodes of a loop or branch, by result index.
    pub fn outs_of(&self, id: NodeId) -> Vec<(usize, NodeId)> {
        self.graph
            .ids()
            .filter_map(|o| match self.node(o) {
                Node::Out { of, k } if *of == id => Some((*k, o)),
                _ => None,
            })
            .collect()
    }

    /// The locals a call whose value is a tuple binds, one per component
    /// (`None`: `_`, a component no one reads).
    pub fn bound(&self, components: &[NodeId]) -> Vec<Option<&Ident>> {
        components
            .iter()
            .map(|o| self.names[o.index()].as_ref())
            .collect()
    }

    /// The user's name of the `k`-th carried variable of a loop.
    pub fn carried_name(&self, lp: NodeId, k: usize) -> String {
        self.outs_of(lp)
            .into_iter()
            .find_map(|(kk, o)| match &self.graph.get(o).name {
                Name::User(n) if kk == k => Some(n.clone()),
                _ => None,
            })
            .unwrap_or_else(|| "state".to_owned())
    }

    /// How an op receives a node: parameters that are references bare,
    /// a value whose buffer was given away by its kept shape, everything
    /// else borrowed.
    pub fn operand(&self, params: &[crate::ast::Param], id: NodeId) -> Operand {
        if self.by_ref.contains(&id)
            || (self.reversing.get() && self.borrowed_results.contains(&id))
        {
            return Operand::Ref(self.name(id).clone());
        }
        if self.given.contains_key(&id) {
            // Only the rules of the op that took its buffer read it.
            let shape = self.shape(id).expect("a kept shape where a rule runs");
            return Operand::StandIn(shape.clone());
        }
        match self.node(id) {
            Node::Param(i) => {
                let p = &params[*i];
                Operand::Param {
                    ident: p.ident.clone(),
                    by_ref: p.by_ref,
                }
            }
            Node::Input(j) => self.input_operand(*j),
            Node::Float(t) | Node::Int(t) => Operand::Literal(t.clone()),
            _ => Operand::Local(self.name(id).clone()),
        }
    }

    /// Whether the node's value is a view op's, here or in an enclosing
    /// region (`x.t()`, `h.row(t)`).
    pub fn is_view(&self, id: NodeId) -> bool {
        match self.node(id) {
            Node::Op { op, .. } => op.has(crate::vocab::VIEW),
            Node::Input(j) => self.inputs[*j].view,
            _ => false,
        }
    }

    /// Whether the node's local holds a reference to its value.
    pub fn holds_ref(&self, id: NodeId) -> bool {
        match self.node(id) {
            Node::Input(j) => matches!(self.input_operand(*j), Operand::Ref(_)),
            _ => {
                self.by_ref.contains(&id)
                    || (self.reversing.get() && self.borrowed_results.contains(&id))
            }
        }
    }

    /// The kept shape of a value whose buffer was given away, where its
    /// rules run.
    pub fn shape(&self, id: NodeId) -> Option<&Ident> {
        self.shapes.get(&id)
    }

    /// Whether a node's value is made where its reader is (a fused pass,
    /// a product added into a sum) or never (a square summed at once): it
    /// has no local.
    pub fn unnamed(&self, id: NodeId) -> bool {
        self.deferred.contains(&id) || self.unmade.contains(&id)
    }

    /// A node by its plain name (a literal as itself).
    /// How an op receives the region's input `j`: by its form, but by
    /// reference in the reverse sweep where the enclosing arm's reverse
    /// holds it so.
    pub fn input_operand(&self, j: usize) -> Operand {
        let form = &self.inputs[j];
        match &form.operand {
            Operand::Local(name) if self.reversing.get() && form.borrowed_in_reverse => {
                Operand::Ref(name.clone())
            }
            other => other.clone(),
        }
    }

    /// The local a node's value is in: its own, or an input's.
    pub fn local(&self, id: NodeId) -> &Ident {
        match self.node(id) {
            Node::Input(j) => self.inputs[*j].name.ident().expect("an input with a local"),
            _ => self.name(id),
        }
    }

    /// How the forward pass passes a node to an op: as `operand`, but a
    /// value written in place later is still itself (its rules read it
    /// by its kept shape).
    pub fn forward_operand(&self, params: &[crate::ast::Param], id: NodeId) -> Operand {
        if self.given.contains_key(&id) {
            return Operand::Local(self.local(id).clone());
        }
        self.operand(params, id)
    }

    pub fn raw(&self, id: NodeId) -> Raw {
        match self.node(id) {
            Node::Input(j) => self.inputs[*j].name.clone(),
            Node::Float(t) | Node::Int(t) => Raw::Literal(t.clone()),
            _ => Raw::Local(self.name(id).clone()),
        }
    }

    /// How many live nodes read each node, a value the region gives back
    /// counting as one more.
    pub fn readers(&self) -> Vec<usize> {
        let mut readers = vec![0usize; self.graph.len()];
        for id in self.graph.ids().filter(|id| self.live(*id)) {
            for d in self.graph.deps(id) {
                readers[d.index()] += 1;
            }
        }
        for r in &self.results {
            readers[r.index()] += 1;
        }
        readers
    }

    /// The op whose result's buffer `o` is: `o`, or through the ops that
    /// write over their first operand, the first op of that chain.
    pub fn buffer_head(&self, mut o: NodeId) -> NodeId {
        while self.takes.contains(&o) {
            let Node::Op { inputs, .. } = self.node(o) else {
                break;
            };
            o = inputs[0];
        }
        o
    }

    /// Whether a loop has a reverse sweep: some adjoint flows through it.
    pub fn loop_active(&self, id: NodeId, lp: &crate::graph::Loop) -> bool {
        let la = &self.a.loops[&id];
        la.seeded.iter().any(|s| *s)
            || (lp.carried..lp.inputs.len()).any(|j| la.body.active[lp.body.inputs[j].index()])
    }

    /// Whether a branch has a reverse sweep: some adjoint flows through it.
    pub fn branch_active(&self, id: NodeId) -> bool {
        self.a.uses.iter().flatten().any(|(c, _)| *c == id)
            || self.a.branches[&id].seeded.iter().any(|s| *s)
    }
}
