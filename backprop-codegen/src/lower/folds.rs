//! Folds along an axis that compute a maximum or a minimum (max pooling),
//! as ndarray users write them:
//!
//! - `a.fold_axis(Axis(k), init, |m, &v| m.max(v))`, also with `|&m, &v|`,
//!   `|m, v| m.max(*v)`, `f64::max(*m, v)` or `v.max(m)`;
//! - `a.map_axis(Axis(k), |r| r.fold(init, |m, &v| m.max(v)))`, also over
//!   `r.iter()` and `r.iter().cloned()` (or `copied()`), whose element may
//!   be folded with the path `f64::max`;
//!
//! and the same with `min`, from a constant `init`. The closure is
//! recognised by its syntax alone: it must return exactly the `max` (or the
//! `min`) of its accumulator and its element, the method of a row's `fold`
//! ([`Op::by_fold`]), whose forward folds each lane with that method as
//! ndarray does. Any other closure is an error: the macro does not run it
//! and cannot tell what its gradient would be.
//!
//! Before: `let p = x.fold_axis(Axis(1), f64::NEG_INFINITY, |m, &v| m.max(v));`
//!
//! After, in the forward: `let p = bp::max_axis(&x, Axis(1), f64::NEG_INFINITY);`
//! and in the reverse:
//! `let d_x = bp::max_axis_vjp(d_p, &x, Axis(1), f64::NEG_INFINITY, &p);`

use super::closures::element_name;
use super::{strip_paren, Lowerer};
use crate::graph::NodeId;
use crate::vocab::{method_hint, Op};
use proc_macro2::Ident;
use syn::{Expr, ExprMethodCall, UnOp};

/// `a.fold_axis(Axis(k), init, f)`: the fold of each lane with `f`.
const FOLD_AXIS: &str = "fold_axis";
/// `a.map_axis(Axis(k), |r| ..)`: each lane mapped by the closure.
const MAP_AXIS: &str = "map_axis";

impl Lowerer<'_> {
    /// `m` if it folds a differentiable array along an axis to its maximum
    /// or minimum; `None` for another method, or a fold of a constant (a
    /// constant itself).
    pub(super) fn axis_fold(&mut self, m: &ExprMethodCall) -> Option<NodeId> {
        let name = m.method.to_string();
        let (want, usage) = match name.as_str() {
            FOLD_AXIS => (3, "`a.fold_axis(Axis(k), init, |m, &v| m.max(v))`"),
            MAP_AXIS => (
                2,
                "`a.map_axis(Axis(k), |r| r.fold(init, |m, &v| m.max(v)))`",
            ),
            _ => return None,
        };
        if !self.mentions_varying(&m.receiver) {
            return None;
        }
        let span = m.method.span();
        if !self.check_arity(span, &name, m.args.len(), want, usage) {
            return Some(self.error_node(span));
        }
        let found = if name == FOLD_AXIS {
            combiner(&m.args[2], &name).map(|op| (op, &m.args[1]))
        } else {
            lane_fold(&m.args[1])
        };
        if found.is_err() && name == MAP_AXIS {
            if let Some(id) = self.lanes_mapped(m) {
                return Some(id);
            }
        }
        let (op, init) = match found {
            Ok(found) => found,
            Err(e) => {
                self.cx.push(e);
                return Some(self.error_node(span));
            }
        };
        let receiver = self.expr(&m.receiver);
        Some(self.apply(
            op,
            vec![receiver],
            op.def().method_args,
            &[&m.args[0], init],
            span,
        ))
    }

    /// `x.map_axis(axis, |lane| body)` of a matrix bound to a name, with a
    /// closure that is no fold to a maximum or a minimum: the vector made
    /// from the lanes, `Array1::from_shape_fn(n, |i| { let lane =
    /// x.index_axis(other, i); body })` with `other` the axis that is not
    /// `axis` (see `shape_fns`). `None` where the number of the array's
    /// axes is not known to be two, or the closure returns early.
    fn lanes_mapped(&mut self, m: &ExprMethodCall) -> Option<NodeId> {
        let Expr::Path(p) = strip_paren(&m.receiver) else {
            return None;
        };
        let id = self.lookup(&p.path.get_ident()?.to_string())?;
        let Expr::Closure(c) = strip_paren(&m.args[1]) else {
            return None;
        };
        if self.known_axes(id) != Some(2)
            || c.inputs.len() != 1
            || super::iters::returns_early(&c.body)
        {
            return None;
        }
        let (x, axis, lane, body) = (&m.receiver, &m.args[0], &c.inputs[0], &c.body);
        let krate = &self.env.krate;
        let i = super::Fresh::of(&self.func.item).name("i");
        let other = quote::quote!(#krate::ndarray::Axis(1 - (#axis).index()));
        let made: syn::ExprCall = syn::parse_quote_spanned! {m.method.span()=>
            #krate::ndarray::Array1::from_shape_fn(#x.len_of(#other), |#i| {
                let #lane = #x.index_axis(#other, #i);
                #body
            })
        };
        self.shape_fn_array(&made)
    }
}

