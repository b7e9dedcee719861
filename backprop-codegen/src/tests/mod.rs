//! Unit tests of the planning passes: each function below is lowered and
//! planned, and the test reads the decisions the pass made (by node, in the
//! plan), with the pass on and off.

use crate::args::Args;
use crate::ast::Function;
use crate::ctxt::Ctxt;
use crate::graph::{Node, NodeId};
use crate::names::Namer;
use crate::plan::{plan, Options, Plan, Region, RevStep, Shared, Upstream};
use crate::vocab::Op;
use crate::{check, lower};
use proc_macro2::Ident;
use quote::format_ident;
use std::collections::HashSet;

/// Plans `source` (a function) with `opts` and hands the plan to `f`.
fn with_plan(source: &str, opts: Options, f: impl FnOnce(&Plan)) {
    let item: syn::ItemFn = syn::parse_str(source).expect("a function");
    let mut cx = Ctxt::default();
    let krate = quote::quote!(::backprop);
    let func = Function::from_item(item, &Args::default(), &krate, &mut cx).expect("a signature");
    let lowered = lower::lower(&func, &mut cx).expect("a body in the vocabulary");
    assert!(!cx.has_errors());
    let params: Vec<bool> = func.params.iter().map(|p| p.differentiable).collect();
    let analysis = check::analyse(&lowered, &params);
    let mut sh = Shared {
        func: &func,
        namer: Namer::new(HashSet::new()),
        opts,
    };
    let d_out = format_ident!("d_out");
    let p = plan(&lowered, &analysis, &mut sh, std::slice::from_ref(&d_out));
    f(&p)
}

/// Every pass on but `remat`.
fn without_remat() -> Options {
    Options {
        remat: false,
        ..unfused()
    }
}

/// Every optimisation but `fused_sums`: a loop's record as the other
/// passes leave it.
fn unfused() -> Options {
    Options {
        fused_sums: false,
        ..Options::default()
    }
}

/// The op nodes of a region, by op, in order.
fn ops(r: &Region, op: Op) -> Vec<NodeId> {
    r.graph
        .ids()
        .filter(|id| matches!(r.node(*id), Node::Op { op: o, .. } if *o == op))
        .collect()
}

fn name(r: &Region, id: NodeId) -> String {
    r.names[id.index()]
        .as_ref()
        .map_or("-".to_owned(), Ident::to_string)
}

const LAYER: &str = "fn layer(w: &Array2<f64>, b: &Array1<f64>, x: &Array2<f64>) -> f64 {
    let h = tanh(&(x.dot(w) + b));
    sum(&h)
}";

#[test]
fn in_place_gives_a_temporary_to_its_one_reader() {
    with_plan(LAYER, Options::default(), |p| {
        let r = &p.body;
        let (dot, add) = (ops(r, Op::Dot)[0], ops(r, Op::Add)[0]);
        // The sum writes over the product, tanh over the sum.
        assert!(r.takes.contains(&add));
        assert_eq!(
            r.given.get(&dot),
            Some(&true),
            "the product's shape is kept for `+`'s rules"
        );
        // tanh's rule reads only its output: the sum's shape is not kept.
        assert_eq!(r.given.get(&add), Some(&false));
    });
    with_plan(LAYER, Options::none(), |p| {
        assert!(p.body.takes.is_empty() && p.body.given.is_empty());
    });
}

#[test]
fn fuse_runs_an_activation_in_the_pass_of_its_sum() {
    with_plan(LAYER, Options::default(), |p| {
        let r = &p.body;
        let (add, tanh) = (ops(r, Op::Add)[0], ops(r, Op::Tanh)[0]);
        assert_eq!(r.fused.get(&tanh), Some(&add));
        assert!(r.deferred.contains(&add));
        // Named after the result it is made in, with no number of its own.
        assert_eq!(name(r, add), "h_pre");
    });
    let opts = Options {
        fuse: false,
        ..Options::default()
    };
    with_plan(LAYER, opts, |p| {
        assert!(p.body.fused.is_empty());
        // Still in place, one op after the other.
        assert_eq!(p.body.takes.len(), 2);
    });
}

