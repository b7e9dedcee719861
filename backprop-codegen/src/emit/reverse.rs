//! A region's reverse sweep: each decision of the plan, in order.

use super::{branches, call_args, loops, operand, part, scalar, subst, Cx};
use crate::graph::{Node, NodeId};
use crate::plan::{Region, RevStep, Upstream};
use crate::vocab::{fused, Op, Reads, Rules};
use proc_macro2::{Ident, Span, TokenStream};
use quote::{quote, quote_spanned, ToTokens};

/// The reverse sweep of a region.
pub fn reverse(r: &Region, cx: &Cx) -> Vec<TokenStream> {
    let mut out = Vec::new();
    for step in &r.reverse {
        out.extend(step_tokens(r, cx, step));
    }
    out
}

/// One decision.
fn step_tokens(r: &Region, cx: &Cx, step: &RevStep) -> Vec<TokenStream> {
    if let Some(plain) = arithmetic(r, cx, step) {
        return plain;
    }
    let bp = cx.bp;
    match step {
        RevStep::Sum { id, adj, parts } => {
            let parts = parts.iter().map(|p| part(cx, p));
            if super::is_model(r, cx, *id) && parts.len() > 1 {
                // A model's gradients, field by field.
                let bp = cx.bp;
                vec![quote!(let #adj = #bp::sum_models([#(#parts),*]);)]
            } else {
                vec![quote!(let #adj = #(#parts)+*;)]
            }
        }
        RevStep::SumSquare {
            id,
            x,
            target,
            over,
        } => vec![sum_square(r, cx, *id, *x, target, *over)],
        RevStep::Call {
            id,
            targets,
            upstreams,
        } => vec![call(r, cx, *id, targets, upstreams)],
        RevStep::Lend {
            id,
            rhs_borrows,
            lhs,
            rhs,
            own,
            lent,
        } => {
            let span = span_of(r, *id);
            let (adj, args) = (r.adj(*id), args(r, cx, *id));
            let borrower = Ident::new(if *rhs_borrows { "Rhs" } else { "Lhs" }, span);
            vec![
                quote_spanned!(span=> let (#lhs, #rhs) = #bp::add_vjp_lend(#adj, #(#args,)* #bp::#borrower);),
                quote_spanned!(span=> let #lent = #bp::lent(#lent, &#own);),
            ]
        }
        RevStep::Both { id, lhs, rhs } => {
            let span = span_of(r, *id);
            let (adj, args, k) = (r.adj(*id), args(r, cx, *id), kernel(r, cx, *id));
            vec![quote_spanned!(span=> let (#lhs, #rhs) = #bp::zip_vjp_both(#adj, #(#args,)* #k);)]
        }
        RevStep::Acc {
            id,
            pos,
            acc,
            borrow,
        } => {
            let span = span_of(r, *id);
            let c = contribution(r, cx, *id, *pos, *borrow);
            vec![quote_spanned!(span=> #c.add_to(&mut #acc);)]
        }
        RevStep::Defer {
            id,
            pos,
            outers,
            step,
            term,
            acc,
            borrow,
        } => {
            let span = span_of(r, *id);
            let c = contribution(r, cx, *id, *pos, *borrow);
            vec![quote_spanned!(span=> #c.defer(#outers.term(#term, #step), &mut #acc);)]
        }
        RevStep::AddInto {
            id,
            pos,
            target,
            prev,
            borrow,
        } => {
            let span = span_of(r, *id);
            let c = contribution(r, cx, *id, *pos, *borrow);
            let prev = part(cx, prev);
            vec![quote_spanned!(span=> let #target = #c.added_to(#prev);)]
        }
        RevStep::Rule {
            id,
            pos,
            target,
            borrow,
        } => vec![rule(r, cx, *id, *pos, target, *borrow)],
        RevStep::Loop(id) => {
            let Node::Loop(lp) = r.node(*id) else {
                unreachable!("a loop")
            };
            loops::reverse(r, cx, *id, lp)
        }
        RevStep::Branch(id) => {
            let Node::Branch(b) = r.node(*id) else {
                unreachable!("a branch")
            };
            branches::reverse(r, cx, *id, b)
        }
    }
}

fn span_of(r: &Region, id: NodeId) -> Span {
    r.graph.get(id).span
}

/// An operator's decision on scalars, as arithmetic (`None` for any other).
fn arithmetic(r: &Region, cx: &Cx, step: &RevStep) -> Option<Vec<TokenStream>> {
    Some(match step {
        RevStep::Rule {
            id, pos, target, ..
        } if scalar::arithmetic(r, *id) => {
            let c = scalar::contribution(r, cx, *id, *pos);
            vec![quote!(let #target = #c;)]
        }
        RevStep::Both { id, lhs, rhs, .. } if scalar::arithmetic(r, *id) => {
            let (a, b) = (
                scalar::contribution(r, cx, *id, 0),
                scalar::contribution(r, cx, *id, 1),
            );
            vec![quote!(let #lhs = #a;), quote!(let #rhs = #b;)]
        }
        RevStep::AddInto {
            id,
            pos,
            target,
            prev,
            ..
        } if scalar::arithmetic(r, *id) => {
            let sum = scalar::added(r, cx, *id, *pos, &part(cx, prev));
            vec![quote!(let #target = #sum;)]
        }
        RevStep::Acc { id, pos, acc, .. } if scalar::arithmetic(r, *id) => {
            vec![scalar::add_assign(r, cx, *id, *pos, acc)]
        }
        _ => return None,
    })
}

/// `let target = bp::sum_square_vjp(adj, x);` (over `x` where it may).
fn sum_square(
    r: &Region,
    cx: &Cx,
    id: NodeId,
    x: NodeId,
    target: &Ident,
    over: bool,
) -> TokenStream {
    let bp = cx.bp;
    let span = span_of(r, id);
    let adj = r.adj(id);
    let x = if over {
        r.name(x).to_token_stream()
    } else {
        operand(cx, &r.operand(&cx.func.params, x))
    };
    let f = Ident::new(fused::SUM_SQUARE_VJP, span);
    quote_spanned!(span=> let #target = #bp::#f(#adj, #x);)
}

/// `let (t, _, ..) = f_vjp(args.., adj);`: a call's contributions.
///
/// Before: `let (r, theta) = polar(x, y);` where only `r` reaches the value;
/// after: `let (d_x_from_r_theta, d_y_from_r_theta) = polar_vjp(x, y,
/// (d_r, bp::zeros_like(&theta)));`, one upstream gradient per component.
fn call(
    r: &Region,
    cx: &Cx,
    id: NodeId,
    targets: &[Option<Ident>],
    upstreams: &[Upstream],
) -> TokenStream {
    let span = span_of(r, id);
    let Node::Op {
        op: Op::Call(k),
        inputs,
        ..
    } = r.node(id)
    else {
        unreachable!("a call")
    };
    let call = &r.graph.calls[*k as usize];
    if let Some(m) = &call.map {
        return super::closures::reverse(r, cx, id, m, targets);
    }
    let targets = targets.iter().map(|t| match t {
        Some(t) => t.to_token_stream(),
        None => quote!(_),
    });
    let vjp = &call.vjp;
    let args = call_args(r, cx, call, inputs);
    let bp = cx.bp;
    let upstreams = upstreams.iter().map(|u| match u {
        Upstream::Adj(adj) => adj.to_token_stream(),
        Upstream::Zero(o) => {
            let value = operand(cx, &r.operand(&cx.func.params, *o));
            quote!(#bp::zeros_like(#value))
        }
    });
    let upstream = if call.components.is_empty() {
        quote!(#(#upstreams)*)
    } else {
        quote!((#(#upstreams,)*))
    };
    if call.method {
        let (receiver, args) = args.split_first().expect("a receiver");
        return quote_spanned!(span=> let (#(#targets,)*) = #receiver.#vjp(#(#args,)* #upstream););
    }
    quote_spanned!(span=> let (#(#targets,)*) = #vjp(#(#args,)* #upstream);)
}

/// The upstream gradient as a rule takes it: moved into the last rule
/// (which may reuse its buffer), borrowed by the others.
fn upstream(r: &Region, id: NodeId, borrow: bool) -> TokenStream {
    let adj = r.adj(id);
    if borrow {
        quote!(&#adj)
    } else {
        quote!(#adj)
    }
}

/// The operands of an op as its rules take them: the first moved where
/// the rule writes over it, the others borrowed.
fn args(r: &Region, cx: &Cx, id: NodeId) -> Vec<TokenStream> {
    let rule_takes = r.rule_takes.contains(&id);
    r.inputs(id)
        .iter()
        .enumerate()
        .skip(r.op(id).rule_skips())
        .map(|(p, i)| match (rule_takes, p) {
            (true, 0) => r.name(*i).to_token_stream(),
            _ => operand(cx, &r.operand(&cx.func.params, *i)),
        })
        .collect()
}

/// An op's kernel: `bp::Tanh`, or `bp::Powi(n)` with the op's constants.
fn kernel(r: &Region, cx: &Cx, id: NodeId) -> TokenStream {
    let bp = cx.bp;
    let span = span_of(r, id);
    let Node::Op { op, consts, .. } = r.node(id) else {
        unreachable!("an op")
    };
    let k = Ident::new(op.def().kernel.expect("an op with a kernel").name, span);
    if consts.is_empty() {
        quote!(#bp::#k)
    } else {
        let consts = consts.iter().map(|c| subst(r, c));
        quote!(#bp::#k(#(#consts),*))
    }
}

/// The contribution of an op's rule to operand `pos`, to be written where
/// the decision says (`.value()`, `.add_to(..)`, ...): a binary kernel's
/// `bp::zip_vjp_lhs(g, a, b, K)` or a product's `bp::dot_vjp_lhs(g, a, b)`.
fn contribution(r: &Region, cx: &Cx, id: NodeId, pos: usize, borrow: bool) -> TokenStream {
    let bp = cx.bp;
    let span = span_of(r, id);
    let (g, args) = (upstream(r, id, borrow), args(r, cx, id));
    let op = r.op(id);
    if op == Op::Field {
        // Added into the place of the model's gradient.
        let m = Ident::new("m", span);
        let place = super::field_place(r, id, &quote!(#m));
        let rule = Ident::new(rule_name(op, pos), span);
        return quote_spanned!(span=> #bp::#rule(#g, #(#args,)* |#m| &mut #place));
    }
    match op.binary_kernel() {
        Some(_) => {
            let rule = Ident::new(
                if pos == 0 {
                    "zip_vjp_lhs"
                } else {
                    "zip_vjp_rhs"
                },
                span,
            );
            let k = kernel(r, cx, id);
            quote_spanned!(span=> #bp::#rule(#g, #(#args,)* #k))
        }
        None => {
            let rule = Ident::new(rule_name(op, pos), span);
            // An element of a fixed-size array read by element: its
            // gradient is on the stack.
            let rule = if super::reads_fixed(r, cx, id) {
                Ident::new("fixed_index_vjp", span)
            } else {
                rule
            };
            let Node::Op { consts, .. } = r.node(id) else {
                unreachable!("an op")
            };
            let consts = consts.iter().map(|c| subst(r, c));
            quote_spanned!(span=> #bp::#rule(#g, #(#args,)* #(#consts),*))
        }
    }
}

/// The name of the rule of `op` for operand `pos` (an op without a kernel).
fn rule_name(op: Op, pos: usize) -> &'static str {
    match op.def().rules {
        Rules::One(rule) | Rules::Indexed(rule) => rule,
        Rules::Two(lhs, rhs) => {
            if pos == 0 {
                lhs
            } else {
                rhs
            }
        }
        Rules::Three(a, b, c) => [a, b, c][pos.min(2)],
    }
}

/// `let target = ..;`: the contribution of operand `pos` as a new value.
fn rule(r: &Region, cx: &Cx, id: NodeId, pos: usize, target: &Ident, borrow: bool) -> TokenStream {
    let bp = cx.bp;
    let span = span_of(r, id);
    let Node::Op { op, consts, .. } = r.node(id) else {
        unreachable!("an op")
    };
    let g = upstream(r, id, borrow);
    let call = if let Some(k) = op.unary_kernel() {
        let x = || operand(cx, &r.operand(&cx.func.params, r.inputs(id)[0]));
        let out = || operand(cx, &r.operand(&cx.func.params, id));
        let kernel = kernel(r, cx, id);
        match (k.reads, r.sin_cos.get(&id)) {
            // `sin x`'s rule by the forward's `cos x`, `cos x`'s by its `sin x`.
            (Reads::X, Some(&partner)) => {
                let other = super::value(cx, &r.operand(&cx.func.params, partner));
                if *op == crate::vocab::Op::Sin {
                    quote_spanned!(span=> #g * #other)
                } else {
                    quote_spanned!(span=> -(#g * #other))
                }
            }
            (Reads::X, None) => {
                let x = x();
                quote_spanned!(span=> #bp::map_vjp_x(#g, #x, #kernel))
            }
            (Reads::Out, _) => {
                let out = out();
                quote_spanned!(span=> #bp::map_vjp_out(#g, #out, #kernel))
            }
            (Reads::XOut, _) => {
                let (x, out) = (x(), out());
                quote_spanned!(span=> #bp::map_vjp(#g, #x, #out, #kernel))
            }
            (Reads::G | Reads::Operands, _) => {
                quote_spanned!(span=> #bp::map_vjp_g(#g, #kernel))
            }
        }
    } else if op.has(crate::vocab::CONTRIBUTES) {
        let c = contribution(r, cx, id, pos, borrow);
        quote!(#c.value())
    } else {
        let args = args(r, cx, id);
        let consts: Vec<TokenStream> = consts.iter().map(|c| subst(r, c)).collect();
        let tail: Vec<TokenStream> = match (&r.saved[id.index()], op.def().reads_out) {
            // The rule is the saved value's last reader: it may reuse it.
            (Some(saved), _) => vec![quote!(#saved)],
            (None, true) => vec![operand(cx, &r.operand(&cx.func.params, id))],
            (None, false) => Vec::new(),
        };
        let rule = Ident::new(rule_name(*op, pos), span);
        match op.def().rules {
            Rules::Indexed(_) => {
                let args = super::in_slice(r, cx, *op, r.inputs(id), &args);
                quote_spanned!(span=> #bp::#rule(#g, #(#consts,)* &[#(#args),*], #pos))
            }
            _ => quote_spanned!(span=> #bp::#rule(#g, #(#args,)* #(#consts,)* #(#tail)*)),
        }
    };
    quote!(let #target = #call;)
}
