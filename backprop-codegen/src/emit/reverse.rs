//! A region's reverse sweep: each decision of the plan, in order.

use super::{branches, call_args, loops, operand, part, scalar, subst, Cx};
use crate::graph::{Node, NodeId};
use crate::plan::{Region, RevStep};
use crate::vocab::{fused, Rules};
use proc_macro2::{Ident, Literal, TokenStream};
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
        RevStep::Sum { adj, parts } => {
            let parts = parts.iter().map(|p| part(cx, p));
            vec![quote!(let #adj = #(#parts)+*;)]
        }
        RevStep::SumSquare {
            id,
            x,
            target,
            over,
        } => vec![sum_square(r, cx, *id, *x, target, *over)],
        RevStep::Call { id, targets } => vec![call(r, cx, *id, targets)],
        RevStep::Lend {
            id,
            rule,
            lhs,
            rhs,
            own,
            lent,
        } => {
            let span = r.graph.get(*id).span;
            let (adj, args) = (r.adj(*id), args(r, cx, *id));
            let rule = Ident::new(rule, span);
            vec![
                quote_spanned!(span=> let (#lhs, #rhs) = #bp::#rule(#adj, #(#args),*);),
                quote_spanned!(span=> let #lent = #bp::lent(#lent, &#own);),
            ]
        }
        RevStep::Both { id, rule, lhs, rhs } => {
            let span = r.graph.get(*id).span;
            let (adj, args) = (r.adj(*id), args(r, cx, *id));
            let rule = Ident::new(rule, span);
            vec![quote_spanned!(span=> let (#lhs, #rhs) = #bp::#rule(#adj, #(#args),*);)]
        }
        RevStep::Acc {
            id,
            rule,
            acc,
            borrow,
            ..
        } => {
            let span = r.graph.get(*id).span;
            let (g, args) = (upstream(r, *id, *borrow), args(r, cx, *id));
            let rule = Ident::new(rule, span);
            vec![quote_spanned!(span=> #bp::#rule(&mut #acc, #g, #(#args),*);)]
        }
        RevStep::Defer {
            id,
            rule,
            outers,
            step,
            term,
            acc,
            borrow,
            ..
        } => {
            let span = r.graph.get(*id).span;
            let (g, args) = (upstream(r, *id, *borrow), args(r, cx, *id));
            let rule = Ident::new(rule, span);
            let k = Literal::usize_unsuffixed(*term);
            vec![quote_spanned!(span=>
                #bp::#rule(#outers.term(#k, #step), &mut #acc, #g, #(#args),*);
            )]
        }
        RevStep::AddInto {
            id,
            rule,
            target,
            prev,
            borrow,
            ..
        } => {
            let span = r.graph.get(*id).span;
            let (g, args) = (upstream(r, *id, *borrow), args(r, cx, *id));
            let rule = Ident::new(rule, span);
            let prev = part(cx, prev);
            vec![quote_spanned!(span=> let #target = #bp::#rule(#prev, #g, #(#args),*);)]
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
        .map(|(p, i)| match (rule_takes, p) {
            (true, 0) => r.name(*i).to_token_stream(),
            _ => operand(cx, &r.operand(&cx.func.params, *i)),
        })
        .collect()
}

/// `let target = bp::rule(g, args.., consts.., tail);`: the contribution of
/// operand `pos`, as a new value.
fn rule(r: &Region, cx: &Cx, id: NodeId, pos: usize, target: &Ident, borrow: bool) -> TokenStream {
    let bp = cx.bp;
    let span = r.graph.get(id).span;
    let Node::Op { op, consts, .. } = r.node(id) else {
        unreachable!("an op")
    };
    let def = op.def();
    let g = upstream(r, id, borrow);
    let args = args(r, cx, id);
    let consts: Vec<TokenStream> = consts.iter().map(|c| subst(r, c)).collect();
    let tail: Vec<TokenStream> = match (&r.saved[id.index()], def.reads_out) {
        // The rule is the saved value's last reader: it may reuse it.
        (Some(saved), _) => vec![quote!(#saved)],
        (None, true) => vec![operand(cx, &r.operand(&cx.func.params, id))],
        (None, false) => Vec::new(),
    };
    let call = match def.rules {
        Rules::Indexed(rule) => {
            let rule = Ident::new(rule, span);
            quote_spanned!(span=> #bp::#rule(#g, #(#consts),*, &[#(#args),*], #pos #(, #tail)*))
        }
        Rules::One(rule) => {
            let rule = Ident::new(rule, span);
            quote_spanned!(span=> #bp::#rule(#g, #(#args,)* #(#consts,)* #(#tail)*))
        }
        Rules::Two(_, _) if r.rule_takes.contains(&id) && pos == 0 => {
            let rule = Ident::new(def.rule_owned, span);
            quote_spanned!(span=> #bp::#rule(#g, #(#args,)* #(#consts,)* #(#tail)*))
        }
        Rules::Two(lhs, rhs) => {
            let rule = Ident::new(if pos == 0 { lhs } else { rhs }, span);
            quote_spanned!(span=> #bp::#rule(#g, #(#args,)* #(#consts,)* #(#tail)*))
        }
    };
    quote!(let #target = #call;)
}

/// `let target = bp::sum_square_vjp(adj, x, &s);` (over `x` where it may).
fn sum_square(
    r: &Region,
    cx: &Cx,
    id: NodeId,
    x: NodeId,
    target: &Ident,
    over: bool,
) -> TokenStream {
    let bp = cx.bp;
    let span = r.graph.get(id).span;
    let (adj, name) = (r.adj(id), r.name(id));
    if over {
        let x = r.name(x);
        let f = Ident::new(fused::SUM_SQUARE_VJP_OWNED, span);
        quote_spanned!(span=> let #target = #bp::#f(#adj, #x, &#name);)
    } else {
        let x = operand(cx, &r.operand(&cx.func.params, x));
        let f = Ident::new(fused::SUM_SQUARE_VJP, span);
        quote_spanned!(span=> let #target = #bp::#f(#adj, #x, &#name);)
    }
}

/// `let (t, _, ..) = f_vjp(args.., adj);`: a call's contributions.
fn call(r: &Region, cx: &Cx, id: NodeId, targets: &[Option<Ident>]) -> TokenStream {
    let span = r.graph.get(id).span;
    let Node::Op {
        op: crate::vocab::Op::Call(k),
        inputs,
        ..
    } = r.node(id)
    else {
        unreachable!("a call")
    };
    let call = &r.graph.calls[*k as usize];
    let targets = targets.iter().map(|t| match t {
        Some(t) => t.to_token_stream(),
        None => quote!(_),
    });
    let vjp = &call.vjp;
    let args = call_args(r, cx, call, inputs);
    let adj = r.adj(id);
    quote_spanned!(span=> let (#(#targets,)*) = #vjp(#(#args,)* #adj);)
}
