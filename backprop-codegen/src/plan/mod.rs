//! Planning: every decision about the generated code, made on the graph
//! before any token exists, keyed by node ids.
//!
//! The passes run in the order the code reads: names; then, for each region
//! (the body, a loop body, a branch arm), where each value lives (`scalar`,
//! `in_place`, `fuse`, `dot_add`); then the forward walk, which plans each
//! loop (what its iterations keep, see `loops`) and each branch; then the
//! reverse walk (`routing`), which decides where each adjoint contribution
//! goes. The emitter (`crate::emit`) writes the plan out and decides nothing.
//!
//! Each optimisation can be switched off ([`Options`]), so that tests can
//! compare the generated code with and without it.

mod branches;
mod dot_add;
pub mod each;
mod forward;
mod fuse;
mod fused;
mod in_place;
pub mod loops;
mod names;
mod nested;
mod plain;
mod reads;
mod region;
mod remat;
mod routing;
mod scalar;
pub mod settled;
mod sin_cos;

mod writes;

pub use region::{
    Init, Kept, Loop as LoopPlan, Next, Operand, Part, Raw, Region, RevStep, Upstream,
};

pub use crate::args::Options;
use crate::ast::Function;
use crate::check::Analysis;
use crate::graph::Lowered;
use crate::graph::NodeId;
use crate::names::Namer;
use proc_macro2::Ident;

/// What every region's plan shares: the function, the names handed out so
/// far, the options.
pub struct Shared<'a> {
    pub func: &'a Function,
    pub namer: Namer,
    pub opts: Options,
}

/// The plan of a whole function.
pub struct Plan<'g> {
    pub body: Region<'g>,
    /// The gradient struct's local.
    pub grad: Ident,
}

/// Plans `NAME_backward` for a lowered body; `d_outs` are the upstream
/// gradients' names, one per output (per component of a tuple output).
///
/// Each output's adjoint is seeded with its upstream gradient; a value that
/// is several components, or also feeds another component, gets every
/// contribution (the fork rule). An array's upstream arrives by reference,
/// and stays borrowed where it is the value's only contribution.
pub fn plan<'g>(l: &'g Lowered, a: &'g Analysis, sh: &mut Shared, d_outs: &[Ident]) -> Plan<'g> {
    let mut body = Region::new(&l.graph, a, Vec::new(), None, l.outputs.clone());
    body.top_level = true;
    let arrays: Vec<bool> = match &sh.func.tuple {
        Some(arrays) => arrays.clone(),
        None => vec![sh.func.array_output],
    };
    for ((&o, d), &array) in l.outputs.iter().zip(d_outs).zip(&arrays) {
        let seeds = l.outputs.iter().filter(|p| **p == o).count();
        let alone = seeds + a.uses[o.index()].len() == 1;
        body.seed(o, Part::Name(d.clone()), array && alone);
    }
    let named: Vec<(NodeId, Ident)> = l
        .outputs
        .iter()
        .copied()
        .zip(d_outs.iter().cloned())
        .filter(|(o, _)| l.outputs.iter().filter(|p| *p == o).count() == 1)
        .collect();
    names::assign(&mut body, sh, &named);
    forward::plan(&mut body, sh);
    routing::plan(&mut body, sh);
    let grad = sh.namer.fresh("grad");
    Plan { body, grad }
}
