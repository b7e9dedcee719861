//! Closures mapped over arrays, as ndarray and iterators spell them:
//! `z.mapv(|v| ..)`, `z.map(|&v| ..)`, `z.mapv_into(..)`,
//! `Zip::from(&a).and(&b).map_collect(|&x, &y| ..)` (up to five arrays),
//! `a.iter().map(|x| ..).sum::<f64>()`,
//! `a.iter().zip(b.iter()).map(|(x, y)| ..).sum::<f64>()`, and
//! `y.map_inplace(|v| *v = e)`, read as `y.mapv_inplace(|v| e)`.
//!
//! The closure's body is differentiated as a scalar function of its elements
//! and of the differentiable scalars it captures, by the same pipeline as a
//! whole function (so it may use the scalar vocabulary, `if`/`else`,
//! `max`/`min`, constants). The forward runs the user's expression as
//! written, over the operands' values; the reverse hands that function's
//! reverse to one walk over the elements (`bp::map_rule`, ...), which sums
//! each captured scalar's gradient over the elements.
//!
//! Before: `let y = x.mapv(|v| (v * s).tanh());`
//!
//! After, in the forward: `let y = (x).view().mapv(|v| (v * s).tanh());`
//! and in the reverse:
//! `let (d_x, [d_s]) = bp::map_rule(d_y, x, |v, d_out| { let s = s; .. (d_v, d_s) });`

use super::control::is_compound;
use super::{strip, strip_paren, Lowerer};
use crate::args::Args;
use crate::ast::Function;
use crate::ctxt::Ctxt;
use crate::graph::{Call, CallArg, ClosureBody, MapCall, Node, NodeId, Walk};
use crate::vocab::{Arg, Op, Ty};
use proc_macro2::{Ident, Span};
use quote::{format_ident, quote};
use std::collections::HashSet;
use syn::spanned::Spanned;
use syn::{Expr, ExprClosure, Pat};

/// The methods that map a closure over one array.
pub const MAP_METHODS: &[&str] = &["mapv", "mapv_into", "map"];

/// A recognised spelling: the arrays walked, the closure, and how.
struct Spelling<'e> {
    arrays: Vec<&'e Expr>,
    closure: &'e Expr,
    walk: Walk,
}