/// Every unary kernel whose rule reads only its output (`tanh`, `sigmoid`,
/// `relu`, `exp`, `softplus`, `log_sigmoid`, `floor`, ...) or nothing
/// (`to_degrees`) runs in the pass of the sum before it, in that sum's
/// buffer, as `tanh` does; one whose rule reads its input (`sin`, `ln`) is
/// not written over it.
#[test]
fn every_kernel_that_reads_its_output_fuses_like_tanh() {
    let mut fused = Vec::new();
    for &op in Op::ALL {
        let Some(kernel) = op.unary_kernel() else {
            continue;
        };
        // A function of one operand (not `powi(x, n)`).
        if op.def().function.is_none_or(|args| args.len() != 1) {
            continue;
        }
        let name = op.def().name;
        let source = format!(
            "fn layer(w: &Array2<f64>, b: &Array1<f64>, x: &Array2<f64>) -> f64 {{
                let h = {name}(&(x.dot(w) + b));
                sum(&h)
            }}"
        );
        with_plan(&source, Options::default(), |p| {
            let r = &p.body;
            let (add, f) = (ops(r, Op::Add)[0], ops(r, op)[0]);
            let reads_only_out = matches!(
                kernel.reads,
                crate::vocab::Reads::Out | crate::vocab::Reads::G
            );
            assert_eq!(
                r.fused.get(&f) == Some(&add),
                reads_only_out,
                "{name} fused"
            );
            assert!(r.takes.contains(&add), "{name}: the sum in place");
            if reads_only_out {
                fused.push(name);
            }
        });
    }
    for name in [
        "tanh",
        "sigmoid",
        "relu",
        "exp",
        "softplus",
        "log_sigmoid",
        "sinh",
        "cbrt",
        "floor",
        "to_degrees",
    ] {
        assert!(fused.contains(&name), "{name} is not fused: {fused:?}");
    }
}

#[test]
fn dot_add_adds_a_product_into_a_sum() {
    let source = "fn cell(w: &Array2<f64>, h: &Array1<f64>, x: &Array1<f64>) -> f64 {
        let z = x * 2.0 + w.dot(h);
        sum(&z)
    }";
    with_plan(source, Options::default(), |p| {
        let r = &p.body;
        let (dot, add) = (ops(r, Op::Dot)[0], ops(r, Op::Add)[0]);
        assert_eq!(r.dot_adds.get(&add), Some(&dot));
        assert_eq!(name(r, dot), "z_product");
    });
    let opts = Options {
        dot_add: false,
        ..Options::default()
    };
    with_plan(source, opts, |p| assert!(p.body.dot_adds.is_empty()));
}

#[test]
fn sum_square_makes_no_array_of_squares() {
    let source = "fn sq(a: &Array2<f64>, b: &Array2<f64>) -> f64 {
        let c = a - b;
        sum(&(&c * &c))
    }";
    with_plan(source, Options::default(), |p| {
        let r = &p.body;
        let (sum, square) = (ops(r, Op::Sum)[0], ops(r, Op::Square)[0]);
        let sub = ops(r, Op::Sub)[0];
        // `2g·c` is written over `c`, which nothing reads after the rule.
        assert_eq!(r.sum_squares.get(&sum), Some(&(sub, true)));
        assert!(r.unmade.contains(&square));
    });
    let opts = Options {
        sum_square: false,
        ..Options::default()
    };
    with_plan(source, opts, |p| assert!(p.body.sum_squares.is_empty()));
}

#[test]
fn a_generic_float_made_from_a_number_is_plain() {
    let source = "fn f<T: Float>(w: T, x: T) -> T {
        let k = T::from_f64(0.5);
        let n = T::from(3).unwrap();
        (w * k).exp() + x * n + T::one()
    }";
    with_plan(source, Options::default(), |p| {
        let r = &p.body;
        let (mul, exp) = (ops(r, Op::Mul), ops(r, Op::Exp)[0]);
        assert_eq!(mul.len(), 2);
        assert!(mul.iter().all(|m| r.plain.contains(m)) && r.plain.contains(&exp));
    });
}

/// Whether the last value the body names `name` is known to be a float.
fn named_float(r: &crate::plan::Region, name: &str) -> bool {
    let id = r
        .graph
        .ids()
        .filter(|id| r.names[id.index()].as_ref().is_some_and(|n| n == name))
        .last()
        .unwrap_or_else(|| panic!("no value named {name}"));
    r.ty[id.index()] == Some(crate::vocab::Ty::Float)
}

