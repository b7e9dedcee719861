//! Emission: the plan becomes the gradient struct and `NAME_backward`.
//!
//! Nothing here decides anything: every function writes one construct of
//! the plan (`crate::plan`) as tokens. `frame.rs` writes the frame (the
//! gradient struct, the signatures), `mod.rs` the function's value and
//! gradient, `forward.rs` a region's forward statements, `reverse.rs` its
//! reverse sweep, `loops.rs` and `branches.rs` the two kinds of regions.

mod branches;
mod closures;
mod each;
mod forward;
mod frame;
mod loops;
mod reverse;
mod scalar;
pub(crate) mod vjp;

pub use frame::{
    components, frame, grad_field, grad_struct_of, inline_of, many_arguments, original_item,
    strip_mut, where_clause, Frame,
};

use crate::ast::{Function, Kind};
use crate::graph::Lowered;
use crate::graph::{Call, CallArg, ConstArg, Form, Node, NodeId};
use crate::names::Namer;
use crate::plan::{self, Operand, Part, Plan, Raw, Region};
use crate::vocab::{Op, SLICE_OF_VIEWS, VIEW};
use proc_macro2::{Ident, TokenStream, TokenTree};
use quote::{quote, ToTokens};

/// What every emitting function needs: the runtime's alias and the function.
pub struct Cx<'a> {
    pub bp: &'a Ident,
    pub func: &'a Function,
}

