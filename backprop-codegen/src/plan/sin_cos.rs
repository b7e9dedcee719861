//! The rule of `sin x` reads `cos x`, and the rule of `cos x` reads
//! `sin x`: where the forward pass computes both of one float operand, each
//! rule multiplies by the other's value instead of computing it again.
//!
//! ```text
//! Before: let c = theta.cos();  let s = theta.sin();  ..
//!         let d_theta_from_s = bp::map_vjp_x(d_s, &theta, bp::Sin);
//!         let d_theta_from_c = bp::map_vjp_x(d_c, &theta, bp::Cos);
//! After:  let d_theta_from_s = d_s * c;
//!         let d_theta_from_c = -(d_c * s);
//! ```
//!
//! A rotation (Rodrigues', a 2-D one) has both: its reverse sweep then
//! calls no trigonometric function at all.

use super::region::Region;
use super::Shared;
use crate::graph::{Node, NodeId};
use crate::vocab::Op;
use std::collections::HashMap;

/// Pairs each float `sin x` and `cos x` of the region with the other, where
/// both are computed.
pub fn plan(r: &mut Region, sh: &Shared) {
    if !sh.opts.sin_cos {
        return;
    }
    // The live float sin and cos of each operand.
    let mut of: HashMap<(NodeId, Op), NodeId> = HashMap::new();
    for id in r.graph.ids() {
        if let Node::Op {
            op: op @ (Op::Sin | Op::Cos),
            inputs,
            ..
        } = r.node(id)
        {
            if r.live(id) && r.scalar[id.index()] && r.scalar[inputs[0].index()] {
                of.entry((inputs[0], *op)).or_insert(id);
            }
        }
    }
    for (&(x, op), &id) in &of {
        let other = if op == Op::Sin { Op::Cos } else { Op::Sin };
        if let Some(&partner) = of.get(&(x, other)) {
            r.sin_cos.insert(id, partner);
        }
    }
}
