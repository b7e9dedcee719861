//! Writes in place: `y[i] = e` and `h.row_mut(t).assign(&v)` write into
//! the array's own buffer where what reads the old value reads only parts
//! of it (elements, rows, slices) and runs before the write.
//!
//! ```text
//! Before: let y_2 = bp::index(&y_1_in, i - 1);
//!         let y_5 = bp::set_index(&y_1_in, &y_4, i);   // a new array
//! After:  let y_2 = bp::index(&y_1_in, i - 1);
//!         let y_1_in_shape = bp::shape_of(&y_1_in);
//!         let y_5 = bp::set_index(y_1_in, &y_4, i);    // in y's buffer
//! ```
//!
//! The rules of those reads need only the old value's shape, which is kept;
//! the write's own rules do not read the old value at all. So a loop that
//! writes into a buffer keeps nothing of the buffer for its reverse sweep
//! (the values it reads are kept where they are read, a row, an element),
//! and neither pass copies the buffer. A view among the reads (`h.row(t)`)
//! is copied when made, so that nothing borrows the buffer when it is
//! written (a view again where nothing reads it after the write and the
//! reverse sweep reads the row back from the loop's last buffer: see
//! `settled`).
//!
//! The array's buffer must be the region's own: made by an op whose rule
//! does not read its value, or a carried variable of a loop body.

use super::region::Region;
use super::Shared;
use crate::graph::{Node, NodeId};
use crate::vocab::{PART, RULES_SKIP_FIRST, VIEW};

/// Plans the writes of a region that may write in place.
pub fn plan(r: &mut Region, sh: &Shared) {
    if !sh.opts.in_place {
        return;
    }
    let writes: Vec<NodeId> = r
        .graph
        .ids()
        .filter(|id| r.live(*id) && !r.takes.contains(id))
        .filter(|id| matches!(r.node(*id), Node::Op { op, .. } if op.has(RULES_SKIP_FIRST)))
        .collect();
    if writes.is_empty() {
        return;
    }
    // Each value's live readers, once for all the writes: (reader, how
    // many times it reads the value).
    let mut readers: Vec<Vec<(NodeId, usize)>> = vec![Vec::new(); r.graph.len()];
    for c in r.graph.ids().filter(|c| r.live(*c)) {
        for d in r.graph.deps(c) {
            match readers[d.index()].last_mut() {
                Some((last, n)) if *last == c => *n += 1,
                _ => readers[d.index()].push((c, 1)),
            }
        }
    }
    for w in writes {
        let x = r.inputs(w)[0];
        if r.given.contains_key(&x) || !owned(r, x) || r.results.contains(&x) {
            continue;
        }
        let Some(parts) = parts_read_before(r, &readers[x.index()], x, w) else {
            continue;
        };
        let kept = parts.iter().any(|c| r.active(*c));
        for c in parts {
            if r.op(c).has(VIEW) {
                r.copied.insert(c);
            }
        }
        r.given.insert(x, kept);
        r.takes.insert(w);
    }
}

/// Whether `x`'s buffer is the region's to write over: an array an op made
/// whose rule does not read it (and whose local is no reference, as a
/// model's field's is), or a loop body's carried variable.
fn owned(r: &Region, x: NodeId) -> bool {
    if r.scalar[x.index()] || r.by_ref.contains(&x) {
        return false;
    }
    match r.node(x) {
        Node::Input(j) => *j < r.owned_inputs,
        Node::Op { op, .. } => {
            !op.has(VIEW)
                && !op.rule_reads_out()
                && op.def().saves.is_none()
                && !matches!(op, crate::vocab::Op::Call(_))
        }
        _ => false,
    }
}

/// The other readers of `x` (`readers`: each live reader, and how many
/// times it reads `x`) when each is an op before the write `w` that reads a
/// part of `x` as its first operand only (or a constant made before `w`),
/// and `w` reads `x` only as the array it writes; else `None`.
fn parts_read_before(
    r: &Region,
    readers: &[(NodeId, usize)],
    x: NodeId,
    w: NodeId,
) -> Option<Vec<NodeId>> {
    let mut parts = Vec::new();
    for &(c, reads) in readers {
        if c == w {
            if reads > 1 {
                return None;
            }
            continue;
        }
        if c > w {
            return None;
        }
        match r.node(c) {
            Node::Const(k) if !k.place => {}
            Node::Op { op, inputs, .. } if op.has(PART) && inputs[0] == x && reads == 1 => {
                parts.push(c);
            }
            _ => return None,
        }
    }
    Some(parts)
}
