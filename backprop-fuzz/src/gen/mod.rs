//! The program generator: seeded random differentiable functions over the
//! vocabulary of `#[differentiable]`, each with a test.
//!
//! This module is the whole generator; the crate's library exposes it and
//! the build script includes its source (`#[path = "src/gen/mod.rs"]`), so
//! its modules name each other with `super::`, never `crate::`.
//!
//! The generator is deterministic: a master [`Rng`] seeded from the seed
//! gives every program its own generator, so that a change to one program
//! does not shift all those after it. The programs are split into parts
//! (files compiled as separate test crates); a program calls only earlier
//! programs of its own part.
//!
//! Domains are kept safe by construction (see `vocab.rs`, `expr.rs`): `ln`,
//! `sqrt`, `recip`, `powf`, `ln_1p`, `log2`, `log10`, `cbrt`, `acosh` and
//! divisors only see `square(x) + c` with `c > 0` (`c ≥ 1.5` for `acosh`);
//! `asin`, `acos` and `atanh` see `0.75 · tanh(x)`; the second operand of
//! `hypot` and `atan2` is at least 0.5 (away from the origin) and a base of
//! `log` a literal or at least 1.5; `clamp` has literal bounds; `var` and
//! `std` see values far from zero variance; `product` sees at most four
//! elements of magnitude at most 1; slices, `select` indices and reshapes
//! are within the shape; views of temporaries are made owned or reduced in
//! their statement; a closure's elements are squashed to magnitude 3 at
//! most; and a rough bound on every value's magnitude decides which ops may
//! be applied (no `exp` of something large, no `powi` of something big), so
//! that central differences stay accurate.

mod calls;
mod carried;
mod closures;
mod constants;
mod control;
mod expr;
mod nalgebra;
mod output;
mod plain;
mod program;
mod reduce;
mod render;
mod rng;
mod statements;
mod stats;
mod unary;
mod value;
mod views;
mod vocab;
mod writes;

pub use rng::Rng;
pub use stats::{census, Stats};
pub use vocab::{domain, Role, Vocab, DOMAINS};

use program::{Program, Summary};
use std::rc::Rc;

/// The default seed of the programs `cargo test` compiles.
pub const DEFAULT_SEED: u64 = 20261202;
/// The default number of programs.
pub const DEFAULT_COUNT: usize = 2000;
/// The number of files (test crates) the programs are split into.
pub const PARTS: usize = 4;

/// What the generator writes besides the defaults: the known bugs it
/// avoids (see `tests/fuzz_regressions.rs` of `backprop`; all fixed but
/// `owned_lhs`, and kept off by default so a seed names the programs it
/// always named), and how often the newer constructs are written.
#[derive(Clone, Debug)]
pub struct Options {
    /// Raw identifiers (`r#type`) among the names of the renaming.
    pub raw_idents: bool,
    /// Calls of functions with an `ArrayView` parameter (`g(x.view())`).
    pub view_calls: bool,
    /// Calls with a borrowed alias as argument (`let r = &t; g(r)`).
    pub alias_calls: bool,
    /// Views of temporaries inside a loop body or an `if` arm, `if`
    /// conditions that pass a local reference alias to an op, transposes
    /// in loops, and an array returned by name that some arm of an `if`
    /// does not assign.
    pub region_bugs: bool,
    /// The sum in `var` and `std` with an owned left operand, `(x * 0.1 +
    /// &c).var(0.0)`, which keeps the layout of `x * 0.1`, and transposes
    /// of owned temporaries (`(..).to_owned().permuted_axes([1, 0])`,
    /// `.reversed_axes()`): an open bug, the backward's value differs in
    /// the last bit when the original's is column-major.
    pub owned_lhs: bool,
    /// The share of statements that are loops carrying reassigned values
    /// (`carried`, 0 to 0.2).
    pub carried: f64,
    /// Every program also second order (`jvp`, or `hvp` for a scalar `f64`
    /// value), checked by its test.
    pub modes: bool,
    /// A tenth of the programs over nalgebra values (see `nalgebra.rs`);
    /// `nalgebra-only`: all of them.
    pub nalgebra: bool,
    pub nalgebra_only: bool,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            raw_idents: false,
            view_calls: false,
            alias_calls: false,
            region_bugs: false,
            owned_lhs: false,
            carried: 0.08,
            modes: true,
            nalgebra: true,
            nalgebra_only: false,
        }
    }
}