impl Lowerer<'_> {
    /// `m` if it maps a closure over arrays in a spelling this module knows;
    /// `None` to lower it as any other method.
    pub(super) fn mapped_closure(&mut self, m: &syn::ExprMethodCall) -> Option<NodeId> {
        let spelling = spelling(m)?;
        let whole = Expr::MethodCall(m.clone());
        if !self.mentions_varying(&whole) {
            // Over constants (`labels.iter().map(|&l| l as f64).sum()`): Rust's.
            return Some(self.constant(&whole, ""));
        }
        Some(match spelling.closure {
            Expr::Closure(c) => self.map_closure(spelling, c),
            Expr::Path(p) if spelling.walk == Walk::Map => self.map_path(&spelling, p),
            other => {
                self.cx.error_at(
                    other,
                    format!("`{}` takes a closure here (`|v| ..`), or a path to an elementwise function of the vocabulary (`f64::tanh`, `relu`)", m.method),
                );
                self.error_node(other.span())
            }
        })
    }

    /// `z.mapv(f64::tanh)`, `z.mapv(relu)`: the op itself; a path to
    /// another function: as the closure `|v| f(v)`.
    fn map_path(&mut self, s: &Spelling, p: &syn::ExprPath) -> NodeId {
        if p.qself.is_none() {
            if let Some((op, [Arg::Operand])) = self.op_by_path(&p.path) {
                if op.elementwise() {
                    let x = self.expr(s.arrays[0]);
                    return self.op(op, vec![x], Vec::new(), p.span());
                }
            }
        }
        let v = Ident::new("v", Span::mixed_site());
        let closure: ExprClosure = syn::parse_quote_spanned!(p.span()=> |#v| #p(#v));
        let spelling = Spelling {
            arrays: s.arrays.clone(),
            closure: s.closure,
            walk: s.walk,
        };
        self.map_closure(spelling, &closure)
    }

    /// An array a closure walks. A constant field (`self.xs`, `data.ys`),
    /// whose type the macro does not see, is read through
    /// `bp::plain_view`, which takes a `Vec`, a slice, a fixed-size array or
    /// an ndarray array alike.
    fn walked(&mut self, a: &Expr) -> NodeId {
        let place = match super::strip(a) {
            Expr::Reference(r) => &*r.expr,
            other => other,
        };
        if matches!(super::strip(place), Expr::Field(_)) && !self.mentions_varying(place) {
            let krate = &self.env.krate;
            let view: Expr = if self.generic_copy() && crate::generic::reads_self(place) {
                // In a copy over duals, `self`'s data as the copy's floats
                // (`generic::generic_constant`), owned.
                syn::parse_quote_spanned!(a.span()=> #krate::ndarray::Array1::from_iter(
                    ::core::iter::IntoIterator::into_iter(#place)
                ))
            } else {
                syn::parse_quote_spanned!(a.span()=> #krate::__private::plain_view(&#place))
            };
            return self.expr(&view);
        }
        let id = self.expr(a);
        if matches!(self.graph.get(id).node, Node::Op { op: Op::Field, .. }) {
            // A model's field, of a type the macro does not see.
            return self.op(Op::PlainView, vec![id], Vec::new(), a.span());
        }
        id
    }

    /// A closure mapped over `s.arrays`: one call node whose inputs are the
    /// arrays and the differentiable scalars the closure captures.
    fn map_closure(&mut self, s: Spelling, c: &ExprClosure) -> NodeId {
        let span = c.span();
        let Some(elems) = self.closure_params(c, s.arrays.len(), s.walk) else {
            return self.error_node(span);
        };
        // The arrays, as operands.
        let mut inputs: Vec<NodeId> = s.arrays.iter().map(|a| self.walked(a)).collect();
        if inputs
            .iter()
            .any(|i| matches!(self.graph.get(*i).node, Node::Error))
        {
            return self.error_node(span);
        }
        // What the body captures: differentiable scalars become parameters
        // of its function, constants are bound by name before its reverse.
        let elem_names: HashSet<String> = elems.iter().map(|e| e.to_string()).collect();
        let mut varying = Vec::new();
        // Constants known to be floats are parameters too (not
        // differentiated), so that the rule's arithmetic on them is plain.
        let mut floats = Vec::new();
        let mut constants = Vec::new();
        let mut seen = HashSet::new();
        for ident in self.mentioned_names(&c.body) {
            let name = ident.to_string();
            if elem_names.contains(&name) || !seen.insert(name.clone()) {
                continue;
            }
            let Some(id) = self.lookup(&name) else {
                continue;
            };
            if matches!(self.graph.get(id).node, Node::Error) {
                return self.error_node(span);
            }
            if self.varying[id.index()] {
                if !self.known_float(id) {
                    self.cx.error_at(
                        &ident,
                        format!("a closure may capture a differentiable value only when it is a float: `{ident}` is not known to be one here; bind the float it needs before the closure (`let {ident}0 = {ident}[0];`), or map over `{ident}` with `Zip`"),
                    );
                    return self.error_node(span);
                }
                varying.push((ident, id));
            } else {
                let path: Expr = syn::parse_quote!(#ident);
                let Some(mut k) = self.const_tokens(&path, "") else {
                    return self.error_node(span);
                };
                if self.generic_copy() && self.may_be_original(id) {
                    // `let c = PI;` read in the copy over duals: as `__F`.
                    k.expr = crate::generic::lifted(&name, &self.env.krate);
                }
                if self.known_float(id) {
                    floats.push(ident.clone());
                }
                constants.push((ident, k));
            }
        }
        // The reverse of the body, as a function of the elements and the
        // captured differentiable scalars.
        let params: Vec<Ident> = elems
            .iter()
            .cloned()
            .chain(varying.iter().map(|(i, _)| i.clone()))
            .collect();
        let Some(body) = self.closure_body(c, &params, &floats) else {
            return self.error_node(span);
        };
        let mut args: Vec<CallArg> = (0..inputs.len())
            .map(|input| CallArg::Input {
                input,
                by_ref: true,
                view: false,
            })
            .collect();
        for (_, id) in &varying {
            args.push(CallArg::Input {
                input: inputs.len(),
                by_ref: false,
                view: false,
            });
            inputs.push(*id);
        }
        let path = quote::quote_spanned!(span=> closure);
        let k = u32::try_from(self.graph.calls.len()).expect("fewer than 2^32 calls");
        self.graph.calls.push(Call {
            vjp: path.clone(),
            path,
            args,
            map: Some(Box::new(MapCall {
                walk: s.walk,
                params,
                constants,
                body: Box::new(body),
            })),
            method: false,
            components: Vec::new(),
        });
        self.op(Op::Call(k), inputs, Vec::new(), span)
    }

    /// The names of a closure's elements: `|v|`, `|&v|`, `|v: f64|`, and
    /// `|(x, y)|` for a zip of two iterators.
    fn closure_params(&mut self, c: &ExprClosure, arrays: usize, walk: Walk) -> Option<Vec<Ident>> {
        let pats: Vec<&Pat> = match (walk, c.inputs.iter().collect::<Vec<_>>().as_slice()) {
            (Walk::SumZip | Walk::Zip(2), [Pat::Tuple(t)]) => t.elems.iter().collect(),
            (_, pats) => pats.to_vec(),
        };
        let names: Option<Vec<Ident>> = pats.iter().map(|p| element_name(p)).collect();
        match names {
            Some(names) if names.len() == arrays => Some(names),
            _ => {
                let want = match walk {
                    Walk::Map | Walk::SumMap => "one element: `|v| ..` (or `|&v| ..`)".to_owned(),
                    Walk::Zip(_) => {
                        let names = ["&x", "&y", "&z", "&w", "&u"];
                        format!("{arrays} elements: `|{}| ..`", names[..arrays].join(", "))
                    }
                    Walk::SumZip => "a pair: `|(x, y)| ..`".to_owned(),
                };
                self.cx.error_at(
                    &c.inputs,
                    format!("this closure must take {want}, each bound to a plain name"),
                );
                None
            }
        }
    }

    /// Whether a value is known to be a float (not an array).
    pub(super) fn known_float(&self, id: NodeId) -> bool {
        self.types_at(self.outer.len())[id.index()] == Some(Ty::Float)
    }

    /// The number of a value's axes, where it is known to be an array.
    pub(super) fn known_axes(&self, id: NodeId) -> Option<u8> {
        match self.types_at(self.outer.len())[id.index()] {
            Some(Ty::Array(axes)) => Some(axes),
            _ => None,
        }
    }

    /// The types of the values of the graph at `depth` (0: the body), its
    /// inputs of the types of what they capture.
    fn types_at(&self, depth: usize) -> Vec<Option<Ty>> {
        let (graph, captures) = if depth == self.outer.len() {
            (&self.graph, &self.captures)
        } else {
            (&self.outer[depth].graph, &self.outer[depth].captures)
        };
        let inputs: Vec<Option<Ty>> = if depth == 0 {
            Vec::new()
        } else {
            let up = self.types_at(depth - 1);
            captures
                .iter()
                .map(|(outer, _)| up[outer.index()])
                .collect()
        };
        crate::types::types(graph, self.func, &inputs)
    }

    /// The closure's body lowered as the function `fn closure(params: F..)
    /// -> F`, whose reverse the emitter writes (`emit::closures::rule`).
    fn closure_body(
        &mut self,
        c: &ExprClosure,
        params: &[Ident],
        floats: &[Ident],
    ) -> Option<ClosureBody> {
        let elem = self.func.elem.ident();
        let mut body: syn::Block = match &*c.body {
            Expr::Block(b) if b.label.is_none() => b.block.clone(),
            other => syn::parse_quote_spanned!(other.span()=> { #other }),
        };
        // An element the closure gets by reference (`|u|` of `iter()`) is
        // a float in the body's function: `*u` is `u`.
        syn::visit_mut::VisitMut::visit_block_mut(&mut Underef(params), &mut body);
        let name = format_ident!("closure", span = c.span());
        let all = params.iter().chain(floats);
        // Generic over the function's float type where it is.
        let generics = self.func.float_param.as_ref().map(|t| {
            let krate = &self.env.krate;
            quote::quote!(<#t: #krate::__private::Float>)
        });
        let item: syn::ItemFn =
            syn::parse_quote!(fn #name #generics(#(#all: #elem),*) -> #elem #body);
        let mut used = HashSet::new();
        crate::names::idents(quote!(#item), &mut used);
        let mut cx = Ctxt::default();
        let args = Args {
            wrt: Some(params.to_vec()),
            ..Args::default()
        };
        let func = Function::from_item(item, &args, &self.env.krate, &mut cx);
        let lowered = func
            .as_ref()
            .and_then(|f| super::lower_with(f, &mut cx, self.env));
        let out = match (func, lowered) {
            (Some(func), Some(lowered)) if !cx.has_errors() => {
                // Its calls are the enclosing function's.
                self.dual_calls.extend(lowered.dual_calls.iter().cloned());
                Some(ClosureBody {
                    func,
                    lowered,
                    used,
                    krate: self.env.krate.clone(),
                    opts: self.env.opts,
                })
            }
            _ => None,
        };
        self.cx.merge(cx);
        out
    }
}

/// The name a closure's parameter binds: `v`, `&v`, `v: f64`, `&v: &f64`.
pub(super) fn element_name(p: &Pat) -> Option<Ident> {
    match p {
        Pat::Ident(pi) if pi.by_ref.is_none() && pi.subpat.is_none() => Some(pi.ident.clone()),
        Pat::Reference(r) => element_name(&r.pat),
        Pat::Type(t) => element_name(&t.pat),
        Pat::Paren(p) => element_name(&p.pat),
        _ => None,
    }
}

/// `a.iter()` (or `a.into_iter()` of a view) → `a`.
fn iterated(e: &Expr) -> Option<&Expr> {
    match strip(e) {
        Expr::MethodCall(m) if m.method == "iter" && m.args.is_empty() => Some(&m.receiver),
        _ => None,
    }
}

/// Which of the spellings `m` is, if any.
fn spelling(m: &syn::ExprMethodCall) -> Option<Spelling<'_>> {
    let name = m.method.to_string();
    if MAP_METHODS.contains(&name.as_str()) && m.args.len() == 1 {
        let closure = &m.args[0];
        return Some(Spelling {
            arrays: vec![&m.receiver],
            closure,
            walk: Walk::Map,
        });
    }
    if name == "map_collect" && m.args.len() == 1 {
        // Zip::from(a).and(b)..: the `and`s, last first.
        let mut arrays = Vec::new();
        let mut link = strip(&m.receiver);
        while let Expr::MethodCall(and) = link {
            if and.method != "and" || and.args.len() != 1 {
                return None;
            }
            arrays.push(&and.args[0]);
            link = strip(&and.receiver);
        }
        let Expr::Call(from) = link else {
            return None;
        };
        let Expr::Path(zip_from) = &*from.func else {
            return None;
        };
        let segs: Vec<String> = zip_from
            .path
            .segments
            .iter()
            .map(|s| s.ident.to_string())
            .collect();
        if arrays.is_empty()
            || from.args.len() != 1
            || !segs.ends_with(&["Zip".to_owned(), "from".to_owned()])
        {
            return None;
        }
        arrays.push(&from.args[0]);
        arrays.reverse();
        let n = u8::try_from(arrays.len()).ok().filter(|n| *n <= 5)?;
        let closure = &m.args[0];
        return Some(Spelling {
            arrays,
            closure,
            walk: Walk::Zip(n),
        });
    }
    if name == "collect" && m.args.is_empty() {
        // `x.iter().map(|v| ..).collect::<Vec<f64>>()`: an array of `x`'s
        // shape, as `mapv`; `x.iter().zip(y).map(|(a, b)| ..).collect()`: as
        // a `Zip` of two.
        let Expr::MethodCall(map) = strip(&m.receiver) else {
            return None;
        };
        if map.method != "map" || map.args.len() != 1 {
            return None;
        }
        let closure = &map.args[0];
        if let Some(a) = iterated(&map.receiver) {
            return Some(Spelling {
                arrays: vec![a],
                closure,
                walk: Walk::Map,
            });
        }
        let (a, b) = zipped(&map.receiver)?;
        return Some(Spelling {
            arrays: vec![a, b],
            closure,
            walk: Walk::Zip(2),
        });
    }
    if name == "sum" && m.args.is_empty() {
        let Expr::MethodCall(map) = strip(&m.receiver) else {
            return None;
        };
        if map.method != "map" || map.args.len() != 1 {
            return None;
        }
        let closure = &map.args[0];
        if let Some(a) = iterated(&map.receiver) {
            return Some(Spelling {
                arrays: vec![a],
                closure,
                walk: Walk::SumMap,
            });
        }
        let (a, b) = zipped(&map.receiver)?;
        return Some(Spelling {
            arrays: vec![a, b],
            closure,
            walk: Walk::SumZip,
        });
    }
    None
}

/// `a.iter().zip(b.iter())` (or `.zip(&b)`, `.zip(b)`) → `a` and `b`.
fn zipped(e: &Expr) -> Option<(&Expr, &Expr)> {
    let Expr::MethodCall(zip) = strip(e) else {
        return None;
    };
    if zip.method != "zip" || zip.args.len() != 1 {
        return None;
    }
    let a = iterated(&zip.receiver)?;
    // `b.iter()` or `&b`.
    let b = iterated(&zip.args[0]).unwrap_or(&zip.args[0]);
    Some((a, b))
}

/// Removes the dereferences of the closure's parameters (`*u` → `u`).
struct Underef<'a>(&'a [Ident]);

impl syn::visit_mut::VisitMut for Underef<'_> {
    fn visit_expr_mut(&mut self, e: &mut Expr) {
        if let Expr::Unary(u) = e {
            if matches!(u.op, syn::UnOp::Deref(_)) {
                if let Expr::Path(p) = strip(&u.expr) {
                    if p.path.get_ident().is_some_and(|i| self.0.contains(i)) {
                        *e = Expr::Path(p.clone());
                        return;
                    }
                }
            }
        }
        syn::visit_mut::visit_expr_mut(self, e);
    }
    // A nested closure's parameters are its own.
    fn visit_expr_closure_mut(&mut self, _: &mut syn::ExprClosure) {}
}

impl Lowerer<'_> {
    /// `y.map_inplace(|v| *v = e)` (also `*v op= e`, alone in a block): the
    /// write `y.mapv_inplace(|v| e)`, with `*v` read as `v`.
    pub(super) fn map_inplace(&mut self, m: &syn::ExprMethodCall) -> NodeId {
        match mapv_closure(&m.args[0]) {
            Some(f) => {
                let mut m = m.clone();
                m.method = Ident::new("mapv_inplace", m.method.span());
                m.args = std::iter::once(f).collect();
                self.write_view(&m)
                    .unwrap_or_else(|| self.error_node(m.method.span()))
            }
            None => {
                self.cx.error_at(&m.args[0], "`map_inplace` is differentiated when its closure sets the element from its old value, `|v| *v = e` (or `*v op= e`); write `.mapv_inplace(|v| e)` otherwise");
                self.error_node(m.method.span())
            }
        }
    }
}

/// `|v| e'` for `map_inplace`'s `|v| *v = e` (`|v| v op e'` for `*v op= e`),
/// `e'` being `e` with `*v` read as `v`.
fn mapv_closure(f: &Expr) -> Option<Expr> {
    let Expr::Closure(c) = strip_paren(f) else {
        return None;
    };
    let v = match c.inputs.iter().collect::<Vec<_>>().as_slice() {
        [Pat::Ident(pi)] => pi.ident.clone(),
        [Pat::Type(pt)] => match &*pt.pat {
            Pat::Ident(pi) => pi.ident.clone(),
            _ => return None,
        },
        _ => return None,
    };
    let mut body = strip_paren(&c.body);
    while let Expr::Block(b) = body {
        match b.block.stmts.as_slice() {
            [syn::Stmt::Expr(e, _)] if b.label.is_none() => body = strip_paren(e),
            _ => return None,
        }
    }
    let is_target = |e: &Expr| matches!(strip_paren(e), Expr::Unary(u) if matches!(u.op, syn::UnOp::Deref(_)) && matches!(strip_paren(&u.expr), Expr::Path(p) if p.path.is_ident(&v)));
    let (op, right) = match body {
        Expr::Assign(a) if is_target(&a.left) => (None, (*a.right).clone()),
        Expr::Binary(b) if is_compound(&b.op) && is_target(&b.left) => {
            (Some(b.op), (*b.right).clone())
        }
        _ => return None,
    };
    struct Read<'a>(&'a Ident, bool);
    impl syn::visit_mut::VisitMut for Read<'_> {
        fn visit_expr_mut(&mut self, e: &mut Expr) {
            if let Expr::Unary(u) = e {
                if matches!(u.op, syn::UnOp::Deref(_))
                    && matches!(strip_paren(&u.expr), Expr::Path(p) if p.path.is_ident(self.0))
                {
                    let v = self.0;
                    *e = syn::parse_quote!(#v);
                    return;
                }
            }
            // A second write of the element is not this form.
            if let Expr::Assign(_) = e {
                self.1 = false;
            }
            if let Expr::Binary(b) = e {
                if is_compound(&b.op) {
                    self.1 = false;
                }
            }
            syn::visit_mut::visit_expr_mut(self, e);
        }
    }
    let mut right = right;
    let mut read = Read(&v, true);
    syn::visit_mut::VisitMut::visit_expr_mut(&mut read, &mut right);
    if !read.1 {
        return None;
    }
    let value: Expr = match op {
        None => right,
        Some(op) => {
            let symbol = match op {
                syn::BinOp::AddAssign(_) => quote::quote!(+),
                syn::BinOp::SubAssign(_) => quote::quote!(-),
                syn::BinOp::MulAssign(_) => quote::quote!(*),
                _ => quote::quote!(/),
            };
            syn::parse_quote!(#v #symbol (#right))
        }
    };
    Some(syn::parse_quote_spanned!(c.span()=> |#v| #value))
}
