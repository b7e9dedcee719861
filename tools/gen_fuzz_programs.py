#!/usr/bin/env python3
"""Differential fuzzing of #[differentiable]: a seeded random program generator.

Writes random differentiable functions over the vocabulary of the macro
(scalars and arrays; + - * / and unary -, literals, elementwise functions and
float methods, reductions, dot, transposes, row-wise functions, losses, index
reads, rows and columns, concat, broadcasting operands, values used several
times, shadowing, blocks, dead lets, `let mut` with `= += -= *= /=`, `for`
loops carrying values, `if`/`else if`/`else` as statements and expressions,
calls of earlier generated functions, `wrt` subsets and constant parameters,
f32 programs, names the generated code uses itself: `d_out`, `grad`, ...;
closures mapped over elements: `a.mapv(|v| ..)`, `a.map(|&v| ..)`,
`a.mapv_into(..)` on a temporary, `a.mapv(f64::tanh)` and other paths (ops
and scalar functions of the file), `Zip::from(&a).and(&b).map_collect(|&x,
&y| ..)`, `a.iter().map(|x| ..).sum::<f64>()` and
`a.iter().zip(b.iter()).map(|(x, y)| ..).sum::<f64>()`, their bodies scalar
expressions over the elements with `if`/`else`, capturing float constants
(`let c1 = 0.5;`) and differentiable scalars of the program; ndarray's
reductions `mean().unwrap()`, `mean_axis(..).unwrap()`, `var`, `std`,
`var_axis`, `std_axis`, `product`, `iter().sum::<f64>()`; views and gathers
`slice(s![..])` (ranges, steps, negative ends and steps, single indices),
`slice_axis`, `index_axis`, `select` (indices sometimes repeated),
`to_shape`, `into_shape_with_order`, `permuted_axes`, `reversed_axes`,
`broadcast`, `remove_axis`, `concatenate`, `stack`; constants as Rust:
integer arithmetic on shape queries as indices and loop bounds
(`let n1 = p0.len() - 1;`, `p0[n1]`, `for i in 0..n1`), `let (n1, m1) =
p0.dim();`, `nrows`/`ncols`, and constant arrays made in the body (`zeros`,
`ones`, `from_elem`, `eye`, `linspace`, `from_shape_vec`, `array![..]`)
mixed into differentiable arithmetic); control flow: `while n < K && t.abs()
> c { ..; n += 1; }` and `loop { ..; n += 1; if n >= K || .. { break; } }`
(a carried counter bounds every loop), `for` ranges `(0..k).rev()` and
`(0..k).step_by(2)`, `if c { break; }`, `if c { continue; }` (also
`break 'oN`/`continue 'oN` out of an outer labelled loop), `let v = loop
{ .. break e; }` and
`if c { return e; }` inside `for` bodies and `if c { return e; }` at the top
(scalar outputs then), `match i % 3 { 0 => .., 1 | 2 => { .. } _ => {} }` as
a statement in loops, `match` as a value on a constant `k0: usize`
parameter (or `k0 % 3`) or on `x.len() % 3`, `match () { _ if c => .., .. }`
with guards on differentiable values; arrays written after the body made
them (`let mut y = x.to_owned();` or `Array1::<f64>::zeros(n)`, then
`y[i] = e`, `y[i] += e`, `y[[i, j]] = e`, `y.row_mut(i).assign(&v)`,
`y.column_mut(j).assign(&v)` in a loop); such an array carried across an
outer loop (`for o in 0..K` or a `while` with a counter) and written element
by element (`y[j] = e`, `y[j] = y[j] * 0.5 + e`, `y[j] += e`,
`y[[i, j]] = e`) or row by row in one inner loop, then read element by
element or row by row into a carried scalar in a sibling inner loop (the
reads sometimes first, a second write and read after, an `if` around one
inner loop); loops over `x.rows()`,
`x.columns()`, `ws.iter().enumerate()` of a constant `ws: &[f64]` parameter,
`labels.iter().enumerate()` (`x[[i, l]]`, `l as f64`)
and `x.rows().into_iter().zip(ws.iter())`; tuple outputs of two or three
components, scalars and arrays (`-> (f64, Array2<f64>, f64)`, the array a
function of a value, a clone of a local, or a local moved in the last
place; checked with one upstream per component: `1.0`, `0.5`, `-0.75` for
a scalar, a random array for an array); and calls of earlier functions that
return a tuple, bound by a tuple pattern with some components `_`
(`let (t3, _) = f0029(t1);`): where they stand, in a `for` loop that
accumulates a scalar of the components (and may pass the accumulator to
the call), and in one arm of an `if` whose value is a scalar of them.
Each program comes with a test that

  * compares the forward value of `NAME_backward` with the original function's
    (bit for bit: the design says they are equal),
  * checks every gradient has its parameter's shape,
  * gradchecks `NAME_backward` at a deterministic random point, and
  * checks forward mode against reverse mode: `NAME_jvp` along a random
    direction against the gradient dotted with it (`jvpcheck`, to
    rounding), and `NAME_hvp` (a scalar `f64` value) against central
    differences of the gradient (`hvpcheck`); every program is
    `#[differentiable(jvp)]` or `(hvp)`.

Loops whose carried variables are reassigned (to constants, to each
other, swapped, aliased, in branches and `match` arms, in nested loops and
loops that may run no iteration, `carried`) are weighted by `--carried`.

Domains are kept safe by construction: `ln`, `sqrt`, `recip`, `powf`,
`ln_1p`, `log2`, `log10`, `cbrt`, `acosh` and divisors only see
`square(x) + c` with `c > 0` (`c ≥ 1.5` for `acosh`); `asin`, `acos` and
`atanh` see `0.75 · tanh(x)`; the second operand of `hypot` and `atan2` is
at least 0.5 (away from the origin) and a base of `log` a literal or at
least 1.5; `clamp` has literal bounds; `var` and `std` (and their `_axis`
forms) see `0.1 · x + spread` with `|x| ≤ 1` and a constant `spread` that
increases by 0.5 along every axis (every lane has two or more elements and
is far from zero variance, the kink of `std`); `product` sees at most four
elements of magnitude at most 1; slices, `select` indices and reshapes are
within the shape; views of temporaries are made owned or reduced in their
statement (and not written in loops and branches, see REGION_BUGS); a
closure's elements are squashed to magnitude 3 at most and its body is
built like any scalar expression (with the same guards); and a rough bound on every
value's magnitude decides which ops may be applied (no `exp` of something
large, no `powi` of something big), so that central differences stay accurate.

Usage:
  python3 tools/gen_fuzz_programs.py                 # writes tests/fuzz_generated.rs
  python3 tools/gen_fuzz_programs.py --check         # fails if that file is stale
  python3 tools/gen_fuzz_programs.py --stats         # also counts the control-flow constructs
  python3 tools/gen_fuzz_programs.py --seed 2 --count 3000 --out /tmp/x.rs
  python3 tools/gen_fuzz_programs.py --split 6 --seed 2 --count 3000 --out /tmp/dir/batch
      (writes /tmp/dir/batch_0.rs .. batch_5.rs)

The generator is deterministic (Python's `random.Random(seed)`, no hash-order
dependence), so `--check` regenerates in memory and compares byte for byte.
"""

import argparse
import collections
import os
import random
import sys

DEFAULT_SEED = 20261202
DEFAULT_COUNT = 500
DEFAULT_OUT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "fuzz_generated.rs"))

# Array shapes parameters may have: (n, 1), (1, m), (m,) broadcast against
# (n, m); transposes and dots need (m, n), (m, k), ...
SHAPES = [
    (3, 2), (3, 2), (2, 3), (3, 1), (1, 2), (2,), (3,), (2, 2), (1, 3), (2, 1), (3, 3),
]
# The magnitude bound above which an op that grows values is not applied.
LIMIT = 12.0
# Raw identifiers (`r#type`) as names: off, because the macro panics on them
# (see backprop-codegen/tests/no_panic.rs, `raw_identifiers`); `--raw-idents`
# turns them on.
RAW_IDENTS = False
# Calls of functions with an `ArrayView` parameter (`g(x.view())`): off,
# because the generated backward passes `&Array` where the view is expected
# (see tests/fuzz_regressions.rs); `--view-calls` turns them on.
VIEW_CALLS = False
# Known bugs in loops and branches (tests/fuzz_regressions.rs): views of
# temporaries inside a loop body or an `if` arm, `if` conditions that pass a
# local reference alias to an op, and an array returned by name that some
# arm of an `if` does not assign (no `else`, or another variable assigned). Avoided unless `--region-bugs`.
REGION_BUGS = False
# Calls with a borrowed alias as argument (`let r = &t; g(r)`): off, because
# the generated backward passes the owned value (tests/fuzz_regressions.rs);
# `--alias-calls` turns them on.
ALIAS_CALLS = False
EXP_LIMIT = 3.0
# Every program also second order (`jvp`, or `hvp` for a scalar `f64`
# value): its test checks forward mode against reverse mode and the
# Hessian-vector product against central differences; `--no-modes` turns
# it off.
MODES = True
# How often a statement is a loop whose carried variables are reassigned
# (`carried`, issue 29): `--carried W` sets it.
CARRIED = 0.08
# The compiler bugs the control-flow programs found (a `let` after a
# statement with a `return`; an array carried by a `loop` and read by a
# scalar carried too; a dead branch result its reverse keeps; a borrowed
# branch result read by a nested branch's reverse) are fixed and pinned in
# tests/early_return.rs and tests/loop_exits.rs; the generator writes them.
# How often each control-flow construct was written (`--stats`).
COUNTS = collections.Counter()

# The f64 methods that are ops, spelled `x.name()` (on arrays too: ndarray has
# them), `name(x)` and `f64::name(x)`; and the piecewise constant ones.
FLOAT_METHODS = ["sinh", "cosh", "asinh", "acosh", "atanh", "asin", "acos", "atan", "exp2",
                 "exp_m1", "ln_1p", "log2", "log10", "cbrt", "to_degrees", "to_radians"]
STEP_METHODS = ["floor", "ceil", "round", "trunc", "signum", "fract"]


def broadcast(a, b):
    """numpy broadcasting of two shapes (() is a scalar); None if incompatible."""
    n = max(len(a), len(b))
    out = []
    for k in range(n):
        da = a[len(a) - 1 - k] if k < len(a) else 1
        db = b[len(b) - 1 - k] if k < len(b) else 1
        if da == db or db == 1:
            out.append(da)
        elif da == 1:
            out.append(db)
        else:
            return None
    return tuple(reversed(out))


def is_literal(code):
    try:
        float(code)
        return True
    except ValueError:
        return False


def size(shape):
    s = 1
    for d in shape:
        s *= d
    return s


def rust_array_type(shape, ty="f64"):
    return {0: ty, 1: "Array1<%s>" % ty, 2: "Array2<%s>" % ty}[len(shape)]


def lit(rng):
    v = rng.choice([0.5, 1.5, 2.0, 0.25, 3.0, 0.75, 1.25, 0.1])
    return "%s" % v


class V:
    """A value: its Rust code, shape (() for a scalar), magnitude bound and
    how it may be spelled as an operand.

    form: 'ref'   a name that already is a reference (`&Array2<f64>` param)
          'name'  an owned (or view) name: borrowed as `&t`
          'expr'  a compound expression (owned value, or a scalar)
          'view'  an expression that is an `ArrayView` borrowing a name (`t.t()`)
    """

    def __init__(self, code, shape, bound, form="expr", is_view=False, borrowed=False):
        self.code = code
        self.shape = shape
        self.bound = bound
        self.form = form
        # A name bound to an `ArrayView` (not an owned array).
        self.is_view = is_view
        # A name bound to a borrow of a local or an owned parameter
        # (`let r = &t;`).
        self.borrowed = borrowed

    @property
    def scalar(self):
        return self.shape == ()

    def atom(self):
        """The code, safe as an operand of a binary operator or a receiver."""
        if self.form in ("ref", "name") or self.code.replace("_", "").isalnum():
            return self.code
        return "(%s)" % self.code

    def as_ref(self):
        """An array as a reference (function argument or operator operand)."""
        assert not self.scalar
        if self.form == "ref":
            return self.code
        if self.form == "name":
            return "&" + self.code
        return "&" + self.atom()

    def arg(self):
        """As an argument of a `backprop::ops` function."""
        return self.code if self.scalar else self.as_ref()

    def recv(self):
        """As the receiver of a method call."""
        return self.atom()


