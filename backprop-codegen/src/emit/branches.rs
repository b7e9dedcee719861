//! A branch's forward `if` and its reverse `if` (see `crate::plan::branches`).

use super::forward::forward as arm_forward;
use super::loops::{kept, next};
use super::reverse::reverse as arm_reverse;
use super::{operand, subst, value, Cx};
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
    // A slot per arm that keeps something for its reverse sweep.
    let keeps: Vec<usize> = (0..2)
        .filter(|a| bp.active && !bp.kept[*a].is_empty())
        .collect();
    let mut arm_code = Vec::new();
    for (a, arm) in bp.arms.iter().enumerate() {
        let body = arm_forward(arm, cx);
        let mut tuple: Vec<TokenStream> = bp.next[a].iter().map(|n| next(cx, n)).collect();
        let mut keeping = Vec::new();
        for &k in &keeps {
            let name = &bp.saved[k];
            if k == a {
                // Kept before the results are moved out.
                let saved = bp.saves[a].iter().map(|k| kept(cx, k));
                keeping.push(quote!(let #name = ::core::option::Option::Some((#(#saved,)*));));
                tuple.push(name.to_token_stream());
            } else {
                tuple.push(quote!(::core::option::Option::None));
            }
        }
        arm_code.push(quote! {
            #(#body)*
            #(#keeping)*
            (#(#tuple,)*)
        });
    }
    pattern.extend(keeps.iter().map(|k| bp.saved[*k].to_token_stream()));
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
    let bp = &r.branches[&id];
    let zeros: Vec<TokenStream> = bp
        .inputs
        .iter()
        .map(|p| {
            let operand = operand(cx, &r.operand(&cx.func.params, *p));
            super::zeros_of(r, cx, *p, operand)
        })
        .collect();
    let mut arm_code = Vec::new();
    for (a, arm) in bp.arms.iter().enumerate() {
        arm.reversing.set(true);
        let body = arm_reverse(arm, cx);
        arm.reversing.set(false);
        let results = bp.results[a].iter().zip(&zeros).map(|(d, zero)| match d {
            Some(d) => d.to_token_stream(),
            None => zero.clone(),
        });
        let saved = &bp.saved[a];
        let locals = &bp.kept[a];
        let unwrap = (!locals.is_empty())
            .then(|| quote!(let (#(#locals,)*) = ::core::option::Option::unwrap(#saved);));
        let borrow = bp.borrowed[a].iter().map(|(local, result, scalar)| {
            let result = r.operand(&cx.func.params, *result);
            let result = if *scalar {
                value(cx, &result)
            } else {
                operand(cx, &result)
            };
            quote!(let #local = #result;)
        });
        arm_code.push(quote! {
            #unwrap
            #(#borrow)*
            #(#body)*
            (#(#results,)*)
        });
    }
    let (then_code, else_code) = (&arm_code[0], &arm_code[1]);
    let (cond, targets) = (&bp.cond, &bp.targets);
    vec![quote!(let (#(#targets,)*) = if #cond { #then_code } else { #else_code };)]
}
