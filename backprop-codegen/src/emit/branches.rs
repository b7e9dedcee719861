//! A branch's forward `if` and its reverse `if` (see `crate::plan::branches`).

use super::forward::forward as arm_forward;
use super::loops::{kept, next};
use super::reverse::reverse as arm_reverse;
use super::{operand, subst, Cx};
use crate::graph::{Branch, NodeId};
use crate::plan::Region;
use proc_macro2::TokenStream;
use quote::{quote, ToTokens};

/// ```text
/// Before: let l = if r.abs() <= d { 0.5 * r * r } else { d * (r.abs() - 0.5 * d) };
/// After:  let cond = r.abs() <= d;
///         let (l, then_saved, else_saved) = if cond {
///             ... the `then` arm ...
///             (l_2, Some((l_1, l_2.clone())), None)
///         } else {
///             ... the `else` arm ...
///             (l_5, None, Some((l_3, l_4, l_5.clone())))
///         };
/// ```
pub fn forward(r: &Region, cx: &Cx, id: NodeId, b: &Branch) -> Vec<TokenStream> {
    let bp = &r.branches[&id];
    let cond_tokens = subst(r, &b.cond);
    let outs = r.outs_of(id);
    let mut pattern: Vec<TokenStream> = (0..b.outputs)
        .map(|k| match outs.iter().find(|(kk, _)| *kk == k) {
            Some((_, o)) if r.live(*o) => r.name(*o).to_token_stream(),
            _ => quote!(_),
        })
        .collect();
    let mut arm_code = Vec::new();
    for (a, arm) in bp.arms.iter().enumerate() {
        let body = arm_forward(arm, cx);
        let mut tuple: Vec<TokenStream> = bp.next[a].iter().map(|n| next(cx, n)).collect();
        let mut keeping = Vec::new();
        if bp.active {
            let saved = bp.kept[a].iter().map(|k| kept(cx, k));
            // Kept before the results are moved out.
            let name = &bp.saved[a];
            keeping.push(quote!(let #name = ::core::option::Option::Some((#(#saved,)*));));
            let some = name.to_token_stream();
            let none = quote!(::core::option::Option::None);
            if a == 0 {
                tuple.extend([some, none]);
            } else {
                tuple.extend([none, some]);
            }
        }
        arm_code.push(quote! {
            #(#body)*
            #(#keeping)*
            (#(#tuple,)*)
        });
    }
    if bp.active {
        pattern.extend(bp.saved.iter().map(|n| n.to_token_stream()));
    }
    let cond = &bp.cond;
    let (then_code, else_code) = (&arm_code[0], &arm_code[1]);
    vec![
        quote!(let #cond = #cond_tokens;),
        quote!(let (#(#pattern,)*) = if #cond { #then_code } else { #else_code };),
    ]
}

/// ```text
/// Before: the branch above, whose result `l` has the adjoint `d_l`.
/// After:  let (d_r,) = if cond {
///             let (l_1, l_2) = Option::unwrap(then_saved);
///             ... the `then` arm's reverse sweep, seeded with d_l ...
///             (d_r_step,)
///         } else { ... };
/// ```
pub fn reverse(r: &Region, cx: &Cx, id: NodeId, _b: &Branch) -> Vec<TokenStream> {
    let bpx = cx.bp;
    let bp = &r.branches[&id];
    let zeros: Vec<TokenStream> = bp
        .inputs
        .iter()
        .map(|p| {
            let operand = operand(cx, &r.operand(&cx.func.params, *p));
            quote!(#bpx::zeros_like(#operand))
        })
        .collect();
    let mut arm_code = Vec::new();
    for (a, arm) in bp.arms.iter().enumerate() {
        let body = arm_reverse(arm, cx);
        let results = bp.results[a].iter().zip(&zeros).map(|(d, zero)| match d {
            Some(d) => d.to_token_stream(),
            None => zero.clone(),
        });
        let saved = &bp.saved[a];
        let locals = &arm.defined;
        arm_code.push(quote! {
            let (#(#locals,)*) = ::core::option::Option::unwrap(#saved);
            #(#body)*
            (#(#results,)*)
        });
    }
    let (then_code, else_code) = (&arm_code[0], &arm_code[1]);
    let (cond, targets) = (&bp.cond, &bp.targets);
    vec![quote!(let (#(#targets,)*) = if #cond { #then_code } else { #else_code };)]
}
