//! The elementwise functions the generator writes, drawn from the
//! compiler's op table (`backprop_codegen::vocabulary()`), and what the
//! generator knows of each one's domain, keyed by the op's name.
//!
//! The table says how an op is spelled (`x.sinh()`, `sinh(x)`,
//! `f64::sinh(x)`); [`DOMAINS`] says how its operand is kept where central
//! differences are accurate, and how large its value may be. An elementwise
//! row of the table without an entry here is not written (the build script
//! warns, and `tests/vocabulary.rs` fails), so a new row is never left out
//! silently.

use backprop_codegen::VocabEntry;

/// How an op's operand is kept in its domain, and the bound of its value
/// (from the operand's bound `b`).
#[derive(Clone, Copy, Debug)]
pub enum Guard {
    /// Any operand; the value is at most `b`.
    Same,
    /// Any operand; the value is at most `c`.
    Constant(f64),
    /// Any operand; the value is at most `min(b, c)`.
    AtMost(f64),
    /// Any operand; the value is at most `b + c` (`|softplus x| ≤ |x| + ln 2`).
    Plus(f64),
    /// Any operand; the value is at most `b · c`.
    Scale(f64),
    /// Grows like `eˣ`: the operand is squashed first when `b` exceeds
    /// [`EXP_LIMIT`](super::value::EXP_LIMIT); the value is at most `eᵇ`.
    Exponential,
    /// `x²`: the operand is squashed first when `b²` exceeds the limit.
    Square,
    /// A positive operand away from 0 (and from -1, the pole of `ln_1p`):
    /// `square(x) + c` for `c` one of these.
    Positive(&'static [&'static str], Grows),
    /// An operand in `[-0.75, 0.75]`, away from ±1 (the poles and the
    /// square-root kinks of `asin`, `acos`, `atanh`): `tanh(x) * 0.75`.
    Unit,
    /// `tan` of `tanh(x)`, in `(-1, 1)`: far from the poles at `±π/2`.
    Tan,
    /// Radians to degrees, scaled back by `0.01`, so that the bound stays
    /// about that of the operand.
    Degrees,
    /// Piecewise constant, with jumps at the integers (`floor`, `round`,
    /// ...) or at 0 (`signum`, `fract`): the operand is shifted by 0.0371
    /// first. Some values the generator writes are constant in exact
    /// arithmetic (a softmax's row sums to 1, `logsumexp` of a
    /// `log_softmax` is 0): on a jump, rounding decides the side, and
    /// central differences straddle it. The value is at most `b + 1`, or
    /// 1 where `grows` is false.
    Step { grows: bool },
}

/// The bound of a function of a positive operand whose bound is `g`.
#[derive(Clone, Copy, Debug)]
pub enum Grows {
    /// A logarithm: at most `max(c, g)`.
    Log(f64),
    /// `√x`: at most `√g + 1`.
    Sqrt,
    /// `1/x` of `x ≥ 1`: at most 1.
    Recip,
}

/// How the generator writes an op of the table.
#[derive(Clone, Copy, Debug)]
pub enum Role {
    /// A common function of one operand: its own choice among the unary
    /// functions, spelled mostly `f(x)`, a scalar's now and then `x.f()`.
    Core(Guard),
    /// One of the later float methods: together they are one choice, each
    /// spelled `x.f()`, `f64::f(x)` or `f(x)`.
    Method(Guard),
    /// A piecewise constant method (gradient 0, or `g` for `fract`):
    /// together one choice, spelled as the float methods.
    Step(Guard),
    /// `+ - * /` and unary `-`: the arithmetic of the expressions.
    Operator,
    /// An op with constants or a second operand, written by a construct of
    /// its own (`powi`, `clamp`, `max`, `powf`, `hypot`, `atan2`, ...).
    Special,
    /// Not a function of the values: `to_owned` (written by views, calls
    /// and branch arms).
    Structural,
}