#[test]
fn arithmetic_of_float_constants_is_a_float() {
    // `h` is a constant the macro does not look into; it is a float because
    // each operand of its arithmetic is one. `2.0 * data` is not: `data`
    // is not known to be a float.
    let source = "fn f(x: &Array1<f64>, s: usize, data: &Vec<f64>) -> f64 {
        let h = 2.0 / s as f64;
        let g = -(h / 3.0).sqrt().max(0.5);
        let u = 2.0 * data;
        let mut t = 0.0;
        for i in 0..x.len() {
            t += h * x[i] * g;
        }
        t + sum(&(x * u))
    }";
    with_plan(source, Options::default(), |p| {
        let r = &p.body;
        let float = |name: &str| named_float(r, name);
        assert!(float("h") && float("g"));
        assert!(!float("u"));
        // The loop's products are plain arithmetic, so its record keeps
        // nothing.
        let lp = r.loops.values().next().expect("the loop's plan");
        assert!(lp.kept.is_empty(), "kept {:?}", lp.kept);
    });
}

#[test]
fn float_constants_by_path_are_floats() {
    // A maximum folded from `f64::NEG_INFINITY` is a float, so a closure
    // may capture it; `PI` imported by name is not known.
    let source = "fn f(x: &Array1<f64>) -> f64 {
        let mut m = f64::NEG_INFINITY;
        for i in 0..x.len() {
            m = m.max(x[i]);
        }
        let tau = 2.0 * std::f64::consts::PI + f64::EPSILON;
        let other = 2.0 * PI;
        m * tau * other
    }";
    with_plan(source, Options::default(), |p| {
        let r = &p.body;
        let float = |name: &str| named_float(r, name);
        assert!(float("m") && float("tau"));
        assert!(!float("other"));
    });
}

#[test]
fn a_recursive_call_has_the_functions_type() {
    // `power(x, n - 1)` is the function itself: a float, so the product is
    // plain arithmetic. Another callee's value is not known.
    let source = "fn power(x: f64, n: u32) -> f64 {
        if n == 0 {
            return 1.0;
        }
        x * power(x, n - 1) + other(x) * x
    }";
    with_plan(source, Options::default(), |p| {
        // The code after the early return is an arm (`if !done { .. }`).
        let r = p
            .body
            .branches
            .values()
            .flat_map(|b| &b.arms)
            .find(|a| !ops(a, Op::Mul).is_empty())
            .expect("the arm with the products");
        let mul = ops(r, Op::Mul);
        assert_eq!(mul.len(), 2);
        assert_eq!(r.ty[mul[0].index()], Some(crate::vocab::Ty::Float));
        assert!(r.plain.contains(&mul[0]));
        assert_eq!(r.ty[mul[1].index()], None, "`other`'s value is not known");
    });
}

#[test]
fn plain_writes_scalar_ops_as_arithmetic() {
    let source = "fn f(w: f64, x: f64, v: &Array1<f64>) -> f64 {
        let u = w * x;
        u.exp() + sum(&(v * u))
    }";
    with_plan(source, Options::default(), |p| {
        let r = &p.body;
        let (mul, exp) = (ops(r, Op::Mul), ops(r, Op::Exp)[0]);
        assert!(r.plain.contains(&mul[0]) && r.plain.contains(&exp));
        // `v * u` is an array.
        assert!(!r.plain.contains(&mul[1]));
    });
    with_plan(source, Options::none(), |p| {
        assert!(p.body.plain.is_empty())
    });
}

