//! A loop's forward loop and its reverse loop (see `crate::plan::loops`).

use super::forward::forward as body_forward;
use super::reverse::reverse as body_reverse;
use super::{operand, part, subst, value, Cx};
use crate::graph::{Adapter, ConstArg, Form, Loop, Node, NodeId};
use crate::plan::loops::{DStart, Rows};
use crate::plan::{Init, Kept, Next, Region};
use proc_macro2::{Literal, TokenStream};
use quote::{quote, ToTokens};

/// The value each carried variable has at the end of an iteration, or a
/// branch arm's result.
pub fn next(cx: &Cx, n: &Next) -> TokenStream {
    let bp = cx.bp;
    match n {
        Next::Local(n) => n.to_token_stream(),
        Next::Copy(o) => {
            let o = operand(cx, o);
            quote!(#bp::copy(#o))
        }
        Next::Value(o) => value(cx, o),
        Next::Const(o) => copy_const(cx, o),
    }
}

/// A kept local: moved, copied (a view) or cloned (also a result).
pub fn kept(cx: &Cx, k: &Kept) -> TokenStream {
    let bp = cx.bp;
    match k {
        Kept::Moved(n) => n.to_token_stream(),
        Kept::Copy(n) => quote!(#bp::copy(&#n)),
        Kept::Clone(n) => quote!(::core::clone::Clone::clone(&#n)),
        Kept::Shape(n) => quote!(#bp::shape_of(&#n)),
    }
}

/// ```text
/// let t_start = 0; let t_end = n;
/// let mut h_1 = bp::copy(&h);
/// let mut steps = Vec::with_capacity(..);
/// let mut h_1_rows = bp::Rows::with_steps(..);
/// for t in t_start..t_end {
///     let h_1_in = h_1;
///     h_1_rows.push(&h_1_in);
///     ... the body ...
///     steps.push((..));
///     h_1 = h_5;
/// }
/// h_1_rows.push(&h_1);
/// ```
pub fn forward(r: &Region, cx: &Cx, id: NodeId, lp: &Loop) -> Vec<TokenStream> {
    let bp = cx.bp;
    let l = &r.loops[&id];
    let (start, end, steps) = (&l.start, &l.end, &l.steps);
    let range = iter(r, l, lp);
    let mut out = match lp.cond {
        // A fused sum's reverse runs in its forward: nothing to count.
        Some(_) if l.fused => Vec::new(),
        // A `while` loop counts its iterations: `start..end` are their numbers.
        Some(_) => vec![quote!(let #start = 0usize;), quote!(let mut #end = #start;)],
        None => bounds(r, l, lp),
    };
    for (s, init) in l.state.iter().zip(&l.init) {
        out.push(match init {
            Init::Moved(name) => quote!(let mut #s = #name;),
            // A literal as it is (`-0.0_f64`, no parentheses in a `let`).
            Init::Value(crate::plan::Operand::Literal(t)) => quote!(let mut #s = #t;),
            Init::Value(o) => {
                let v = value(cx, o);
                quote!(let mut #s = #v;)
            }
            Init::Const(o) => {
                let v = copy_const(cx, o);
                quote!(let mut #s = #v;)
            }
            Init::Copy(o) => {
                let o = operand(cx, o);
                quote!(let mut #s = #bp::copy(#o);)
            }
        });
    }
    let (mut first, mut push, mut last, mut after) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    if l.records() {
        out.push(match &l.flat {
            // The function's one vector (see `flat_records`).
            Some(mark) => quote!(let #mark = #steps.len();),
            None => quote!(let mut #steps = ::std::vec::Vec::with_capacity(#range.size_hint().0);),
        });
        let saved = l.saves.iter().map(|k| kept(cx, k));
        push.push(quote!(#steps.push((#(#saved,)*));));
    }
    for rows in &l.rows {
        let (name, i, s) = (&rows.rows, &l.ins[rows.k], &l.state[rows.k]);
        out.push(quote!(let mut #name = #bp::Rows::with_steps(#range.size_hint().0);));
        first.push(quote!(#name.push(&#i);));
        if let Some(spare) = &rows.spare {
            out.push(quote!(let mut #spare = #bp::Spare::new();));
            last.push(quote!(#spare.put(#i);));
        }
        if rows.next.is_some() {
            after.push(quote!(#name.push(&#s);));
        }
    }
    // Settled rows (see `crate::plan::settled`): a written value keeps its
    // shape, and gives its buffer to the next iteration's product.
    let mut shapes = Vec::new();
    for s in &l.settled {
        if let Some(shape) = &s.shape {
            let local = &s.local;
            shapes.push(quote!(let #shape = #bp::shape_of(&#local);));
        }
    }
    for re in &l.recycled {
        let (local, spare) = (&re.local, &re.spare);
        out.push(quote!(let mut #spare = #bp::Spare::new();));
        last.push(quote!(#spare.put(#local);));
    }
    let mut body = body_forward(&l.body, cx);
    if l.fused {
        // The reverse of each iteration right after it, seeded with one
        // (see `crate::plan::fused`).
        out.extend(fused_starts(r, cx, l, lp));
        body.extend(body_reverse(&l.body, cx));
        body.extend(tail(cx, l, lp));
    }
    let var = l
        .body
        .loop_var
        .clone()
        .map_or(quote!(_), |v| v.to_token_stream());
    let (ins, state) = (&l.ins, &l.state);
    let nexts = l.next.iter().map(|n| next(cx, n));
    let (header, count) = match &lp.cond {
        Some(c) => {
            let c = condition(l, lp, c);
            let count = (!l.fused).then(|| quote!(#end += 1;));
            (quote!(while #c), quote!(#count))
        }
        None if lp.adapters.is_empty() => (quote!(for #var in #start..#end), quote!()),
        None => (quote!(for #var in #range), quote!()),
    };
    out.push(quote! {
        #header {
            #(let #ins = #state;)*
            #(#first)*
            #(#body)*
            #(#shapes)*
            #(#push)*
            #(#last)*
            #(#state = #nexts;)*
            #count
        }
    });
    out.extend(after);
    out
}

/// ```text
/// let mut d_h_1 = d_h_1;
/// let mut d_w = bp::zeros_like(w);
/// for (t, (step, (h_3, ...))) in (t_start..t_end).zip(steps.into_iter().enumerate()).rev() {
///     let h_1_in = h_1_rows.row(step);
///     ... the body's reverse sweep, seeded with d_h_1 ...
///     d_h_1 = d_h_in_step;
/// }
/// let d_h = d_h_1;
/// ```
pub fn reverse(r: &Region, cx: &Cx, id: NodeId, lp: &Loop) -> Vec<TokenStream> {
    let bp = cx.bp;
    let l = &r.loops[&id];
    let rev = &l.rev;
    if l.fused {
        return fused_reverse(r, cx, id, lp);
    }
    // Bounds the region around does not keep (see `remat::bounds_again`).
    let mut out = if l.bounds_again {
        bounds(r, l, lp)
    } else {
        Vec::new()
    };
    out.extend(starts(r, cx, id, lp));
    let steps = &l.steps;
    // This run's records: the vector, or its part from the run's mark.
    let (records, count) = match &l.flat {
        Some(mark) => (
            quote!(#steps.drain(#mark..)),
            quote!((#steps.len() - #mark)),
        ),
        None => (quote!(#steps.into_iter()), quote!(#steps.len())),
    };
    let terms = terms(cx, l);
    if let Some(outers) = &l.body.outers {
        // Each term's number, by name.
        let names = rev.terms.iter().map(|t| &t.name);
        let numbers = (0..rev.terms.len()).map(Literal::usize_unsuffixed);
        out.push(match rev.terms.len() {
            1 => quote!(let #(#names)* = 0;),
            _ => quote!(let (#(#names),*) = (#(#numbers),*);),
        });
        out.push(quote!(let mut #outers = #bp::Outers::new(#count, [#(#terms),*]);));
    }
    // The last iteration's new value is the loop's result.
    let mut head = Vec::new();
    for (k, local, carry) in &l.handoff {
        let s = &l.state[*k];
        out.push(quote!(let mut #carry = #s;));
        head.push(quote!(let #local = #carry;));
    }
    let body = body_reverse(&l.body, cx);
    let var = match &l.body.loop_var {
        Some(v) if l.var_read => v.to_token_stream(),
        _ => quote!(_),
    };
    let saved = &l.kept;
    // An array kept as its shape is lent to the rules as a stand-in.
    for k in &l.saves {
        if let Kept::Shape(n) = k {
            head.push(quote!(let #n = #bp::stand_in(&#n);));
        }
    }
    for rows in &l.rows {
        let (name, i) = (&rows.rows, &l.ins[rows.k]);
        let step = l.step.as_ref().expect("a step index where rows are read");
        head.push(quote!(let #i = #name.row(#step);));
        if let Some(local) = &rows.next {
            head.push(quote!(let #local = #name.row(#step + 1);));
        }
    }
    for s in &l.settled {
        let (local, state) = (&s.local, &l.state[s.k]);
        let row = shifted(var.clone(), s.offset);
        head.push(match &s.shape {
            None => quote!(let #local = #bp::row(&#state, #row);),
            Some(shape) => {
                quote!(let #local = #bp::written_row(&#state, #row, &#bp::stand_in(&#shape));)
            }
        });
    }
    // The values computed again rather than kept (see `crate::plan::remat`).
    let mut from: Vec<_> = l.body.shapes_from.iter().collect();
    from.sort();
    for (x, d) in from {
        let shape = l.body.shape(*x).expect("a kept shape");
        head.push(quote!(let #shape = #bp::shape_of(&#d);));
    }
    for &id in &l.body.remade {
        head.extend(super::forward::node(&l.body, cx, id));
    }
    let tail = tail(cx, l, lp);
    let range = iter(r, l, lp);
    let header = match &l.step {
        Some(step) => quote! {
            for (#var, (#step, (#(#saved,)*))) in #range.zip(#records.enumerate()).rev()
        },
        None if l.records() && l.flat.is_some() => {
            quote!(for (#var, (#(#saved,)*)) in #range.zip(#records).rev())
        }
        None if l.records() => quote!(for (#var, (#(#saved,)*)) in #range.zip(#steps).rev()),
        None => quote!(for #var in #range.rev()),
    };
    out.push(quote! {
        #header {
            #(#head)*
            #(#body)*
            #(#tail)*
        }
    });
    if let Some(outers) = &l.body.outers {
        for t in &rev.terms {
            let (acc, name) = (&t.acc, &t.name);
            out.push(quote!(#acc = #bp::add_outers(#acc, &mut #outers, #name);));
        }
    }
    for (target, d) in &rev.targets {
        out.push(quote!(let #target = #d;));
    }
    out
}

/// Before a fused sum's forward loop: its carried adjoint, one, and its
/// accumulators, zeros.
fn fused_starts(r: &Region, cx: &Cx, l: &crate::plan::LoopPlan, lp: &Loop) -> Vec<TokenStream> {
    let bp = cx.bp;
    let mut out = Vec::new();
    for (k, d) in l.d_state.iter().enumerate() {
        if let Some(d) = d {
            let s = &l.state[k];
            out.push(quote!(let mut #d = #bp::one_like(&#s);));
        }
    }
    for (j, acc) in &l.accs {
        if l.shared_accs.contains(acc) {
            // The enclosing sum's, declared before it.
            continue;
        }
        let input = lp.inputs[*j];
        let z = super::zeros_of(
            r,
            cx,
            input,
            operand(cx, &r.operand(&cx.func.params, input)),
        );
        out.push(quote!(let mut #acc = #z;));
    }
    out
}

/// The reverse of a fused sum: the carried adjoint as any loop's starts,
/// and each accumulator scaled by it (added to the contribution written
/// before the loop, where there is one).
fn fused_reverse(r: &Region, cx: &Cx, id: NodeId, lp: &Loop) -> Vec<TokenStream> {
    let bp = cx.bp;
    let l = &r.loops[&id];
    let rev = &l.rev;
    let mut out = d_starts(r, cx, id, lp, false);
    let d = l
        .d_state
        .iter()
        .flatten()
        .next()
        .expect("a fused sum has one carried adjoint");
    for (_, acc) in &l.accs {
        if l.shared_accs.contains(acc) {
            // Seeded with one as the enclosing sum is, and scaled with it.
            continue;
        }
        out.push(match rev.acc_starts.iter().find(|(a, _)| a == acc) {
            Some((_, prev)) => quote!(let #acc = #bp::scaled_add(#acc, #d, #prev);),
            None => quote!(let #acc = #bp::scaled(#acc, #d);),
        });
    }
    for (target, d) in &rev.targets {
        out.push(quote!(let #target = #d;));
    }
    out
}

/// How the carried adjoints and the accumulators start before the reverse
/// loop.
fn starts(r: &Region, cx: &Cx, id: NodeId, lp: &Loop) -> Vec<TokenStream> {
    let l = &r.loops[&id];
    let rev = &l.rev;
    let mut out = d_starts(r, cx, id, lp, true);
    for (j, acc) in &l.accs {
        if l.shared_accs.contains(acc) {
            // The enclosing loop's, declared there.
            continue;
        }
        if let Some((_, prev)) = rev.acc_starts.iter().find(|(a, _)| a == acc) {
            // The contribution written before the loop, added to in place.
            out.push(quote!(let mut #acc = #prev;));
            continue;
        }
        let input = lp.inputs[*j];
        let z = zeros(
            r,
            cx,
            l,
            input,
            operand(cx, &r.operand(&cx.func.params, input)),
        );
        out.push(quote!(let mut #acc = #z;));
    }
    out
}

/// A zero of node `id`'s shape (`x` its operand): the spare buffer serves
/// an array, a model's zero is its own.
fn zeros(
    r: &Region,
    cx: &Cx,
    l: &crate::plan::LoopPlan,
    id: NodeId,
    x: TokenStream,
) -> TokenStream {
    match &l.rev.spare {
        Some(spare) if !super::is_model(r, cx, id) => quote!(#spare.zeros_like(#x)),
        _ => super::zeros_of(r, cx, id, x),
    }
}

/// How the carried adjoints start before the reverse loop (`let mut`, where
/// the loop then assigns them).
fn d_starts(r: &Region, cx: &Cx, id: NodeId, lp: &Loop, mutable: bool) -> Vec<TokenStream> {
    let bp = cx.bp;
    let l = &r.loops[&id];
    let mut out = Vec::new();
    let mutable = mutable.then(|| quote!(mut));
    for (k, d, start) in &l.rev.d_start {
        let s = &l.state[*k];
        let decl = quote!(#mutable #d);
        out.push(match start {
            DStart::Copy(c) => {
                let c = c.iter().map(|p| part(cx, p));
                quote!(let #decl = #bp::copy(#(#c)+*);)
            }
            DStart::Sum(c) => {
                let c = c.iter().map(|p| part(cx, p));
                quote!(let #decl = #(#c)+*;)
            }
            // Where nothing assigns it, the adjoint as it is.
            DStart::Same if mutable.is_none() => continue,
            DStart::Same => quote!(let #decl = #d;),
            DStart::ZerosIn => quote!(let #decl = #bp::zeros_in(#s);),
            DStart::Zeros => {
                // The carried variable's initial value: never a model.
                let z = zeros(r, cx, l, lp.inputs[*k], quote!(&#s));
                quote!(let #decl = #z;)
            }
        });
    }
    out
}

/// The terms of the loop's `Outers`: each reads its vectors where the loop
/// keeps them, and shares the `u`s of an earlier term of one gradient.
fn terms(cx: &Cx, l: &crate::plan::LoopPlan) -> Vec<TokenStream> {
    let bp = cx.bp;
    let (start, end) = (&l.start, &l.end);
    l.rev
        .terms
        .iter()
        .map(|t| {
            let acc = &t.acc;
            let mut term = quote!(#bp::outer_term(&#acc));
            if let Some(j) = &t.u_from {
                term = quote!(#term.u_from(#j));
            }
            match &t.v_from {
                Some(Rows::State(rows)) => term = quote!(#term.v_from(#rows.starts())),
                Some(Rows::Input(m)) => {
                    let m = operand(cx, m);
                    term = quote!(#term.v_from(#bp::rows_in(#m, #start, #end)));
                }
                Some(Rows::Settled { state, offset }) => {
                    let (start, end) = (
                        shifted(start.to_token_stream(), *offset),
                        shifted(end.to_token_stream(), *offset),
                    );
                    term = quote!(#term.v_from(#bp::rows_in(&#state, #start, #end)));
                }
                None => {}
            }
            term
        })
        .collect()
}

/// The end of each reverse iteration: the accumulators take the step's
/// contributions, the carried adjoints move to the iteration before.
fn tail(cx: &Cx, l: &crate::plan::LoopPlan, lp: &Loop) -> Vec<TokenStream> {
    let bp = cx.bp;
    let mut tail = Vec::new();
    for (j, acc) in &l.accs {
        let input = lp.body.inputs[*j];
        // Unless every contribution went into the accumulator already.
        if l.body.accumulated.get(&input).copied().unwrap_or(0) < l.body.parts(input) {
            let step = l.body.adj(input);
            if l.body.scalar[input.index()] {
                tail.push(quote!(#acc += #step;));
            } else if super::is_model(&l.body, cx, input) {
                tail.push(quote!(#acc = #bp::sum_models([#acc, #step]);));
            } else {
                tail.push(quote!(#acc = #acc + #step;));
            }
        }
    }
    for (k, d) in l.d_state.iter().enumerate() {
        if let Some(d) = d {
            let input = lp.body.inputs[k];
            if l.body.active(input) {
                let step = l.body.adj(input);
                tail.push(quote!(#d = #step;));
            } else {
                let i = &l.ins[k];
                tail.push(quote!(#d = #bp::zeros_like(&#i);));
            }
        }
    }
    for (k, _, carry) in &l.handoff {
        let i = &l.ins[*k];
        tail.push(quote!(#carry = #i;));
    }
    tail
}

/// `let start = ..; let end = ..;` of a `for` loop, as the user wrote them.
fn bounds(r: &Region, l: &crate::plan::LoopPlan, lp: &Loop) -> Vec<TokenStream> {
    let (start, end) = (&l.start, &l.end);
    let start_tokens = subst(r, &lp.start);
    let end_tokens = subst(r, &lp.end);
    let end_expr = if lp.inclusive {
        quote!((#end_tokens) + 1)
    } else {
        end_tokens
    };
    vec![
        quote!(let #start = #start_tokens;),
        quote!(let #end = #end_expr;),
    ]
}

/// `base`, `base + n` or `base - n` for the offset `n`.
fn shifted(base: TokenStream, offset: i64) -> TokenStream {
    let n = Literal::u64_unsuffixed(offset.unsigned_abs());
    match offset {
        0 => base,
        o if o > 0 => quote!(#base + #n),
        _ => quote!(#base - #n),
    }
}

/// The loop's range as its iterator: `(start..end)`, then `.rev()` and
/// `.step_by(k)` as the user wrote them.
fn iter(r: &Region, l: &crate::plan::LoopPlan, lp: &Loop) -> TokenStream {
    let (start, end) = (&l.start, &l.end);
    let mut it = quote!((#start..#end));
    for a in &lp.adapters {
        it = match a {
            Adapter::Rev => quote!(#it.rev()),
            Adapter::StepBy(k) => {
                let k = subst(r, k);
                quote!(#it.step_by(#k))
            }
        };
    }
    it
}

/// A `while` loop's condition, read at the head of each iteration: a
/// carried variable as its running local, anything else as in the body.
fn condition(l: &crate::plan::LoopPlan, lp: &Loop, c: &ConstArg) -> TokenStream {
    c.render(|id, form| {
        let body = &l.body;
        let local = match body.node(id) {
            Node::Input(k) if *k < lp.carried => l.state[*k].to_token_stream(),
            _ => super::raw(&body.raw(id)),
        };
        let local = if body.holds_ref(id) {
            quote!((*#local))
        } else {
            local
        };
        match form {
            Form::Ref => quote!((&#local)),
            Form::View => quote!((#local).view()),
            Form::Value => local,
        }
    })
}

/// A constant the macro knows nothing of, cloned (a reference parameter as
/// itself).
fn copy_const(cx: &Cx, o: &crate::plan::Operand) -> TokenStream {
    use crate::plan::Operand;
    let bp = cx.bp;
    match o {
        Operand::Param { by_ref: true, .. } | Operand::StandIn(_) => operand(cx, o),
        // A local that borrows a place (a model's field): the state owns a
        // clone, since the body assigns it owned values.
        Operand::Ref(r) => quote!(#bp::copy_const(#r)),
        _ => {
            let o = operand(cx, o);
            quote!(#bp::copy_const(#o))
        }
    }
}

/// The vectors of the records of every loop nested in another (see
/// `crate::plan::loops::flatten`), declared before the function's forward
/// pass: `let mut steps_1 = Vec::new();`.
pub fn flat_records(r: &Region) -> Vec<TokenStream> {
    let mut out = Vec::new();
    let mut ids: Vec<&NodeId> = r.loops.keys().collect();
    ids.sort();
    for id in ids {
        let l = &r.loops[id];
        if l.flat.is_some() && l.records() {
            let steps = &l.steps;
            out.push(quote!(let mut #steps = ::std::vec::Vec::new();));
        }
        out.extend(flat_records(&l.body));
    }
    let mut ids: Vec<&NodeId> = r.branches.keys().collect();
    ids.sort();
    for id in ids {
        for arm in &r.branches[id].arms {
            out.extend(flat_records(arm));
        }
    }
    out
}
