//! The `remat` pass: a loop's reverse sweep reads an element of a borrowed
//! parameter again, and a carried array's shape from its adjoint, instead
//! of each iteration keeping them.

use super::*;

/// Cells updated in place, each from its old value and a weight.
const CELLS: &str = "fn cells(w: &Array2<f64>, x: &Array1<f64>, n: usize) -> f64 {
    let mut c = x.to_owned();
    for t in 0..n {
        for j in 0..c.len() {
            c[j] = (c[j] * w[[t % 2, j]]).tanh() + w[[1 - t % 2, j]];
        }
    }
    c.sum()
}";

/// The inner loop's plan of `CELLS`.
fn inner<'p>(p: &'p Plan) -> &'p crate::plan::LoopPlan<'p> {
    let outer = p.body.loops.values().next().expect("a loop");
    outer
        .body
        .loops
        .values()
        .next()
        .expect("a loop in the loop")
}

fn kept(l: &crate::plan::LoopPlan) -> Vec<String> {
    l.kept.iter().map(Ident::to_string).collect()
}

#[test]
fn an_element_of_a_borrowed_parameter_is_read_again() {
    with_plan(CELLS, Options::default(), |p| {
        let l = inner(p);
        let r = &l.body;
        let reads = ops(r, Op::Index);
        // `c[j]`, `w[[t % 2, j]]`, `w[[1 - t % 2, j]]`: the first weight is
        // read by the product's rule, the second by no rule.
        assert_eq!(reads.len(), 3);
        assert_eq!(r.remade, [reads[1]], "the weight the product reads");
        let weight = name(r, reads[1]);
        assert!(!kept(l).contains(&weight), "{weight} kept: {:?}", kept(l));
        // The index reads `t`, which is the enclosing loop's: the inner loop
        // keeps nothing more for it.
        assert!(l.var_read, "the index reads `j`");
    });
    with_plan(CELLS, without_remat(), |p| {
        let l = inner(p);
        let r = &l.body;
        assert!(r.remade.is_empty());
        let weight = name(r, ops(r, Op::Index)[1]);
        assert!(
            kept(l).contains(&weight),
            "{weight} not kept: {:?}",
            kept(l)
        );
    });
}

#[test]
fn a_carried_array_written_in_place_has_its_adjoints_shape() {
    with_plan(CELLS, Options::default(), |p| {
        let l = inner(p);
        let r = &l.body;
        let write = ops(r, Op::SetIndex)[0];
        let c_in = r.inputs(write)[0];
        assert!(r.takes.contains(&write), "written in c's buffer");
        let shape = r.shape(c_in).expect("a kept shape").to_string();
        assert_eq!(r.shapes_from.get(&c_in), l.d_state[0].as_ref());
        assert!(!kept(l).contains(&shape), "{shape} kept: {:?}", kept(l));
    });
    with_plan(CELLS, without_remat(), |p| {
        let l = inner(p);
        let r = &l.body;
        let c_in = r.inputs(ops(r, Op::SetIndex)[0])[0];
        assert!(r.shapes_from.is_empty());
        let shape = r.shape(c_in).expect("a kept shape").to_string();
        assert!(kept(l).contains(&shape), "{shape} not kept: {:?}", kept(l));
    });
}

/// A carried array that the body replaces (here by a new array of a
/// different length) keeps its shape in each iteration.
#[test]
fn a_replaced_carried_array_keeps_its_shape() {
    const GROWS: &str = "fn grows(x: &Array1<f64>, n: usize) -> f64 {
        let mut c = x.to_owned();
        for _ in 0..n {
            c[0] = c[0] * 2.0;
            c = concatenate(Axis(0), &[c.view(), x.view()]).unwrap();
        }
        c.sum()
    }";
    with_plan(GROWS, Options::default(), |p| {
        let l = p.body.loops.values().next().expect("a loop");
        let r = &l.body;
        let c_in = r.inputs(ops(r, Op::SetIndex)[0])[0];
        let shape = r.shape(c_in).expect("a kept shape").to_string();
        assert!(r.shapes_from.is_empty());
        assert!(kept(l).contains(&shape), "{shape} not kept: {:?}", kept(l));
    });
}

/// A state updated in place, then read element by element by a second
/// loop: the outer loop's reverse reads it only for its shape.
const UPDATE_THEN_READ: &str = "fn f(w: &Array1<f64>, x: &Array1<f64>, n: usize) -> f64 {
    let mut h = x.to_owned();
    let mut total = 0.0;
    for _ in 0..n {
        for j in 0..h.len() {
            h[j] = (h[j] * w[j]).tanh();
        }
        for j in 0..h.len() {
            total += h[j] * w[j];
        }
    }
    total
}";

fn shapes(l: &crate::plan::LoopPlan) -> Vec<String> {
    l.saves
        .iter()
        .filter_map(|k| match k {
            crate::plan::Kept::Shape(n) => Some(n.to_string()),
            _ => None,
        })
        .collect()
}