#[test]
fn types_follow_the_table_a_product_of_vectors_is_a_float() {
    use crate::vocab::Ty::{Array, Float};
    let source = "fn f(m: &Array2<f64>, v: &Array1<f64>, d: &ArrayD<f64>, s: f64) -> f64 {
        let h = tanh(&m.dot(v));
        let e = v.dot(&h) + m.row(0).dot(v) * s;
        let q = sum_axis(m, Axis(0)).dot(&m.column(1));
        let k = m.dot(&m.t());
        e + q + sum(&k) + sum(d) + sum(&v.view().insert_axis(Axis(0)))
    }";
    with_plan(source, Options::default(), |p| {
        let r = &p.body;
        let dots = ops(r, Op::Dot);
        let tys: Vec<_> = dots.iter().map(|d| r.ty[d.index()]).collect();
        // m·v, v·h, row·v, sum_axis·column, m·mᵀ.
        assert_eq!(
            tys,
            [
                Some(Array(1)),
                Some(Float),
                Some(Float),
                Some(Float),
                Some(Array(2))
            ]
        );
        let tanh = ops(r, Op::Tanh)[0];
        assert_eq!(r.ty[tanh.index()], Some(Array(1)));
        let insert = ops(r, Op::InsertAxis)[0];
        assert_eq!(r.ty[insert.index()], Some(Array(2)));
        // The floats are written as plain Rust: `v·h + (row·v) * s`.
        let (add, mul) = (ops(r, Op::Add)[0], ops(r, Op::Mul)[0]);
        assert!(r.plain.contains(&add) && r.plain.contains(&mul));
    });
    // What a call returns is not known: its product with a vector is not
    // taken for a float. `Array<f64, Ix1>` is a vector.
    let source = "fn g(a: &Array<f64, Ix1>, d: &ArrayD<f64>) -> f64 {
        let x = helper(a);
        x.dot(a) + a.dot(a) * 2.0 + sum(&(d * 2.0))
    }";
    with_plan(source, Options::default(), |p| {
        let r = &p.body;
        let dots = ops(r, Op::Dot);
        assert_eq!(r.ty[dots[0].index()], None);
        assert_eq!(r.ty[dots[1].index()], Some(Float));
        let mul = ops(r, Op::Mul);
        assert_eq!(r.ty[mul[1].index()], None, "an ArrayD's axes are not known");
    });
}

const HEADS: &str = "fn heads(w: &Array2<f64>, v: &Array2<f64>, x: &Array2<f64>) -> f64 {
    let a = relu(&x.dot(w));
    sum(&a.dot(v)) + mean(&a.dot(w))
}";

#[test]
fn routing_adds_a_second_contribution_into_the_first() {
    with_plan(HEADS, Options::default(), |p| {
        let r = &p.body;
        // The forks at `a` and at `w`: the first contribution is new, the
        // second one's is added into its buffer, under the adjoint's own name.
        let into: Vec<String> = r
            .reverse
            .iter()
            .filter_map(|s| match s {
                RevStep::AddInto { target, .. } => Some(target.to_string()),
                _ => None,
            })
            .collect();
        assert_eq!(into, ["d_a", "d_w"]);
    });
    let opts = Options {
        accumulate: false,
        ..Options::default()
    };
    with_plan(HEADS, opts, |p| {
        let sums: Vec<usize> = p
            .body
            .reverse
            .iter()
            .filter_map(|s| match s {
                RevStep::Sum { adj, parts, .. } if adj == "d_a" => Some(parts.len()),
                _ => None,
            })
            .collect();
        assert_eq!(sums, [2], "the fork summed at the end");
    });
}

const RNN: &str = "fn rnn(w: &Array2<f64>, u: &Array2<f64>, v: &Array1<f64>, h0: &Array1<f64>, xs: &Array2<f64>) -> f64 {
    let mut h = h0.to_owned();
    let mut loss = 0.0;
    for t in 0..xs.nrows() {
        h = tanh(&(w.dot(&h) + u.dot(&xs.row(t))));
        loss += v.dot(&h);
    }
    loss
}";

#[test]
fn a_loop_keeps_its_state_in_rows_and_defers_outer_products() {
    with_plan(RNN, Options::default(), |p| {
        let r = &p.body;
        let l = r.loops.values().next().expect("a loop");
        assert_eq!(l.rows.len(), 1, "the state `h` in rows");
        assert!(
            l.rows[0].spare.is_some(),
            "its next value in the spare buffer"
        );
        // What each iteration keeps: not the state (in the rows), not the
        // new value (the next row).
        let kept: Vec<String> = l.kept.iter().map(Ident::to_string).collect();
        assert!(!kept.iter().any(|k| k.starts_with("h_1")), "{kept:?}");
        // The two weights' outer products, the second sharing the first's `u`.
        let terms: Vec<(String, Option<String>)> = l
            .rev
            .terms
            .iter()
            .map(|t| (t.acc.to_string(), t.u_from.as_ref().map(Ident::to_string)))
            .collect();
        assert_eq!(
            terms,
            [
                ("d_u".to_owned(), None),
                ("d_w".to_owned(), Some("d_u_term".to_owned()))
            ]
        );
    });
    let opts = Options {
        loop_buffers: false,
        ..Options::default()
    };
    with_plan(RNN, opts, |p| {
        let l = p.body.loops.values().next().expect("a loop");
        assert!(l.rows.is_empty() && l.rev.terms.is_empty());
    });
}

