//! Marks each value of a region with its type (see `crate::types`), and
//! the floats: the scalars the planner writes as plain Rust.

use super::region::Region;
use super::Shared;
use crate::types::types;
use crate::vocab::Ty;

/// Marks the region's types, and its scalars.
pub fn plan(r: &mut Region, sh: &Shared) {
    r.ty = types(r.graph, sh.func, &r.input_ty);
    r.scalar = r.ty.iter().map(|t| *t == Some(Ty::Float)).collect();
}
