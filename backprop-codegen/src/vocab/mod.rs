//! The op table: every operation of the vocabulary is one row, written once.
//!
//! A row says how a body spells the op (a method, a function of
//! `backprop::ops`, an `f64::` path), which of its arguments are
//! differentiable operands and which are constants (with the words an error
//! uses for them), the runtime functions its forward pass and its adjoint
//! rules call, what those rules read, and what the planner may do with it
//! (write it over an operand's buffer, fuse it into the pass of the op
//! before, add its contributions into an accumulator).
//!
//! Lowering, planning and emission ask this table; nothing else in the
//! compiler lists op names. Every runtime name here is checked by the test
//! that expands one function per row and compiles it (`tests/vocab.rs`).
//!
//! This file says what a row is; the rows are in [`table`], the other
//! spellings a body may use (shape queries, views written through, macro
//! forms, methods rejected with a hint) in [`spellings`].

/// An argument of a spelling, after the receiver of a method.
#[derive(Clone, Copy, Debug)]
pub enum Arg {
    /// A value the op differentiates.
    Operand,
    /// A constant of the gradient (an exponent, an axis, an index, labels),
    /// and what it is, for the message when it is not a constant.
    Const(&'static str),
    /// `&[&a, &b, ...]`: the operands written out (`concat`).
    Operands,
    /// A constant that may be ndarray's `s![..]` (the slice of `slice`):
    /// the macro is passed through, each of its expressions checked as a
    /// constant and its bindings renamed as in any constant.
    SliceInfo(&'static str),
}

/// Which spelling of an op is ndarray's fallible one, whose value the body
/// unwraps: `a.mean().unwrap()`, `concatenate(..).expect("..")`.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Wrapped {
    /// Every spelling gives the value itself.
    No,
    /// The method returns this type (`"Option"`, `"Result"`).
    Method(&'static str),
    /// The function returns this type.
    Function(&'static str),
}

/// How an op's adjoint rules are named (an op without a [`Kernel`]).
#[derive(Clone, Copy, Debug)]
pub enum Rules {
    /// `foo_vjp`: one differentiable operand.
    One(&'static str),
    /// `foo_vjp_lhs`, `foo_vjp_rhs`.
    Two(&'static str, &'static str),
    /// One rule for each of three operands (`mul_add`).
    Three(&'static str, &'static str, &'static str),
    /// `concat_vjp(.., k)`: one rule, told which operand.
    Indexed(&'static str),
}

/// When an op may write its result over its first operand's buffer.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum InPlace {
    Never,
    /// No rule of the op that runs reads the first operand's values.
    Always,
    /// Only while the other operand has no adjoint: its rule reads the
    /// first operand (`∂b = g·a` for `a * b`).
    UnlessOtherActive,
}

/// An elementwise op's kernel in the runtime (`bp::Tanh`, `bp::Add`): its
/// one line of maths for the value and for the rule, which the generic
/// forms apply (`bp::map_vjp_out(g, &out, bp::Tanh)`).
#[derive(Clone, Copy, Debug)]
pub struct Kernel {
    /// The kernel's type (a unit struct, or `Powi(n)` with the op's constant).
    pub name: &'static str,
    /// What its rule reads.
    pub reads: Reads,
}

/// What a kernel's rule reads besides the upstream gradient.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Reads {
    /// The input: `bp::map_vjp_x(g, &x, K)`.
    X,
    /// The output: `bp::map_vjp_out(g, &out, K)`; the op may write its
    /// result over its input.
    Out,
    /// Both: `bp::map_vjp(g, &x, &out, K)`.
    #[allow(
        dead_code,
        reason = "no op of the table reads both yet; the runtime's form is there"
    )]
    XOut,
    /// Neither: `bp::map_vjp_g(g, K)`.
    G,
    /// A binary kernel: both operands, `bp::zip_vjp_lhs(g, &a, &b, K)`.
    Operands,
}

/// One row of the table.
#[derive(Debug)]
pub struct OpDef {
    /// The op's name, as users see it in messages.
    pub name: &'static str,
    /// The method names that spell it (`x.tanh()`), none if it has no method.
    pub methods: &'static [&'static str],
    /// The arguments of the method, after the receiver (an operand).
    pub method_args: &'static [Arg],
    /// The method is called on `receiver.ADAPTER()`: `a.iter().sum()`.
    pub adapter: Option<&'static str>,
    /// Whether a spelling returns an `Option` or a `Result` that the body
    /// unwraps (`.unwrap()`, `.expect(..)`); written bare it is an error.
    pub wrapped: Wrapped,
    /// How the method is used, for an arity error.
    pub method_usage: &'static str,
    /// The arguments of `name(..)` (also `ops::name`, `backprop::ops::name`);
    /// `None` if there is no such function.
    pub function: Option<&'static [Arg]>,
    /// How the function is used, for an arity error.
    pub function_usage: &'static str,
    /// What to write instead when a constant argument depends on a
    /// differentiable value ("" if nothing specific).
    pub const_hint: &'static str,
    /// The arguments of `f64::name(..)` and `f32::name(..)`; `None` if `f64`
    /// has no such method.
    pub float_path: Option<&'static [Arg]>,
    /// A reduction along an axis that ndarray spells as a fold whose
    /// closure combines the accumulator and an element with this `f64`
    /// method: `a.fold_axis(Axis(k), init, |m, &v| m.max(v))`,
    /// `a.map_axis(Axis(k), |r| r.fold(init, |m, &v| m.max(v)))`. Its
    /// `method_args` are the axis and the initial value.
    pub fold: Option<&'static str>,
    /// The runtime forward function. An operand written over is passed to
    /// it by value.
    pub forward: &'static str,
    /// The kernel of an elementwise op, whose generic forms are its rules.
    pub kernel: Option<Kernel>,
    /// The rules of an op without a kernel.
    pub rules: Rules,
    /// An op without a kernel: its rules take the forward output last.
    pub reads_out: bool,
    /// The forward keeps an intermediate for the rules, which take it in the
    /// place of the output: its local's suffix, and the forward function
    /// that returns `(out, saved)`.
    pub saves: Option<(&'static str, &'static str)>,
    /// An op without a kernel that reads its output: when it may write over
    /// its operand (a kernel's rule decides that from what it reads).
    pub in_place: InPlace,
    pub flags: u16,
    /// How many axes its value has, for an op neither `ELEMENTWISE` nor
    /// `SCALAR_OUT`.
    pub axes: Axes,
    /// For an operator: its rules on scalars, for each operand.
    pub scalar_rules: [ScalarRule; 2],
    /// A body that uses the op in each of its spellings and forms, of
    /// `x: &Array2<f64>` (3 × 2), `v: &Array1<f64>` (2), `s: f64` and
    /// `w: &Array2<f64>` (2 × 3): `tests/vocab.rs` compiles one
    /// differentiable function per row and gradchecks it.
    pub example: &'static str,
}

/// What is known of a value's type at compile time.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Ty {
    /// `f64` or `f32`.
    Float,
    /// An array of this many axes.
    Array(u8),
}