#[test]
fn a_branch_keeps_only_what_its_reverse_reads() {
    let source = "fn huber(pred: f64, target: f64, delta: f64) -> f64 {
        let r = pred - target;
        if r.abs() <= delta { 0.5 * r * r } else { delta * (r.abs() - 0.5 * delta) }
    }";
    with_plan(source, Options::default(), |p| {
        let b = p.body.branches.values().next().expect("a branch");
        let kept = |a: usize| -> Vec<String> { b.kept[a].iter().map(Ident::to_string).collect() };
        // `0.5 * r * r`: the rule of the second product reads the first.
        assert_eq!(kept(0), ["out_1"]);
        // `delta * (|r| - 0.5 δ)`: `∂δ = g·(|r| - 0.5 δ)` reads the
        // difference; `abs`'s rule reads `r`, which is the enclosing code's,
        // and nothing reads `|r|` or `0.5 δ`.
        assert_eq!(kept(1), ["out_5"]);
    });
}

const CUMPROD: &str = "fn cumprod(x: &Array1<f64>) -> f64 {
    let mut y = x.to_owned();
    for i in 1..y.len() {
        y[i] *= y[i - 1];
    }
    y.sum()
}";

const STATE_BUFFER: &str = "fn rnn(w: &Array2<f64>, xs: &Array2<f64>) -> f64 {
    let (t_max, n) = xs.dim();
    let mut h = Array2::<f64>::zeros((t_max + 1, n));
    for t in 0..t_max {
        let next = (w.dot(&h.row(t)) + xs.row(t)).tanh();
        h.row_mut(t + 1).assign(&next);
    }
    h.slice(s![1.., ..]).sum()
}";

#[test]
fn a_write_takes_its_buffer_where_only_parts_were_read_before_it() {
    with_plan(CUMPROD, Options::default(), |p| {
        let l = p.body.loops.values().next().expect("a loop");
        let r = &l.body;
        let write = ops(r, Op::SetIndex)[0];
        let y_in = r.inputs(write)[0];
        assert!(matches!(r.node(y_in), Node::Input(0)));
        assert!(r.takes.contains(&write), "written in y's buffer");
        // The two reads' rules run: they read the kept shape.
        assert_eq!(r.given.get(&y_in), Some(&true));
        assert_eq!(
            r.shape(y_in).map(Ident::to_string).as_deref(),
            Some("y_1_in_shape")
        );
        // Nothing of the array is kept: no rows, only the two elements the
        // product's rules read (the write's rules read none); the shape is
        // the carried adjoint's (`remat`).
        assert!(l.rows.is_empty());
        let kept: Vec<String> = l.kept.iter().map(Ident::to_string).collect();
        assert_eq!(kept, ["y_2", "y_3"]);
    });
    with_plan(CUMPROD, without_remat(), |p| {
        let l = p.body.loops.values().next().expect("a loop");
        let kept: Vec<String> = l.kept.iter().map(Ident::to_string).collect();
        assert_eq!(kept, ["y_2", "y_3", "y_1_in_shape"]);
    });
    with_plan(CUMPROD, Options::none(), |p| {
        let l = p.body.loops.values().next().expect("a loop");
        assert!(l.body.takes.is_empty());
        assert!(l.kept.iter().any(|k| k == "y_1_in"), "the whole array kept");
    });
}

#[test]
fn a_view_read_before_a_write_in_place_is_a_copy() {
    // Where the reverse sweep keeps it (not read back from the buffer).
    let opts = Options {
        settled_rows: false,
        ..Options::default()
    };
    with_plan(STATE_BUFFER, opts, |p| {
        let l = p.body.loops.values().next().expect("a loop");
        let r = &l.body;
        let (row, write) = (ops(r, Op::Row)[0], ops(r, Op::SetRow)[0]);
        assert!(r.takes.contains(&write));
        assert!(r.copied.contains(&row));
        // Moved into the iteration's record, not copied a second time.
        assert!(!r.views.contains(r.name(row)));
        assert!(l.rows.is_empty());
    });
}

/// The settled rows of the function's one loop: (local, offset, whether a
/// written value), and the locals whose buffers are recycled.
fn settled(source: &str, opts: Options) -> (Vec<(String, i64, bool)>, Vec<String>) {
    let mut out = (Vec::new(), Vec::new());
    with_plan(source, opts, |p| {
        let l = p.body.loops.values().next().expect("a loop");
        out.0 = l
            .settled
            .iter()
            .map(|s| (s.local.to_string(), s.offset, s.shape.is_some()))
            .collect();
        out.1 = l.recycled.iter().map(|r| r.local.to_string()).collect();
        // What is read back is not kept.
        for s in &l.settled {
            assert!(!l.kept.contains(&s.local));
        }
    });
    out
}

