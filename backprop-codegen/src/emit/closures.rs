//! A closure mapped over arrays (see `crate::lower::closures`): the reverse
//! of its body as a block, and the walk that runs it over the elements.

use super::{operand, subst, value, Cx};
use crate::ast::{Function, Kind};
use crate::check::Analysis;
use crate::graph::{ClosureBody, Lowered, MapCall, Node, NodeId};
use crate::names::Namer;
use crate::plan::{self, Region, Shared};
use proc_macro2::{Ident, Span, TokenStream};
use quote::{format_ident, quote, quote_spanned};

/// A closure's body and its reverse, lowered as the scalar function
/// `fn closure(params..) -> F`: the name of its upstream gradient, and a
/// block whose value is the body's value, then the gradient of each
/// parameter, in order.
///
/// Before: `|v| (v * s).tanh()` (with `s` captured).
///
/// After: `{ let out_1 = v * s; let out = out_1.tanh(); let d_out_1 = ..;
/// let d_v = d_out_1 * s; let d_s = d_out_1 * v; (out, d_v, d_s) }`
pub fn rule(
    func: &Function,
    l: &Lowered,
    a: &Analysis,
    krate: &TokenStream,
    mut namer: Namer,
    opts: plan::Options,
) -> (Ident, TokenStream) {
    let d_out = namer.fresh("d_out");
    let bp = namer.fresh("bp");
    let mut sh = Shared { func, namer, opts };
    let plan = plan::plan(l, a, &mut sh, std::slice::from_ref(&d_out));
    let cx = Cx { bp: &bp, func };
    let forward = super::forward::top(&plan.body, &cx);
    let reverse = super::reverse::reverse(&plan.body, &cx);
    let value = super::result(&plan, &cx, l.outputs[0]);
    let r = &plan.body;
    let zero = func
        .elem
        .literal("0.0", Span::call_site(), &quote!(#krate::__private::Float));
    let grads: Vec<TokenStream> = r
        .graph
        .ids()
        .filter(|id| matches!(r.node(*id), Node::Param(i) if func.params[*i].differentiable))
        .map(|id| {
            if r.active(id) {
                let adj = r.adj(id);
                quote!(#adj)
            } else {
                quote!(#zero)
            }
        })
        .collect();
    let block = quote! {{
        #[allow(unused_imports, reason = "plain arithmetic calls nothing of the runtime")]
        use #krate::__private as #bp;
        #(#forward)*
        #(#reverse)*
        (#value, #(#grads,)*)
    }};
    (d_out, block)
}

/// [`rule`] of a closure's body: the name of its upstream gradient and the
/// block.
fn rule_of(body: &ClosureBody) -> (Ident, TokenStream) {
    let ClosureBody {
        func,
        lowered,
        used,
        krate,
        opts,
    } = body;
    let flags: Vec<bool> = func.params.iter().map(|p| p.differentiable).collect();
    let analysis = crate::check::analyse(lowered, &flags);
    rule(
        func,
        lowered,
        &analysis,
        krate,
        Namer::new(used.clone()),
        *opts,
    )
}

/// `let (y, y_local) = bp::closure_map(x, |v| { let d_out = 1.0; .. });`:
/// the closure's value over the elements, and the local derivatives of each
/// element (the body's reverse for an upstream gradient of 1), computed in
/// the same pass.
pub fn forward(r: &Region, cx: &Cx, id: NodeId, inputs: &[NodeId], m: &MapCall) -> TokenStream {
    let bp = cx.bp;
    let span = r.graph.get(id).span;
    let n = m.walk.arrays();
    let walk = Ident::new(m.walk.forward(), span);
    let name = r.name(id);
    let saved = r.saved[id.index()]
        .as_ref()
        .expect("a closure's kept derivatives");
    let arrays: Vec<TokenStream> = inputs[..n]
        .iter()
        .map(|i| operand(cx, &r.operand(&cx.func.params, *i)))
        .collect();
    let (elems, captured) = m.params.split_at(n);
    // Each captured scalar under the name the body reads it by (none where
    // the local has that name already).
    let captured: Vec<TokenStream> = captured
        .iter()
        .zip(&inputs[n..])
        .filter_map(|(name, i)| {
            let v = value(cx, &r.operand(&cx.func.params, *i));
            (*name != v.to_string()).then(|| quote!(let #name = #v;))
        })
        .collect();
    // A captured constant is cloned into each call (a copy for a number),
    // as the walk's `Fn` cannot move it.
    let constants: Vec<TokenStream> = m
        .constants
        .iter()
        .map(|(name, c)| {
            let v = subst(r, c);
            let copied = c.refs.iter().all(|(_, id, _)| match r.node(*id) {
                Node::Float(_) | Node::Int(_) => true,
                Node::Param(i) => matches!(cx.func.params[*i].kind, Kind::Scalar(_)),
                _ => false,
            });
            if *name == v.to_string() {
                quote!()
            } else if copied {
                quote!(let #name = #v;)
            } else {
                quote!(let #name = ::core::clone::Clone::clone(&#v);)
            }
        })
        .collect();
    let grads: Vec<Ident> = (0..m.params.len())
        .map(|k| format_ident!("d_{}", k, span = Span::mixed_site()))
        .collect();
    let (array_grads, scalar_grads) = grads.split_at(n);
    let value = format_ident!("value", span = Span::mixed_site());
    let one = cx.func.elem.literal("1.0", span, &{
        let bp = cx.bp;
        quote!(#bp::Float)
    });
    let (d_out, rule) = rule_of(&m.body);
    quote_spanned! {span=>
        let (#name, #saved) = #bp::#walk(#(#arrays,)* |#(#elems),*| {
            #(#captured)*
            #(#constants)*
            let #d_out = #one;
            let (#value, #(#grads,)*) = #rule;
            (#value, [#(#array_grads),*], [#(#scalar_grads),*])
        });
    }
}

/// `let (d_x, [d_s]) = bp::closure_map_back(d_y, y_local);`: the gradient
/// of each array and of each captured differentiable scalar (`_` where one
/// has no adjoint), from the kept local derivatives.
pub fn reverse(
    r: &Region,
    cx: &Cx,
    id: NodeId,
    m: &MapCall,
    targets: &[Option<Ident>],
) -> TokenStream {
    let bp = cx.bp;
    let span = r.graph.get(id).span;
    let n = m.walk.arrays();
    let back = Ident::new(m.walk.back(), span);
    let target = |t: &Option<Ident>| match t {
        Some(t) => quote!(#t),
        None => quote!(_),
    };
    let array_targets: Vec<TokenStream> = targets[..n].iter().map(target).collect();
    let scalar_targets: Vec<TokenStream> = targets[n..].iter().map(target).collect();
    let saved = r.saved[id.index()]
        .as_ref()
        .expect("a closure's kept derivatives");
    let adj = r.adj(id);
    quote_spanned! {span=>
        let (#(#array_targets,)* [#(#scalar_targets),*]) = #bp::#back(#adj, #saved);
    }
}
