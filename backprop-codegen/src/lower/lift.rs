//! The copy over duals of a function over `f64` or `f32` reads its floats
//! as `__F`: a constant that may hold a value of the original's float type
//! (`PI`, `Self::K`, `scale(2.0)`, `self.at(i)`, a binding of one) is read
//! as `__F` where an op or a carried float takes it (`generic::lifted`).

use super::Lowerer;
use crate::graph::{ConstArg, Form, Node, NodeId};
use proc_macro2::Span;

impl Lowerer<'_> {
    /// In the copy over duals, a constant that an op reads as a float and
    /// that may be of the original's float type (it names a constant of the
    /// user's, `PI`, `Self::K`, calls a function of the user's, or reads a
    /// binding): a new constant that reads it as `__F`
    /// (`crate::generic::lifted`). Any other input as it is.
    pub(super) fn lifted(&mut self, id: NodeId, span: Span) -> NodeId {
        if !self.may_be_original(id) {
            return id;
        }
        self.read_as_copy_float(id, span)
    }

    /// A new constant that reads the constant `id` as `__F`.
    pub(super) fn read_as_copy_float(&mut self, id: NodeId, span: Span) -> NodeId {
        let name = "__bp_constant";
        let c = ConstArg {
            expr: crate::generic::lifted(name, &self.env.krate),
            refs: vec![(name.to_owned(), id, Form::Value)],
            deps: vec![id],
            place: false,
        };
        let float = self.known_float(id);
        let new = self.add(Node::Const(c), self.temp(), span, false);
        if float {
            self.graph.typed_floats.insert(new);
        }
        new
    }

    /// Whether a node is a constant that may hold a value of the original's
    /// float type: it names one (`crate::generic::names_original`), or
    /// reads a constant that does (`let pi = PI; 2.0 * pi`).
    pub(super) fn may_be_original(&self, id: NodeId) -> bool {
        self.original_at(self.outer.len(), id)
    }

    /// [`Self::may_be_original`] of a node of the graph at `depth`.
    fn original_at(&self, depth: usize, id: NodeId) -> bool {
        let (depth, id) = self.origin_at(depth, id);
        match &self.graph_at(depth).get(id).node {
            Node::Const(c) => {
                crate::generic::names_original(&c.expr)
                    || c.refs
                        .iter()
                        .any(|(_, r, _)| *r != id && self.original_at(depth, *r))
            }
            _ => false,
        }
    }

    /// [`Self::may_be_original`] of a result of an arm already lowered
    /// (`region`, the enclosing nodes behind its inputs `inputs`).
    pub(super) fn arm_original(
        &self,
        region: &crate::graph::Region,
        inputs: &[NodeId],
        id: NodeId,
    ) -> bool {
        match &region.graph.get(id).node {
            Node::Const(c) => {
                crate::generic::names_original(&c.expr)
                    || c.refs
                        .iter()
                        .any(|(_, r, _)| *r != id && self.arm_original(region, inputs, *r))
            }
            Node::Input(j) => inputs
                .get(*j)
                .is_some_and(|parent| self.may_be_original(*parent)),
            _ => false,
        }
    }

    /// Whether this is the copy over duals of a function over `f64` or
    /// `f32`, whose floats are the copy's `__F`.
    pub(super) fn generic_copy(&self) -> bool {
        self.env.dual
            && self
                .func
                .float_param
                .as_ref()
                .is_some_and(|t| t == crate::generic::FLOAT)
    }
    /// A region's outputs as the values it carries out: a constant place
    /// (`return d.xs[0];`, which its local borrows) copied; in the copy over
    /// duals, a float of the original's type (`u = c;` of `let c: f64 =
    /// PI;` in a loop) read as `__F`, the type of what they carry, and
    /// where `any_float` says so (the other arm's result is not of the
    /// original's types), any value that may be; any other as it is.
    pub(super) fn lifted_outputs(
        &mut self,
        outputs: Vec<NodeId>,
        any_float: &[bool],
    ) -> Vec<NodeId> {
        outputs
            .into_iter()
            .enumerate()
            .map(|(k, o)| {
                let o = self.copied_place(o);
                let any = any_float.get(k).copied().unwrap_or(false);
                if self.generic_copy() && (self.known_float(o) || any) {
                    self.lifted(o, Span::call_site())
                } else {
                    o
                }
            })
            .collect()
    }

    /// A constant place's value, copied out of what its local borrows.
    pub(super) fn copied_place(&mut self, id: NodeId) -> NodeId {
        if !matches!(&self.graph.get(id).node, Node::Const(c) if c.place) {
            return id;
        }
        let name = "__bp_place";
        let ident = syn::Ident::new(name, Span::call_site());
        let c = ConstArg {
            expr: syn::parse_quote!(::core::clone::Clone::clone(&#ident)),
            refs: vec![(name.to_owned(), id, crate::graph::Form::Value)],
            deps: vec![id],
            place: false,
        };
        let span = self.graph.get(id).span;
        self.add(Node::Const(c), self.temp(), span, false)
    }
}