/// The number of axes of an op's value, from its operands' (an op that is
/// `ELEMENTWISE` broadcasts, one that is `SCALAR_OUT` is a float).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Axes {
    /// Not known (a call, or an op whose value depends on more than this).
    Unknown,
    /// Those of its first operand (`t`, `softmax`, `concat`).
    Same,
    /// One fewer (`row`, `sum_axis`): a vector of a matrix.
    Fewer,
    /// One more (`insert_axis`).
    More,
    /// One fewer, a float from a vector or a float (row-wise `logsumexp`).
    Reduced,
    /// A product's: a float of two vectors, a vector of a matrix and a
    /// vector, a matrix of two matrices.
    Product,
    /// A vector, whatever its operands (`[a, b]` of floats).
    Vector,
}

/// Applied element by element (with broadcasting): a scalar in every operand
/// gives a scalar, and the rules take the output as any array of the
/// input's kind.
pub const ELEMENTWISE: u16 = 1;
/// Its value is always a scalar.
pub const SCALAR_OUT: u16 = 2;
/// Its value is a view of its operand (`t`, `row`, ...).
pub const VIEW: u16 = 4;
/// Its rules take its output (and its operand) as any array, so a loop may
/// keep the output as a row of a buffer and lend it back as a view.
pub const ROW_OUT: u16 = 8;
/// Its rules take one type for all operands (so none may be a view of a row).
pub const SAME_TYPE: u16 = 16;
/// Only a float value is copied; any other value passes through as it is.
pub const FLOATS_ONLY: u16 = 32;
/// A Rust operator (its name is its symbol): on scalars the forward is
/// written with it, and the rules as the arithmetic of `scalar_rules`.
pub const OPERATOR: u16 = 64;
/// Its rules return a `Contribution`, which the planner may add into an
/// accumulator (a loop's gradient, an earlier contribution) or, for a
/// product, defer to a loop's `Outers`.
pub const ACCUMULATES: u16 = 128;
/// Its rules' contributions are `bp::…(..).value()` (a binary kernel's, a
/// product's); the planner adds only those of `ACCUMULATES` ops.
pub const CONTRIBUTES: u16 = 256;
/// `a + b`: where neither operand was broadcast, one gradient may borrow
/// the other's (`bp::add_vjp_lend`).
pub const LENDS: u16 = 512;
/// The rule of its first operand may write over that operand's buffer,
/// where nothing reads it after the rule (`mse`'s residual).
pub const RULE_OVER_FIRST: u16 = 1024;
/// Its function and rules take the operands as a slice of views
/// (`concatenate(Axis(0), &[a.view(), b.view()])`): each is passed as
/// `bp::view(..)`, so arrays of any kind may be joined.
pub const SLICE_OF_VIEWS: u16 = 2048;
/// Its rules do not read its first operand (a write's old value: the
/// new value's adjoint is all they need), so the forward may write over it.
pub const RULES_SKIP_FIRST: u16 = 4096;
/// It reads a part of its first operand (a row, an element, a slice): its
/// rule reads only that operand's shape, and its contribution (the upstream
/// gradient in that part) may be added into a gradient where the part is.
pub const PART: u16 = 8192;
/// Its rules read none of its operands (an element write: the upstream
/// gradient and the index are all they need), so none is kept for them.
pub const RULES_READ_NONE: u16 = 16384;