impl Options {
    /// The options named in a comma-separated list (`raw-idents,
    /// view-calls, alias-calls, region-bugs, owned-lhs, no-modes,
    /// no-nalgebra, nalgebra-only, carried=0.1`), over the defaults.
    pub fn parse(list: &str) -> Result<Options, String> {
        let mut o = Options::default();
        for item in list.split(',').map(str::trim).filter(|s| !s.is_empty()) {
            match item {
                "raw-idents" => o.raw_idents = true,
                "view-calls" => o.view_calls = true,
                "alias-calls" => o.alias_calls = true,
                "region-bugs" => o.region_bugs = true,
                "owned-lhs" => o.owned_lhs = true,
                "no-modes" => o.modes = false,
                "no-nalgebra" => o.nalgebra = false,
                "nalgebra-only" => o.nalgebra_only = true,
                _ => match item.strip_prefix("carried=").map(str::parse::<f64>) {
                    Some(Ok(w)) if (0.0..=0.2).contains(&w) => o.carried = w,
                    _ => return Err(format!("unknown generator option `{item}`")),
                },
            }
        }
        Ok(o)
    }
}

/// What to generate.
#[derive(Clone, Debug)]
pub struct Config {
    pub seed: u64,
    pub count: usize,
    /// The number of files.
    pub parts: usize,
    pub options: Options,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            seed: DEFAULT_SEED,
            count: DEFAULT_COUNT,
            parts: PARTS,
            options: Options::default(),
        }
    }
}

/// The generated files and the counts of their constructs.
#[derive(Clone, Debug)]
pub struct Batch {
    /// One Rust file a part: `use` lines, then the functions and tests.
    pub parts: Vec<String>,
    pub stats: Stats,
    /// Elementwise ops of the table the generator has no domain for.
    pub missing: Vec<String>,
}

/// Generates the programs of `config`.
pub fn generate(config: &Config) -> Batch {
    let vocab = Vocab::from_table(&backprop_codegen::vocabulary());
    let parts = config.parts.max(1);
    let per = config.count.div_ceil(parts).max(1);
    let mut master = Rng::new(config.seed);
    let mut texts: Vec<String> = (0..parts).map(|k| header(config, k)).collect();
    let mut stats = Stats::default();
    let mut done: Vec<Rc<Summary>> = Vec::new();
    for i in 0..config.count {
        if i % per == 0 {
            done.clear();
        }
        let seed = master.next_u64();
        let mut rng = Rng::new(seed);
        // One program in ten (by its seed, so the others stay as they were).
        if config.options.nalgebra && seed % 10 == 7 || config.options.nalgebra_only {
            // A program over nalgebra values, which no later program calls.
            let name = format!("f{i:04}");
            let text = nalgebra::program(&mut rng, &name, &mut stats);
            let part = &mut texts[i / per];
            part.push_str(&format!("// {name}\n{text}\n"));
            stats.add("programs", 1);
            continue;
        }
        let mut p = Program::new(rng, i, &done, &config.options, &vocab);
        p.generate();
        let text = p.render();
        let part = &mut texts[i / per];
        // Each program starts with its name (the generator's tests split
        // the files there).
        part.push_str(&format!("// {}\n", p.name));
        part.push_str(&text);
        part.push('\n');
        stats.merge(&p.counts);
        stats.add("programs", 1);
        done.push(Rc::new(p.summary()));
    }
    Batch {
        parts: texts,
        stats,
        missing: vocab.missing,
    }
}

/// The names of the elementwise functions the generator writes (for the
/// census).
pub fn function_names() -> Vec<&'static str> {
    Vocab::from_table(&backprop_codegen::vocabulary())
        .funcs
        .iter()
        .map(|f| f.name)
        .collect()
}

/// The first lines of a part.
fn header(config: &Config, part: usize) -> String {
    format!(
        "// @generated by backprop-fuzz (seed {}, {} programs, part {} of {}); \
         change the generator, not this file.\n\
         use backprop::prelude::*;\n\
         use backprop_testkit::{{random, random32, scalar, scalar32}};\n\
         #[allow(unused_imports)]\n\
         use backprop::{{hvpcheck, jvpcheck}};\n\
         #[allow(unused_imports)]\n\
         use std::f64::consts::{{E, FRAC_1_SQRT_2, FRAC_PI_4, LN_2, PI}};\n\
         #[allow(unused_imports)]\n\
         use backprop::nalgebra::{{Matrix2, Matrix2x3, Matrix3, Point3, Rotation3, SMatrix, SVector, UnitQuaternion, Vector2, Vector3, Vector4}};\n\n",
        config.seed,
        config.count,
        part,
        config.parts.max(1),
    )
}
