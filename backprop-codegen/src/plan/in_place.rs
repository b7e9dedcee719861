//! Buffers written over: a temporary that exactly one op reads gives that
//! op its buffer, where no rule that runs reads the temporary's values.
//!
//! ```text
//! Before: let z = x.dot(w) + b;           // `x.dot(w)` read by `+` alone
//!         let z_1 = bp::dot(x, w);
//!         let z = bp::add(&z_1, b);        // a second array
//! After:  let z_1 = bp::dot(x, w);
//!         let z_1_shape = bp::shape_of(&z_1);
//!         let z = bp::add_owned(z_1, b);   // `b` added into `z_1`'s buffer
//! ```
//!
//! The temporary's shape is kept (no allocation) and stands in for it in
//! the rules (`bp::stand_in(&z_1_shape)`). Also here: `sum(square(x))` as
//! one reduction (`bp::sum_square(&x)`, the square never made), and `mse`'s
//! rule writing the residual over a prediction nothing else reads.

use super::region::Region;
use super::{dot_add, fuse, scalar, writes, Shared};
use crate::graph::{Node, NodeId};
use crate::vocab::{Op, RULE_OVER_FIRST, VIEW};

/// Plans the region's values: scalars, buffers written over, fused passes.
pub fn plan(r: &mut Region, sh: &Shared) {
    scalar::plan(r, sh);
    let readers = r.readers();
    let live: Vec<NodeId> = r.graph.ids().filter(|id| r.live(*id)).collect();
    for id in live {
        let Node::Op { op, inputs, .. } = r.node(id) else {
            continue;
        };
        let active: Vec<bool> = inputs.iter().map(|i| r.active(*i)).collect();
        // Only this op reads `x`, an owned array (not a view, nor a local
        // that holds a reference, such as a model's field) made by an op
        // whose rule does not read its own output.
        let sole = |x: NodeId| {
            let made_owned = match r.node(x) {
                Node::Op { op: made_by, .. } => {
                    !made_by.rule_reads_out()
                        && !made_by.has(VIEW)
                        && made_by.def().saves.is_none()
                        && !matches!(made_by, Op::Call(_))
                        && !r.by_ref.contains(&x)
                }
                _ => false,
            };
            sh.opts.in_place && readers[x.index()] == 1 && made_owned && !r.scalar[x.index()]
        };
        if let (
            Op::Sum,
            Node::Op {
                op: Op::Square,
                inputs: sq,
                ..
            },
        ) = (op, r.node(inputs[0]))
        {
            let x = sq[0];
            if sh.opts.sum_square && readers[inputs[0].index()] == 1 && !r.scalar[x.index()] {
                // `Σ x²` with no array of squares; `2g·x` over `x` when
                // nothing else reads it.
                let over = sole(x);
                r.sum_squares.insert(id, (x, over));
                r.unmade.insert(inputs[0]);
                continue;
            }
        }
        if op.has(RULE_OVER_FIRST) && active == [true, false] && sole(inputs[0]) {
            // `∂pred = 2g(pred − target)/n` is written over `pred`.
            r.rule_takes.insert(id);
            continue;
        }
        let x = inputs[0];
        if op.in_place(&active) && sole(x) {
            // Its shape is kept where a rule of the op that runs reads it.
            let kept = r.active(id) && op.rule_reads_operand();
            r.given.insert(x, kept);
            r.takes.insert(id);
        }
    }
    fuse::plan(r, sh);
    dot_add::plan(r, sh, &readers);
    writes::plan(r, sh);
}
