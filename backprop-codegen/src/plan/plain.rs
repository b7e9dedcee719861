//! Scalars as plain Rust: an elementwise op whose operands are all `f64`
//! (or `f32`) values is written as the arithmetic, the float method or the
//! function a person would write, and so are the rules of the operators.
//!
//! ```text
//! Before: let h1_1 = bp::mul(&w11, &x1);
//!         let (d_w11, d_x1) = bp::mul_vjp_both(d_h1_1, &w11, &x1);
//! After:  let h1_1 = w11 * x1;
//!         let d_w11 = d_h1_1 * x1;
//!         let d_x1 = d_h1_1 * w11;
//! ```

use super::region::Region;
use super::Shared;
use crate::graph::Node;

/// Marks the ops written as plain scalar code.
pub fn plan(r: &mut Region, sh: &Shared) {
    if !sh.opts.plain_scalars {
        return;
    }
    for id in r.graph.ids() {
        if let Node::Op { op, inputs, .. } = r.node(id) {
            // Its operands too: a value typed a float by its `let` (`let
            // v: f64 = a.ln();`) may have operands of types not known.
            if op.elementwise()
                && r.scalar[id.index()]
                && inputs.iter().all(|i| r.scalar[i.index()])
            {
                r.plain.insert(id);
            }
        }
    }
}
