//! A region's forward statements: one `let` per live node, in order.

use super::{branches, call_args, loops, operand, scalar, subst, Cx};
use crate::graph::{Node, NodeId};
use crate::plan::Region;
use crate::vocab::{fused, Op};
use proc_macro2::{Ident, Span, TokenStream};
use quote::{quote, quote_spanned, ToTokens};

/// The forward pass of a region.
pub fn forward(r: &Region, cx: &Cx) -> Vec<TokenStream> {
    let mut out = Vec::new();
    for id in r.graph.ids() {
        if !r.live(id) || r.unmade.contains(&id) {
            continue;
        }
        out.extend(node(r, cx, id));
    }
    out
}

/// The function's forward pass: the vectors of nested loops' records
/// first (see `loops::flat_records`), then [`forward`].
pub fn top(r: &Region, cx: &Cx) -> Vec<TokenStream> {
    let mut out = super::loops::flat_records(r);
    out.extend(forward(r, cx));
    out
}

/// The statements that compute one node's value.
pub fn node(r: &Region, cx: &Cx, id: NodeId) -> Vec<TokenStream> {
    let span = r.graph.get(id).span;
    if let Some(&(x, _)) = r.sum_squares.get(&id) {
        return vec![sum_square(r, cx, id, x, span)];
    }
    match r.node(id) {
        Node::Const(c) => {
            let name = r.name(id);
            let tokens = subst(r, c);
            if c.place {
                vec![quote_spanned!(span=> let #name = &#tokens;)]
            } else {
                vec![quote_spanned!(span=> let #name = #tokens;)]
            }
        }
        Node::Op { .. } if r.graph.tuple_call(id).is_some() => vec![tuple_call(r, cx, id, span)],
        Node::Op { .. } if r.dot_adds.contains_key(&id) => dot_add(r, cx, id, span),
        Node::Op { op, .. } if r.plain.contains(&id) => {
            vec![scalar::forward(r, cx, id, *op, span)]
        }
        Node::Op { op, .. } => op_step(r, cx, id, *op, span),
        Node::Loop(lp) => loops::forward(r, cx, id, lp),
        Node::Branch(b) => branches::forward(r, cx, id, b),
        Node::Param(_)
        | Node::Float(_)
        | Node::Int(_)
        | Node::Error
        | Node::Input(_)
        | Node::LoopVar
        | Node::Out { .. } => Vec::new(),
    }
}

/// `let (r, theta) = polar(x, y);`: a call whose value is a tuple, each
/// component bound to its local (`_` where nothing reads it).
fn tuple_call(r: &Region, cx: &Cx, id: NodeId, span: Span) -> TokenStream {
    let call = r.graph.call(id).expect("a call");
    let names = r.bound(&call.components).into_iter().map(|n| match n {
        Some(n) => n.to_token_stream(),
        None => quote!(_),
    });
    let path = &call.path;
    let args = call_args(r, cx, call, r.inputs(id));
    quote_spanned!(span=> let (#(#names,)*) = #path(#(#args),*);)
}

/// `let s = Σ x²;` in one reduction.
fn sum_square(r: &Region, cx: &Cx, id: NodeId, x: NodeId, span: Span) -> TokenStream {
    let bp = cx.bp;
    let name = r.name(id);
    let x = operand(cx, &r.operand(&cx.func.params, x));
    let f = Ident::new(fused::SUM_SQUARE, span);
    quote_spanned!(span=> let #name = #bp::#f(#x);)
}

/// `let x_shape = bp::shape_of(&from);` where `x` gives its buffer away
/// and its rules run (`from` is `x`, or a value of `x`'s shape made from it).
fn keep_shape(r: &Region, cx: &Cx, x: NodeId, from: &Ident) -> Option<TokenStream> {
    let bp = cx.bp;
    let shape = r.shape(x).filter(|_| !r.shapes_from.contains_key(&x))?;
    Some(quote!(let #shape = #bp::shape_of(&#from);))
}

/// `let (s, d_shape) = bp::add_dot(x, m, v);`: `x + m·v` with the
/// product added into `x`'s buffer.
fn dot_add(r: &Region, cx: &Cx, id: NodeId, span: Span) -> Vec<TokenStream> {
    let bp = cx.bp;
    let name = r.name(id);
    let (x, d) = (r.inputs(id)[0], r.dot_adds[&id]);
    let mv = r.inputs(d);
    let m = operand(cx, &r.operand(&cx.func.params, mv[0]));
    let v = operand(cx, &r.operand(&cx.func.params, mv[1]));
    let x_name = r.name(x);
    let mut out: Vec<TokenStream> = keep_shape(r, cx, x, x_name).into_iter().collect();
    let d_shape = match r.shape(d) {
        Some(shape) => shape.to_token_stream(),
        None => quote!(_),
    };
    let f = Ident::new(fused::ADD_DOT, span);
    out.push(quote_spanned!(span=> let (#name, #d_shape) = #bp::#f(#x_name, #m, #v);));
    out
}

/// One op's forward statement, in the form the plan chose: a new value,
/// written over its first operand, fused with the op before, into a
/// loop's spare buffer.
fn op_step(r: &Region, cx: &Cx, id: NodeId, op: Op, span: Span) -> Vec<TokenStream> {
    let bp = cx.bp;
    let Node::Op { inputs, consts, .. } = r.node(id) else {
        unreachable!("an op")
    };
    let name = r.name(id);
    let takes = r.takes.contains(&id);
    let args: Vec<TokenStream> = inputs
        .iter()
        .enumerate()
        .map(|(p, i)| match (takes, p) {
            (true, 0) => r.local(*i).to_token_stream(),
            _ => operand(cx, &r.forward_operand(&cx.func.params, *i)),
        })
        .collect();
    let consts: Vec<TokenStream> = consts.iter().map(|c| subst(r, c)).collect();
    let def = op.def();
    let mut out = Vec::new();
    if takes && !r.fused.contains_key(&id) {
        // The operand's buffer becomes the result; its shape is kept for
        // the rules.
        out.extend(keep_shape(r, cx, inputs[0], r.local(inputs[0])));
    }
    if r.deferred.contains(&id) {
        // Computed by the op that reads it.
        return out;
    }
    if let Some(&x) = r.fused.get(&id) {
        // `f(a ⊕ b)` in one pass over `a`'s buffer; the intermediate's
        // shape is the result's.
        let x_inputs = r.inputs(x);
        let x_args = [
            r.name(x_inputs[0]).to_token_stream(),
            operand(cx, &r.operand(&cx.func.params, x_inputs[1])),
        ];
        let zip_map = Ident::new(fused::ZIP_MAP, span);
        let arith = Ident::new(r.op(x).def().kernel.expect("a binary kernel").name, span);
        let f = Ident::new(def.kernel.expect("a unary kernel").name, span);
        out.push(
            quote_spanned!(span=> let #name = #bp::#zip_map(#(#x_args,)* #bp::#arith, #bp::#f);),
        );
        out.extend(keep_shape(r, cx, x, name));
        return out;
    }
    let stmt = if op == Op::Field {
        // A place of the model, borrowed.
        let root = operand(cx, &r.operand(&cx.func.params, inputs[0]));
        let place = super::field_place(r, id, &root);
        if r.graph.float_fields.contains(&id) {
            // A float, by value.
            quote_spanned!(span=> let #name = #place;)
        } else {
            quote_spanned!(span=> let #name = &#place;)
        }
    } else if takes {
        // The same forward, with the operand moved in.
        let f = Ident::new(def.saves.map_or(def.forward, |s| s.1), span);
        match &r.saved[id.index()] {
            Some(saved) => {
                quote_spanned!(span=> let (#name, #saved) = #bp::#f(#(#args,)* #(#consts),*);)
            }
            None => quote_spanned!(span=> let #name = #bp::#f(#(#args),* #(, #consts)*);),
        }
    } else if let Some(m) = map_call(r, op) {
        super::closures::forward(r, cx, id, inputs, m)
    } else if let Op::Call(k) = op {
        let call = &r.graph.calls[k as usize];
        let path = &call.path;
        let args = call_args(r, cx, call, inputs);
        if call.method {
            let (receiver, args) = args.split_first().expect("a receiver");
            quote_spanned!(span=> let #name = #receiver.#path(#(#args),*);)
        } else {
            quote_spanned!(span=> let #name = #path(#(#args),*);)
        }
    } else if op.operands_in_slice() {
        let f = Ident::new(def.forward, span);
        let args = super::in_slice(r, cx, op, inputs, &args);
        quote_spanned!(span=> let #name = #bp::#f(#(#consts,)* &[#(#args),*]);)
    } else if let Some(saved) = &r.saved[id.index()] {
        let f = Ident::new(def.saves.expect("an op that saves").1, span);
        quote_spanned!(span=> let (#name, #saved) = #bp::#f(#(#args,)* #(#consts),*);)
    } else if let Some(spare) = r.spares.get(&id) {
        let f = Ident::new(fused::DOT_REUSE, span);
        quote_spanned!(span=> let #name = #bp::#f(&mut #spare, #(#args),*);)
    } else if r.copied.contains(&id) {
        // A view of a value written in place later: a copy of the part.
        let f = Ident::new(def.forward, span);
        quote_spanned!(span=> let #name = #bp::copy(&#bp::#f(#(#args),* #(, #consts)*));)
    } else {
        // An element of a fixed-size array read by element, from the array.
        let f = if super::reads_fixed(r, cx, id) {
            "fixed_index"
        } else {
            def.forward
        };
        let f = Ident::new(f, span);
        quote_spanned!(span=> let #name = #bp::#f(#(#args),* #(, #consts)*);)
    };
    out.push(stmt);
    out
}

/// The mapped closure an op is, if it is one.
fn map_call<'r>(r: &'r Region, op: Op) -> Option<&'r crate::graph::MapCall> {
    match op {
        Op::Call(k) => r.graph.calls[k as usize].map.as_deref(),
        _ => None,
    }
}