#[test]
fn settled_rows_are_read_back_from_the_buffer_the_loop_leaves() {
    let (rows, recycled) = settled(STATE_BUFFER, Options::default());
    // `h.row(t)`, read, and `next`, written into row `t + 1`.
    assert_eq!(
        rows,
        [
            ("next_1".to_owned(), 0, false),
            ("next".to_owned(), 1, true)
        ]
    );
    assert_eq!(recycled, ["next"], "the product computed into its buffer");
    with_plan(STATE_BUFFER, Options::default(), |p| {
        let l = p.body.loops.values().next().expect("a loop");
        let row = ops(&l.body, Op::Row)[0];
        assert!(
            !l.body.copied.contains(&row),
            "a view, read before the write"
        );
        assert!(l.var_read);
    });
    let off = Options {
        settled_rows: false,
        ..Options::default()
    };
    assert_eq!(settled(STATE_BUFFER, off), (vec![], vec![]));
}

#[test]
fn a_row_written_over_later_is_not_settled() {
    let loop_of = |range: &str, body: &str, after: &str| {
        format!(
            "fn f(w: &Array2<f64>, xs: &Array2<f64>) -> f64 {{
                let (t_max, n) = xs.dim();
                let mut h = Array2::<f64>::zeros((t_max + 2, n));
                for t in {range} {{ {body} }}
                {after}
                h.sum()
            }}"
        )
    };
    let step = "let next = (w.dot(&h.row(t)) + xs.row(t)).tanh(); h.row_mut(t + 1).assign(&next);";
    // Counting down, the row read at `t` is written by the next iteration.
    let down = loop_of("(0..t_max).rev()", step, "");
    // Row `t + 1` is read, and written in the same iteration.
    let ahead = loop_of(
        "0..t_max",
        "let next = (w.dot(&h.row(t + 1)) + xs.row(t)).tanh(); h.row_mut(t + 1).assign(&next);",
        "",
    );
    let (rows, _) = settled(&down, Options::default());
    assert!(rows.is_empty(), "{down}: {rows:?}");
    // A write after the loop writes into a copy of its buffer (a loop's
    // result is never written over), so the rows stay settled.
    let after = loop_of("0..t_max", step, "h.row_mut(0).assign(&xs.row(0));");
    let (rows, _) = settled(&after, Options::default());
    assert_eq!(rows.len(), 2, "{rows:?}");
    // (The value written into row `t + 1` is settled: nothing after it
    // writes that row.)
    let (rows, _) = settled(&ahead, Options::default());
    assert_eq!(rows, [("next".to_owned(), 1, true)]);
    // Two writes: the first at `t + 2` is written over by the next
    // iteration's `t + 1`; the second, at `t + 1`, is not.
    let two = loop_of(
        "0..t_max",
        "let a = (w.dot(&h.row(t)) + xs.row(t)).tanh(); let b = (w.dot(&a) + xs.row(t)).tanh();
         h.row_mut(t + 2).assign(&a); h.row_mut(t + 1).assign(&b);",
        "",
    );
    let (rows, _) = settled(&two, Options::default());
    assert!(rows.iter().all(|(l, ..)| l != "a"), "{rows:?}");
    assert!(
        rows.iter().any(|(l, o, w)| l == "b" && *o == 1 && *w),
        "{rows:?}"
    );
}

#[test]
fn a_nested_loop_keeps_its_rows() {
    // The inner loop's reverse sweep runs inside the outer one's, where
    // its last buffer is not in scope.
    let nested = "fn f(w: &Array2<f64>, xs: &Array2<f64>) -> f64 {
        let (t_max, n) = xs.dim();
        let mut total = 0.0;
        for _k in 0..2 {
            let mut h = Array2::<f64>::zeros((t_max + 1, n));
            for t in 0..t_max {
                let next = (w.dot(&h.row(t)) + xs.row(t)).tanh();
                h.row_mut(t + 1).assign(&next);
            }
            total += h.sum();
        }
        total
    }";
    with_plan(nested, Options::default(), |p| {
        let outer = p.body.loops.values().next().expect("a loop");
        let inner = outer.body.loops.values().next().expect("a nested loop");
        assert!(inner.settled.is_empty());
    });
}