#[test]
fn an_array_read_only_for_its_shape_keeps_its_shape() {
    with_plan(UPDATE_THEN_READ, Options::default(), |p| {
        let l = p.body.loops.values().next().expect("a loop");
        // `h` after the first inner loop: the second reads its elements,
        // whose rules read its shape, and starts its accumulator from a
        // zero of its shape.
        assert_eq!(shapes(l).len(), 1, "{:?}", kept(l));
        assert!(kept(l).contains(&shapes(l)[0]));
    });
    with_plan(UPDATE_THEN_READ, without_remat(), |p| {
        let l = p.body.loops.values().next().expect("a loop");
        assert!(shapes(l).is_empty());
    });
}

/// An array whose values the reverse reads (a product's rule) is kept
/// whole, even where a part's rule reads it too.
#[test]
fn an_array_read_for_its_values_is_kept_whole() {
    const PRODUCT: &str = "fn f(w: &Array1<f64>, x: &Array1<f64>, n: usize) -> f64 {
        let mut h = x.to_owned();
        let mut total = 0.0;
        for _ in 0..n {
            for j in 0..h.len() {
                h[j] = (h[j] * w[j]).tanh();
            }
            total += h[0] + h.dot(w);
        }
        total
    }";
    with_plan(PRODUCT, Options::default(), |p| {
        let l = p.body.loops.values().next().expect("a loop");
        assert!(shapes(l).is_empty(), "{:?}", shapes(l));
    });
}

/// A shifted product whose rule reads a sum of elements and a parameter,
/// then a carried value in a sum.
const SHIFTED: &str =
    "fn shifted(x: &Array1<f64>, y: &Array1<f64>, k: &Array1<f64>, c: f64) -> f64 {
    let mut z = Array1::<f64>::zeros(x.len());
    z[0] = x[0];
    for i in 1..x.len() {
        z[i] = x[i] * (y[i - 1] + c * k[i - 1]);
    }
    let mut acc = 1.0;
    for i in 0..x.len() {
        acc = acc * 0.5 + z[i] * (acc - x[i]);
    }
    acc
}";

/// The loops of `SHIFTED`, in order.
fn shifted_loops<'p>(p: &'p Plan) -> Vec<&'p crate::plan::LoopPlan<'p>> {
    let mut loops: Vec<_> = p.body.loops.iter().collect();
    loops.sort_by_key(|(id, _)| **id);
    loops.into_iter().map(|(_, l)| l).collect()
}

#[test]
fn a_sum_of_elements_and_a_parameter_is_made_again() {
    with_plan(SHIFTED, Options::default(), |p| {
        let [write, sum] = shifted_loops(p)[..] else {
            panic!("two loops")
        };
        let r = &write.body;
        // `y[i - 1]`, `k[i - 1]`, `c * k[i - 1]` and their sum, which the
        // product's rule reads; `x[i]` too.
        let (add, mul) = (ops(r, Op::Add)[0], ops(r, Op::Mul)[0]);
        assert!(r.remade.contains(&add) && r.remade.contains(&mul));
        assert!(write.kept.is_empty(), "kept {:?}", kept(write));
        assert!(!write.records(), "no record of the iterations");
        // `acc - x[i]` reads the carried `acc`: kept, as is `z[i]`, an
        // element of an array the function made.
        let r = &sum.body;
        let sub = ops(r, Op::Sub)[0];
        assert!(!r.remade.contains(&sub));
        assert!(kept(sum).contains(&name(r, sub)), "kept {:?}", kept(sum));
        assert!(sum.records());
    });
    with_plan(SHIFTED, without_remat(), |p| {
        let write = shifted_loops(p)[0];
        let r = &write.body;
        assert!(r.remade.is_empty());
        // The sum, and `x[i]` and `k[i - 1]` for the products' rules.
        let (add, reads) = (ops(r, Op::Add)[0], ops(r, Op::Index));
        let names = [reads[0], reads[2], add].map(|id| name(r, id));
        assert_eq!(kept(write), names);
        assert!(write.records());
    });
}

#[test]
fn a_float_of_the_loops_variable_is_made_again() {
    let source = "fn f(x: &Array1<f64>, n: usize) -> f64 {
        let mut s = 0.0;
        let mut t = 0;
        for i in 0..n {
            let j = n - 1 - i;
            s += x[i] * (i as f64 + 1.0) * (t as f64) + x[j] * j as f64;
            t += 2;
        }
        s
    }";
    with_plan(source, unfused(), |p| {
        let l = p.body.loops.values().next().expect("a loop");
        let r = &l.body;
        // `i as f64 + 1.0` is made again, and `j as f64` with `j`; `t as
        // f64` reads the carried `t`.
        let consts: Vec<_> = ops(r, Op::Mul).iter().map(|m| r.inputs(*m)[1]).collect();
        assert!(consts.iter().all(|c| matches!(r.node(*c), Node::Const(_))));
        assert!(r.remade.contains(&consts[0]) && !r.remade.contains(&consts[1]));
        let j_float = consts[2];
        let Node::Const(c) = r.node(j_float) else {
            panic!("`j as f64` is a constant")
        };
        assert!(r.remade.contains(&j_float) && c.deps.iter().all(|d| r.remade.contains(d)));
        assert_eq!(kept(l), [name(r, consts[1])]);
    });
    with_plan(source, without_remat(), |p| {
        let l = p.body.loops.values().next().expect("a loop");
        assert_eq!(l.kept.len(), 4, "kept {:?}", kept(l));
    });
}
