//! Fused passes: an elementwise function over the result of an arithmetic
//! op that writes over its operand runs in the same pass.
//!
//! ```text
//! Before: let h_2 = bp::add(h_1, b);
//!         let h = bp::relu(h_2);
//! After:  let h = bp::zip_map(h_1, b, bp::Add, bp::Relu);
//! ```

use super::region::Region;
use super::Shared;
use crate::graph::{Node, NodeId};
use crate::vocab::{Op, OPERATOR};

/// Pairs each in-place elementwise function with the in-place arithmetic
/// op it reads.
pub fn plan(r: &mut Region, sh: &Shared) {
    if !sh.opts.fuse {
        return;
    }
    let arith = |op: &Op| op.binary_kernel().is_some() && op.has(OPERATOR);
    let mut pairs: Vec<(NodeId, NodeId)> = Vec::new();
    let mut takes: Vec<NodeId> = r.takes.iter().copied().collect();
    takes.sort();
    for id in takes {
        let Node::Op { op, inputs, .. } = r.node(id) else {
            continue;
        };
        if op.unary_kernel().is_none() {
            continue;
        }
        let x = inputs[0];
        if matches!(r.node(x), Node::Op { op, .. } if arith(op)) && r.takes.contains(&x) {
            pairs.push((id, x));
        }
    }
    for (id, x) in pairs {
        r.fused.insert(id, x);
        r.deferred.insert(x);
    }
}