/// Two loops, one in the other's body, both writing into a carried state
/// and reading a captured weight (ADBench's LSTM in small).
const NESTED: &str = "fn f(m: &Array2<f64>, state: &Array2<f64>, xs: &Array2<f64>) -> f64 {
    let (c, b) = xs.dim();
    let mut state = state.to_owned();
    let mut total = 0.0;
    for t in 0..c {
        for j in 0..b {
            let s = (state[[0, j]] * m[[0, j]] + xs[[t, j]]).tanh();
            state[[0, j]] = s;
            total += s;
        }
    }
    total
}";

#[test]
fn a_nested_loop_adds_into_the_enclosing_accumulator_and_takes_its_state() {
    with_plan(NESTED, Options::default(), |p| {
        let outer = p.body.loops.values().next().expect("a loop");
        let inner = outer.body.loops.values().next().expect("a nested loop");
        let acc_of = |l: &crate::plan::LoopPlan| -> Vec<String> {
            l.accs.iter().map(|(_, a)| a.to_string()).collect()
        };
        // The inner loop's accumulators of `m` and `xs` are the outer loop's.
        assert_eq!(acc_of(inner), acc_of(outer));
        assert_eq!(inner.shared_accs.len(), 2, "`m` and `xs`");
        assert!(outer.shared_accs.is_empty(), "the function's body has none");
        // The inner loop starts from the outer's state, moved.
        let moved: Vec<String> = inner
            .init
            .iter()
            .filter_map(|i| match i {
                crate::plan::Init::Moved(n) => Some(n.to_string()),
                _ => None,
            })
            .collect();
        assert_eq!(moved, [outer.ins[0].to_string()]);
    });
    let off = Options {
        nested_loops: false,
        ..Options::default()
    };
    with_plan(NESTED, off, |p| {
        let outer = p.body.loops.values().next().expect("a loop");
        let inner = outer.body.loops.values().next().expect("a nested loop");
        assert!(inner.shared_accs.is_empty());
        assert!(!inner
            .init
            .iter()
            .any(|i| matches!(i, crate::plan::Init::Moved(_))));
    });
}

#[test]
fn a_state_the_enclosing_loop_keeps_is_copied() {
    // The outer loop's reverse sweep reads `state` at the start of each
    // iteration (`sum`'s rule reads only its shape, `*` reads it): kept,
    // so the inner loop copies it.
    let kept = "fn f(m: &Array2<f64>, state: &Array2<f64>, xs: &Array2<f64>) -> f64 {
        let (c, b) = xs.dim();
        let mut state = state.to_owned();
        let mut total = 0.0;
        for t in 0..c {
            total += (&state * &state).sum();
            for j in 0..b {
                state[[0, j]] = (state[[0, j]] * m[[0, j]] + xs[[t, j]]).tanh();
            }
        }
        total
    }";
    with_plan(kept, Options::default(), |p| {
        let outer = p.body.loops.values().next().expect("a loop");
        let inner = outer.body.loops.values().next().expect("a nested loop");
        assert!(!inner
            .init
            .iter()
            .any(|i| matches!(i, crate::plan::Init::Moved(_))));
    });
}

#[test]
fn a_write_is_a_copy_where_its_array_is_read_otherwise() {
    // `y · y` reads the values of `y` (its rule too): the write copies.
    let dot = "fn f(x: &Array1<f64>) -> f64 {
        let mut y = x * 2.0;
        let s = y.dot(&y);
        y[1] = s;
        y.sum()
    }";
    // A read after the write reads the new value; the old one, read
    // before it by `sum` (whose rule reads only its shape but is not a
    // part), is copied too.
    let after = "fn f(x: &Array1<f64>) -> f64 {
        let mut y = x * 2.0;
        let s = y.sum();
        y[0] = s;
        y[1] * y[0]
    }";
    // A parameter's buffer is not the body's.
    let param = "fn f(x: Array1<f64>) -> f64 {
        let mut y = x;
        y[0] = 1.0;
        y.sum()
    }";
    for source in [dot, after, param] {
        with_plan(source, Options::default(), |p| {
            let r = &p.body;
            let write = ops(r, Op::SetIndex)[0];
            assert!(!r.takes.contains(&write), "{source}");
        });
    }
}

mod calls;
mod fused;
mod remat;
