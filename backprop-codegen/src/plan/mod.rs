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
#[cfg(test)]
mod tests;
mod writes;

pub use names::Namer;
pub use region::{
    Init, Kept, Loop as LoopPlan, Next, Operand, Part, Raw, Region, RevStep, Upstream,
};
pub use scalar::types;

use crate::ast::Function;
use crate::check::Analysis;
use crate::graph::NodeId;
use crate::lower::Lowered;
use proc_macro2::Ident;

/// Which optimisations run. All do by default; a test switches them off to
/// compare the plain expansion with the optimised one.
#[derive(Clone, Copy, Debug)]
pub struct Options {
    /// A temporary read by one op gives that op its buffer (`in_place`).
    pub in_place: bool,
    /// An elementwise function over an in-place arithmetic op runs in the
    /// same pass (`fuse`).
    pub fuse: bool,
    /// `x + m·v` adds the product into `x`'s buffer (`dot_add`).
    pub dot_add: bool,
    /// `sum(square(x))` is one reduction (`in_place`).
    pub sum_square: bool,
    /// Contributions are added into the buffer of an earlier one, or into
    /// a loop's accumulator (`routing`).
    pub accumulate: bool,
    /// The two operands of a sum share one gradient (`routing`).
    pub lend: bool,
    /// A loop keeps a carried array as rows of one buffer, computes the next
    /// value into a spare buffer and defers its weights' outer products
    /// (`loops`).
    pub loop_buffers: bool,
    /// A loop's reverse sweep reads the rows it wrote into a carried
    /// buffer, and read from it, back from the buffer it leaves behind
    /// (`settled`).
    pub settled_rows: bool,
    /// A loop in a loop body adds into the enclosing loop's accumulators
    /// and takes over the buffer of a carried variable it starts from
    /// (`nested`).
    pub nested_loops: bool,
    /// Scalars are written as plain Rust arithmetic (`plain`).
    pub plain_scalars: bool,
    /// The rule of `sin x` reads the forward's `cos x`, and the other way
    /// round (`sin_cos`).
    pub sin_cos: bool,
    /// A loop's reverse sweep computes again what is cheaper to compute
    /// than to keep (an element of a borrowed parameter, a few flops of
    /// them, a float of the loop's variable) and reads shapes from the
    /// carried adjoints (`remat`).
    pub remat: bool,
}

impl Options {
    /// Every optimisation off: each value a new local, each contribution a
    /// new array, summed at the end; scalars through the runtime.
    pub fn none() -> Options {
        Options {
            in_place: false,
            fuse: false,
            dot_add: false,
            sum_square: false,
            accumulate: false,
            lend: false,
            loop_buffers: false,
            settled_rows: false,
            nested_loops: false,
            plain_scalars: false,
            sin_cos: false,
            remat: false,
        }
    }

    /// The names `without(..)` takes.
    pub const NAMES: &'static [&'static str] = &[
        "in_place",
        "fuse",
        "dot_add",
        "sum_square",
        "accumulate",
        "lend",
        "loop_buffers",
        "settled_rows",
        "nested_loops",
        "plain_scalars",
        "sin_cos",
        "remat",
    ];

    /// Switches the optimisation `name` off; false if there is none.
    pub fn switch_off(&mut self, name: &str) -> bool {
        let flag = match name {
            "in_place" => &mut self.in_place,
            "fuse" => &mut self.fuse,
            "dot_add" => &mut self.dot_add,
            "sum_square" => &mut self.sum_square,
            "accumulate" => &mut self.accumulate,
            "lend" => &mut self.lend,
            "loop_buffers" => &mut self.loop_buffers,
            "settled_rows" => &mut self.settled_rows,
            "nested_loops" => &mut self.nested_loops,
            "plain_scalars" => &mut self.plain_scalars,
            "sin_cos" => &mut self.sin_cos,
            "remat" => &mut self.remat,
            _ => return false,
        };
        *flag = false;
        true
    }
}

impl Default for Options {
    fn default() -> Self {
        Options {
            in_place: true,
            fuse: true,
            dot_add: true,
            sum_square: true,
            accumulate: true,
            lend: true,
            loop_buffers: true,
            settled_rows: true,
            nested_loops: true,
            plain_scalars: true,
            sin_cos: true,
            remat: true,
        }
    }
}

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