/// The error for a closure that is not a fold to a maximum or a minimum:
/// "the closure of `method` must {what}; " and the method's hint.
fn not_a_fold(node: &impl quote::ToTokens, method: &str, what: &str) -> syn::Error {
    syn::Error::new_spanned(
        node,
        format!(
            "the closure of `{method}` must {what}; {}",
            method_hint(method)
        ),
    )
}

/// `|r| r.fold(init, f)` (or over `r.iter()`, `r.iter().cloned()`): the op
/// `f` folds with, and `init`.
fn lane_fold(arg: &Expr) -> syn::Result<(Op, &Expr)> {
    let what = "fold its lane with the `max` or the `min` of the accumulator and the element where the array is not a matrix bound to a name (whose lanes any closure maps)";
    let Expr::Closure(c) = strip_paren(arg) else {
        return Err(not_a_fold(arg, MAP_AXIS, what));
    };
    let lane = match c.inputs.iter().collect::<Vec<_>>().as_slice() {
        [p] => element_name(p),
        _ => None,
    };
    let (Some(lane), Some(body)) = (lane, body_of(c)) else {
        return Err(not_a_fold(c, MAP_AXIS, what));
    };
    let fold = match body {
        Expr::MethodCall(f) if f.method == "fold" && f.args.len() == 2 && f.turbofish.is_none() => {
            f
        }
        other => return Err(not_a_fold(other, MAP_AXIS, what)),
    };
    if !is_lane(&fold.receiver, &lane) {
        return Err(not_a_fold(&fold.receiver, MAP_AXIS, what));
    }
    let init = &fold.args[0];
    if mentions(init, &lane) {
        return Err(syn::Error::new_spanned(
            init,
            format!("the initial value of the fold must be a constant; it may not use the lane `{lane}`"),
        ));
    }
    Ok((combiner(&fold.args[1], MAP_AXIS)?, init))
}

/// Whether `e` is the lane `r`, `r.iter()` or `r.into_iter()`, or one of
/// these `.cloned()` or `.copied()`: the lane's elements in its order.
fn is_lane(e: &Expr, lane: &Ident) -> bool {
    let e = match strip_paren(e) {
        Expr::MethodCall(m)
            if m.args.is_empty()
                && m.turbofish.is_none()
                && (m.method == "cloned" || m.method == "copied") =>
        {
            strip_paren(&m.receiver)
        }
        other => other,
    };
    let e = match e {
        Expr::MethodCall(m)
            if m.args.is_empty()
                && m.turbofish.is_none()
                && (m.method == "iter" || m.method == "into_iter") =>
        {
            strip_paren(&m.receiver)
        }
        other => other,
    };
    is_name(e, lane)
}

/// The op of the closure (or path) that combines an accumulator and an
/// element: `|m, &v| m.max(v)` and its variants, `f64::max`.
fn combiner(f: &Expr, method: &str) -> syn::Result<Op> {
    let what = "return the `max` or the `min` of the accumulator and the element, as `|m, &v| m.max(v)` does";
    let c = match strip_paren(f) {
        Expr::Path(p) => return float_method(p).ok_or_else(|| not_a_fold(p, method, what)),
        Expr::Closure(c) => c,
        other => return Err(not_a_fold(other, method, what)),
    };
    let names: Option<Vec<Ident>> = c.inputs.iter().map(element_name).collect();
    let (acc, elem) = match names.as_deref() {
        Some([acc, elem]) if acc != elem => (acc, elem),
        _ => return Err(not_a_fold(&c.inputs, method, what)),
    };
    let Some(body) = body_of(c) else {
        return Err(not_a_fold(c, method, what));
    };
    let (op, a, b) = match body {
        Expr::MethodCall(m) if m.args.len() == 1 && m.turbofish.is_none() => {
            (Op::by_fold(&m.method.to_string()), &*m.receiver, &m.args[0])
        }
        Expr::Call(call) if call.args.len() == 2 => {
            let op = match strip_paren(&call.func) {
                Expr::Path(p) => float_method(p),
                _ => None,
            };
            (op, &call.args[0], &call.args[1])
        }
        _ => (None, body, body),
    };
    let (a, b) = (deref(a), deref(b));
    let operands = (is_name(a, acc) && is_name(b, elem)) || (is_name(a, elem) && is_name(b, acc));
    match op {
        Some(op) if operands => Ok(op),
        _ => Err(not_a_fold(body, method, what)),
    }
}

/// The op that `f64::NAME` (or `f32::NAME`) folds with, if any.
fn float_method(p: &syn::ExprPath) -> Option<Op> {
    let segs: Vec<&syn::PathSegment> = p.path.segments.iter().collect();
    match (&p.qself, p.path.leading_colon, segs.as_slice()) {
        (None, None, [ty, name])
            if (ty.ident == "f64" || ty.ident == "f32")
                && ty.arguments.is_none()
                && name.arguments.is_none() =>
        {
            Op::by_fold(&name.ident.to_string())
        }
        _ => None,
    }
}