/// The local derivative of an operator on scalars, times the upstream
/// gradient `g`, as written in the generated code (`a`, `b`: the operands).
#[derive(Clone, Copy, Debug)]
pub enum ScalarRule {
    /// `g`
    G,
    /// `-g`
    NegG,
    /// `g * b`
    TimesRhs,
    /// `g * a`
    TimesLhs,
    /// `g / b`
    OverRhs,
    /// `-(g * y) / b`, `y = a / b` the quotient
    Quotient,
}

/// The defaults of a row.
const ROW: OpDef = OpDef {
    name: "",
    methods: &[],
    method_args: &[],
    adapter: None,
    wrapped: Wrapped::No,
    method_usage: "",
    function: None,
    function_usage: "",
    const_hint: "",
    float_path: None,
    fold: None,
    forward: "",
    kernel: None,
    rules: Rules::One(""),
    reads_out: true,
    saves: None,
    in_place: InPlace::Never,
    flags: 0,
    axes: Axes::Unknown,
    scalar_rules: [ScalarRule::G, ScalarRule::G],
    example: "",
};

/// An elementwise function of one operand, spelled as the method, the
/// function and the `f64::` path of its name.
const fn unary(name: &'static str, kernel: &'static str, reads: Reads) -> OpDef {
    OpDef {
        name,
        forward: name,
        kernel: Some(Kernel {
            name: kernel,
            reads,
        }),
        flags: ELEMENTWISE | ROW_OUT,
        ..ROW
    }
}

/// A binary kernel (`+ - * /`, `max min powf`).
const fn binary(name: &'static str, forward: &'static str, kernel: &'static str) -> OpDef {
    OpDef {
        name,
        forward,
        kernel: Some(Kernel {
            name: kernel,
            reads: Reads::Operands,
        }),
        in_place: InPlace::UnlessOtherActive,
        flags: ELEMENTWISE | ROW_OUT | CONTRIBUTES,
        ..ROW
    }
}