class Program:
    def __init__(self, rng, index, callees=()):
        self.rng = rng
        self.index = index
        # Earlier programs (in the same file) this one may call: in an
        # expression, or (those that return a tuple) as `let (a, b) = f(..);`.
        callable = [c for c in callees if not c.uses_labels and not c.uses_constant
                    and not c.uses_ws and c.uses_int is None
                    and (VIEW_CALLS or all(p[2] != "view" for p in c.params))]
        self.callees = [c for c in callable if c.out_shape != "tuple"]
        self.tuple_callees = [c for c in callable if c.out_shape == "tuple"
                              and max(c.out_bounds) <= LIMIT * 2]
        self.out_bound = 1.0
        # A tuple output: the shape and the bound of each component.
        self.out_components = None
        self.out_bounds = None
        self.ty = "f64"
        self.name = "f%04d" % index
        self.params = []  # (name, shape, style, differentiable)
        self.stmts = []
        self.env = []  # V values usable as operands (names)
        self.counter = 0
        self.uses_labels = None  # (rows, classes) once softmax_cross_entropy is used
        self.uses_constant = False
        # The statement that binds each local (for adding `mut`), and the
        # locals some view or reference borrows (they cannot be assigned to).
        self.let_index = {}
        self.pinned = set()
        # Inside a loop body or an `if` arm (see REGION_BUGS).
        self.region = 0
        # Arrays assigned in an `if` without `else` (see REGION_BUGS).
        self.if_no_else = set()
        # Inside the body of a closure (only scalars in `env`).
        self.in_closure = 0
        # Names of the shape queries of parameters (`let (n1, m1) = p0.dim();`).
        self.dim_names = {}
        self.int_counter = 0
        # Locals the macro does not know the type of (results of calls,
        # constant arrays, views whose number of axes it does not work
        # out): a closure may not capture them (a documented limitation).
        self.unknown_ty = set()
        # Control flow: an early `return` somewhere (the output is then a
        # scalar), the bound of what it returns, a constant `ws: &[f64]`
        # parameter (its values) and a constant `k0: usize` one (its value).
        self.has_return = False
        self.ret_bound = 0.0
        self.uses_ws = None
        self.uses_int = None
        self.counts = COUNTS
        self.pending_return = None

    # ---------- choices

    def pick(self, pred=lambda v: True):
        cands = [v for v in self.env if pred(v)]
        if not cands:
            return None
        # Favour recent names, but reuse old ones too (forks).
        weights = [1.0 + k for k in range(len(cands))]
        return self.rng.choices(cands, weights=weights)[0]

    def fresh(self):
        self.counter += 1
        return "t%d" % self.counter

    # ---------- expressions

    def leaf(self, pred=lambda v: True):
        v = self.pick(pred)
        return v

    def expr(self, depth):
        """A random expression of any shape."""
        rng = self.rng
        if depth <= 0 or rng.random() < 0.25:
            return self.leaf()
        choice = rng.random()
        if self.callees and rng.random() < 0.06:
            c = self.call(depth)
            if c is not None:
                return c
        if not self.in_closure and rng.random() < 0.18:
            return self.extended(depth)
        if choice < 0.35:
            return self.binary(depth)
        if choice < 0.65:
            return self.unary(depth)
        if choice < 0.85:
            return self.reduce_or_structure(depth)
        return self.linalg(depth)

    def call(self, depth):
        """A call of an earlier generated differentiable function, with
        arguments of its parameters' shapes and spellings."""
        rng = self.rng
        for _ in range(4):
            callee = rng.choice(self.callees[-40:])
            args = self.call_args(callee, depth)
            if args is not None:
                bound = callee.out_bound
                v = V("%s(%s)" % (callee.name, ", ".join(args)), callee.out_shape, bound)
                if bound > LIMIT * 2:
                    v = self.squash(v) if v.scalar else self.squash_array(v)
                return v
        return None

    def call_args(self, callee, depth):
        """Arguments of the parameters' shapes and spellings of `callee`
        (None if some cannot be found)."""
        rng = self.rng
        args = []
        # The callee was generated for parameters in [-1, 1]: larger
        # arguments are squashed first.
        for name, shape, style, _ in callee.params:
            if shape == ():
                v = self.expr(depth - 1) if rng.random() < 0.4 else self.leaf(lambda v: v.scalar)
                if v is None or not v.scalar:
                    return None
                if v.bound > 1.0:
                    v = self.squash(v)
                args.append(v.code)
                continue
            v = self.leaf(lambda v: v.shape == shape and (ALIAS_CALLS or not v.borrowed))
            if v is not None and v.bound > 1.0:
                v = self.squash_array(v)
            if v is None or (style == "ref" and not self.owned(v)):
                return None
            if style == "ref":
                args.append(v.as_ref())
            elif style == "owned":
                args.append("%s.to_owned()" % v.recv() if v.form != "expr" or v.is_view else v.code)
            else:
                args.append("%s.view()" % v.recv())
        return args

    def tuple_pattern(self, callee, depth):
        """`let (tA, _, tB) = fNNNN(args);` of a callee that returns a tuple:
        the statement and the values it binds (None if no arguments fit).
        Some components are `_`, never all."""
        rng = self.rng
        args = self.call_args(callee, depth)
        if args is None:
            return None
        names, values = [], []
        for shape, bound in zip(callee.out_components, callee.out_bounds):
            if rng.random() < 0.3:
                names.append("_")
                continue
            name = self.fresh()
            names.append(name)
            self.unknown_ty.add(name)
            values.append(V(name, shape, bound, form="expr" if shape == () else "name"))
        if not values:
            return None
        stmt = "let (%s) = %s(%s);" % (", ".join(names), callee.name, ", ".join(args))
        return stmt, values

    def tuple_call(self, depth):
        """A call of a function that returns a tuple, bound by a tuple
        pattern: where it stands (its components join the operands), in a
        `for` loop that accumulates a scalar of them (and may pass the
        accumulator to the call), or in one arm of an `if` whose value is a
        scalar of them."""
        rng = self.rng
        # A callee whose arguments can be found (in the enclosing code).
        for _ in range(4):
            callee = rng.choice(self.tuple_callees[-40:])
            if self.call_args(callee, 0) is not None:
                break
        else:
            return False
        where = rng.choice(["here", "here", "loop", "branch"])
        if where == "here":
            bound = self.tuple_pattern(callee, depth)
            if bound is None:
                return False
            stmt, values = bound
            self.stmts.append(stmt)
            self.env.extend(values)
            self.counts["tuple_call"] += 1
            return True
        if where == "loop":
            acc = self.accumulator(depth)
            k = rng.randint(1, 3)
            self.region += 1
            self.env.append(acc)
            bound = self.tuple_pattern(callee, max(1, depth - 1))
            self.env.remove(acc)
            if bound is None:
                self.region -= 1
                self.env.append(acc)
                return True
            stmt, values = bound
            e = self.scalar_of(max(1, depth - 1), values)
            self.region -= 1
            op = rng.choice(["+=", "-="])
            if rng.random() < 0.5:
                upd = "%s = %s * 0.5 + %s;" % (acc.code, acc.code, e.atom())
                acc.bound = acc.bound + 2 * e.bound
            else:
                upd = "%s %s %s;" % (acc.code, op, e.atom())
                acc.bound = acc.bound + k * e.bound
            self.stmts.append("for i in 0..%d {\n        %s\n        %s\n    }" % (k, stmt, upd))
            self.env.append(acc)
            self.counts["tuple_call_in_loop"] += 1
            return True
        cond = self.condition()
        self.region += 1
        bound = self.tuple_pattern(callee, max(1, depth - 1))
        if bound is None:
            self.region -= 1
            return False
        stmt, values = bound
        a = self.scalar_of(max(1, depth - 1), values)
        b = self.scalar_of(max(1, depth - 1))
        self.region -= 1
        arms = ["{\n        %s\n        %s\n    }" % (stmt, a.code), "{\n        %s\n    }" % b.code]
        if rng.random() < 0.5:
            arms.reverse()
            cond = "!(%s)" % cond
        name = self.fresh()
        self.let(name, "if %s %s else %s" % (cond, arms[0], arms[1]))
        self.unknown_ty.add(name)
        self.env.append(V(name, (), max(a.bound, b.bound)))
        self.counts["tuple_call_in_branch"] += 1
        return True

    def binary(self, depth):
        rng = self.rng
        a = self.expr(depth - 1)
        r = rng.random()
        if r < 0.2:
            # A literal on either side.
            c = lit(rng)
            op = rng.choice(["+", "-", "*", "/"])
            cb = float(c)
            if op == "/" and rng.random() < 0.5:
                # literal / guarded
                den = self.guard(a, "1.0")
                return V("%s / %s" % (c, den.atom()), a.shape, cb)
            lhs_lit = rng.random() < 0.4 and op != "/"
            x = self.operand(a)
            bound = {"+": a.bound + cb, "-": a.bound + cb, "*": a.bound * cb, "/": a.bound / cb}[op]
            if lhs_lit:
                return V("%s %s %s" % (c, op, x), a.shape, bound)
            return V("%s %s %s" % (x, op, c), a.shape, bound)
        # Two values with broadcast-compatible shapes.
        b = None
        for _ in range(6):
            cand = self.expr(depth - 1) if rng.random() < 0.5 else self.leaf()
            if broadcast(a.shape, cand.shape) is not None:
                b = cand
                break
        if b is None:
            b = self.leaf(lambda v: broadcast(a.shape, v.shape) is not None)
        if b is None:
            b = V(lit(rng), (), 3.0)
        shape = broadcast(a.shape, b.shape)
        op = rng.choice(["+", "-", "*", "/", "*"])
        if op == "*" and a.bound * b.bound > LIMIT:
            op = rng.choice(["+", "-"])
        if op == "/":
            b = self.guard(b, rng.choice(["1.0", "0.5", "2.0"]))
            bound = a.bound / (0.5)
        elif op == "*":
            bound = a.bound * b.bound
        else:
            bound = a.bound + b.bound
        return V("%s %s %s" % (self.operand(a), op, self.operand(b)), shape, bound)

    def operand(self, v):
        """A value as an operand of `+ - * /`."""
        if v.scalar:
            return v.atom()
        if v.form == "expr" and self.rng.random() < 0.3:
            return v.atom()  # an owned temporary, moved into the operator
        return v.as_ref()

    def guard(self, v, c):
        """`square(v) + c`, positive: for ln, sqrt, divisors, recip, powf."""
        rng = self.rng
        cb = float(c)
        if is_literal(v.code):
            # `(1.5).powi(2)` would not compile: the literal has no type yet.
            return V("%s * %s + %s" % (v.code, v.code, c), (), float(v.code) ** 2 + cb)
        if v.scalar:
            sq = rng.choice(["%s.powi(2)", "square(%s)", "%s * %s"])
            if sq == "%s * %s":
                # Only for names: a compound expression would be computed twice.
                if v.form == "expr":
                    sq = "square(%s)"
                    code = sq % v.code
                else:
                    code = sq % (v.atom(), v.atom())
            elif sq == "square(%s)":
                code = sq % v.code
            else:
                code = sq % v.atom()
            return V("%s + %s" % (code, c), (), v.bound * v.bound + cb)
        if v.form in ("ref", "name") and rng.random() < 0.4:
            r = v.as_ref()
            code = "%s * %s + %s" % (r, r, c)
        else:
            code = "square(%s) + %s" % (v.as_ref(), c)
        return V(code, v.shape, v.bound * v.bound + cb)

    def squash(self, v):
        """A bounded function of v (a saturating one when v may be large:
        `sin` of a large value would be steep, not flat)."""
        f = self.rng.choice(["tanh", "sigmoid", "sin", "cos"] if v.bound <= 3.0 else ["tanh", "sigmoid"])
        return self.apply_fn(f, v, 1.0)

    def apply_fn(self, f, v, bound):
        rng = self.rng
        if f in FLOAT_METHODS + STEP_METHODS and not is_literal(v.code):
            spelling = rng.random()
            if spelling < 0.4:
                return V("%s.%s()" % (v.recv(), f), v.shape, bound)
            if v.scalar and spelling < 0.6:
                return V("%s::%s(%s)" % (self.ty, f, v.code), (), bound)
        if v.scalar and f in ("exp", "ln", "sqrt", "sin", "cos", "tan", "tanh", "abs", "recip") and rng.random() < 0.5:
            return V("%s.%s()" % (v.recv(), f), (), bound)
        if v.scalar and rng.random() < 0.1 and f in ("exp", "sin", "cos", "tanh", "abs", "sqrt", "ln"):
            return V("%s::%s(%s)" % (self.ty, f, v.code), (), bound)
        if rng.random() < 0.05 or f == "recip":
            # (`recip` is not in the prelude.)
            return V("backprop::ops::%s(%s)" % (f, v.arg()), v.shape, bound)
        return V("%s(%s)" % (f, v.arg()), v.shape, bound)

    def unary(self, depth):
        rng = self.rng
        a = self.expr(depth - 1)
        fs = ["exp", "ln", "sqrt", "square", "abs", "sin", "cos", "tanh", "sigmoid",
              "relu", "powi", "neg", "recip", "tan", "softplus", "log_sigmoid"]
        # One entry each for the f64 methods, the steps and clamp.
        fs += ["method", "step", "clamp", "hypot_log"]
        if a.scalar:
            fs += ["powf", "max", "min", "atan2_mul_add"]
        if len(a.shape) in (1, 2):
            fs += ["softmax", "log_softmax", "softmax"]
        f = rng.choice(fs)
        if f == "method":
            return self.float_method(a)
        if f == "step":
            f = rng.choice(STEP_METHODS)
            bound = 1.0 if f in ("signum", "fract") else a.bound + 1.0
            return self.apply_fn(f, a, bound)
        if f == "clamp":
            lo, hi = rng.choice(["-0.5", "-1.0", "-2.0"]), rng.choice(["0.5", "1.0", "3.0"])
            bound = max(-float(lo), float(hi))
            if is_literal(a.code) or rng.random() < 0.3:
                return V("clamp(%s, %s, %s)" % (a.arg(), lo, hi), a.shape, bound)
            if a.scalar and rng.random() < 0.3:
                return V("%s::clamp(%s, %s, %s)" % (self.ty, a.code, lo, hi), (), bound)
            return V("%s.clamp(%s, %s)" % (a.recv(), lo, hi), a.shape, bound)
        if f == "hypot_log":
            return self.hypot_or_log(a)
        if f == "atan2_mul_add":
            return self.atan2_or_mul_add(a)
        if f == "exp":
            if a.bound > EXP_LIMIT:
                a = self.squash(a)
            return self.apply_fn("exp", a, 2.718281828 ** a.bound)
        if f == "ln":
            g = self.guard(a, rng.choice(["1.0", "0.5"]))
            return self.apply_fn("ln", g, max(1.0, g.bound))
        if f == "sqrt":
            g = self.guard(a, rng.choice(["0.5", "1.0"]))
            return self.apply_fn("sqrt", g, g.bound ** 0.5 + 1)
        if f == "recip":
            g = self.guard(a, "1.0")
            return self.apply_fn("recip", g, 1.0)
        if f == "tan":
            # tan of a value in (-1, 1): far from the poles.
            s = self.apply_fn("tanh", a, 1.0)
            return self.apply_fn("tan", s, 1.6)
        if f == "square":
            if a.bound * a.bound > LIMIT:
                a = self.squash(a)
            return self.apply_fn("square", a, a.bound * a.bound)
        if f == "powi":
            n = rng.choice([1, 2, 3, 2])
            if a.bound ** n > LIMIT:
                a = self.squash(a)
            if a.scalar and rng.random() < 0.6:
                return V("%s.powi(%d)" % (a.recv(), n), (), max(a.bound, a.bound ** n))
            return V("powi(%s, %d)" % (a.arg(), n), a.shape, max(a.bound, a.bound ** n))
        if f == "neg":
            if a.scalar:
                return V("-%s" % a.atom(), (), a.bound)
            return V("-%s" % self.operand(a), a.shape, a.bound)
        if f == "powf":
            base = self.guard(a, "0.5")
            if base.bound > LIMIT:
                base = V("1.5 + %s" % self.squash(a).atom(), (), 2.5)
            e = self.leaf(lambda v: v.scalar)
            if e is None or rng.random() < 0.3:
                ex = V(rng.choice(["0.5", "1.5", "0.25", "2.0"]), (), 2.0)
            else:
                ex = self.apply_fn(rng.choice(["sin", "tanh", "cos"]), e, 1.0)
            return V("%s.powf(%s)" % (base.atom(), ex.code), (), max(1.0, base.bound ** 2))
        if f in ("max", "min"):
            b = self.leaf(lambda v: v.scalar and v.code != a.code)
            if b is None:
                b = V(lit(rng), (), 3.0)
            return V("%s.%s(%s)" % (a.recv(), f, b.code), (), max(a.bound, b.bound))
        if f in ("softmax", "log_softmax"):
            bound = 1.0 if f == "softmax" else 2 * a.bound + 2.0
            if f == "log_softmax" and bound > LIMIT:
                a = self.squash(a)
                bound = 4.0
            return V("%s(%s)" % (f, a.as_ref()), a.shape, bound)
        # |softplus(x)| and |log_sigmoid(x)| are at most |x| + ln 2.
        bound = {"abs": a.bound, "relu": a.bound, "softplus": a.bound + 1.0,
                 "log_sigmoid": a.bound + 1.0}.get(f, 1.0)
        return self.apply_fn(f, a, bound)

    def float_method(self, a):
        """One of FLOAT_METHODS of `a`, its operand kept in the domain and
        away from the poles."""
        rng = self.rng
        f = rng.choice(FLOAT_METHODS)
        if f in ("sinh", "cosh", "exp2", "exp_m1"):
            if a.bound > EXP_LIMIT:
                a = self.squash(a)
            return self.apply_fn(f, a, 2.718281828 ** a.bound)
        if f in ("asinh", "atan"):
            return self.apply_fn(f, a, min(a.bound, 1.6) if f == "atan" else a.bound)
        if f in ("ln_1p", "log2", "log10", "cbrt"):
            # Positive, away from the poles at -1 and 0.
            g = self.guard(a, rng.choice(["0.5", "1.0"]))
            return self.apply_fn(f, g, max(1.5, g.bound))
        if f == "acosh":
            g = self.guard(a, "1.5")
            return self.apply_fn(f, g, max(1.0, g.bound))
        if f in ("asin", "acos", "atanh"):
            # In [-0.75, 0.75]: away from ±1.
            t = self.apply_fn("tanh", a, 1.0)
            inner = V("%s * 0.75" % self.operand(t), t.shape, 0.75)
            return self.apply_fn(f, inner, 3.2)
        if f == "to_radians":
            return self.apply_fn(f, a, a.bound * 0.02)
        # to_degrees, scaled back so that the bound stays that of `a`.
        d = self.apply_fn(f, a, a.bound * 57.3)
        return V("%s * 0.01" % self.operand(d), a.shape, a.bound * 0.58)

    def scalar_operand(self, lits):
        """A scalar leaf of the program, or one of the literals `lits`."""
        b = self.leaf(lambda v: v.scalar)
        if b is None or self.rng.random() < 0.3:
            return V(self.rng.choice(lits), (), 2.0)
        return b

    def hypot_or_log(self, a):
        """`a.hypot(b)` or `a.log(b)` for a scalar `b` (arrays have both with
        a scalar argument): `b` away from 0 for hypot (its kink is at the
        origin), a base of at least 1.5 for log, whose argument is positive."""
        rng = self.rng
        if rng.random() < 0.5:
            b = self.guard(self.scalar_operand(["0.5", "-1.5"]), "0.5")
            if a.bound > LIMIT:
                a = self.squash(a)
            if a.scalar and rng.random() < 0.3:
                return V("%s::hypot(%s, %s)" % (self.ty, a.code, b.code), (), a.bound + b.bound)
            return V("%s.hypot(%s)" % (a.recv(), b.code), a.shape, a.bound + b.bound)
        g = self.guard(a, rng.choice(["0.5", "1.0"]))
        if rng.random() < 0.4:
            base = V(rng.choice(["2.0", "10.0", "0.5"]), (), 1.0)
        else:
            base = self.guard(self.scalar_operand(["3.0"]), "1.5")
        if g.scalar and rng.random() < 0.3:
            return V("%s::log(%s, %s)" % (self.ty, g.code, base.code), (), 2.5 * g.bound + 2.0)
        return V("%s.log(%s)" % (g.atom(), base.code), g.shape, 2.5 * g.bound + 2.0)

    def atan2_or_mul_add(self, a):
        """`a.atan2(x)` with `x ≥ 0.5` (away from the origin), or
        `a.mul_add(b, c)`, of scalars (`a` is an expression of the program,
        never a bare literal, so it may be a receiver)."""
        rng = self.rng
        if rng.random() < 0.5:
            x = self.guard(self.scalar_operand(["1.0", "-2.0"]), "0.5")
            if rng.random() < 0.3:
                return V("%s::atan2(%s, %s)" % (self.ty, a.code, x.code), (), 1.6)
            return V("%s.atan2(%s)" % (a.atom(), x.code), (), 1.6)
        if a.bound > 3.0:
            a = self.squash(a)
        b = self.scalar_operand(["0.5", "-1.5", "2.0"])
        c = self.scalar_operand(["0.25", "-1.0"])
        if b.bound > 3.0:
            b = self.squash(b)
        bound = a.bound * b.bound + c.bound
        if rng.random() < 0.3:
            return V("%s::mul_add(%s, %s, %s)" % (self.ty, a.code, b.code, c.code), (), bound)
        return V("%s.mul_add(%s, %s)" % (a.atom(), b.code, c.code), (), bound)

    # ---------- closures, ndarray's reductions and views, constants

    def extended(self, depth):
        """One of the newer spellings: a closure mapped over elements, one of
        ndarray's reductions, a view or gather, or a constant made in the
        body (shape queries, constant arrays)."""
        r = self.rng.random()
        if r < 0.4:
            return self.closure(depth)
        if r < 0.62:
            return self.nd_reduction(depth)
        if r < 0.88:
            return self.nd_view(depth)
        return self.constant_mix(depth)

    def array_operand(self, depth, pred=lambda v: True):
        """An array expression (or an array leaf) for which `pred` holds."""
        for _ in range(3):
            a = self.expr(depth - 1)
            if not a.scalar and pred(a):
                return a
        return self.leaf(lambda v: not v.scalar and pred(v))

    def closure_body(self, elems, depth):
        """A scalar expression over the closure's elements `elems` (V's) and
        the differentiable scalars of the program it may capture (plain
        names), or float constants bound before it (`let c1 = 0.5;`)."""
        import re
        rng = self.rng
        caps = [v for v in self.env if v.scalar and re.fullmatch(r"[A-Za-z_]\w*", v.code)
                and v.code not in self.unknown_ty]
        caps = caps[-3:]
        if rng.random() < 0.3:
            self.int_counter += 1
            c = "c%d" % self.int_counter
            val = lit(rng)
            # Typed: a float literal used only as a receiver (`c1.cos()`)
            # would have no type in Rust.
            if rng.random() < 0.5:
                self.stmts.append("let %s: %s = %s;" % (c, self.ty, val))
            else:
                self.stmts.append("let %s = %s;" % (c, self.float_lit(val)))
            caps.append(V(c, (), float(val)))
        saved = (self.env, self.callees)
        self.env = caps + list(elems)
        # Scalar functions of the program only: the body is a scalar function.
        self.callees = [c for c in self.callees if all(p[1] == () for p in c.params)]
        self.in_closure += 1
        if rng.random() < 0.2:
            # `if`/`else` on a comparison of an element (or a capture).
            x = rng.choice(list(elems) + caps[-1:])
            thr = rng.choice(["0.0371", "0.4629", "-0.5183"])
            a = self.expr(depth)
            b = self.expr(depth)
            if a.bound > LIMIT * 2:
                a = self.squash(a)
            if b.bound > LIMIT * 2:
                b = self.squash(b)
            lhs = x.atom()
            cond = "%s %s %s" % (lhs, rng.choice(["<", ">", "<=", ">="]), thr)
            body = V("{\n        if %s {\n            %s\n        } else {\n            %s\n        }\n    }"
                     % (cond, a.code, b.code), (), max(a.bound, b.bound))
        else:
            body = self.expr(depth)
            if is_literal(body.code):
                body = V("%s * %s" % (elems[0].atom(), body.code), (), elems[0].bound * float(body.code))
            if body.bound > LIMIT * 2:
                body = self.squash(body)
        self.in_closure -= 1
        self.env, self.callees = saved
        return body

    def elem_names(self, k):
        return self.rng.choice([["v"], ["u"], ["e"], ["z"]] if k == 1 else [["a", "b"], ["u", "v"], ["l", "r"]])

    def closure(self, depth):
        """A closure mapped over elements, in one of the spellings of
        ndarray and iterators."""
        rng = self.rng
        ty = self.ty
        a = self.array_operand(depth)
        if a is None:
            return self.unary(depth)
        if a.bound > 3.0:
            a = self.squash_array(a)
        n = size(a.shape)
        kinds = ["mapv", "mapv", "map", "mapv_into", "path", "zip", "iter_sum"]
        if len(a.shape) == 1:
            kinds += ["iter_zip", "iter_zip"]
        kind = rng.choice(kinds)
        if kind == "path":
            fs = ["%s::tanh" % ty, "%s::sin" % ty, "%s::cos" % ty, "sigmoid", "relu", "softplus"]
            if a.bound <= EXP_LIMIT:
                fs.append("%s::exp" % ty)
            # A scalar differentiable function of the program, by path.
            fs += [c.name for c in self.callees[-40:]
                   if len(c.params) == 1 and c.params[0][1] == () and c.out_shape == ()][:2]
            f = rng.choice(fs)
            callee = [c for c in self.callees if c.name == f]
            bound = a.bound if f in ("relu", "softplus") else 1.0
            if f.endswith("exp"):
                bound = 2.718281828 ** a.bound
            if f == "softplus":
                bound = a.bound + 1.0
            if callee:
                if a.bound > 1.0:
                    a = self.squash_array(a)
                bound = callee[0].out_bound
            v = V("%s.mapv(%s)" % (a.recv(), f), a.shape, bound)
            if bound > LIMIT * 2:
                v = self.squash_array(v)
            return v
        if kind in ("zip", "iter_zip"):
            same = (lambda v: v.shape == a.shape) if kind == "zip" else (lambda v: len(v.shape) == 1)
            b = self.leaf(lambda v: not v.scalar and same(v))
            if b is None or rng.random() < 0.3:
                b2 = self.array_operand(depth, same)
                b = b2 if b2 is not None else b
            if b is None:
                kind = "mapv"
            else:
                if b.bound > 3.0:
                    b = self.squash_array(b)
                na, nb = self.elem_names(2)
                if kind == "zip":
                    body = self.closure_body([V(na, (), a.bound), V(nb, (), b.bound)], depth)
                    code = "Zip::from(%s).and(%s).map_collect(|&%s, &%s| %s)" % (a.as_ref(), b.as_ref(), na, nb, body.code)
                    return V(code, a.shape, body.bound)
                m = min(a.shape[0], b.shape[0])
                if rng.random() < 0.5:
                    pat = "(&%s, &%s)" % (na, nb)
                    ea, eb = V(na, (), a.bound), V(nb, (), b.bound)
                else:
                    # `x` is a `&f64`: `*x` in the body.
                    pat = "(%s, %s)" % (na, nb)
                    ea, eb = V("*" + na, (), a.bound), V("*" + nb, (), b.bound)
                body = self.closure_body([ea, eb], depth)
                other = "%s.iter()" % b.recv() if rng.random() < 0.7 else b.as_ref()
                code = "%s.iter().zip(%s).map(|%s| %s).sum::<%s>()" % (a.recv(), other, pat, body.code, ty)
                return V(code, (), body.bound * m)
        (name,) = self.elem_names(1)
        if kind == "iter_sum":
            if rng.random() < 0.5:
                pat, e = "&" + name, V(name, (), a.bound)
            else:
                pat, e = name, V("*" + name, (), a.bound)
            body = self.closure_body([e], depth)
            return V("%s.iter().map(|%s| %s).sum::<%s>()" % (a.recv(), pat, body.code, ty), (), body.bound * n)
        body = self.closure_body([V(name, (), a.bound)], depth)
        if kind == "map":
            return V("%s.map(|&%s| %s)" % (a.recv(), name, body.code), a.shape, body.bound)
        if kind == "mapv_into":
            # On a temporary (it consumes its array).
            recv = a.atom() if self.owned(a) and a.form == "expr" else "%s.to_owned()" % a.recv()
            return V("%s.mapv_into(|%s| %s)" % (recv, name, body.code), a.shape, body.bound)
        pat = name if rng.random() < 0.8 else "%s: %s" % (name, ty)
        return V("%s.mapv(|%s| %s)" % (a.recv(), pat, body.code), a.shape, body.bound)

    def float_lit(self, x):
        """A float literal typed as the program's float (for `array![..]`
        and `from_elem`, whose element type Rust infers)."""
        return "%s_%s" % (x, self.ty)

    def dim(self, d):
        """The length `d` as code: a literal, or now and then a shape query of
        a parameter with that length (`let (n1, m1) = p0.dim();`)."""
        rng = self.rng
        cands = [(p[0], k) for p in self.params for k, dd in enumerate(p[1]) if dd == d]
        if not cands or rng.random() < 0.35:
            return str(d)
        pname, k = rng.choice(cands)
        shape = [p for p in self.params if p[0] == pname][0][1]
        if pname not in self.dim_names:
            self.int_counter += 1
            if len(shape) == 2:
                names = ("n%d" % self.int_counter, "m%d" % self.int_counter)
                if rng.random() < 0.7:
                    self.stmts.append("let (%s, %s) = %s.dim();" % (names + (pname,)))
                else:
                    self.stmts.append("let %s = %s.nrows();" % (names[0], pname))
                    self.stmts.append("let %s = %s.ncols();" % (names[1], pname))
            else:
                names = ("n%d" % self.int_counter,)
                self.stmts.append("let %s = %s.len();" % (names[0], pname))
            self.dim_names[pname] = names
        return self.dim_names[pname][k]

    def shape_code(self, shape):
        if len(shape) == 1:
            return self.dim(shape[0])
        return "(%s, %s)" % (self.dim(shape[0]), self.dim(shape[1]))

    def const_array(self, shape, spread=False):
        """`let tK = <constant array>;` made in the body, and its name.
        `spread`: its values increase along every axis by at least 0.5."""
        rng = self.rng
        ty = self.ty
        nd = len(shape)
        n = size(shape)
        if spread:
            vals = [0.5 * k for k in range(n)]
            bound = 0.5 * n
            kind = rng.choice(["array", "vec"] + (["linspace"] if nd == 1 else []))
        else:
            kinds = ["zeros", "ones", "from_elem", "array", "array"]
            if nd == 2 and shape[0] == shape[1]:
                kinds += ["eye", "eye"]
            if nd == 1:
                kinds.append("linspace")
            kind = rng.choice(kinds)
            vals = [rng.choice([0.5, -1.0, 1.5, 0.25, -0.75, 2.0]) for _ in range(n)]
            bound = 2.0
        if kind == "linspace":
            lo, hi = (0.0, 0.5 * (n - 1)) if spread else (-1.0, 1.0)
            code = "Array1::<%s>::linspace(%s, %s, %s)" % (ty, lo, hi, self.dim(shape[0]))
            bound = max(abs(lo), abs(hi))
        elif kind in ("zeros", "ones"):
            code = "%s::<%s>::%s(%s)" % ("Array1" if nd == 1 else "Array2", ty, kind, self.shape_code(shape))
            bound = 1.0
        elif kind == "eye":
            code = "Array2::<%s>::eye(%s)" % (ty, self.dim(shape[0]))
            bound = 1.0
        elif kind == "from_elem":
            c = rng.choice(["0.5", "-1.5", "2.0"])
            code = "Array::from_elem(%s, %s)" % (self.shape_code(shape), self.float_lit(c))
            bound = abs(float(c))
        elif kind == "vec":
            code = "%s::<%s>::from_shape_vec(%s, vec![%s]).unwrap()" % (
                "Array1" if nd == 1 else "Array2", ty, self.shape_code(shape), ", ".join("%s" % x for x in vals))
        else:
            lits = ["%s" % x for x in vals]
            lits[0] = self.float_lit(lits[0])
            if nd == 1:
                code = "array![%s]" % ", ".join(lits)
            else:
                rows = ["[%s]" % ", ".join(lits[i * shape[1]:(i + 1) * shape[1]]) for i in range(shape[0])]
                code = "array![%s]" % ", ".join(rows)
        name = self.fresh()
        self.stmts.append("let %s = %s;" % (name, code))
        self.unknown_ty.add(name)
        return V(name, shape, bound, form="name")

    def nd_reduction(self, depth):
        """One of ndarray's reductions: `mean().unwrap()`, `mean_axis`,
        `var`, `std`, `var_axis`, `std_axis`, `product`, `iter().sum()`."""
        rng = self.rng
        a = self.array_operand(depth)
        if a is None:
            return self.unary(depth)
        nd = len(a.shape)
        n = size(a.shape)
        ops = ["mean", "mean", "iter_sum"]
        if n >= 2:
            ops += ["var", "std"]
        if n <= 4:
            ops += ["product", "product"]
        if nd == 2:
            ops += ["mean_axis"]
            ops += ["var_axis", "std_axis"] if max(a.shape) >= 2 else []
        op = rng.choice(ops)
        if op == "mean":
            return V("%s.mean().%s" % (a.recv(), rng.choice(["unwrap()", 'expect("not empty")'])), (), a.bound)
        if op == "iter_sum":
            return V("%s.iter().sum::<%s>()" % (a.recv(), self.ty), (), a.bound * n)
        if op == "product":
            if a.bound > 1.0:
                a = self.squash_array(a)
            return V("%s.product()" % a.recv(), (), 1.0)
        if op == "mean_axis":
            k = rng.choice([0, 1])
            shape = (a.shape[1 - k],)
            return V("%s.mean_axis(Axis(%d)).unwrap()" % (a.recv(), k), shape, a.bound)
        # var and std: of the values plus a spread constant (every lane has at
        # least two elements that differ by 0.3 or more: away from the kink
        # of `std` at zero variance).
        if a.bound > 1.0:
            a = self.squash_array(a)
        c = self.const_array(a.shape, spread=True)
        spread = "(%s * 0.1 + &%s)" % (self.operand(a), c.code)
        ddof = rng.choice(["0.0", "1.0"])
        if op in ("var", "std"):
            bound = (c.bound + 0.1) ** 2
            return V("%s.%s(%s)" % (spread, op, ddof), (), bound if op == "var" else bound ** 0.5)
        k = rng.choice([i for i in (0, 1) if a.shape[i] >= 2])
        shape = (a.shape[1 - k],)
        bound = (c.bound + 0.1) ** 2
        return V("%s.%s(Axis(%d), %s)" % (spread, op, k, ddof), shape, bound if op == "var_axis" else bound ** 0.5)

    def slice_spec(self, shape):
        """An `s![..]` for `shape` and the shape of the slice (at least one
        axis kept)."""
        rng = self.rng
        for _ in range(10):
            parts, out = [], []
            for d in shape:
                opts = [("..", d), ("..;-1", d), ("..;2", (d + 1) // 2)]
                a = rng.randrange(d)
                b = rng.randrange(a + 1, d + 1)
                opts.append(("%d..%d" % (a, b), b - a))
                opts.append(("%d.." % a, d - a))
                opts.append(("..%d" % b, b))
                k = rng.randint(1, d)
                opts.append(("-%d.." % k, k))
                if d >= 2:
                    opts += [("..-1", d - 1), ("1..;2", d // 2), ("%d..%d;-1" % (a, b), b - a)]
                opts.append(("INDEX", None))
                spec, m = rng.choice(opts)
                if spec == "INDEX":
                    # Typed: with an integer literal of no type, the number of
                    # axes of the slice is unknown when a method is resolved.
                    i = rng.randrange(d)
                    parts.append("%d_usize" % i if rng.random() < 0.7 else "%d_isize" % (i - d))
                else:
                    parts.append(spec)
                    out.append(m)
            if out:
                return "s![%s]" % ", ".join(parts), tuple(out)
        return "s![%s]" % ", ".join([".."] * len(shape)), tuple(shape)

    def reshapes(self, shape):
        n = size(shape)
        cands = [(n,), (1, n), (n, 1)] + [(r, n // r) for r in range(2, n) if n % r == 0]
        return [c for c in cands if c != shape] or cands

    def nd_view(self, depth):
        """A view or a gather in ndarray's spelling: `slice(s![..])`,
        `slice_axis`, `index_axis`, `select`, `to_shape`,
        `into_shape_with_order`, `permuted_axes`, `reversed_axes`,
        `broadcast`, `remove_axis`, `concatenate`, `stack`. A view of a name
        is a view; a view of a temporary is made owned (`.to_owned()`) or
        reduced in the same statement."""
        rng = self.rng
        a = self.array_operand(depth)
        if a is None:
            return self.unary(depth)
        nd = len(a.shape)
        named = a.form in ("ref", "name")
        param = named and a.code in [p[0] for p in self.params]
        in_region = self.region and not REGION_BUGS
        if in_region and not named:
            # Views of temporaries in loops and branches: a known bug
            # (tools/regressions/view_of_temporary_in_region.rs).
            ops = ["select", "select"]
        else:
            ops = ["slice", "slice", "slice_axis", "select", "select", "to_shape", "permuted",
                   "concatenate"]
            if nd == 2:
                ops += ["index_axis", "reversed"]
            if param:
                ops += ["into_shape", "into_shape"]
            if nd == 1 or 1 in a.shape:
                ops += ["broadcast", "broadcast"]
            if nd == 2 and 1 in a.shape:
                ops += ["remove_axis", "remove_axis"]
            if nd == 1:
                ops += ["stack", "stack"]
            if in_region:
                ops = [o for o in ops if o not in ("concatenate", "stack")]
        op = rng.choice(ops)

        def view(code, shape):
            if named and not (in_region and op in ("permuted", "reversed", "remove_axis")):
                return V(code, shape, a.bound, form="view")
            if in_region:
                return V("%s.to_owned()" % code, shape, a.bound)
            if rng.random() < 0.7:
                return V("%s.to_owned()" % code, shape, a.bound)
            return V("%s.sum()" % code, (), a.bound * size(shape))

        recv = a.code if named else a.atom()
        if op == "slice":
            spec, shape = self.slice_spec(a.shape)
            return view("%s.slice(%s)" % (recv, spec), shape)
        if op == "slice_axis":
            k = rng.randrange(nd)
            d = a.shape[k]
            lo = rng.randrange(d)
            hi = rng.randrange(lo + 1, d + 1)
            rs = rng.choice(["%d..%d" % (lo, hi), "%d.." % lo])
            m = (hi - lo) if ".." in rs and not rs.endswith("..") else d - lo
            shape = tuple(m if i == k else x for i, x in enumerate(a.shape))
            return view("%s.slice_axis(Axis(%d), Slice::from(%s))" % (recv, k, rs), shape)
        if op == "index_axis":
            k = rng.randrange(2)
            i = rng.randrange(a.shape[k])
            return view("%s.index_axis(Axis(%d), %d)" % (recv, k, i), (a.shape[1 - k],))
        if op == "select":
            k = rng.randrange(nd)
            d = a.shape[k]
            ids = [rng.randrange(d) for _ in range(rng.randint(1, 4))]
            if len(ids) >= 2 and rng.random() < 0.5:
                ids[-1] = ids[0]  # a repeated index: its gradients add
            shape = tuple(len(ids) if i == k else x for i, x in enumerate(a.shape))
            return V("%s.select(Axis(%d), &[%s])" % (a.recv(), k, ", ".join(map(str, ids))), shape, a.bound)
        if op in ("to_shape", "into_shape"):
            shape = rng.choice(self.reshapes(a.shape))
            sh = str(shape[0]) if len(shape) == 1 else "(%d, %d)" % shape
            if op == "into_shape":
                return view("%s.view().into_shape_with_order(%s).unwrap()" % (recv, sh), shape)
            return view("%s.to_shape(%s).unwrap()" % (recv, sh), shape)
        if op == "permuted":
            axes = [1, 0] if nd == 2 else [0]
            shape = tuple(a.shape[i] for i in axes)
            if named:
                return view("%s.view().permuted_axes([%s])" % (recv, ", ".join(map(str, axes))), shape)
            return V("%s.to_owned().permuted_axes([%s])" % (recv, ", ".join(map(str, axes))), shape, a.bound)
        if op == "reversed":
            shape = (a.shape[1], a.shape[0])
            if named:
                return view("%s.view().reversed_axes()" % recv, shape)
            return V("%s.to_owned().reversed_axes()" % recv, shape, a.bound)
        if op == "remove_axis":
            k = a.shape.index(1)
            shape = (a.shape[1 - k],)
            if named:
                return view("%s.view().remove_axis(Axis(%d))" % (recv, k), shape)
            return V("%s.to_owned().remove_axis(Axis(%d))" % (recv, k), shape, a.bound)
        if op == "broadcast":
            if nd == 1:
                shape = (rng.choice([1, 2, 3]), a.shape[0])
            elif a.shape[0] == 1:
                shape = (rng.choice([2, 3]), a.shape[1])
            else:
                shape = (a.shape[0], rng.choice([2, 3]))
            return view("%s.broadcast((%d, %d)).unwrap()" % (recv, shape[0], shape[1]), shape)
        if op == "concatenate":
            k = rng.randrange(nd)
            pieces = [a]
            for _ in range(rng.choice([1, 1, 2])):
                b = self.leaf(lambda v: len(v.shape) == nd
                              and all(v.shape[i] == a.shape[i] for i in range(nd) if i != k))
                if b is None:
                    break
                pieces.append(b)
            shape = list(a.shape)
            shape[k] = sum(p.shape[k] for p in pieces)
            code = "concatenate(Axis(%d), &[%s]).unwrap()" % (k, ", ".join("%s.view()" % p.recv() for p in pieces))
            return V(code, tuple(shape), max(p.bound for p in pieces))
        if op == "stack":
            b = self.leaf(lambda v: v.shape == a.shape) or a
            k = rng.randrange(2)
            shape = (2, a.shape[0]) if k == 0 else (a.shape[0], 2)
            code = "stack(Axis(%d), &[%s.view(), %s.view()]).unwrap()" % (k, a.recv(), b.recv())
            return V(code, shape, max(a.bound, b.bound))
        raise AssertionError(op)

    def constant_mix(self, depth):
        """Constants made in the body and mixed into differentiable
        arithmetic: integer arithmetic on a shape query as an index
        (`let n1 = p0.len() - 1;` then `p0[n1]`), or a constant array."""
        rng = self.rng
        idx = [p for p in self.params if p[1] != () and size(p[1]) >= 2 and p[2] != "view"]
        if idx and rng.random() < 0.35:
            pname, shape = rng.choice(idx)[:2]
            self.int_counter += 1
            n = "n%d" % self.int_counter
            if len(shape) == 1:
                self.stmts.append("let %s = %s.len() - 1;" % (n, pname))
                return V("%s[%s]" % (pname, n), (), 1.0)
            m = "m%d" % self.int_counter
            self.stmts.append("let (%s, %s) = %s.dim();" % (n, m, pname))
            i = rng.choice(["%s - 1" % n, "0"] if shape[0] >= 1 else ["0"])
            j = rng.choice(["%s - 1" % m, "%s / 2" % m])
            return V("%s[[%s, %s]]" % (pname, i, j), (), 1.0)
        a = self.array_operand(depth)
        if a is None:
            return self.unary(depth)
        shapes = [a.shape]
        if len(a.shape) == 2:
            shapes += [(a.shape[1],), (1, a.shape[1]), (a.shape[0], 1)]
        c = self.const_array(rng.choice(shapes))
        op = rng.choice(["+", "-", "*"])
        if op == "*" and a.bound * c.bound > LIMIT:
            op = "+"
        bound = a.bound * c.bound if op == "*" else a.bound + c.bound
        if rng.random() < 0.5:
            return V("%s %s %s" % (self.operand(a), op, c.as_ref()), broadcast(a.shape, c.shape), bound)
        return V("%s %s %s" % (c.as_ref(), op, self.operand(a)), broadcast(a.shape, c.shape), bound)

    def reduce_or_structure(self, depth):
        rng = self.rng
        a = self.expr(depth - 1)
        if a.scalar:
            return self.unary(depth)
        nd = len(a.shape)
        ops = ["sum", "mean", "sum_m"]
        if nd == 2:
            ops += ["sum_axis", "mean_axis", "sum_axis_m", "logsumexp", "row", "column", "index", "sce"]
        if nd == 1:
            ops += ["logsumexp", "index"]
        ops += ["mse"]
        op = rng.choice(ops)
        n = size(a.shape)
        if op == "sum":
            return V("sum(%s)" % a.as_ref(), (), a.bound * n)
        if op == "sum_m":
            return V("%s.sum()" % a.recv(), (), a.bound * n)
        if op == "mean":
            return V("mean(%s)" % a.as_ref(), (), a.bound)
        if op in ("sum_axis", "mean_axis", "sum_axis_m"):
            k = rng.choice([0, 1])
            shape = tuple(d for i, d in enumerate(a.shape) if i != k)
            if op == "sum_axis_m":
                return V("%s.sum_axis(Axis(%d))" % (a.recv(), k), shape, a.bound * a.shape[k])
            f = op
            return V("%s(%s, Axis(%d))" % (f, a.as_ref(), k), shape, a.bound * (a.shape[k] if f == "sum_axis" else 1))
        if op == "logsumexp":
            shape = a.shape[:-1]
            if a.bound > LIMIT:
                a = self.squash(a)
            return V("logsumexp(%s)" % a.as_ref(), shape, a.bound + 2.0)
        if op in ("row", "column") and self.region and not REGION_BUGS:
            return V("sum(%s)" % a.as_ref(), (), a.bound * n)
        if op in ("row", "column"):
            if a.form not in ("ref", "name"):
                # A view of a temporary cannot outlive the statement: reduce
                # it right away.
                k = rng.randrange(a.shape[0] if op == "row" else a.shape[1])
                return V("%s(%s.%s(%d))" % (rng.choice(["sum", "mean"]), "&" + a.atom(), op, k), (), a.bound * 3)
            k = rng.randrange(a.shape[0] if op == "row" else a.shape[1])
            shape = (a.shape[1],) if op == "row" else (a.shape[0],)
            return V("%s.%s(%d)" % (a.recv(), op, k), shape, a.bound, form="view")
        if op == "index":
            if a.form == "expr" or (self.region and not REGION_BUGS and a.form != "ref" and a.form != "name"):
                return self.reduce_or_structure(depth)
            if nd == 2:
                i, j = rng.randrange(a.shape[0]), rng.randrange(a.shape[1])
                return V("%s[[%d, %d]]" % (a.code, i, j), (), a.bound)
            return V("%s[%d]" % (a.code, rng.randrange(a.shape[0])), (), a.bound)
        if op == "sce":
            rows, classes = a.shape
            if self.uses_labels is not None and self.uses_labels != (rows, classes):
                return V("sum(%s)" % a.as_ref(), (), a.bound * n)
            self.uses_labels = (rows, classes)
            return V("softmax_cross_entropy(%s, labels)" % a.as_ref(), (), a.bound * 2 + 2)
        if op == "mse":
            b = self.leaf(lambda v: v.shape == a.shape)
            if b is None:
                b = V("%s * 0.5" % a.as_ref(), a.shape, a.bound)
            if (a.bound + b.bound) ** 2 > LIMIT * 4:
                a = self.squash(a)
                b = self.squash(b)
            return V("mse(%s, %s)" % (a.arg(), b.arg()), (), (a.bound + b.bound) ** 2)
        raise AssertionError(op)

    def linalg(self, depth):
        rng = self.rng
        a = self.expr(depth - 1)
        if a.scalar:
            return self.binary(depth)
        nd = len(a.shape)
        if nd == 2 and rng.random() < 0.3 and (REGION_BUGS or not self.region):
            # A transpose, used right away or as a name's view.
            t = V("%s.t()" % a.recv(), (a.shape[1], a.shape[0]), a.bound, form="view" if a.form in ("ref", "name") else "tview")
            if t.form == "tview":
                # Consume it in this statement: dot or a reduction.
                b = self.leaf(lambda v: len(v.shape) in (1, 2) and v.shape[0] == a.shape[0])
                if b is not None:
                    return self.dot(t, b)
                return V("sum(&%s)" % t.code, (), a.bound * size(a.shape))
            return t
        if rng.random() < 0.2 and self.owned(a):
            # concat along an axis with pieces that agree on the other axes.
            k = rng.randrange(nd)
            pieces = [a]
            for _ in range(rng.choice([1, 1, 2])):
                b = self.leaf(lambda v: self.owned(v) and len(v.shape) == nd
                              and all(v.shape[i] == a.shape[i] for i in range(nd) if i != k))
                if b is None:
                    break
                pieces.append(b)
            shape = list(a.shape)
            shape[k] = sum(p.shape[k] for p in pieces)
            code = "concat(Axis(%d), &[%s])" % (k, ", ".join(p.as_ref() for p in pieces))
            return V(code, tuple(shape), max(p.bound for p in pieces))
        # A dot with something of a compatible shape.
        inner = a.shape[-1]
        b = self.leaf(lambda v: len(v.shape) in (1, 2) and v.shape[0] == inner)
        if b is None:
            # Try a transposed name.
            b2 = self.leaf(lambda v: len(v.shape) == 2 and v.shape[1] == inner and v.form in ("ref", "name"))
            if b2 is None or (self.region and not REGION_BUGS):
                return self.reduce_or_structure(depth)
            b = V("%s.t()" % b2.code, (b2.shape[1], b2.shape[0]), b2.bound, form="tview")
        return self.dot(a, b)

    def owned(self, v):
        """Whether `v.as_ref()` is a `&Array` (not a reference to a view)."""
        return not v.scalar and not v.is_view and v.form in ("ref", "name", "expr")

    def dot(self, a, b):
        k = a.shape[-1]
        shape = a.shape[:-1] + b.shape[1:]
        bound = a.bound * b.bound * k
        if bound > LIMIT * 2:
            # Squash both sides elementwise first (only for arrays of the same
            # shape: squashing keeps the shape).
            a = self.squash_array(a)
            b = self.squash_array(b)
            bound = k
        if b.form in ("view", "tview"):
            rhs = "&" + b.code
        else:
            rhs = b.as_ref()
        recv = a.code if a.form in ("ref", "name", "view", "tview") else a.atom()
        return V("%s.dot(%s)" % (recv, rhs), shape, bound)

    def squash_array(self, v):
        f = self.rng.choice(["tanh", "sigmoid", "sin", "cos"] if v.bound <= 3.0 else ["tanh", "sigmoid"])
        if v.form in ("view", "tview"):
            return V("%s(&%s)" % (f, v.code), v.shape, 1.0)
        return V("%s(%s)" % (f, v.as_ref()), v.shape, 1.0)

    # ---------- statements and functions

    UNKNOWN_TY = None

    def known_ty(self, code):
        """Whether the macro knows the type of a value computed by `code`
        (conservatively)."""
        import re
        if Program.UNKNOWN_TY is None:
            Program.UNKNOWN_TY = re.compile(
                r"\bf\d{4}\b|\.(slice|slice_axis|index_axis|select|to_shape|into_shape_with_order|permuted_axes"
                r"|reversed_axes|broadcast|remove_axis)\(|\b(concatenate|stack)\(|Array[12]?::|array!")
        if Program.UNKNOWN_TY.search(code):
            return False
        return not any(n in self.unknown_ty for n in re.findall(r"\b[tn]\d+\b", code))

    def mark_ty(self, name, code):
        if self.known_ty(code):
            self.unknown_ty.discard(name)
        else:
            self.unknown_ty.add(name)

    def let(self, name, code, v=None):
        """Appends `let name = code;`, recording where `name` is bound."""
        self.mark_ty(name, code)
        self.stmts.append("let %s = %s;" % (name, code))
        self.let_index[name] = len(self.stmts) - 1
        self.pinned.discard(name)
        if v is not None and (v.is_view or v.form == "ref"):
            import re
            self.pinned.update(re.findall(r"\bt\d+\b", code))

    def assign(self, depth):
        """`t op= e;` or `t = e;` on a local, which becomes `let mut`."""
        stmt = self.assign_stmt(depth)
        if stmt is None:
            return False
        self.stmts.append(stmt)
        return True

    def assign_stmt(self, depth, ops=("+=", "-=", "*=", "/=", "=", "+="), times=1):
        """The statement `t op= e;` (or None), its target made `let mut`;
        `times`: how often it runs (in a loop), for the bound."""
        import re
        rng = self.rng
        targets = [v for v in self.env if v.code in self.let_index and v.code not in self.pinned
                   and not v.is_view and v.form in ("name", "expr")]
        if not targets:
            return None
        t = rng.choice(targets)

        def borrows_target(e):
            return e.form in ("name", "ref", "view", "tview") and re.search(r"\b%s\b" % t.code, e.code)

        op = rng.choice(ops)
        rhs = None
        for _ in range(6):
            e = self.expr(depth) if rng.random() < 0.7 else self.leaf()
            if borrows_target(e) or e.code == t.code:
                continue
            if op == "=":
                if e.shape == t.shape and (t.scalar or e.form == "expr"):
                    rhs = e
                    break
            elif e.scalar or broadcast(t.shape, e.shape) == t.shape:
                rhs = e
                break
        if rhs is None:
            op = rng.choice(["+=", "-="])
            rhs = V(lit(rng), (), 3.0)
        if op == "*=" and (t.bound * rhs.bound) ** times > LIMIT:
            op = "+="
        if op == "/=":
            rhs = self.guard(rhs, rng.choice(["1.0", "0.5"]))
        if op == "=" and rhs.bound > LIMIT * 4:
            return None
        if op == "=" and times > 1 and rhs.bound > t.bound and re.search(r"\b%s\b" % t.code, rhs.code):
            # `t = exp(&t)` run k times grows as a tower, past any bound
            # taken once.
            return None
        if times > 1 and rhs.bound > max(2.0 * t.bound, 1.0) and re.search(r"\b%s\b" % t.code, rhs.code):
            # So does `t += (t * p + t).powi(2)` (seed 20261208, f0003):
            # a right side that grows faster than its target compounds.
            return None
        bound = {"+=": t.bound + times * rhs.bound, "-=": t.bound + times * rhs.bound,
                 "*=": t.bound * rhs.bound ** times, "/=": t.bound * 2.0 ** times,
                 "=": max(rhs.bound, t.bound)}[op]
        if bound > LIMIT * 4:
            return None
        code = rhs.code if rhs.scalar or op == "=" else rhs.as_ref()
        if not self.known_ty(code):
            self.unknown_ty.add(t.code)
        stmt = "%s %s %s;" % (t.code, op, code)
        k = self.let_index[t.code]
        prefix = "let %s = " % t.code
        if self.stmts[k].startswith(prefix):
            self.stmts[k] = "let mut %s = " % t.code + self.stmts[k][len(prefix):]
        assert self.stmts[k].startswith("let mut %s = " % t.code), self.stmts[k]
        t.bound = bound
        return stmt

    def loop(self, depth):
        """`for i in 0..k { assignments }`: carried values; `i` indexes a
        parameter's rows. The range is sometimes `(0..k).rev()` or
        `(0..k).step_by(2)`; the body may hold `if c { break; }`,
        `if c { continue; }`, `if c { return e; }` (scalar outputs) and a
        `match i % 3` statement."""
        rng = self.rng
        k = rng.randint(1, 3)
        extra = []
        rows = [v for v in self.env if v.form == "ref" and len(v.shape) == 2 and v.shape[0] >= k
                and v.code.startswith("p")]
        vecs = [v for v in self.env if v.form == "ref" and len(v.shape) == 1 and v.shape[0] >= 2
                and v.code.startswith("p")]
        bound = str(k)
        if vecs and rng.random() < 0.25:
            # Integer arithmetic on a shape query as the loop's bound, and
            # as an index (`x[i + 1] - x[i]`).
            x = rng.choice(vecs)
            k = x.shape[0] - 1
            self.int_counter += 1
            bound = "n%d" % self.int_counter
            self.stmts.append("let %s = %s.len() - 1;" % (bound, x.code))
            extra.append(V("%s[i + 1] - %s[i]" % (x.code, x.code), (), 2.0))
        elif rows and rng.random() < 0.7:
            m = rng.choice(rows)
            if rng.random() < 0.5:
                extra.append(V("%s[[i, %d]]" % (m.code, rng.randrange(m.shape[1])), (), m.bound))
            else:
                extra.append(V("%s.row(i)" % m.code, (m.shape[1],), m.bound, form="view", is_view=True))
        self.env.extend(extra)
        body = []
        self.region += 1
        # Sometimes inside an outer labelled loop that the inner one leaves
        # with `break 'oN` or `continue 'oN` (the body runs up to twice as often).
        wrap = rng.random() < 0.3
        times = 2 * k if wrap else k
        for _ in range(rng.randint(1, 2)):
            st = self.assign_stmt(max(1, depth - 1), ops=("+=", "-=", "=", "+="), times=times)
            if st is not None:
                body.append(st)
        if body and rng.random() < 0.5:
            self.loop_extras(body, depth, times)
        label = None
        if body and wrap:
            self.int_counter += 1
            label = "'o%d" % self.int_counter
            exit_ = rng.choice(["break", "continue"])
            body.insert(rng.randint(0, len(body)),
                        "if %s {\n            %s %s;\n        }" % (self.condition(), exit_, label))
            self.counts["labelled_" + exit_] += 1
        self.region -= 1
        for v in extra:
            self.env.remove(v)
        if not body:
            return False
        rng_code = "0..%s" % bound
        r = rng.random()
        if r < 0.15:
            rng_code = "(0..%s).rev()" % bound
        elif r < 0.25:
            rng_code = "(0..%s).step_by(2)" % bound
        inner = "for i in %s {\n%s\n    }" % (rng_code, "\n".join("        " + b for b in body))
        if label is not None:
            inner = "%s: for _ in 0..2 {\n    %s\n    }" % (label, inner.replace("\n", "\n    "))
        self.stmts.append(inner)
        return True

    def loop_extras(self, body, depth, k):
        """Adds an exit or a `match i % 3` to the body of a `for` loop."""
        rng = self.rng
        r = rng.random()
        pos = rng.randint(0, len(body))
        if r < 0.3:
            body.insert(pos, "if %s {\n            break;\n        }" % self.condition())
            self.counts["break"] += 1
        elif r < 0.55:
            body.insert(pos, "if %s {\n            continue;\n        }" % self.condition())
            self.counts["continue"] += 1
        elif r < 0.7 and self.out_shape_free():
            e = self.ret_value(depth)
            body.insert(pos, "if %s {\n            return %s;\n        }" % (self.condition(), e))
            self.counts["return_in_loop"] += 1
        else:
            a = self.assign_stmt(max(1, depth - 1), ops=("+=", "-=", "+="), times=k)
            b = self.assign_stmt(max(1, depth - 1), ops=("+=", "-=", "+="), times=k)
            if a is None or b is None:
                return
            body.append("match i %% 3 {\n            0 => %s\n            1 | 2 => {\n                %s\n            }\n"
                        "            _ => {}\n        }" % (a.rstrip(";") + ",", b))
            self.counts["match_stmt"] += 1

    def out_shape_free(self):
        """Whether an early `return` (of a scalar) may be added: not after
        the output was decided to be a tuple."""
        return True

    def ret_value(self, depth):
        """A scalar to `return` early; the output becomes a scalar."""
        e = self.expr(max(1, depth - 1))
        code, bound = self.scalarize(e)
        if bound > LIMIT * 2:
            code = self.squash(V(code, (), bound)).code
            bound = 1.0
        self.has_return = True
        self.ret_bound = max(self.ret_bound, bound)
        return code

    def int_name(self):
        self.int_counter += 1
        return "n%d" % self.int_counter

    def scalar_of(self, depth, extra=()):
        """A scalar expression (over `extra` too), bounded."""
        self.env.extend(extra)
        e = self.expr(depth)
        for v in extra:
            self.env.remove(v)
        code, bound = self.scalarize(e)
        if bound > LIMIT:
            v = self.squash(V(code, (), bound))
            code, bound = v.code, 1.0
        return V(code, (), bound)

    def accumulator(self, depth):
        """`let mut tN = <scalar>;`, a carried scalar for a loop."""
        e = self.scalar_of(depth)
        name = self.fresh()
        self.let(name, e.code)
        self.stmts[-1] = "let mut " + self.stmts[-1][4:]
        v = V(name, (), e.bound)
        return v

    def control(self, depth):
        """One of the newer control-flow constructs."""
        rng = self.rng
        kinds = ["while", "loop", "match_value", "match_guard", "return", "write", "iter",
                 "nested_write", "nested_write", "nested_write"]
        kind = rng.choice(kinds)
        if kind in ("while", "loop"):
            acc = self.accumulator(depth)
            k = rng.randint(1, 4)
            n = self.int_name()
            self.region += 1
            e = self.scalar_of(max(1, depth - 1))
            e2 = None
            self.env.append(acc)
            if rng.random() < 0.4:
                e2 = self.assign_stmt(max(1, depth - 1), ops=("+=", "-=", "+="), times=k)
            self.env.remove(acc)
            self.region -= 1
            thr = rng.choice(["0.0371", "0.4629", "0.5183"])
            if rng.random() < 0.5:
                upd = "%s = %s * 0.5 + %s;" % (acc.code, acc.code, e.atom())
                acc.bound = acc.bound + 2 * e.bound
            else:
                upd = "%s %s %s;" % (acc.code, rng.choice(["+=", "-="]), e.atom())
                acc.bound = acc.bound + k * e.bound
            body = [upd] + ([e2] if e2 else [])
            rng.shuffle(body)
            self.stmts.append("let mut %s = 0;" % n)
            if kind == "while":
                cond = "%s < %d" % (n, k)
                if rng.random() < 0.7:
                    cond += " && %s.abs() %s %s" % (acc.code, rng.choice([">", "<"]), thr)
                body.append("%s += 1;" % n)
                self.stmts.append("while %s {\n%s\n    }" % (cond, "\n".join("        " + b for b in body)))
            else:
                cond = "%s >= %d" % (n, k)
                if rng.random() < 0.7:
                    cond += " || %s.abs() %s %s" % (acc.code, rng.choice([">", "<"]), thr)
                body.append("%s += 1;" % n)
                if rng.random() < 0.5:
                    # `break v`: the loop's value, a new scalar.
                    body.append("if %s {\n            break %s * 0.5;\n        }" % (cond, acc.code))
                    value = V(self.fresh(), (), acc.bound * 0.5)
                    if not self.known_ty(acc.code):
                        # The loop's value is of its accumulator's type.
                        self.unknown_ty.add(value.code)
                    self.stmts.append("let %s = loop {\n%s\n    };" % (value.code, "\n".join("        " + b for b in body)))
                    self.env.append(value)
                    self.counts["break_value"] += 1
                else:
                    body.append("if %s {\n            break;\n        }" % cond)
                    self.stmts.append("loop {\n%s\n    }" % "\n".join("        " + b for b in body))
            self.env.append(acc)
            self.counts[kind] += 1
            return True
        if kind in ("match_value", "match_guard"):
            self.region += 1
            arms = []
            a = self.expr(depth)
            arms.append(a)
            for _ in range(2):
                b = None
                for _ in range(6):
                    e = self.expr(depth)
                    if e.shape == a.shape:
                        b = e
                        break
                if b is None:
                    b = self.squash(a) if a.scalar else self.squash_array(a)
                arms.append(b)
            self.region -= 1
            bound = max(x.bound for x in arms)
            if bound > LIMIT * 4:
                return False
            codes = [self.owned_arm(x) for x in arms]
            if kind == "match_value":
                if self.uses_int is None and rng.random() < 0.5:
                    self.uses_int = rng.randrange(0, 5)
                if self.uses_int is not None and rng.random() < 0.7:
                    scrut = "k0 % 3" if rng.random() < 0.5 else "k0"
                else:
                    arrays = [v for v in self.env if v.code.startswith("p") and not v.scalar]
                    if not arrays:
                        return False
                    x = rng.choice(arrays)
                    scrut = "%s.len() %% 3" % x.recv() if rng.random() < 0.5 else "%s.len()" % x.recv()
                code = "match %s {\n        0 => %s,\n        1 | 2 => %s,\n        _ => %s,\n    }" % (
                    scrut, codes[0], codes[1], codes[2])
            else:
                code = "match () {\n        _ if %s => %s,\n        _ if %s => %s,\n        _ => %s,\n    }" % (
                    self.condition(), codes[0], self.condition(), codes[1], codes[2])
            v = V(code, a.shape, bound)
            name, nv = self.bind(v)
            self.let(name, code, nv)
            self.env.append(nv)
            self.counts[kind] += 1
            return True
        if kind == "return":
            cond = self.condition()
            self.region += 1
            e = self.ret_value(depth)
            self.region -= 1
            self.stmts.append("if %s {\n        return %s;\n    }" % (cond, e))
            self.counts["return"] += 1
            return True
        if kind == "write":
            return self.write(depth)
        if kind == "nested_write":
            return self.nested_write(depth)
        return self.iter_loop(depth)

    def carried(self, depth):
        """Variables a loop carries, reassigned in the ways that decide
        activity per definition (issue 29): reset to a constant (a literal,
        a scalar parameter outside `wrt(..)`, a constant array), to
        themselves, to each other, swapped through a temporary; an alias
        (`let mut tB = tA;`) read before and after its reassignment; the
        reads in an expression, a closure or a shadowing `let`; the resets
        in a branch or a `match` arm of the body; in a `for` or a `while`
        loop, nested in an outer loop that sets a value at the top of each
        of its iterations, with a `break`; a loop that may run no iteration
        (its bound `k0 % 2` of a constant `k0: usize` that may be even).
        Both values reach the output."""
        rng = self.rng
        self.region += 1
        arrays = [v for v in self.env if v.code.startswith("p") and not v.scalar and not v.is_view
                  and v.form in ("ref", "name") and len(v.shape) in (1, 2)]
        array = bool(arrays) and rng.random() < 0.3
        if array:
            src = rng.choice(arrays)
            shape = src.shape
            a_code = "tanh(%s)" % src.as_ref()
            reset = self.const_array(shape)
            b_init = "%s.clone()" % "{A}" if rng.random() < 0.6 else "sigmoid(%s)" % src.as_ref()
        else:
            shape = ()
            a_code = self.squash(self.scalar_of(depth)).code
            b_init = "{A}" if rng.random() < 0.6 else self.squash(self.scalar_of(depth)).code
        self.region -= 1
        a, b = self.fresh(), self.fresh()
        # A closure may capture `b` where the macro knows it is a float.
        known = self.known_ty(a_code) and self.known_ty(b_init.replace("{A}", "0.0"))
        self.stmts.append("let mut %s = %s;" % (a, a_code))
        self.stmts.append("let mut %s = %s;" % (b, b_init.replace("{A}", a)))
        self.counts["carried_alias" if b_init.startswith("{A}") else "carried"] += 1
        # What the constant is: a literal, a parameter outside `wrt(..)`, or
        # a constant array.
        if array:
            const = "%s.clone()" % reset.code
        elif rng.random() < 0.35:
            if not any(p[0] == "c1" for p in self.params):
                self.params.append(["c1", (), "val", False])
                self.uses_constant = True
            const = "c1"
            self.counts["carried_wrt_constant"] += 1
        else:
            const = rng.choice(["2.0", "0.5", "-1.5", "0.25"])
        times_a, times_b = ("%s * 0.5" % a, "&%s * 0.5" % a) if array else (a, a)
        refb = "&%s" % b if array else b

        def read():
            """`a` takes a contribution of `b`, contracting."""
            r = rng.random()
            if array:
                if r < 0.5:
                    return "%s = &%s * 0.5 + &%s;" % (a, a, b)
                return "%s = tanh(&(&%s + &%s));" % (a, a, b)
            if r < 0.25:
                return "%s = %s * 0.5 + %s;" % (a, a, b)
            if r < 0.45:
                return "%s -= 0.5 * %s;" % (a, b)
            if r < 0.6:
                return "%s += %s.sin();" % (a, b)
            if r < 0.75 and known:
                vecs = [v for v in self.env if v.code.startswith("p") and not v.scalar and v.form in ("ref", "name")]
                if vecs:
                    x = rng.choice(vecs)
                    self.counts["carried_closure"] += 1
                    return "%s += %s.mapv(|v| (v * %s).tanh()).sum() * 0.1;" % (a, x.recv(), b)
            if r < 0.9:
                # A shadowing `let` in the body reads it.
                self.int_counter += 1
                tmp = "s%d" % self.int_counter
                return "let %s = %s * 0.5;\n        %s = %s.tanh() + %s;" % (tmp, b, a, a, tmp)
            return "%s = (%s + %s).tanh();" % (a, a, b)

        def reset(var_i):
            r = rng.random()
            if r < 0.45:
                self.counts["carried_reset"] += 1
                return "%s = %s;" % (b, const)
            if r < 0.6 and var_i:
                self.counts["carried_reset_branch"] += 1
                return "if %s == 0 {\n            %s = %s;\n        }" % (var_i, b, const)
            if r < 0.7 and var_i:
                self.counts["carried_reset_match"] += 1
                return "match %s %% 2 {\n            0 => {\n                %s = %s;\n            }\n            _ => {}\n        }" % (
                    var_i, b, const)
            if r < 0.8:
                self.counts["carried_to_each_other"] += 1
                return "%s = %s;" % (b, a if not array else "%s.clone()" % a)
            if r < 0.87:
                self.counts["carried_itself"] += 1
                return "%s = %s;" % (b, b)
            self.counts["carried_swap"] += 1
            self.int_counter += 1
            tmp = "s%d" % self.int_counter
            return "let %s = %s.clone();\n        %s = %s.clone();\n        %s = %s;" % (tmp, a, a, b, b, tmp)

        # The loop: a `for` of a literal count, or one that may run no
        # iteration, or a `while`; sometimes inside an outer loop.
        kind = rng.choice(["for", "for", "zero", "while"])
        if kind == "zero":
            if self.uses_int is None:
                self.uses_int = rng.randrange(0, 5)
            bound = "k0 % 2"
            self.counts["carried_maybe_empty"] += 1
        else:
            bound = str(rng.randint(1, 3))
        var_i = "i" if kind != "while" else None
        body = [read(), reset(var_i)]
        if rng.random() < 0.5:
            body.append(read())
        if rng.random() < 0.2:
            body.insert(rng.randint(0, len(body)), "if %s {\n            break;\n        }" % self.condition())
            self.counts["carried_break"] += 1
        if kind == "while":
            n = self.int_name()
            body.append("%s += 1;" % n)
            loop = "let mut %s = 0;\n    while %s < %s {\n%s\n    }" % (
                n, n, bound, "\n".join("        " + x for x in body))
        else:
            loop = "for i in 0..%s {\n%s\n    }" % ("(%s)" % bound if "%" in bound else bound,
                                                  "\n".join("        " + x for x in body))
        if rng.random() < 0.3:
            # An outer loop sets `b` at the top of each of its iterations.
            top = "%s = %s;" % (b, b_init.replace("{A}", a) if not b_init.startswith("{A}") else
                                ("%s.clone()" % a if array else a))
            loop = "for _ in 0..2 {\n        %s\n        %s\n    }" % (top, loop.replace("\n", "\n    "))
            self.counts["carried_nested"] += 1
        self.stmts.append(loop)
        self.env.append(V(a, shape, 2.0 if array else 8.0, form="name" if array else "expr"))
        self.env.append(V(b, shape, 2.0 if array else 8.0, form="name" if array else "expr"))
        if array or not known:
            self.unknown_ty.update([a, b])
        return True

    def nested_write(self, depth):
        """An array carried across an outer loop (`for o in 0..K`, or a
        `while` with a counter), written element by element (a matrix: row
        by row) in one inner loop and read element by element (row by row)
        in a sibling inner loop into a carried scalar: the writes may read
        the old value or the scalar, the reads may come before the writes
        (they see the iteration before's), a second write and read may
        follow, and an `if` may wrap one inner loop."""
        rng = self.rng
        arrays = [v for v in self.env if v.form in ("ref", "name") and not v.scalar and not v.is_view
                  and len(v.shape) in (1, 2) and v.code.startswith(("p", "t"))]
        if not arrays:
            return False
        vectors = [v for v in arrays if len(v.shape) == 1]
        src = rng.choice(vectors if vectors and rng.random() < 0.6 else arrays)
        shape = src.shape
        name = self.fresh()
        if rng.random() < 0.4:
            init = "%s.to_owned()" % src.recv()
            bound = src.bound
        else:
            dims = ", ".join("%s.%s" % (src.recv(), q)
                             for q in (["len()"] if len(shape) == 1 else ["nrows()", "ncols()"]))
            if len(shape) == 2:
                dims = "(%s)" % dims
            init = "Array%d::<%s>::zeros(%s)" % (len(shape), self.ty, dims)
            bound = 0.0
        self.let(name, init)
        self.stmts[-1] = "let mut " + self.stmts[-1][4:]
        acc = self.accumulator(depth)
        k = rng.randint(1, 3)
        if rng.random() < 0.3:
            counter = self.int_name()
            outer = counter
        else:
            counter = None
            outer = "o"
        # A matrix parameter read at the outer index (`p1[[o, j]]`).
        n = shape[0] if len(shape) == 1 else shape[1]
        mats = [v for v in self.env if v.form == "ref" and len(v.shape) == 2 and v.code.startswith("p")
                and v.shape[0] >= k and v.shape[1] >= n]
        self.region += 1

        def write_loop(bound):
            """The inner loop that writes; the array's bound after it."""
            if len(shape) == 1:
                extra = [V("%s[j]" % src.code, (), src.bound)]
                if mats and rng.random() < 0.5:
                    extra.append(V("%s[[%s, j]]" % (rng.choice(mats).code, outer), (), rng.choice(mats).bound))
                if rng.random() < 0.3:
                    extra.append(V("%s.tanh()" % acc.code, (), 1.0))
                e = self.scalar_of(max(1, depth - 1), extra)
                if "[j]" not in e.code:
                    e = V("%s + %s[j]" % (e.atom(), src.code), (), e.bound + src.bound)
                r = rng.random()
                if r < 0.5:
                    stmt, nb = "%s[j] = %s;" % (name, e.code), e.bound
                elif r < 0.8:
                    stmt, nb = "%s[j] = %s[j] * 0.5 + %s;" % (name, name, e.atom()), bound + 2 * e.bound
                else:
                    stmt, nb = "%s[j] += %s;" % (name, e.atom()), bound + 2 * k * e.bound
                self.counts["nested_write_elems"] += 1
                return "for j in 0..%s.len() {\n            %s\n        }" % (name, stmt), nb
            if rng.random() < 0.4:
                # Element by element, in a loop over the rows.
                extra = [V("%s[[i, j]]" % src.code, (), src.bound)]
                e = self.scalar_of(max(1, depth - 1), extra)
                if "[[i, j]]" not in e.code:
                    e = V("%s + %s[[i, j]]" % (e.atom(), src.code), (), e.bound + src.bound)
                if rng.random() < 0.5:
                    stmt, nb = "%s[[i, j]] = %s;" % (name, e.code), e.bound
                else:
                    stmt, nb = "%s[[i, j]] = %s[[i, j]] * 0.5 + %s;" % (name, name, e.atom()), bound + 2 * e.bound
                self.counts["nested_write_elems"] += 1
                return ("for i in 0..%s.nrows() {\n            for j in 0..%s.ncols() {\n"
                        "                %s\n            }\n        }" % (name, name, stmt)), nb
            lane = (shape[1],)
            v = self.leaf(lambda v: v.shape == lane and (REGION_BUGS or not v.borrowed))
            if v is None or rng.random() < 0.4:
                v = V("%s.row(i)" % src.code, lane, src.bound, form="view", is_view=True)
            v = self.squash_array(v)
            if rng.random() < 0.5:
                s = self.scalar_of(1)
                v = V("%s * %s" % (v.as_ref(), s.atom()), lane, s.bound)
            if rng.random() < 0.3:
                # The new row first: `row_mut` borrows the array.
                stmt = "let row = &%s.row(i) * 0.5 + %s;\n            %s.row_mut(i).assign(&row);" % (
                    name, v.as_ref(), name)
                nb = bound + 2 * v.bound
            else:
                stmt = "%s.row_mut(i).assign(%s);" % (name, v.as_ref())
                nb = v.bound
            self.counts["nested_write_rows"] += 1
            return "for i in 0..%s.nrows() {\n            %s\n        }" % (name, stmt), nb

        def read_loop(bound):
            """The inner loop that reads into the scalar; its bound after."""
            if len(shape) == 1:
                elem = V("%s[j]" % name, (), bound)
                e = self.scalar_of(max(1, depth - 1), [elem])
                if "%s[j]" % name not in e.code:
                    e = V("%s[j] * %s" % (name, e.atom()), (), bound * e.bound)
                head, count = "for j in 0..%s.len()" % name, shape[0]
            else:
                r = rng.random()
                q = self.leaf(lambda v: v.shape == (shape[1],) and (REGION_BUGS or not v.borrowed))
                if q is not None and r < 0.3:
                    e = V("%s.row(i).dot(%s)" % (name, q.as_ref()), (), bound * q.bound * shape[1])
                elif r < 0.5:
                    e = V("%s.row(i).sum()" % name, (), bound * shape[1])
                elif r < 0.7:
                    e = V("%s[[i, %d]]" % (name, rng.randrange(shape[1])), (), bound)
                else:
                    elem = V("%s[[i, j]]" % name, (), bound)
                    e = self.scalar_of(max(1, depth - 1), [elem])
                    if "%s[[i, j]]" % name not in e.code:
                        e = V("%s[[i, j]] * %s" % (name, e.atom()), (), bound * e.bound)
                    if e.bound > LIMIT:
                        e = self.squash(e)
                    op = rng.choice(["+=", "-="])
                    return ("for i in 0..%s.nrows() {\n            for j in 0..%s.ncols() {\n"
                            "                %s %s %s;\n            }\n        }" % (name, name, acc.code, op, e.atom()),
                            size(shape) * e.bound)
                head, count = "for i in 0..%s.nrows()" % name, shape[0]
            if e.bound > LIMIT:
                e = self.squash(e)
            op = rng.choice(["+=", "-="])
            return "%s {\n            %s %s %s;\n        }" % (head, acc.code, op, e.atom()), count * e.bound

        order = rng.choice(["write_read", "write_read", "read_write", "write_read_write_read"])
        loops = []
        acc_bound = acc.bound
        for step in order.split("_"):
            if step == "write":
                code, bound = write_loop(bound)
            else:
                code, b = read_loop(bound)
                acc_bound += k * b
            loops.append(code)
        self.region -= 1
        if rng.random() < 0.25:
            at = rng.randrange(len(loops))
            body = loops[at].replace("\n", "\n    ")
            loops[at] = "if %s {\n            %s\n        }" % (self.condition(), body)
            self.counts["nested_write_if"] += 1
        if counter is None:
            head = "for o in 0..%d" % k
        else:
            self.stmts.append("let mut %s = 0;" % counter)
            head = "while %s < %d" % (counter, k)
            loops.append("%s += 1;" % counter)
            self.counts["nested_write_while"] += 1
        self.stmts.append("%s {\n%s\n    }" % (head, "\n".join("        " + c for c in loops)))
        self.counts["nested_write"] += 1
        acc.bound = acc_bound
        self.env.append(V(name, shape, bound, form="name"))
        self.env.append(acc)
        return True

    def write(self, depth):
        """An array the body makes (`zeros` or `to_owned`), written in a
        loop: `y[i] = e`, `y[i] += e`, `y[[i, j]] = e`, `y.row_mut(i).assign(&v)`,
        `y.column_mut(j).assign(&v)`."""
        rng = self.rng
        arrays = [v for v in self.env if v.form in ("ref", "name") and not v.scalar and not v.is_view
                  and v.code.startswith(("p", "t"))]
        if not arrays:
            return False
        src = rng.choice(arrays)
        shape = src.shape
        name = self.fresh()
        if rng.random() < 0.5:
            init = "%s.to_owned()" % src.recv()
            bound = src.bound
        else:
            dims = ", ".join("%s.%s" % (src.recv(), q) for q in (["len()"] if len(shape) == 1 else ["nrows()", "ncols()"]))
            if len(shape) == 2:
                dims = "(%s)" % dims
            init = "Array%d::<%s>::zeros(%s)" % (len(shape), self.ty, dims)
            bound = 0.0
        self.let(name, init)
        self.stmts[-1] = "let mut " + self.stmts[-1][4:]
        self.region += 1
        if len(shape) == 1:
            extra = [V("%s[i]" % src.code, (), src.bound)] if src.code.startswith("p") else []
            e = self.scalar_of(max(1, depth - 1), extra)
            op = rng.choice(["=", "+=", "="])
            body = "%s[i] %s %s;" % (name, op, e.code)
            loop = "for i in 0..%s.len() {\n        %s\n    }" % (name, body)
            self.counts["write_1d"] += 1
        else:
            r = rng.random()
            if r < 0.4:
                j = rng.randrange(shape[1])
                e = self.scalar_of(max(1, depth - 1), [V("%s[[i, %d]]" % (src.code, j), (), src.bound)])
                op = rng.choice(["=", "+="])
                loop = "for i in 0..%s.nrows() {\n        %s[[i, %d]] %s %s;\n    }" % (name, name, j, op, e.code)
                self.counts["write_2d"] += 1
            else:
                along = "row" if r < 0.7 else "column"
                lane = (shape[1],) if along == "row" else (shape[0],)
                count = shape[0] if along == "row" else shape[1]
                v = self.leaf(lambda v: v.shape == lane)
                if v is None or rng.random() < 0.3:
                    v = V("%s.%s(i)" % (src.code, along), lane, src.bound, form="view", is_view=True)
                v = self.squash_array(v)
                if rng.random() < 0.5:
                    s = self.scalar_of(1)
                    v = V("%s * %s" % (v.as_ref(), s.atom()), lane, s.bound)
                loop = "for i in 0..%d {\n        %s.%s_mut(i).assign(%s);\n    }" % (count, name, along, v.as_ref())
                e = v
                op = "="
                self.counts["write_lane"] += 1
        self.region -= 1
        self.stmts.append(loop)
        self.env.append(V(name, shape, max(bound, e.bound) + (bound if op == "+=" else 0.0), form="name"))
        return True

    def iter_loop(self, depth):
        """`for r in x.rows()`, `x.columns()`, `ws.iter().enumerate()`,
        `x.rows().into_iter().zip(ws.iter())`: a scalar accumulated."""
        rng = self.rng
        mats = [v for v in self.env if v.form == "ref" and len(v.shape) == 2 and v.code.startswith("p")]
        vecs = [v for v in self.env if v.form == "ref" and len(v.shape) == 1 and v.code.startswith("p")]
        r = rng.random()
        extra = []
        fits = [m for m in mats if self.uses_labels in (None, m.shape)]
        if fits and r < 0.15:
            # The labels as indices: `x[[i, l]]` is the entry of the label.
            m = rng.choice(fits)
            self.uses_labels = m.shape
            head = "for (i, &l) in labels.iter().enumerate()"
            extra.append(V("%s[[i, l]]" % m.code, (), m.bound))
            extra.append(V("%s.row(i)" % m.code, (m.shape[1],), m.bound, form="view", is_view=True))
            extra.append(V("(l as %s)" % self.ty, (), float(m.shape[1])))
            kind = "labels"
        elif mats and r < 0.5:
            m = rng.choice(mats)
            if rng.random() < 0.5:
                head = "for r in %s.rows()" % m.code
                extra.append(V("r", (m.shape[1],), m.bound, form="name", is_view=True))
                kind = "rows"
            elif rng.random() < 0.5:
                head = "for r in %s.columns()" % m.code
                extra.append(V("r", (m.shape[0],), m.bound, form="name", is_view=True))
                kind = "columns"
            else:
                self.ensure_ws()
                head = "for (r, &c) in %s.rows().into_iter().zip(ws.iter())" % m.code
                extra.append(V("r", (m.shape[1],), m.bound, form="name", is_view=True))
                extra.append(V("c", (), 2.0))
                kind = "zip"
        else:
            self.ensure_ws()
            head = "for (i, &c) in ws.iter().enumerate()"
            extra.append(V("c", (), 2.0))
            n = len(self.uses_ws)
            for v in vecs:
                if v.shape[0] >= n:
                    extra.append(V("%s[i]" % v.code, (), v.bound))
            for m in mats:
                if m.shape[0] >= n:
                    extra.append(V("%s[[i, %d]]" % (m.code, rng.randrange(m.shape[1])), (), m.bound))
            kind = "enumerate"
        acc = self.accumulator(depth)
        self.region += 1
        e = self.scalar_of(max(1, depth - 1), extra)
        self.region -= 1
        if "r" in [v.code for v in extra] and "r" not in e.code:
            e = V("%s + %s.sum()" % (e.atom(), "r"), (), e.bound + 3 * extra[0].bound)
        op = rng.choice(["+=", "-="])
        self.stmts.append("%s {\n        %s %s %s;\n    }" % (head, acc.code, op, e.atom()))
        acc.bound += 3 * e.bound
        self.env.append(acc)
        self.counts["iter_" + kind] += 1
        return True

    def ensure_ws(self):
        if self.uses_ws is None:
            n = self.rng.randint(1, 3)
            self.uses_ws = [self.rng.choice([0.5, -1.25, 2.0, 0.75, -0.5, 1.5]) for _ in range(n)]

    def condition(self):
        """A comparison of differentiable values (the branch taken is a
        constant of the gradient).

        The thresholds are no round numbers: some scalars the generator
        writes are constant in exact arithmetic (`logsumexp` of a
        `log_softmax` is 0, the mean of a softmax row of n is 1/n), and a
        comparison with exactly that constant would take either branch as
        rounding falls, so that central differences straddle the jump."""
        rng = self.rng
        v = self.leaf(lambda v: REGION_BUGS or not v.borrowed)
        code, _ = self.scalarize(v)
        c = "%s %s %s" % (code, rng.choice(["<", ">", "<=", ">="]), rng.choice(["0.0371", "0.4629", "-0.5183"]))
        if rng.random() < 0.15:
            w = self.leaf(lambda x: x.scalar)
            if w is not None:
                c = "%s %s %s > 0.0" % (c, rng.choice(["&&", "||"]), w.atom())
        return c

    def branch_stmt(self, depth):
        """`if c { assignment } else { assignment }` (or no `else`)."""
        rng = self.rng
        cond = self.condition()
        self.region += 1
        a = self.assign_stmt(max(1, depth - 1))
        b = self.assign_stmt(max(1, depth - 1)) if a is not None else None
        self.region -= 1
        if a is None:
            return False
        r = rng.random()
        if r < 0.3 or b is None:
            self.stmts.append("if %s {\n        %s\n    }" % (cond, a))
            self.if_no_else.add(a.split()[0])
            return True
        if r < 0.45:
            cond2 = self.condition()
            self.stmts.append("if %s {\n        %s\n    } else if %s {\n        %s\n    }" % (cond, a, cond2, b))
            self.if_no_else.update([a.split()[0], b.split()[0]])
            return True
        self.stmts.append("if %s {\n        %s\n    } else {\n        %s\n    }" % (cond, a, b))
        if a.split()[0] != b.split()[0]:
            # Each is assigned in one arm only.
            self.if_no_else.update([a.split()[0], b.split()[0]])
        return True

    def owned_arm(self, v):
        """`v` as an owned value, for an arm of an `if` expression."""
        if v.scalar:
            return v.code
        if v.form == "expr":
            return v.code
        return "%s.to_owned()" % v.recv()

    def branch_expr(self, depth):
        """`if c { a } else { b }` as a value, both arms of one shape."""
        rng = self.rng
        cond = self.condition()
        self.region += 1
        a = self.expr(depth)
        b = None
        for _ in range(6):
            e = self.expr(depth)
            if e.shape == a.shape:
                b = e
                break
        if b is None:
            b = self.squash(a) if a.scalar else self.squash_array(a)
        self.region -= 1
        code = "if %s {\n        %s\n    } else {\n        %s\n    }" % (cond, self.owned_arm(a), self.owned_arm(b))
        return V(code, a.shape, max(a.bound, b.bound))

    def unmoved(self, e):
        """A bare owned name would be moved by `let x = t;`: borrow or clone it."""
        if e.form == "name" and not e.scalar:
            if e.is_view or self.rng.random() < 0.5:
                return V("&" + e.code, e.shape, e.bound, form="ref", is_view=e.is_view, borrowed=True)
            return V(e.code + ".clone()", e.shape, e.bound)
        return e

    def bind(self, v, name=None):
        """`let name = v;` and make the name an operand."""
        name = name or self.fresh()
        form = "name" if not v.scalar else "expr"
        if v.form == "ref" and not v.scalar:
            form = "ref"  # an alias of a reference stays a reference
        return name, V(name, v.shape, v.bound, form=form, is_view=v.is_view or v.form in ("view", "tview"),
                       borrowed=v.borrowed)

    def generate(self):
        rng = self.rng
        # Single precision now and then.
        if rng.random() < 0.1:
            self.ty = "f32"
        self.callees = [c for c in self.callees if c.ty == self.ty]
        self.tuple_callees = [c for c in self.tuple_callees if c.ty == self.ty]
        nparams = rng.randint(1, 4)
        for i in range(nparams):
            if rng.random() < 0.3:
                shape = ()
            else:
                shape = rng.choice(SHAPES)
            style = "val"
            if shape != ():
                style = rng.choices(["ref", "owned", "view"], weights=[8, 1, 1])[0]
            name = "p%d" % i
            self.params.append([name, shape, style, True])
            form = "ref" if style == "ref" else ("expr" if shape == () else "name")
            self.env.append(V(name, shape, 1.0, form=form, is_view=style == "view"))
        # Some parameters not differentiated (`wrt` names the others).
        if nparams >= 2 and rng.random() < 0.1:
            for p in rng.sample(self.params, rng.randint(1, nparams - 1)):
                p[3] = False
            self.uses_constant = True
        # A constant (not differentiated) parameter now and then.
        if rng.random() < 0.15:
            shape = rng.choice(SHAPES)
            name = "c0"
            self.params.append([name, shape, "ref", False])
            self.uses_constant = True
            self.env.append(V(name, shape, 1.0, form="ref"))
        nstmts = rng.randint(1, 7)
        for _ in range(nstmts):
            r = rng.random()
            depth = rng.randint(1, 3)
            olds = [v for v in self.env if v.code.startswith("t")]
            if r < 0.1 and olds:
                # Shadowing: rebind an existing local name.
                old = rng.choice(olds)
                e = self.unmoved(self.expr(depth))
                name, v = self.bind(e, old.code)
                self.let(name, e.code, v)
                self.env = [x for x in self.env if x.code != name] + [v]
                continue
            if r < 0.2:
                # A block with a local of its own.
                inner = self.expr(depth)
                if inner.form in ("name", "view", "tview") and not inner.scalar:
                    inner = self.squash_array(inner)
                iname, iv = self.bind(inner, self.fresh())
                self.mark_ty(iname, inner.code)
                self.env.append(iv)
                e = self.expr(depth)
                self.env.remove(iv)
                if e.form in ("name", "view", "tview") and not e.scalar and e.code != iname:
                    e = self.squash_array(e)
                name, v = self.bind(e)
                if e.form == "view" or e.form == "tview" or e.form == "ref":
                    # A view of the block's local cannot leave the block.
                    self.env.append(iv)
                    self.let(iname, inner.code, iv)
                    self.let(name, e.code, v)
                else:
                    self.let(name, "{\n        let %s = %s;\n        %s\n    }" % (iname, inner.code, e.code), v)
                self.env.append(v)
                continue
            if 0.27 <= r < 0.42 and self.assign(depth):
                continue
            if 0.42 <= r < 0.48 and self.loop(depth):
                continue
            if 0.48 <= r < 0.53 and self.branch_stmt(depth):
                continue
            if 0.58 <= r < 0.68 and self.control(depth):
                continue
            if 0.68 <= r < 0.78 and self.tuple_callees and self.tuple_call(depth):
                continue
            if 0.78 <= r < 0.78 + CARRIED and self.carried(depth):
                continue
            if 0.53 <= r < 0.58:
                e = self.branch_expr(depth)
                if e.bound <= LIMIT * 4:
                    name, v = self.bind(e)
                    self.let(name, e.code, v)
                    self.env.append(v)
                    continue
            if r < 0.27:
                # A dead let (does not reach the output) is allowed.
                e = self.unmoved(self.expr(depth))
                self.stmts.append("let _%s = %s;" % (self.fresh(), e.code))
                continue
            e = self.expr(depth)
            if e.form == "view" or e.form == "tview":
                name = self.fresh()
                v = V(name, e.shape, e.bound, form="name", is_view=True)
                self.let(name, e.code, v)
                self.env.append(v)
                continue
            e = self.unmoved(e)
            if e.form == "ref" and e.code in [p[0] for p in self.params]:
                # `let t = p0;` an alias: fine, and a fork of p0.
                pass
            if e.bound > LIMIT * 4:
                e = self.squash(e) if e.scalar else self.squash_array(e)
            name, v = self.bind(e)
            self.let(name, e.code, v)
            self.env.append(v)
        self.final = self.output()
        if self.pending_return:
            self.stmts.append(self.pending_return)

    def scalarize(self, v):
        """A scalar of `v`, and its bound."""
        rng = self.rng
        if v.scalar:
            return v.atom(), v.bound
        nd = len(v.shape)
        n = size(v.shape)
        opts = [("sum(%s)" % v.as_ref(), v.bound * n), ("mean(%s)" % v.as_ref(), v.bound),
                ("%s.sum()" % v.recv(), v.bound * n)]
        if rng.random() < 0.3:
            opts = [("%s.mean().unwrap()" % v.recv(), v.bound),
                    ("%s.iter().sum::<%s>()" % (v.recv(), self.ty), v.bound * n)]
        if nd == 1:
            opts.append(("%s.dot(%s)" % (v.recv(), v.as_ref()), v.bound * v.bound * n))
            opts.append(("logsumexp(%s)" % v.as_ref(), v.bound + 2.0))
        if v.form in ("ref", "name") and nd == 2:
            opts.append(("%s[[%d, %d]]" % (v.code, rng.randrange(v.shape[0]), rng.randrange(v.shape[1])), v.bound))
        return rng.choice(opts)

    def output(self):
        rng = self.rng
        locals_ = [v for v in self.env if v.code.startswith("t")]
        if not self.has_return and rng.random() < 0.12:
            # A tuple of two or three components, scalars and arrays: one
            # upstream per component.
            return self.tuple_output()
        if not self.has_return and rng.random() < 0.1:
            # An array output: a VJP with an upstream gradient.
            cands = [v for v in self.env if not v.scalar and len(v.shape) <= 2]
            if cands:
                v = rng.choice(cands)
                self.out_shape = v.shape
                if v.form == "name" and v.code.startswith("t") and not v.is_view and (
                        REGION_BUGS or v.code not in self.if_no_else):
                    self.out_bound = v.bound
                    return v.code
                f = rng.choice(["tanh", "sigmoid", "exp", "sin"])
                if f == "exp" and v.bound > EXP_LIMIT:
                    f = "tanh"
                self.out_bound = 2.718281828 ** v.bound if f == "exp" else 1.0
                return "%s(%s)" % (f, v.as_ref())
        self.out_shape = ()
        terms = []
        picks = locals_[-2:] if locals_ else []
        if rng.random() < 0.4:
            picks = list(locals_)
        if not picks or rng.random() < 0.3:
            picks = picks + [rng.choice(self.env)]
        self.out_bound = 0.0
        for v in picks:
            code, bound = self.scalarize(v)
            terms.append(code)
            self.out_bound += bound
        self.out_bound = max(self.out_bound, self.ret_bound)
        return " + ".join(terms)

    def tuple_output(self):
        """`(a, b)` or `(a, b, c)`: each component a scalar of a value, or
        an array (an elementwise function of one, a clone of a local, or a
        local itself in the last place, where nothing reads it after it is
        moved)."""
        rng = self.rng
        n = rng.choice([2, 2, 3])
        codes, shapes, bounds = [], [], []
        for k in range(n):
            v = rng.choice(self.env)
            if v.scalar or len(v.shape) > 2 or rng.random() < 0.5:
                code, bound = self.scalarize(v)
                codes.append(code)
                shapes.append(())
                bounds.append(bound)
                continue
            named = v.form == "name" and v.code.startswith("t") and not v.is_view and (
                REGION_BUGS or v.code not in self.if_no_else)
            if named and k == n - 1 and rng.random() < 0.5:
                code, bound = v.code, v.bound
            elif named and rng.random() < 0.3:
                code, bound = "%s.clone()" % v.code, v.bound
            else:
                f = rng.choice(["tanh", "sigmoid", "sin"])
                code, bound = "%s(%s)" % (f, v.as_ref()), 1.0
            codes.append(code)
            shapes.append(v.shape)
            bounds.append(bound)
        self.out_shape = "tuple"
        self.out_components = shapes
        self.out_bounds = bounds
        self.out_bound = max(bounds)
        self.counts["tuple_output"] += 1
        return "(%s)" % ", ".join(codes)

    # ---------- rendering

    def signature(self):
        ps = []
        for name, shape, style, _ in self.params:
            if shape == ():
                ty = self.ty
            elif style == "ref":
                ty = "&" + rust_array_type(shape, self.ty)
            elif style == "owned":
                ty = rust_array_type(shape, self.ty)
            else:
                ty = {1: "ArrayView1<%s>", 2: "ArrayView2<%s>"}[len(shape)] % self.ty
            ps.append("%s: %s" % (name, ty))
        if self.uses_labels:
            ps.append("labels: &[usize]")
        if self.uses_ws:
            ps.append("ws: &[%s]" % self.ty)
        if self.uses_int is not None:
            ps.append("k0: usize")
        if self.out_shape == "tuple":
            ret = "(%s)" % ", ".join(rust_array_type(c, self.ty) for c in self.out_components)
        else:
            ret = rust_array_type(self.out_shape, self.ty)
        return "fn %s(%s) -> %s" % (self.name, ", ".join(ps), ret)

    def render(self):
        out = []
        body = "\n".join("    " + s for s in self.stmts)
        wrt = [p[0] for p in self.params if p[3]]
        args = []
        if self.has_modes():
            args.append("hvp" if self.has_hvp() else "jvp")
        if self.uses_constant or self.uses_ws:
            # A `&[f64]` is differentiable by default: `ws` is data.
            args.append("wrt(%s)" % ", ".join(wrt))
        attr = "#[differentiable(%s)]" % ", ".join(args) if args else "#[differentiable]"
        nargs = len(self.params) + (1 if self.uses_labels else 0) + 1 + (1 if self.uses_ws else 0) + (
            1 if self.uses_int is not None else 0)
        if nargs > 7:
            out.append("#[allow(clippy::too_many_arguments)]")
        out.append(attr)
        out.append("%s {" % self.signature())
        if body:
            out.append(body)
        out.append("    " + self.final)
        out.append("}")
        out.append("")
        out.append(self.render_test())
        return self.rename("\n".join(out))

    def has_modes(self):
        return MODES

    def has_hvp(self):
        return self.out_shape == () and self.ty == "f64"

    def rename(self, text):
        """Now and then, give the user's names those the generated code likes
        to use itself (`d_out`, `grad`, `d_t1`, ...): the macro must not
        capture or collide with them."""
        import re
        rng = self.rng
        if rng.random() >= 0.2:
            return text
        params = [p[0] for p in self.params]
        locals_ = sorted(set(re.findall(r"\bt\d+\b", text)), key=lambda n: int(n[1:]))
        ppool = ["d_out", "grad", "out", "d_t1", "x", "w", "d_p0", "y_1", "d_x"]
        lpool = ["d_out_1", "out", "x", "d_x", "x_from_out", "out_1", "unused", "grad_1", "d_out", "t1_from_t2", "d_d_x"]
        if RAW_IDENTS:
            ppool += ["r#type", "r#fn"]
            lpool += ["r#loop"]
        rng.shuffle(ppool)
        rng.shuffle(lpool)
        mapping = {}
        for name, new in zip(params, ppool):
            mapping[name] = new
        lpool = [n for n in lpool if n not in mapping.values()]
        for name, new in zip(locals_, lpool):
            if rng.random() < 0.7:
                mapping[name] = new
        if not mapping:
            return text
        pattern = re.compile(r"\b(%s)\b" % "|".join(re.escape(n) for n in mapping))
        return pattern.sub(lambda m: mapping[m.group(1)], text)

    def render_test(self):
        rng = self.rng
        seed = rng.randrange(1, 2**31)
        lines = ["#[test]", "fn %s_gradcheck() {" % self.name, "    let mut s = %du64;" % seed]
        sfx = "32" if self.ty == "f32" else ""
        for name, shape, style, _ in self.params:
            if shape == ():
                lines.append("    let %s = scalar%s(&mut s);" % (name, sfx))
            elif len(shape) == 1:
                lines.append("    let %s: Array1<%s> = random%s(%d, &mut s);" % (name, self.ty, sfx, shape[0]))
            else:
                lines.append("    let %s: Array2<%s> = random%s((%d, %d), &mut s);" % (name, self.ty, sfx, shape[0], shape[1]))
        if self.uses_labels:
            rows, classes = self.uses_labels
            labels = ", ".join(str(rng.randrange(classes)) for _ in range(rows))
            lines.append("    let labels: &[usize] = &[%s];" % labels)
        if self.uses_ws:
            lines.append("    let ws: &[%s] = &[%s];" % (self.ty, ", ".join("%r" % w for w in self.uses_ws)))
        if self.uses_int is not None:
            lines.append("    let k0: usize = %d;" % self.uses_int)

        def call_args(closure):
            args = []
            for name, shape, style, diff in self.params:
                if shape == ():
                    args.append(("*%s" % name) if (closure and diff) else name)
                elif style == "ref":
                    args.append(name if (closure and diff) else "&%s" % name)
                elif style == "owned":
                    args.append("%s.clone()" % name)
                else:
                    args.append("%s.view()" % name)
            if self.uses_labels:
                args.append("labels")
            if self.uses_ws:
                args.append("ws")
            if self.uses_int is not None:
                args.append("k0")
            return args

        # The inputs are opaque to the optimizer: in a release build, LLVM
        # would otherwise fold the original function's libm calls on these
        # constants (computing `f32` ones in `f64`), and its value would differ
        # in the last bit from what the same code computes at run time.
        names = [p[0] for p in self.params]
        lines.append("    let (%s,) = std::hint::black_box((%s,));" % (", ".join(names), ", ".join(names)))
        plain = call_args(False)
        if self.out_shape == "tuple":
            # One upstream per component: distinct scalars, random arrays.
            ups = []
            for k, shape in enumerate(self.out_components):
                if shape == ():
                    ups.append(["1.0", "0.5", "-0.75"][k])
                    continue
                dims = "%d" % shape[0] if len(shape) == 1 else "(%d, %d)" % shape
                lines.append("    let up%d: %s = random%s(%s, &mut s);" % (k, rust_array_type(shape, self.ty), sfx, dims))
                ups.append("&up%d" % k)
            up = "(%s)" % ", ".join(ups)
        elif self.out_shape == ():
            up = "1.0"
        else:
            if len(self.out_shape) == 1:
                lines.append("    let up: Array1<%s> = random%s(%d, &mut s);" % (self.ty, sfx, self.out_shape[0]))
            else:
                lines.append("    let up: Array2<%s> = random%s((%d, %d), &mut s);" % ((self.ty, sfx) + self.out_shape))
            up = "&up"
        lines.append("    let (value, grads) = %s_backward(%s, %s);" % (self.name, ", ".join(plain), up))
        lines.append("    assert_eq!(value, %s(%s));" % (self.name, ", ".join(plain)))
        for name, shape, style, diff in self.params:
            # Every gradient has its parameter's shape (unbroadcast, zeros).
            if diff and shape != ():
                lines.append("    assert_eq!(grads.%s.shape(), %s.shape());" % (name, name))
        diff = [p for p in self.params if p[3]]
        tup = ", ".join(("%s" % p[0]) if p[1] == () else ("%s.clone()" % p[0]) for p in diff)
        pat = ", ".join(p[0] for p in diff)
        if len(diff) == 1:
            tup += ","
            pat += ","
        closure_args = call_args(True)
        if self.out_shape == "tuple":
            lines.append("    GradCheck::new()")
            if self.ty == "f32":
                lines.append("        .rtol(0.1)")
                lines.append("        .atol(1e-2)")
            lines.append("        .upstream(&%s)" % up)
            lines.append("        .check(&(%s), |(%s)| %s_backward(%s, %s))" % (tup, pat, self.name, ", ".join(closure_args), up))
            lines.append("        .unwrap();")
        elif self.out_shape == () and self.ty == "f64":
            lines.append("    gradcheck(&(%s), |(%s)| %s_backward(%s, 1.0)).unwrap();" % (tup, pat, self.name, ", ".join(closure_args)))
        elif self.out_shape == ():
            # Central differences in single precision (eps 1e-3) are only
            # accurate to a few percent on these compositions: the same
            # programs pass the default tolerances in f64.
            lines.append("    GradCheck::new()")
            lines.append("        .rtol(0.1)")
            lines.append("        .atol(1e-2)")
            lines.append("        .check(&(%s), |(%s)| %s_backward(%s, 1.0))" % (tup, pat, self.name, ", ".join(closure_args)))
            lines.append("        .unwrap();")
        else:
            lines.append("    GradCheck::new()")
            if self.ty == "f32":
                lines.append("        .rtol(0.1)")
                lines.append("        .atol(1e-2)")
            lines.append("        .upstream(&up)")
            lines.append("        .check(&(%s), |(%s)| %s_backward(%s, &up))" % (tup, pat, self.name, ", ".join(closure_args)))
            lines.append("        .unwrap();")
        if self.has_modes():
            self.render_modes(lines, tup, pat, closure_args, up, sfx)
        lines.append("}")
        return "\n".join(lines)

    def render_modes(self, lines, tup, pat, closure_args, up, sfx):
        """Forward mode against reverse mode (`NAME_jvp` against the
        gradient dotted with a random direction), and `NAME_hvp` against
        central differences of the gradient."""
        diff = [p for p in self.params if p[3]]
        dirs = []
        for name, shape, style, _ in diff:
            d = "v_%s" % name
            if shape == ():
                lines.append("    let %s = scalar%s(&mut s);" % (d, sfx))
            elif len(shape) == 1:
                lines.append("    let %s: Array1<%s> = random%s(%d, &mut s);" % (d, self.ty, sfx, shape[0]))
            else:
                lines.append("    let %s: Array2<%s> = random%s((%d, %d), &mut s);" % (d, self.ty, sfx, shape[0], shape[1]))
            dirs.append(d if shape == () else "%s.clone()" % d)
        dtup = ", ".join(dirs) + ("," if len(dirs) == 1 else "")
        dpat = ", ".join("v_%s" % p[0] for p in diff) + ("," if len(diff) == 1 else "")
        targs = []
        for name, shape, style, _ in diff:
            if shape == ():
                targs.append("*v_%s" % name)
            elif style == "ref":
                targs.append("v_%s" % name)
            elif style == "owned":
                targs.append("v_%s.clone()" % name)
            else:
                targs.append("v_%s.view()" % name)
        call = ", ".join(closure_args + targs)
        check = "GradCheck::new()"
        if self.out_shape != ():
            check += ".upstream(&%s)" % up
        lines.append("    %s.check_jvp(&(%s), &(%s), |(%s)| %s_backward(%s, %s), |(%s), (%s)| %s_jvp(%s)).unwrap();" % (
            check, tup, dtup, pat, self.name, ", ".join(closure_args), up, pat, dpat, self.name, call))
        if self.has_hvp():
            lines.append("    hvpcheck(&(%s), &(%s), |(%s), (%s)| %s_hvp(%s)).unwrap();" % (
                tup, dtup, pat, dpat, self.name, call))


HEADER = """\
// @generated by tools/gen_fuzz_programs.py --seed {seed} --count {count}{part}
// Do not edit: change the generator and rerun it (`python3 tools/gen_fuzz_programs.py`);
// tests/fuzz_fresh.rs fails when this file is stale.
//
// Differential fuzzing of #[differentiable]: every function below is random
// code over the vocabulary; its test checks that `NAME_backward` returns the
// original function's value (exactly) and a gradient that agrees with central
// differences.
//
// Everything sits in a `#[rustfmt::skip]` module so that `cargo fmt` leaves
// the generator's output as it is (and `--check` can compare it byte for byte).
#![allow(
    unused_variables,
    unused_parens,
    unused_assignments,
    unused_mut,
    dead_code,
    clippy::all
)]

#[rustfmt::skip]
mod generated {{
use backprop::prelude::*;
use backprop_testkit::{{random, random32, scalar, scalar32}};
#[allow(unused_imports)]
use backprop::{{hvpcheck, jvpcheck}};
"""


def render_range(seed, count, lo, hi, part):
    rng = random.Random(seed)
    chunks = [HEADER.format(seed=seed, count=count, part=part)]
    done = []
    for i in range(hi):
        # Every program gets its own generator seeded from the master one, so
        # that a change to one program does not shift all those after it.
        prng = random.Random(rng.randrange(2**62))
        p = Program(prng, i, callees=done if i >= lo else ())
        p.generate()
        if lo <= i:
            done.append(p)
            chunks.append(p.render())
    chunks.append("}")
    return "\n".join(chunks) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seed", type=int, default=DEFAULT_SEED)
    ap.add_argument("--count", type=int, default=DEFAULT_COUNT)
    ap.add_argument("--out", default=DEFAULT_OUT)
    ap.add_argument("--split", type=int, default=1, help="write N files OUT_0.rs .. OUT_{N-1}.rs")
    ap.add_argument("--check", action="store_true", help="fail if OUT differs from what would be generated")
    ap.add_argument("--raw-idents", action="store_true", help="also use raw identifiers (r#type) as names")
    ap.add_argument("--view-calls", action="store_true", help="also call functions that take an ArrayView")
    ap.add_argument("--alias-calls", action="store_true", help="also pass borrowed aliases (let r = &t) to calls")
    ap.add_argument("--region-bugs", action="store_true", help="do not avoid the known bugs of loops and branches")
    ap.add_argument("--carried", type=float, default=0.08, help="the share of statements that are loops carrying reassigned values (0 to 0.2)")
    ap.add_argument("--no-modes", action="store_true", help="no jvp/hvp: forward mode against reverse mode, hvp against differences")
    ap.add_argument("--stats", action="store_true", help="print how often each control-flow construct was written")
    a = ap.parse_args()
    global RAW_IDENTS, VIEW_CALLS, REGION_BUGS, ALIAS_CALLS, MODES, CARRIED
    MODES = not a.no_modes
    CARRIED = a.carried
    ALIAS_CALLS = a.alias_calls
    RAW_IDENTS = a.raw_idents
    VIEW_CALLS = a.view_calls
    REGION_BUGS = a.region_bugs
    if a.split > 1:
        per = (a.count + a.split - 1) // a.split
        for k in range(a.split):
            text = render_range(a.seed, a.count, k * per, min(a.count, (k + 1) * per), " (part %d of %d)" % (k, a.split))
            with open("%s_%d.rs" % (a.out, k), "w") as f:
                f.write(text)
        return 0
    text = render_range(a.seed, a.count, 0, a.count, "")
    if a.stats:
        for k, v in sorted(COUNTS.items()):
            print("%-16s %d" % (k, v), file=sys.stderr)
    if a.check:
        try:
            with open(a.out) as f:
                current = f.read()
        except OSError as e:
            print("cannot read %s: %s" % (a.out, e), file=sys.stderr)
            return 1
        if current != text:
            print("%s is stale: rerun python3 tools/gen_fuzz_programs.py" % a.out, file=sys.stderr)
            return 1
        print("%s is up to date" % a.out)
        return 0
    with open(a.out, "w") as f:
        f.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
