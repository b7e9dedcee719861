//! A product added into a sum's buffer: `x + m·v`, where the product is
//! read by nothing else, adds the product into `x`'s buffer.
//!
//! ```text
//! Before: let h_2 = bp::dot(w, &h);
//!         let h_3 = bp::add_owned(x, &h_2);
//! After:  let (h_3, h_2_shape) = bp::add_dot(x, w, &h);
//! ```
//!
//! The runtime does it where the bits are those of the product and then the
//! sum (a matrix-vector product with β = 1), and makes the product otherwise.

use super::region::Region;
use super::Shared;
use crate::graph::{Node, NodeId};
use crate::vocab::Op;

/// Finds the sums that take a product into their buffer.
pub fn plan(r: &mut Region, sh: &Shared, readers: &[usize]) {
    if !sh.opts.dot_add {
        return;
    }
    let mut dots: Vec<(NodeId, NodeId)> = Vec::new();
    let mut takes: Vec<NodeId> = r.takes.iter().copied().collect();
    takes.sort();
    for id in takes {
        let Node::Op {
            op: Op::Add,
            inputs,
            ..
        } = r.node(id)
        else {
            continue;
        };
        if r.deferred.contains(&id) {
            continue;
        }
        let d = inputs[1];
        let product = matches!(r.node(d), Node::Op { op: Op::Dot, .. });
        if product
            && d != inputs[0]
            && readers[d.index()] == 1
            && !r.scalar[d.index()]
            && !r.given.contains_key(&d)
        {
            dots.push((id, d));
        }
    }
    for (id, d) in dots {
        let kept = r.active(id);
        r.given.insert(d, kept);
        r.deferred.insert(d);
        r.dot_adds.insert(id, d);
    }
}