macro_rules! vocabulary {
    ($($(#[$doc:meta])* $op:ident => $def:expr,)*) => {
        /// An operation of the vocabulary (a row of the table), or a call of
        /// another differentiable function by its index in the graph's calls.
        #[derive(Clone, Copy, PartialEq, Eq, Debug, Hash)]
        pub enum Op {
            $($(#[$doc])* $op,)*
            Call(u32),
        }

        impl Op {
            /// Every op of the table, in its order.
            pub const ALL: &'static [Op] = &[$(Op::$op,)*];

            /// The op's row.
            pub fn def(self) -> &'static OpDef {
                match self {
                    $(Op::$op => { const DEF: OpDef = $def; &DEF })*
                    Op::Call(_) => &ROW,
                }
            }
        }
    };
}

// After the macro, which the table invokes.
mod spellings;
mod table;

pub use table::{
    method_hint, Op, MACRO_FORMS, SHAPE_METHODS, SLICE_MACROS, TRANSPARENT_METHODS, UNWRAP_HINT,
    UNWRAP_METHODS, WRITE_METHODS, WRITE_VIEWS,
};

impl Op {
    pub fn has(self, flag: u16) -> bool {
        self.def().flags & flag != 0
    }

    /// Applied element by element (see [`ELEMENTWISE`]).
    pub fn elementwise(self) -> bool {
        self.has(ELEMENTWISE)
    }

    /// The op spelled as the method `name` on a receiver (not after an
    /// adapter).
    pub fn by_method(name: &str) -> Option<Op> {
        Op::by_chain(None, name)
    }

    /// The op spelled as the method `name` after `adapter` (`iter` of
    /// `a.iter().sum()`), or on a receiver for `None`.
    pub fn by_chain(adapter: Option<&str>, name: &str) -> Option<Op> {
        Op::ALL.iter().copied().find(|op| {
            let def = op.def();
            def.adapter == adapter && def.methods.contains(&name)
        })
    }

    /// The reduction along an axis whose fold combines with the method
    /// `name` (`max`).
    pub fn by_fold(name: &str) -> Option<Op> {
        Op::ALL
            .iter()
            .copied()
            .find(|op| op.def().fold == Some(name))
    }

    /// Whether `name` is an adapter of some row (`iter`).
    pub fn is_adapter(name: &str) -> bool {
        Op::ALL.iter().any(|op| op.def().adapter == Some(name))
    }

    /// The type the method spelling returns, where the body unwraps it.
    pub fn method_wrapped(self) -> Option<&'static str> {
        match self.def().wrapped {
            Wrapped::Method(ty) => Some(ty),
            _ => None,
        }
    }

    /// The type the function spelling returns, where the body unwraps it.
    pub fn function_wrapped(self) -> Option<&'static str> {
        match self.def().wrapped {
            Wrapped::Function(ty) => Some(ty),
            _ => None,
        }
    }

    /// The op `path` names as a function: `relu`, `ops::relu`,
    /// `backprop::ops::relu`, `f64::exp`, `ndarray::concatenate`.
    pub fn by_path(path: &syn::Path) -> Option<(Op, &'static [Arg])> {
        let segs: Vec<String> = path.segments.iter().map(|s| s.ident.to_string()).collect();
        let (last, prefix) = segs.split_last()?;
        // The runtime's own functions the macro writes into a body it
        // rewrites (`#krate::__private::pack_matrix`), whatever the path
        // to the crate.
        let in_ops = prefix
            .iter()
            .all(|s| matches!(s.as_str(), "backprop" | "ops" | "prelude" | "ndarray"))
            || prefix.last().is_some_and(|s| s == "__private");
        let float = prefix.len() == 1 && matches!(prefix[0].as_str(), "f64" | "f32");
        Op::ALL.iter().copied().find_map(|op| {
            let def = op.def();
            if def.name != last {
                return None;
            }
            match (def.function, def.float_path) {
                (Some(args), _) if in_ops => Some((op, args)),
                (_, Some(args)) if float => Some((op, args)),
                _ => None,
            }
        })
    }

    /// Whether the op may write its result over its first operand's
    /// buffer, given which of its operands have adjoints: a unary kernel
    /// whose rule does not read its input, or as the row says.
    pub fn in_place(self, active: &[bool]) -> bool {
        let def = self.def();
        if let Some(Kernel { reads, .. }) = def.kernel {
            if reads != Reads::Operands {
                return matches!(reads, Reads::Out | Reads::G);
            }
        }
        match def.in_place {
            InPlace::Never => false,
            InPlace::Always => true,
            InPlace::UnlessOtherActive => !active.get(1).copied().unwrap_or(false),
        }
    }

    /// The type of the op's value, from its operands' (`None` where any
    /// that decides it is unknown).
    pub fn value_ty(self, inputs: &[Option<Ty>]) -> Option<Ty> {
        use Ty::{Array, Float};
        if self.has(SCALAR_OUT) {
            return Some(Float);
        }
        if self.elementwise() {
            // Broadcasting: the operand of most axes.
            return inputs.iter().try_fold(Float, |acc, t| match (acc, (*t)?) {
                (Array(a), Array(b)) => Some(Array(a.max(b))),
                (Array(a), Float) | (Float, Array(a)) => Some(Array(a)),
                (Float, Float) => Some(Float),
            });
        }
        if self.def().axes == Axes::Vector {
            return Some(Array(1));
        }
        let first = match inputs.first().copied().flatten() {
            Some(Array(n)) => n,
            Some(Float) if self.def().axes == Axes::Reduced => return Some(Float),
            _ => return None,
        };
        match self.def().axes {
            Axes::Unknown | Axes::Vector => None,
            Axes::Same => Some(Array(first)),
            Axes::Fewer => first.checked_sub(1).map(Array),
            Axes::More => Some(Array(first + 1)),
            Axes::Reduced if first <= 1 => Some(Float),
            Axes::Reduced => Some(Array(first - 1)),
            Axes::Product => match (first, inputs.get(1).copied().flatten()?) {
                (1, Array(1)) => Some(Float),
                (2, Array(1)) | (1, Array(2)) => Some(Array(1)),
                (2, Array(2)) => Some(Array(2)),
                _ => None,
            },
        }
    }

    /// Whether the function takes its operands as one slice
    /// (`concat(Axis(0), &[&a, &b])`), after its constants (as views where
    /// the row says [`SLICE_OF_VIEWS`]).
    pub fn operands_in_slice(self) -> bool {
        self.def()
            .function
            .is_some_and(|args| args.iter().any(|a| matches!(a, Arg::Operands)))
    }

    /// The unary kernel, if the op has one.
    pub fn unary_kernel(self) -> Option<Kernel> {
        self.def().kernel.filter(|k| k.reads != Reads::Operands)
    }

    /// The binary kernel, if the op has one.
    pub fn binary_kernel(self) -> Option<Kernel> {
        self.def().kernel.filter(|k| k.reads == Reads::Operands)
    }

    /// Whether the op's rules read its (first) operand, its values or its
    /// shape: all but a unary kernel that reads only its output.
    pub fn rule_reads_operand(self) -> bool {
        if self.has(RULES_SKIP_FIRST | RULES_READ_NONE) {
            return false;
        }
        self.unary_kernel()
            .is_none_or(|k| matches!(k.reads, Reads::X | Reads::XOut))
    }

    /// How many of its operands, from the first, the op's rules are not
    /// passed (see [`RULES_SKIP_FIRST`], [`RULES_READ_NONE`]).
    pub fn rule_skips(self) -> usize {
        if self.has(RULES_READ_NONE) {
            usize::MAX
        } else {
            usize::from(self.has(RULES_SKIP_FIRST))
        }
    }

    /// Whether the op's rules read its output.
    pub fn rule_reads_out(self) -> bool {
        match self.def().kernel {
            Some(k) => matches!(k.reads, Reads::Out | Reads::XOut),
            None => self.def().reads_out,
        }
    }
}

/// The runtime's fused forms that are not one op's.
pub mod fused {
    /// `sum(square(x))` as one reduction, and its rule.
    pub const SUM_SQUARE: &str = "sum_square";
    pub const SUM_SQUARE_VJP: &str = "sum_square_vjp";
    /// An arithmetic op's kernel, then a unary kernel, in one pass.
    pub const ZIP_MAP: &str = "zip_map";
    /// `x + m.dot(&v)` with the product added into `x`'s buffer.
    pub const ADD_DOT: &str = "add_dot";
    /// A product computed into a loop's spare buffer.
    pub const DOT_REUSE: &str = "dot_reuse";
}