/// The generator's knowledge of every elementwise op of the table, by the
/// op's name (`name` in the table: the function's name, or the operator).
pub const DOMAINS: &[(&str, Role)] = &[
    ("+", Role::Operator),
    ("-", Role::Operator),
    ("*", Role::Operator),
    ("/", Role::Operator),
    ("exp", Role::Core(Guard::Exponential)),
    // ln, sqrt and recip only see `square(x) + c` with `c > 0`.
    (
        "ln",
        Role::Core(Guard::Positive(&["1.0", "0.5"], Grows::Log(1.0))),
    ),
    (
        "sqrt",
        Role::Core(Guard::Positive(&["0.5", "1.0"], Grows::Sqrt)),
    ),
    ("recip", Role::Core(Guard::Positive(&["1.0"], Grows::Recip))),
    ("square", Role::Core(Guard::Square)),
    ("abs", Role::Core(Guard::Same)),
    ("relu", Role::Core(Guard::Same)),
    ("sin", Role::Core(Guard::Constant(1.0))),
    ("cos", Role::Core(Guard::Constant(1.0))),
    ("tanh", Role::Core(Guard::Constant(1.0))),
    ("sigmoid", Role::Core(Guard::Constant(1.0))),
    ("tan", Role::Core(Guard::Tan)),
    ("softplus", Role::Core(Guard::Plus(1.0))),
    ("log_sigmoid", Role::Core(Guard::Plus(1.0))),
    ("sinh", Role::Method(Guard::Exponential)),
    ("cosh", Role::Method(Guard::Exponential)),
    ("exp2", Role::Method(Guard::Exponential)),
    ("exp_m1", Role::Method(Guard::Exponential)),
    ("asinh", Role::Method(Guard::Same)),
    ("atan", Role::Method(Guard::AtMost(1.6))),
    // Positive, away from the poles at -1 (ln_1p) and 0 (the others).
    (
        "ln_1p",
        Role::Method(Guard::Positive(&["0.5", "1.0"], Grows::Log(1.5))),
    ),
    (
        "log2",
        Role::Method(Guard::Positive(&["0.5", "1.0"], Grows::Log(1.5))),
    ),
    (
        "log10",
        Role::Method(Guard::Positive(&["0.5", "1.0"], Grows::Log(1.5))),
    ),
    (
        "cbrt",
        Role::Method(Guard::Positive(&["0.5", "1.0"], Grows::Log(1.5))),
    ),
    // acosh is defined from 1, with a square-root kink there: c ≥ 1.5.
    (
        "acosh",
        Role::Method(Guard::Positive(&["1.5"], Grows::Log(1.0))),
    ),
    ("asin", Role::Method(Guard::Unit)),
    ("acos", Role::Method(Guard::Unit)),
    ("atanh", Role::Method(Guard::Unit)),
    ("to_radians", Role::Method(Guard::Scale(0.02))),
    ("to_degrees", Role::Method(Guard::Degrees)),
    ("floor", Role::Step(Guard::Step { grows: true })),
    ("ceil", Role::Step(Guard::Step { grows: true })),
    ("round", Role::Step(Guard::Step { grows: true })),
    ("trunc", Role::Step(Guard::Step { grows: true })),
    ("signum", Role::Step(Guard::Step { grows: false })),
    ("fract", Role::Step(Guard::Step { grows: false })),
    // `powi` of an `i32` literal; `clamp` with literal bounds; the binary
    // methods with their second operand kept away from their kinks (see
    // `unary.rs`).
    ("powi", Role::Special),
    ("clamp", Role::Special),
    ("max", Role::Special),
    ("min", Role::Special),
    ("powf", Role::Special),
    ("hypot", Role::Special),
    ("log", Role::Special),
    ("atan2", Role::Special),
    ("mul_add", Role::Special),
    ("to_owned", Role::Structural),
];

/// The generator's entry for the op named `name`.
pub fn domain(name: &str) -> Option<Role> {
    DOMAINS.iter().find(|(n, _)| *n == name).map(|&(_, r)| r)
}

/// Which choice of `unary` writes a function.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Group {
    Core,
    Method,
    Step,
}

/// An elementwise function of one operand the generator writes, with the
/// spellings the table gives it.
#[derive(Clone, Debug)]
pub struct Func {
    pub name: &'static str,
    pub group: Group,
    pub guard: Guard,
    /// `x.name()`.
    pub method: bool,
    /// `name(x)`.
    pub function: bool,
    /// `f64::name(x)`.
    pub float_path: bool,
}

/// The functions of the table the generator writes, by group.
#[derive(Clone, Debug, Default)]
pub struct Vocab {
    pub funcs: Vec<Func>,
    /// The ops with a construct of their own that the table has.
    specials: Vec<&'static str>,
    /// Elementwise rows of the table that have no entry in [`DOMAINS`].
    pub missing: Vec<String>,
}

impl Vocab {
    /// The vocabulary of `table` (`backprop_codegen::vocabulary()`).
    pub fn from_table(table: &[VocabEntry]) -> Vocab {
        let mut vocab = Vocab::default();
        for entry in table.iter().filter(|e| e.elementwise) {
            let (group, guard) = match domain(entry.name) {
                None => {
                    vocab.missing.push(format!("{} ({})", entry.name, entry.op));
                    continue;
                }
                Some(Role::Core(g)) => (Group::Core, g),
                Some(Role::Method(g)) => (Group::Method, g),
                Some(Role::Step(g)) => (Group::Step, g),
                Some(Role::Special) => {
                    vocab.specials.push(entry.name);
                    continue;
                }
                Some(Role::Operator | Role::Structural) => continue,
            };
            vocab.funcs.push(Func {
                name: entry.name,
                group,
                guard,
                method: entry.methods.contains(&entry.name),
                function: entry.function,
                float_path: entry.float_path,
            });
        }
        vocab
    }

    /// The functions of a group.
    pub fn group(&self, group: Group) -> Vec<&Func> {
        self.funcs.iter().filter(|f| f.group == group).collect()
    }

    /// The function named `name`.
    pub fn func(&self, name: &str) -> Option<&Func> {
        self.funcs.iter().find(|f| f.name == name)
    }

    /// Whether the table has the op `name`, written by its own construct.
    pub fn has(&self, name: &str) -> bool {
        self.specials.contains(&name)
    }
}