/// The closure's value: its body, or the one expression of its block.
fn body_of(c: &syn::ExprClosure) -> Option<&Expr> {
    if c.asyncness.is_some() || c.constness.is_some() {
        return None;
    }
    match strip_paren(&c.body) {
        Expr::Block(b) if b.label.is_none() => match b.block.stmts.as_slice() {
            [syn::Stmt::Expr(e, None)] => Some(strip_paren(e)),
            _ => None,
        },
        other => Some(other),
    }
}

/// The expression without parentheses and `*`.
fn deref(e: &Expr) -> &Expr {
    match strip_paren(e) {
        Expr::Unary(u) if matches!(u.op, UnOp::Deref(_)) => deref(&u.expr),
        other => other,
    }
}

/// Whether `e` is the plain name `name`.
fn is_name(e: &Expr, name: &Ident) -> bool {
    matches!(e, Expr::Path(p) if p.qself.is_none() && p.path.get_ident() == Some(name))
}

/// Whether `e` mentions the name `name` anywhere (also in macros).
fn mentions(e: &Expr, name: &Ident) -> bool {
    fn any(tokens: proc_macro2::TokenStream, name: &Ident) -> bool {
        tokens.into_iter().any(|t| match t {
            proc_macro2::TokenTree::Ident(i) => i == *name,
            proc_macro2::TokenTree::Group(g) => any(g.stream(), name),
            _ => false,
        })
    }
    any(quote::ToTokens::to_token_stream(e), name)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fold(closure: &str) -> Option<Op> {
        combiner(&syn::parse_str(closure).unwrap(), FOLD_AXIS).ok()
    }

    fn lane(closure: &str) -> Option<Op> {
        lane_fold(&syn::parse_str(closure).unwrap())
            .ok()
            .map(|(op, _)| op)
    }

    #[test]
    fn the_spellings_of_a_max_and_a_min_are_recognised() {
        for f in [
            "|m, &v| m.max(v)",
            "|&m, &v| m.max(v)",
            "|m, v| m.max(*v)",
            "|m, v| (*m).max(*v)",
            "|&m, &v| f64::max(m, v)",
            "|m, &v| f64::max(*m, v)",
            "|m: &f64, &v: &f64| { v.max(m) }",
            "|acc, x| f32::max(*x, *acc)",
            "f64::max",
        ] {
            assert_eq!(fold(f), Some(Op::MaxAxis), "{f}");
        }
        assert_eq!(fold("|m, &v| m.min(v)"), Some(Op::MinAxis));
        assert_eq!(fold("f32::min"), Some(Op::MinAxis));
        for f in [
            "|r| r.fold(f64::NEG_INFINITY, |m, &v| m.max(v))",
            "|r| r.iter().fold(f64::NEG_INFINITY, |m, &v| v.max(m))",
            "|lane| lane.iter().cloned().fold(f64::NEG_INFINITY, f64::max)",
            "|lane: ArrayView1<f64>| { lane.into_iter().copied().fold(-1.0, |a, b| a.max(b)) }",
        ] {
            assert_eq!(lane(f), Some(Op::MaxAxis), "{f}");
        }
        assert_eq!(
            lane("|r| r.fold(f64::INFINITY, |m, &v| m.min(v))"),
            Some(Op::MinAxis)
        );
    }

    #[test]
    fn anything_else_is_rejected() {
        for f in [
            "|m, &v| m + v",
            "|m, &v| m.max(m)",
            "|m, &v| v.max(v)",
            "|m, &v| m.max(v) + 0.0",
            "|m, &v| m.max(v * 2.0)",
            "|m, &v| m.max(w)",
            "|m, &v| { let m = 0.0; m.max(v) }",
            "|m, &v| m.maximum(v)",
            "|m, &v| m.powf(v)",
            "|m, &v| f64::max(m)",
            "|m, &v| g::max(m, v)",
            "|m, m| m.max(m)",
            "|m, (v, w)| m.max(v)",
            "|m| m.max(m)",
            "f64::abs",
            "max",
            "std::cmp::max",
            "fold_max",
        ] {
            assert_eq!(fold(f), None, "{f}");
        }
        for f in [
            "|r| r.sum()",
            "|r| r.fold(0.0, |m, &v| m + v)",
            "|r| other.fold(f64::NEG_INFINITY, |m, &v| m.max(v))",
            "|r| r.map(|v| v * 2.0).fold(f64::NEG_INFINITY, |m, &v| m.max(v))",
            "|r| r.iter().rev().fold(f64::NEG_INFINITY, |m, &v| m.max(v))",
            "|r| r.fold(r[0], |m, &v| m.max(v))",
            "|r, s| r.fold(f64::NEG_INFINITY, |m, &v| m.max(v))",
            "f64::max",
        ] {
            assert_eq!(lane(f), None, "{f}");
        }
    }
}
