//! What kind of value a node holds, as the lowering asks it: a literal
//! made a node, whether a value is a float, whether arithmetic on constants
//! is Rust's own, and whether a constant's old value is still read when a
//! compound assignment replaces it.

use super::Lowerer;
use crate::ast::Kind;
use crate::graph::{ConstArg, Node, NodeId};
use quote::{quote, ToTokens};
use syn::Lit;

impl Lowerer<'_> {
    pub(super) fn literal(&mut self, lit: &Lit) -> NodeId {
        match lit {
            Lit::Float(f) => {
                let tokens = if f.suffix().is_empty() {
                    let mut digits = f.base10_digits().to_owned();
                    if !digits.contains(['.', 'e', 'E']) {
                        digits.push_str(".0");
                    } else if digits.ends_with('.') {
                        digits.push('0');
                    }
                    let krate = &self.env.krate;
                    let float = quote!(#krate::__private::Float);
                    self.func.elem.literal(&digits, f.span(), &float)
                } else {
                    f.into_token_stream()
                };
                self.add(Node::Float(tokens), self.temp(), f.span(), false)
            }
            Lit::Int(i) => self.add(
                Node::Int(i.into_token_stream()),
                self.temp(),
                i.span(),
                false,
            ),
            other => {
                let expr = syn::Expr::Lit(syn::ExprLit {
                    attrs: Vec::new(),
                    lit: other.clone(),
                });
                self.add(
                    Node::Const(ConstArg::plain(expr)),
                    self.temp(),
                    other.span(),
                    false,
                )
            }
        }
    }

    /// Whether a node holds a float or a float array (rather than some
    /// constant of another type, such as a `&[f64]` or a `usize`).
    pub(super) fn is_float_value(&self, id: NodeId) -> bool {
        if self.varying[id.index()] {
            // A differentiable value is the macro's, whatever it started
            // as: a carried `Array1::zeros(n)` that the loop writes into.
            return true;
        }
        match self.origin(id) {
            Node::Param(i) => !matches!(self.func.params[*i].kind, Kind::Constant),
            Node::Op { .. } | Node::Float(_) | Node::Error | Node::Out { .. } => true,
            Node::Int(_) | Node::Const(_) | Node::LoopVar | Node::Loop(_) | Node::Branch(_) => {
                false
            }
            Node::Input(_) => true,
        }
    }

    /// Whether a constant's value may be read after a compound assignment
    /// replaces it: by the rule of a differentiable value made so far, or,
    /// for a loop's or an arm's input, outside the region. An integer or a
    /// float literal is copied anyway.
    pub(super) fn old_value_read(&self, id: NodeId) -> bool {
        if matches!(
            self.origin(id),
            Node::Int(_) | Node::LoopVar | Node::Float(_)
        ) {
            return false;
        }
        matches!(self.graph.get(id).node, Node::Input(_))
            || self
                .graph
                .ids()
                .any(|n| self.varying[n.index()] && self.graph.deps(n).contains(&id))
    }

    /// Whether arithmetic on these operands is Rust's, not the macro's: none
    /// is differentiable and one is not known to be a float (`x.len() - 1`,
    /// `n + 1`, `k as f64 * 0.5`), so the expression passes through as
    /// written and Rust infers its type.
    pub(super) fn rust_arithmetic(&self, inputs: &[NodeId]) -> bool {
        inputs.iter().all(|i| !self.varying[i.index()])
            && inputs.iter().any(|i| match self.origin(*i) {
                Node::Int(_) | Node::Const(_) | Node::LoopVar => true,
                Node::Param(p) => matches!(self.func.params[*p].kind, Kind::Constant),
                _ => false,
            })
    }
}
