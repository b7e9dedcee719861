//! Which values are scalars: known at compile time from the parameters'
//! types and the ops (an elementwise op of scalars is a scalar, a reduction
//! is one). A value that may be an array is not marked.

use super::region::Region;
use super::Shared;
use crate::ast::Kind;
use crate::graph::Node;
use crate::vocab::SCALAR_OUT;

/// Marks the region's scalars.
pub fn plan(r: &mut Region, sh: &Shared) {
    let mut scalar = vec![false; r.graph.len()];
    for id in r.graph.ids() {
        scalar[id.index()] = match r.node(id) {
            Node::Param(i) => matches!(sh.func.params[*i].kind, Kind::Scalar(_)),
            Node::Input(j) => r.input_scalar.get(*j).copied().unwrap_or(false),
            Node::Float(_) | Node::Int(_) => true,
            Node::Op { op, inputs, .. } => {
                op.has(SCALAR_OUT) || (op.elementwise() && inputs.iter().all(|i| scalar[i.index()]))
            }
            _ => false,
        };
    }
    r.scalar = scalar;
}