/// Writes `NAME_backward` from its plan: the gradient struct and the other
/// items of the frame, then the function, whose body is the forward pass
/// and the reverse sweep; `namer` names what `backward_each` adds.
#[allow(
    clippy::too_many_arguments,
    reason = "the stages' results, and the frame's names"
)]
pub fn emit(
    func: &Function,
    l: &Lowered,
    plan: &Plan,
    frame: &Frame,
    bp: &Ident,
    krate: &TokenStream,
    namer: &mut Namer,
    each: Option<proc_macro2::Span>,
) -> TokenStream {
    let cx = Cx { bp, func };
    let forward = forward::top(&plan.body, &cx);
    let reverse = reverse::reverse(&plan.body, &cx);
    let (value, unpack) = match &func.tuple {
        Some(arrays) => {
            let d_out = &frame.d_out;
            (
                tuple_result(plan, &cx, &l.outputs, arrays),
                Some(unpack_d_out(plan, &l.outputs, d_out, &frame.d_outs)),
            )
        }
        None => (result(plan, &cx, l.outputs[0]), None),
    };
    let unread = unread_params(plan, &cx, false);
    let probes = constant_fields(l, &cx);
    let fields = grad_fields(plan, &cx);
    let Plan { grad, .. } = plan;
    let struct_name = &frame.struct_name;
    let signature = &frame.signature;
    let items = &frame.items;
    let name = &func.item.sig.ident;
    // The original counts as used where only its backward is: a method
    // by `Self::`, a generic function with its float type.
    let original = match (func.is_method(), &func.float_param) {
        (true, _) => quote!(Self::#name),
        (false, Some(t)) => quote!(#name::<#t>),
        (false, None) => name.to_token_stream(),
    };
    let gradient = if func.is_method() && !func.method_struct() {
        // `self`'s gradient (the only one) is the gradient.
        let (_, d_self) = &fields[0];
        d_self.clone()
    } else {
        let fields = fields.iter().map(|(f, d)| quote!(#f: #d));
        quote!(#struct_name { #(#fields,)* })
    };
    // The original function counts as used where only its backward is.
    let used = quote!(let _ = #original;);
    let once = quote! {
        #(#unread)*
        #(#probes)*
        #(#forward)*
    };
    let each = each.map(|span| match repeatable(plan, func, span) {
        Ok(()) => {
            // The parameters' views (a tuple value is no plain container).
            let views = plain_views(&cx, None, false);
            let body = each::Body {
                once: quote!(#views #used #once),
                sweep: quote!(#unpack #(#reverse)* #gradient),
                value: value.clone(),
            };
            each::item(func, frame, krate, namer, bp, Some(body))
        }
        Err(e) => {
            let error = e.to_compile_error();
            let fallback = each::item(func, frame, krate, namer, bp, None);
            quote!(#error #fallback)
        }
    });
    let fixed_value = matches!(
        l.graph.get(l.outputs[0]).node,
        crate::graph::Node::Op {
            op: crate::vocab::Op::PackFixed,
            ..
        }
    );
    let views = plain_views(&cx, Some(&frame.d_out), fixed_value);
    let value = plain_value(&cx, value);
    quote! {
        #items

        #signature {
            #[allow(unused_imports, reason = "plain arithmetic calls nothing of the runtime")]
            use #krate::__private as #bp;
            #views
            #used
            #unpack
            #once
            #(#reverse)*
            let #grad = #gradient;
            (#value, #grad)
        }

        #each
    }
}

/// `let x = bp::plain_view(&x);` for each parameter that is a plain
/// container (`&[f64]`, `Vec<f64>`, `[f64; N]`): the generated code reads
/// its elements as an array. With `d_out`, the upstream gradient of a value
/// that is a container, as an array too.
fn plain_views(cx: &Cx, d_out: Option<&Ident>, fixed_value: bool) -> TokenStream {
    let bp = cx.bp;
    let params = cx
        .func
        .params
        .iter()
        .filter(|p| p.kind.plain().is_some())
        .map(|p| {
            let x = &p.ident;
            if let (true, Some(shape)) = (p.scalar_reads, p.matrix) {
                // A nalgebra value: its number of elements, which its type
                // does not give the runtime.
                let n = proc_macro2::Literal::usize_unsuffixed(shape.len());
                quote!(let #x = #bp::fixed_view::<_, #n>(&#x);)
            } else if p.scalar_reads {
                quote!(let #x = #bp::fixed_view(&#x);)
            } else {
                quote!(let #x = #bp::plain_view(&#x);)
            }
        });
    let d_out = d_out.filter(|_| cx.func.plain_output.is_some()).map(|d| {
        match (fixed_value, cx.func.matrix_output) {
            // The value is made on the stack (`Op::PackFixed`): its upstream too.
            (true, Some(shape)) => {
                let n = proc_macro2::Literal::usize_unsuffixed(shape.len());
                quote!(let #d = &#bp::fixed_copy::<_, #n>(#d);)
            }
            (true, None) => quote!(let #d = &#bp::fixed_copy(#d);),
            (false, _) => quote!(let #d = &#bp::plain_owned(#d);),
        }
    });
    quote!(#(#params)* #d_out)
}

/// The value as the function returns it: a container made from the array
/// the generated code computes (`-> Vec<f64>`), else as it is.
fn plain_value(cx: &Cx, value: TokenStream) -> TokenStream {
    let bp = cx.bp;
    match cx.func.plain_output {
        Some(_) => quote!(#bp::plain_from(#value)),
        None => value,
    }
}

/// The forward pass alone, as a function of the item's signature: the
/// copy over duals of a `jvp`/`hvp` function (`NAME_dual`) is written from
/// its graph by the same forward emitter as its `_backward`, so that it is
/// the runtime's generic ops and never the user's spelling (`0.5 * &x`,
/// which ndarray has for `f64` only). `plan` is planned from an analysis in
/// which nothing is active: nothing is kept for a reverse sweep.
pub fn forward_item(
    func: &Function,
    l: &Lowered,
    plan: &Plan,
    bp: &Ident,
    krate: &TokenStream,
) -> TokenStream {
    let cx = Cx { bp, func };
    let forward = forward::top(&plan.body, &cx);
    let value = match &func.tuple {
        Some(arrays) => tuple_result(plan, &cx, &l.outputs, arrays),
        None => result(plan, &cx, l.outputs[0]),
    };
    let unread = unread_params(plan, &cx, true);
    let probes = constant_fields(l, &cx);
    let views = plain_views(&cx, None, false);
    let value = plain_value(&cx, value);
    let item = &func.item;
    let (attrs, vis) = (&item.attrs, &item.vis);
    let mut sig = item.sig.clone();
    sig.inputs = strip_mut(item.sig.inputs.iter()).collect();
    quote! {
        #(#attrs)*
        #[allow(clippy::let_and_return, reason = "the forward pass of the macro, whose last local is the value")]
        #vis #sig {
            #[allow(unused_imports, reason = "plain arithmetic calls nothing of the runtime")]
            use #krate::__private as #bp;
            #views
            #(#unread)*
            #(#probes)*
            #(#forward)*
            #value
        }
    }
}

/// The fallback's `NAME_backward_each`, which cannot run.
pub fn each_fallback(
    func: &Function,
    frame: &Frame,
    krate: &TokenStream,
    namer: &mut Namer,
) -> TokenStream {
    let bp = namer.fresh("bp");
    each::item(func, frame, krate, namer, &bp, None)
}

/// Whether `NAME_backward_each` can be written (`span`: its argument's):
/// the value is a tuple, and the reverse sweep can run again (`plan::each`).
fn repeatable(plan: &Plan, func: &Function, span: proc_macro2::Span) -> syn::Result<()> {
    let name = &func.item.sig.ident;
    let instead =
        format!("drop `backward_each` and call `{name}_backward` once per upstream gradient");
    if func.tuple.is_none() {
        return Err(syn::Error::new(
            span,
            format!("`backward_each` is for a function whose value is a tuple (`-> (f64, f64)`), one reverse sweep per upstream gradient of its components; {instead}"),
        ));
    }
    match plan::each::check(&plan.body) {
        Ok(()) => Ok(()),
        Err(plan::each::Unrepeatable::Loop(at)) => Err(syn::Error::new(
            at,
            format!("`backward_each` cannot repeat the reverse sweep of a loop: the forward loop keeps each iteration's values for one sweep; {instead}"),
        )),
        Err(plan::each::Unrepeatable::NotFloat(at)) => Err(syn::Error::new(
            at,
            format!("`backward_each` needs every value of the body known to be a float (`f64`, `f32`), and this one is not (an array, or the value of a call, whose type the macro does not see): a sweep may write over an array's buffer, so it runs once per forward pass; {instead}"),
        )),
    }
}

/// How an op receives a value.
pub fn operand(cx: &Cx, o: &Operand) -> TokenStream {
    let bp = cx.bp;
    match o {
        Operand::Param {
            ident,
            by_ref: true,
        } => quote!(#ident),
        Operand::Param { ident, .. } | Operand::Local(ident) => quote!(&#ident),
        Operand::Ref(ident) => quote!(#ident),
        Operand::Literal(t) => quote!(&#t),
        Operand::StandIn(shape) => quote!(&#bp::stand_in(&#shape)),
    }
}

/// The operands of an op that takes them as one slice: as they are
/// (`&[&a, b]`), or each as a view where the row says so
/// (`&[bp::view(&a), bp::view(b)]`), or borrowed as views where views and
/// arrays mix in an op that takes one type (`concat`).
/// An op that takes one type for all (`concat`) gets each as a borrowed
/// view where views and arrays mix (`&[&bp::view(a), &bp::view(&t)]`).
pub fn in_slice(
    r: &Region,
    cx: &Cx,
    op: Op,
    inputs: &[NodeId],
    args: &[TokenStream],
) -> Vec<TokenStream> {
    let bp = cx.bp;
    let views = inputs.iter().filter(|i| r.is_view(**i)).count();
    if op.has(SLICE_OF_VIEWS) {
        args.iter().map(|a| quote!(#bp::view(#a))).collect()
    } else if views > 0 && views < inputs.len() {
        args.iter().map(|a| quote!(&#bp::view(#a))).collect()
    } else {
        args.to_vec()
    }
}

/// A scalar by value, as plain arithmetic reads it (a negative literal in
/// parentheses).
pub fn value(cx: &Cx, o: &Operand) -> TokenStream {
    let bp = cx.bp;
    match o {
        Operand::Param {
            ident,
            by_ref: true,
        } => quote!(*#ident),
        Operand::Param { ident, .. } | Operand::Local(ident) => quote!(#ident),
        Operand::Ref(ident) => quote!(*#ident),
        Operand::Literal(t) if t.to_string().starts_with('-') => quote!((#t)),
        Operand::Literal(t) => t.clone(),
        Operand::StandIn(shape) => quote!(#bp::stand_in(&#shape)),
    }
}

/// A value by its plain name.
pub fn raw(r: &Raw) -> TokenStream {
    match r {
        Raw::Local(i) => i.to_token_stream(),
        Raw::Literal(t) => quote!((#t)),
    }
}

/// A contribution to an adjoint.
pub fn part(cx: &Cx, p: &Part) -> TokenStream {
    let bp = cx.bp;
    match p {
        Part::Name(n) => n.to_token_stream(),
        Part::CopyOf(d) => quote!(#bp::copy(#d)),
    }
}

/// A constant expression with every binding replaced by its node's local.
pub fn subst(r: &Region, c: &ConstArg) -> TokenStream {
    c.render(|id, form| {
        let raw = raw(&r.raw(id));
        // A local that holds a reference to the value the user named.
        let raw = if r.holds_ref(id) {
            quote!((*#raw))
        } else {
            raw
        };
        // A binding that held a reference or a view keeps that form.
        match form {
            Form::Ref => quote!((&#raw)),
            Form::View => quote!((#raw).view()),
            Form::Value => raw,
        }
    })
}

/// Whether a node of `r` is a model (a parameter of the user's type, or a
/// region's input that is one): its zero is `bp::model_zeros`.
pub fn is_model(r: &Region, cx: &Cx, id: NodeId) -> bool {
    let param = match r.node(id) {
        Node::Param(i) => Some(&cx.func.params[*i]),
        Node::Input(j) => match &r.inputs[*j].operand {
            Operand::Param { ident, .. } => cx.func.params.iter().find(|p| p.ident == *ident),
            _ => None,
        },
        _ => None,
    };
    param.is_some_and(|p| matches!(p.kind, Kind::Model { .. }))
}

/// Whether a value is a plain container's elements as the user passes them
/// (a parameter `x: &[f64]`, or a view of one, `&x[1..]`), which the
/// generated code holds as an array view.
fn plain_source(r: &Region, cx: &Cx, id: NodeId) -> bool {
    match r.node(id) {
        Node::Param(i) => cx.func.params[*i].kind.plain().is_some(),
        Node::Input(j) => match &r.inputs[*j].operand {
            Operand::Param { ident, .. } => cx
                .func
                .params
                .iter()
                .any(|p| p.ident == *ident && p.kind.plain().is_some()),
            _ => false,
        },
        Node::Op { op, inputs, .. } if op.has(VIEW) => {
            inputs.first().is_some_and(|i| plain_source(r, cx, *i))
        }
        _ => false,
    }
}

/// Whether a node reads an element of a fixed-size array read by element
/// (`bp::Fixed`), here or in a loop or an arm.
pub fn reads_fixed(r: &Region, cx: &Cx, id: NodeId) -> bool {
    let Node::Op {
        op: Op::Index,
        inputs,
        ..
    } = r.node(id)
    else {
        return false;
    };
    let ident = match r.node(inputs[0]) {
        Node::Param(i) => cx.func.params[*i].ident.clone(),
        Node::Input(j) => match r.input_operand(*j) {
            Operand::Param { ident, .. } => ident,
            _ => return false,
        },
        _ => return false,
    };
    cx.func
        .params
        .iter()
        .any(|p| p.ident == ident && p.scalar_reads)
}

/// A zero of a node's shape (`x` its operand): `bp::zeros_like(x)`, or
/// `bp::model_zeros(model)` for a model.
pub fn zeros_of(r: &Region, cx: &Cx, id: NodeId, x: TokenStream) -> TokenStream {
    let bp = cx.bp;
    if is_model(r, cx, id) {
        quote!(#bp::model_zeros(#x))
    } else {
        quote!(#bp::zeros_like(#x))
    }
}

/// The place of a `Field` node with the model at its root: `model.layers[i].w`
/// for `root` = `model`.
pub fn field_place(r: &Region, id: NodeId, root: &TokenStream) -> TokenStream {
    let Node::Op { consts, .. } = r.node(id) else {
        unreachable!("a field")
    };
    fn put(tokens: TokenStream, root: &TokenStream) -> TokenStream {
        tokens
            .into_iter()
            .flat_map(|t| match t {
                TokenTree::Ident(i) if i == crate::graph::MODEL_ROOT => {
                    root.clone().into_iter().collect::<Vec<_>>()
                }
                TokenTree::Group(g) => {
                    let mut inner = proc_macro2::Group::new(g.delimiter(), put(g.stream(), root));
                    inner.set_span(g.span());
                    vec![TokenTree::Group(inner)]
                }
                other => vec![other],
            })
            .collect()
    }
    put(subst(r, &consts[0]), root)
}

/// The arguments of a call as the user passed them: borrowed values
/// borrowed, values by value cloned (a clone of a reference or a float is a
/// copy), views as views, constants as written.
///
/// A view op's value (`q.row(c)`) passes through `bp::call_arg`, which
/// the callee's parameter type resolves to a view of its local or an owned
/// copy: a loop iteration or a branch arm keeps the view for the reverse
/// sweep as an owned copy, which an `ArrayView` parameter does not take,
/// and the user's value may be owned where the local is a view
/// (`x.permuted_axes(..)` of an owned `x`), which an `&Array` parameter
/// needs.
pub fn call_args(r: &Region, cx: &Cx, call: &Call, inputs: &[NodeId]) -> Vec<TokenStream> {
    let bp = cx.bp;
    call.args
        .iter()
        .map(|a| match a {
            CallArg::Const(c) => subst(r, c),
            CallArg::Input {
                input, view: true, ..
            } => {
                let raw = raw(&r.raw(inputs[*input]));
                quote!((#raw).view())
            }
            CallArg::Input { input, .. } if plain_source(r, cx, inputs[*input]) => {
                // The elements of a container of the user's (`x` of
                // `x: &[f64]`, `&x[1..]`): as the callee's parameter takes
                // them, a slice, an array or a `Vec`.
                let raw = raw(&r.raw(inputs[*input]));
                quote!(#bp::call_arg(&#raw))
            }
            CallArg::Input { input, by_ref, .. } if r.is_view(inputs[*input]) => {
                // The user's array may be owned (`x.permuted_axes(..)` of
                // an owned `x`) where the generated code holds a view.
                let raw = raw(&r.raw(inputs[*input]));
                let arg = quote!(#bp::call_arg(&#raw));
                if *by_ref {
                    quote!(&#arg)
                } else {
                    arg
                }
            }
            CallArg::Input {
                input,
                by_ref: true,
                ..
            } => operand(cx, &r.operand(&cx.func.params, inputs[*input])),
            CallArg::Input {
                input,
                by_ref: false,
                ..
            } => {
                let id = inputs[*input];
                match r.node(id) {
                    Node::Float(t) => t.clone(),
                    Node::Param(i) => {
                        let p = &cx.func.params[*i];
                        let ident = &p.ident;
                        // A reference or a float is copied; an array by value is cloned.
                        if p.by_ref || matches!(p.kind, Kind::Scalar(_)) {
                            quote!(#ident)
                        } else {
                            quote!(::core::clone::Clone::clone(&#ident))
                        }
                    }
                    // A float is copied.
                    _ if r.scalar[id.index()] && !r.holds_ref(id) => raw(&r.raw(id)),
                    _ => {
                        let n = raw(&r.raw(id));
                        quote!(::core::clone::Clone::clone(&#n))
                    }
                }
            }
        })
        .collect()
}

/// The value the function returns.
fn result(plan: &Plan, cx: &Cx, id: NodeId) -> TokenStream {
    let r = &plan.body;
    match r.node(id) {
        Node::Param(i) => {
            let p = &cx.func.params[*i];
            let ident = &p.ident;
            if p.by_ref {
                quote!(::core::clone::Clone::clone(#ident))
            } else {
                quote!(#ident)
            }
        }
        Node::Float(t) | Node::Int(t) => t.clone(),
        // `(p * 2.0).remove_axis(Axis(1))` is owned where the user wrote
        // it, a view of the runtime's form here.
        Node::Op { op, .. } if op.has(VIEW) => {
            let name = r.name(id);
            quote!((#name).to_owned())
        }
        _ => r.name(id).to_token_stream(),
    }
}

/// A tuple output's value: each component as [`result`] writes it, an
/// array that is also a later component cloned.
///
/// Before: `(a, a.sum(), a)`; after: `(Clone::clone(&a), out_1, a)`.
fn tuple_result(plan: &Plan, cx: &Cx, outputs: &[NodeId], arrays: &[bool]) -> TokenStream {
    let parts = outputs.iter().enumerate().map(|(k, &o)| {
        let v = result(plan, cx, o);
        let again = outputs[k + 1..].contains(&o);
        if arrays[k] && again && !matches!(plan.body.node(o), Node::Param(_)) {
            quote!(::core::clone::Clone::clone(&#v))
        } else {
            v
        }
    });
    quote!((#(#parts,)*))
}

/// `let (d_out_0, d_out_1) = d_out;`: the upstream gradient of each
/// component of a tuple output, `_` where the component has no adjoint (it
/// does not depend on a differentiable parameter).
fn unpack_d_out(plan: &Plan, outputs: &[NodeId], d_out: &Ident, d_outs: &[Ident]) -> TokenStream {
    let names = outputs.iter().zip(d_outs).map(|(&o, d)| {
        if plan.body.active(o) {
            d.to_token_stream()
        } else {
            quote!(_)
        }
    });
    quote!(let (#(#names,)*) = #d_out;)
}

/// `let _ = c;` for each constant parameter the backward does not read (it
/// feeds only values that do not reach the output); in a forward pass alone
/// (`forward_only`), for each parameter it does not read.
fn unread_params(plan: &Plan, cx: &Cx, forward_only: bool) -> Vec<TokenStream> {
    let r = &plan.body;
    r.graph
        .ids()
        .filter_map(|id| match r.node(id) {
            Node::Param(i)
                if (forward_only || !cx.func.params[*i].differentiable) && !r.live(id) =>
            {
                let ident = &cx.func.params[*i].ident;
                Some(quote!(let _ = #ident;))
            }
            _ => None,
        })
        .collect()
}

/// For each field of a model read in a constant (`0..model.n_layers`), a
/// check that it is no parameter of the model: a model's float read as a
/// constant would get no gradient, so it is a type error, at the field.
fn constant_fields(l: &Lowered, cx: &Cx) -> Vec<TokenStream> {
    let bp = cx.bp;
    // Each model parameter's type is a model, checked where it is named.
    let models = cx.func.params.iter().filter_map(|p| match &p.kind {
        Kind::Model { owned } if p.differentiable => {
            // At the type, or at `self` (whose type is the `impl`'s).
            let span = syn::spanned::Spanned::span(&p.ty);
            Some(quote::quote_spanned!(span=> #bp::assert_model::<#owned>();))
        }
        _ => None,
    });
    models
        .collect::<Vec<_>>()
        .into_iter()
        .chain(l.constant_fields.iter().map(|(field, span)| {
            quote::quote_spanned! {*span=>
                {
                    #[allow(unused_imports, reason = "one of the two gives the method")]
                    use #bp::{ViaConstant as _, ViaModel as _};
                    let _: #bp::ConstantRead =
                        (&#bp::Probe::of(&#field)).backprop_field().constant_read();
                }
            }
        }))
        .collect()
}

/// `(w, d_w)` for each differentiable parameter, by its field in the
/// gradient struct (`self_` for `self`, see [`grad_field`]); a zero where
/// the parameter does not reach the value.
fn grad_fields(plan: &Plan, cx: &Cx) -> Vec<(Ident, TokenStream)> {
    let r = &plan.body;
    let mut out = Vec::new();
    for id in r.graph.ids() {
        let Node::Param(i) = r.node(id) else {
            continue;
        };
        let p = &cx.func.params[*i];
        if !p.differentiable {
            continue;
        }
        let field = grad_field(p);
        let bp = cx.bp;
        let d = if r.active(id) {
            r.adj(id).to_token_stream()
        } else if p.scalar_reads {
            let x = &p.ident;
            quote!(#bp::fixed_zeros(&#x))
        } else {
            let arg = operand(cx, &r.operand(&cx.func.params, id));
            zeros_of(r, cx, id, arg)
        };
        // A container's gradient is a container of its type.
        match p.kind.plain() {
            Some(_) => out.push((field, quote!(#bp::plain_from(#d)))),
            None => out.push((field, d)),
        }
    }
    out
}
