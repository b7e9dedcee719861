//! Containers of floats made in the body: `[a, b]`, `[c; n]`, `vec![..]`,
//! `array![..]`. The generated code holds them as ndarray arrays (as it
//! holds a container parameter, see `crate::ast::Plain`), so that an
//! element read or written, a walk and the container returned are the
//! array's.
//!
//! Before: `let mut y = [0.0; 3]; let p = [x, x * 2.0];`
//!
//! After:  `let y = Array1::from_elem(3, 0.0); let p = bp::pack(&[&x, &p_1]);`

use super::Lowerer;
use crate::graph::{ConstArg, Form, Node, NodeId};
use crate::vocab::Op;
use proc_macro2::TokenStream;
use quote::quote;
use syn::parse::Parser;
use syn::punctuated::Punctuated;
use syn::spanned::Spanned;
use syn::Expr;

impl Lowerer<'_> {
    /// Whether the binding `name` is a container a `let` wrote as Rust's
    /// (see [`Scope::plain`]).
    pub(super) fn plain_local(&self, name: &str) -> bool {
        self.scopes
            .iter()
            .rev()
            .find(|s| s.names.contains_key(name))
            .is_some_and(|s| s.plain.contains(name))
    }

    /// The container of one axis as Rust writes it (see
    /// [`Self::plain_vector`]) that `e` walks by its elements: `xs.iter()`,
    /// `&xs`, or `xs` itself.
    pub(super) fn plain_source<'e>(&mut self, e: &'e Expr) -> Option<&'e Expr> {
        let x = match super::strip_paren(e) {
            Expr::MethodCall(m) if m.method == "iter" && m.args.is_empty() => &*m.receiver,
            Expr::Reference(r) if r.mutability.is_none() => &*r.expr,
            x @ Expr::Path(_) => x,
            _ => return None,
        };
        self.plain_vector(x).then_some(x)
    }

    /// The float type of the elements of the parameter `x`, a container of
    /// floats (`f64` of `xs: &[f64]`), outside the copy over duals.
    pub(super) fn plain_elem(&self, x: &Expr) -> Option<TokenStream> {
        let Expr::Path(p) = x else {
            return None;
        };
        if self.generic_copy() || self.plain_local(&p.path.get_ident()?.to_string()) {
            return None;
        }
        let param = self
            .func
            .params
            .iter()
            .find(|q| p.path.is_ident(&q.ident))?;
        match &param.kind {
            crate::ast::Kind::Array { elem, .. } => Some(match elem {
                crate::ast::Elem::F64 => quote!(f64),
                crate::ast::Elem::F32 => quote!(f32),
                crate::ast::Elem::Generic(t) => quote!(#t),
            }),
            _ => None,
        }
    }

    /// Whether the iterator `e` (through `map`, `zip`, `enumerate` and the
    /// adapters) walks a container of one axis as Rust writes it: its sum
    /// is the loop it is (see [`Self::iterator_reduction`]), as the
    /// elements of a `[f64; N]` are read one by one.
    pub(super) fn walks_plain(&mut self, e: &Expr) -> bool {
        if self.plain_source(e).is_some() {
            return true;
        }
        let Expr::MethodCall(m) = super::strip_paren(e) else {
            return false;
        };
        match (m.method.to_string().as_str(), m.args.len()) {
            ("zip", 1) => self.walks_plain(&m.receiver) || self.walks_plain(&m.args[0]),
            (
                "map" | "enumerate" | "skip" | "take" | "step_by" | "rev" | "copied" | "cloned",
                _,
            ) => self.walks_plain(&m.receiver),
            _ => false,
        }
    }

    /// Whether the name `name`, bound to `id` here, is a container of one
    /// axis as Rust writes it: a parameter `xs: &[f64]`, `Vec<f64>` or
    /// `[f64; N]` (through the captures of loop bodies and arms), or a
    /// local written as Rust's (`vec![0.0; n]`). Its element `k` is `xs[k]`.
    pub(super) fn one_axis_plain(&self, name: &str, id: NodeId) -> bool {
        if self.plain_local(name) {
            return true;
        }
        let (depth, id) = self.origin_at(self.outer.len(), id);
        match self.graph_at(depth).get(id).node {
            Node::Param(i) => matches!(
                self.func.params[i].kind,
                crate::ast::Kind::Array {
                    axes: Some(1),
                    plain: Some(_),
                    ..
                }
            ),
            _ => false,
        }
    }

    /// Whether `e` names a container of one axis as Rust writes it (see
    /// [`Self::one_axis_plain`]).
    pub(super) fn plain_vector(&mut self, e: &Expr) -> bool {
        let Expr::Path(p) = strip(e) else {
            return false;
        };
        let Some(name) = p.path.get_ident().map(ToString::to_string) else {
            return false;
        };
        self.lookup(&name)
            .is_some_and(|id| self.one_axis_plain(&name, id))
    }

    /// `m[i][j]` of an array of arrays (`[[f64; 3]; 3]`), which the
    /// generated code holds as a matrix: `m[[i, j]]`; and `&x[1..]` of a
    /// slice or a `Vec`: the view `x.slice(s![1..])`. Kept out of
    /// `expr_inner`, whose frame every level of a deep expression pays.
    #[inline(never)]
    pub(super) fn plain_index(&mut self, i: &syn::ExprIndex) -> Option<NodeId> {
        let span = i.bracket_token.span.join();
        if let Expr::Index(inner) = strip(&i.expr) {
            let base = self.expr(&inner.expr);
            if self.is_float_value(base) {
                let (a, b) = (&inner.index, &i.index);
                let both: Expr = syn::parse_quote_spanned!(span=> [#a, #b]);
                let idx = self.const_arg(&both, "an index");
                return Some(self.op(Op::Index, vec![base], vec![idx], span));
            }
        }
        if let Expr::Range(range) = strip(&i.index) {
            if self.mentions_varying(&i.expr) {
                let x = &i.expr;
                let view: Expr = syn::parse_quote_spanned!(span=> #x.slice(s![#range]));
                return Some(self.expr(&view));
            }
        }
        None
    }

    /// `[a, b, c]`: a vector of the floats (`pack`) where one is
    /// differentiable, a constant array of floats, or, of other constants,
    /// Rust's (`[0, 2, 1]`).
    pub(super) fn array_literal(&mut self, whole: &Expr, elems: &[&Expr]) -> NodeId {
        if !self.mentions_varying(whole) {
            return match self.float_constant(whole) {
                // In the copy over duals, floats of `__F` (the function's
                // value may be this literal, a container of `__F`).
                Some(_) if self.generic_copy() && !elems.is_empty() => {
                    let inputs: Vec<NodeId> = elems
                        .iter()
                        .map(|e| {
                            let c = self.expr(e);
                            self.read_as_copy_float(c, e.span())
                        })
                        .collect();
                    self.op(Op::Pack, inputs, Vec::new(), whole.span())
                }
                Some(array) => self.constant(&array, ""),
                None => self.plain_constant(whole),
            };
        }
        if elems.is_empty()
            || elems
                .iter()
                .any(|e| matches!(strip(e), Expr::Array(_) | Expr::Repeat(_)))
        {
            self.cx.error_at(
                whole,
                "a literal of differentiable floats is supported as a vector (`[a, b, c]`, `vec![a, b]`); make a matrix of vectors with `stack(Axis(0), &[u.view(), v.view()])`",
            );
            return self.error_node(whole.span());
        }
        let inputs: Vec<NodeId> = elems.iter().map(|e| self.expr(e)).collect();
        // One element known to be a float is enough: the original function
        // compiles, so Rust gives the others its type.
        let known = inputs.iter().any(|i| self.known_float(*i));
        if let Some(at) = inputs.iter().position(|i| !known && !self.known_float(*i)) {
            self.cx.error_at(
                elems[at],
                "a literal of differentiable values is a vector of floats (`[a, b, c]`); this element is not known to be a float (an array: join arrays with `concat(Axis(k), &[&a, &b, ...])`; the value of a call: bind it with a type, `let v: f64 = f(..);`)",
            );
            return self.error_node(whole.span());
        }
        self.op(Op::Pack, inputs, Vec::new(), whole.span())
    }

    /// A constant container as the user wrote it (`[a, b]`, `vec![a, b]`):
    /// Rust's, read by ops through a view (see [`Self::viewed`]).
    fn plain_constant(&mut self, whole: &Expr) -> NodeId {
        let id = self.constant(whole, "");
        self.graph.plain_consts.insert(id);
        id
    }

    /// An op's input as the op reads it: a constant container the user
    /// wrote ([`Self::plain_constant`]) through a view of its elements.
    pub(super) fn viewed(&mut self, id: NodeId, span: proc_macro2::Span) -> NodeId {
        let (depth, origin) = self.origin_at(self.outer.len(), id);
        if !self.graph_at(depth).plain_consts.contains(&origin) {
            return id;
        }
        let name = "__bp_container";
        let ident = syn::Ident::new(name, span);
        let krate = &self.env.krate;
        let c = ConstArg {
            expr: syn::parse_quote!(#krate::__private::plain_view(&#ident)),
            refs: vec![(name.to_owned(), id, Form::Value)],
            deps: vec![id],
            place: false,
        };
        self.add(Node::Const(c), self.temp(), span, false)
    }

    /// `[c; n]`: `n` copies of a constant float, a constant array; of other
    /// constants, Rust's.
    pub(super) fn repeat_literal(&mut self, whole: &Expr, value: &Expr) -> NodeId {
        if self.mentions_varying(value) {
            self.cx.error_at(
                value,
                "`[v; n]` repeats a constant; to repeat a differentiable float, write `Array1::from_elem(n, 1.0) * v`",
            );
            return self.error_node(whole.span());
        }
        match self.float_constant(whole) {
            Some(array) => self.constant(&array, ""),
            None => self.constant(whole, ""),
        }
    }

    /// `vec![..]` and `array![..]` of floats: as the literal they hold
    /// (`None` for any other macro).
    pub(super) fn container_macro(&mut self, whole: &Expr, mac: &syn::Macro) -> Option<NodeId> {
        let name = mac.path.segments.last()?.ident.to_string();
        if name != "vec" && name != "array" {
            return None;
        }
        let list = Punctuated::<Expr, syn::Token![,]>::parse_terminated.parse2(mac.tokens.clone());
        if let Ok(list) = list {
            let elems: Vec<&Expr> = list.iter().collect();
            if name == "array" && !self.mentions_varying(whole) {
                // ndarray's own constant: Rust's.
                return Some(self.constant(whole, ""));
            }
            let literal: Expr = syn::parse_quote_spanned!(mac.span()=> [#(#elems),*]);
            if !self.mentions_varying(whole) && self.float_constant(&literal).is_none() {
                // A `Vec` of constants stays one (`g(v)` of `v: Vec<f64>`).
                return Some(self.plain_constant(whole));
            }
            return Some(self.array_literal(&literal, &elems));
        }
        let repeat = |input: syn::parse::ParseStream| {
            let value: Expr = input.parse()?;
            input.parse::<syn::Token![;]>()?;
            let len: Expr = input.parse()?;
            Ok((value, len))
        };
        let (value, len) = repeat.parse2(mac.tokens.clone()).ok()?;
        let literal: Expr = syn::parse_quote_spanned!(mac.span()=> [#value; #len]);
        Some(self.repeat_literal(&literal, &value))
    }

    /// A constant literal of floats (`[0.5, 1.5]`, `[0.0; n]`, `[[1.0, 2.0],
    /// [3.0, 4.0]]`, `[[0.0; m]; n]`) as the ndarray array it is in the
    /// generated code; `None` where its elements are not floats.
    fn float_constant(&self, e: &Expr) -> Option<Expr> {
        let krate = &self.env.krate;
        match shape_of(e)? {
            Literal::List(axes) => {
                let f: TokenStream = if axes == 1 {
                    quote!(#krate::ndarray::arr1)
                } else {
                    quote!(#krate::ndarray::arr2)
                };
                Some(syn::parse_quote_spanned!(e.span()=> #f(&#e)))
            }
            Literal::Repeat { value, lens } => Some(match lens.as_slice() {
                [n] => syn::parse_quote_spanned!(e.span()=>
                    #krate::ndarray::Array1::from_elem(#n, #value)),
                [n, m] => syn::parse_quote_spanned!(e.span()=>
                    #krate::ndarray::Array2::from_elem((#n, #m), #value)),
                _ => return None,
            }),
        }
    }
}

/// What a constant literal of floats is.
enum Literal {
    /// `[a, b]` or `[[a, b], [c, d]]`: its number of axes.
    List(usize),
    /// `[c; n]` or `[[c; m]; n]`: the value and the lengths, outer first.
    Repeat { value: Expr, lens: Vec<Expr> },
}

/// The shape of a literal of floats (an element has a float literal in it,
/// `0.5`, `-1.0`, `2.0 * c`); `None` for any other expression.
fn shape_of(e: &Expr) -> Option<Literal> {
    match strip(e) {
        Expr::Array(a) if !a.elems.is_empty() => {
            if a.elems.iter().all(|x| matches!(strip(x), Expr::Array(_))) {
                let rows: Option<Vec<Literal>> = a.elems.iter().map(shape_of).collect();
                match rows?.first()? {
                    Literal::List(1) => Some(Literal::List(2)),
                    _ => None,
                }
            } else if a.elems.iter().all(has_float_literal) {
                Some(Literal::List(1))
            } else {
                None
            }
        }
        Expr::Repeat(r) => match shape_of(&r.expr) {
            Some(Literal::Repeat { value, mut lens }) if lens.len() == 1 => {
                lens.insert(0, (*r.len).clone());
                Some(Literal::Repeat { value, lens })
            }
            Some(_) => None,
            None if has_float_literal(&r.expr) => Some(Literal::Repeat {
                value: (*r.expr).clone(),
                lens: vec![(*r.len).clone()],
            }),
            None => None,
        },
        _ => None,
    }
}

/// Whether a float literal is in `e` (`0.0`, `-1.5`, `2.0 * c`).
fn has_float_literal(e: &Expr) -> bool {
    struct Find(bool);
    impl<'a> syn::visit::Visit<'a> for Find {
        fn visit_lit_float(&mut self, _: &'a syn::LitFloat) {
            self.0 = true;
        }
    }
    let mut f = Find(false);
    syn::visit::Visit::visit_expr(&mut f, e);
    f.0
}

/// `e` without parentheses and groups.
fn strip(e: &Expr) -> &Expr {
    match e {
        Expr::Paren(p) => strip(&p.expr),
        Expr::Group(g) => strip(&g.expr),
        other => other,
    }
}

/// Reports each use of an array of arrays (a `[[f64; M]; N]` parameter, a
/// nested literal of floats bound by `let`) other than by element,
/// `m[i][j]` (read, written, or compound-assigned), or whole as the argument
/// of a call. The generated code holds such a value as an `N × M` matrix,
/// on which `len()`, `iter()` and `m[i]` would mean the elements, not the
/// rows: rather than a different answer, an error.
pub(super) fn check_nested(
    func: &crate::ast::Function,
    body: &syn::Block,
    cx: &mut crate::ctxt::Ctxt,
) {
    use crate::ast::{Kind, Plain};
    use syn::visit::Visit;

    struct Uses<'c> {
        names: Vec<String>,
        cx: &'c mut crate::ctxt::Ctxt,
    }
    impl Uses<'_> {
        fn named(&self, e: &Expr) -> bool {
            matches!(strip(e), Expr::Path(p) if p.qself.is_none()
                && p.path.get_ident().is_some_and(|i| self.names.iter().any(|n| i == n)))
        }
    }
    impl<'a> Visit<'a> for Uses<'_> {
        fn visit_local(&mut self, local: &'a syn::Local) {
            if let Some(init) = &local.init {
                self.visit_expr(&init.expr);
                if let syn::Pat::Ident(p) = &local.pat {
                    let nested = matches!(shape_of(&init.expr), Some(Literal::List(2)))
                        || matches!(shape_of(&init.expr), Some(Literal::Repeat { lens, .. }) if lens.len() == 2);
                    let name = p.ident.to_string();
                    if nested {
                        self.names.push(name);
                    } else {
                        // A `let` of another value shadows the name.
                        self.names.retain(|n| *n != name);
                    }
                }
            }
        }
        fn visit_expr(&mut self, e: &'a Expr) {
            match e {
                Expr::Index(outer) => {
                    if let Expr::Index(inner) = strip(&outer.expr) {
                        if self.named(&inner.expr) {
                            self.visit_expr(&inner.index);
                            self.visit_expr(&outer.index);
                            return;
                        }
                    }
                    syn::visit::visit_expr(self, e);
                }
                Expr::Call(call) => {
                    self.visit_expr(&call.func);
                    for arg in &call.args {
                        let whole = match strip(arg) {
                            Expr::Reference(r) => &*r.expr,
                            other => other,
                        };
                        if !self.named(whole) {
                            self.visit_expr(arg);
                        }
                    }
                }
                Expr::Path(_) if self.named(e) => {
                    self.cx.error_at(e, "an array of arrays (`[[f64; M]; N]`) is read and written by element in a differentiable function, `m[i][j]`, or passed whole to a call; its length, rows and iterators are not supported yet: loop over indices (`for i in 0..N { .. m[i][j] .. }`)");
                }
                _ => syn::visit::visit_expr(self, e),
            }
        }
    }
    let names = func
        .params
        .iter()
        .filter(|p| {
            matches!(
                p.kind,
                Kind::Array {
                    axes: Some(2),
                    plain: Some(Plain::Fixed),
                    ..
                }
            )
        })
        .map(|p| p.ident.to_string())
        .collect();
    let mut uses = Uses { names, cx };
    uses.visit_block(body);
}

/// Whether a `let`'s value is a container of one axis of numbers written
/// as Rust's: `vec![..]`, `[a, b]`, `[0.0; n]` (not of arrays or `vec!`s).
pub(super) fn rust_container(e: &Expr) -> bool {
    let nested = |e: &Expr| matches!(strip(e), Expr::Array(_) | Expr::Repeat(_) | Expr::Macro(_));
    match strip(e) {
        Expr::Array(a) => !a.elems.iter().any(nested),
        Expr::Repeat(r) => !nested(&r.expr),
        Expr::Macro(m) => {
            m.mac.path.is_ident("vec")
                && !m.mac.tokens.clone().into_iter().any(|t| {
                    matches!(&t, proc_macro2::TokenTree::Group(g) if g.delimiter() == proc_macro2::Delimiter::Bracket)
                        || matches!(&t, proc_macro2::TokenTree::Ident(i) if i == "vec")
                })
        }
        _ => false,
    }
}

/// In an expression passed through as a constant, a container parameter
/// of one axis (`xs: &[f64]`, `Vec<f64>`, `[f64; N]`, which the generated
/// code holds as an ndarray view), or a local container written as Rust's
/// (`vec![0.0; n]`, held as an `Array1`), read as the slice it is,
/// `bp::plain_slice(&xs)`: Rust's spellings keep their meaning (`xs.chunks(3)`,
/// `&xs[1..]`, `xs.first()`, `xs.to_vec()`).
pub(super) fn slice_methods(
    expr: &mut Expr,
    containers: &std::collections::HashSet<String>,
    krate: &TokenStream,
) {
    use syn::visit_mut::VisitMut;
    struct Rewrite<'a> {
        containers: &'a std::collections::HashSet<String>,
        krate: &'a TokenStream,
    }
    impl Rewrite<'_> {
        /// Whether `e` names one of the containers.
        fn container(&self, e: &Expr) -> bool {
            matches!(e, Expr::Path(p) if p.qself.is_none()
                && p.path
                    .get_ident()
                    .is_some_and(|n| self.containers.contains(&n.to_string())))
        }
    }
    impl VisitMut for Rewrite<'_> {
        fn visit_expr_mut(&mut self, e: &mut Expr) {
            // `x.raw_dim()` is the walk's own (`x[unravel(x.raw_dim(), k)]`),
            // of the view: a slice has no such method.
            if let Expr::MethodCall(m) = e {
                if m.method == "raw_dim" && matches!(&*m.receiver, Expr::Path(_)) {
                    return;
                }
            }
            // `&xs` is the slice itself (`for &v in &xs`, `a.zip(&xs)`).
            if let Expr::Reference(r) = e {
                if r.mutability.is_none() && self.container(&r.expr) {
                    let p = &r.expr;
                    let krate = self.krate;
                    let span = p.span();
                    *e = syn::parse_quote_spanned!(span=> #krate::__private::plain_slice(&#p));
                    return;
                }
            }
            if self.container(e) {
                let krate = self.krate;
                let span = e.span();
                let p = e.clone();
                *e = syn::parse_quote_spanned!(span=> #krate::__private::plain_slice(&#p));
                return;
            }
            if matches!(e, Expr::Path(_)) {
                return;
            }
            syn::visit_mut::visit_expr_mut(self, e);
        }
        fn visit_macro_mut(&mut self, _: &mut syn::Macro) {}
    }
    Rewrite { containers, krate }.visit_expr_mut(expr);
}

/// A function whose value is a fixed-size container (`-> [f64; 3]`,
/// `-> Vector3<f64>`) written as a literal of its elements that nothing
/// else reads: the literal is made on the stack (`Op::PackFixed`), and so
/// is the upstream gradient.
pub(super) fn fixed_value(
    graph: &mut crate::graph::Graph,
    func: &crate::ast::Function,
    outputs: &[NodeId],
) {
    let ([output], Some(crate::ast::Plain::Fixed)) = (outputs, func.plain_output) else {
        return;
    };
    let Node::Op { op: Op::Pack, .. } = graph.get(*output).node else {
        return;
    };
    let read = graph.ids().any(|id| match &graph.get(id).node {
        Node::Op { inputs, .. } => inputs.contains(output),
        Node::Loop(lp) => lp.inputs.contains(output),
        Node::Branch(b) => b.arm_inputs.iter().any(|a| a.contains(output)),
        Node::Out { of, .. } => of == output,
        _ => false,
    });
    if !read {
        if let Node::Op {
            op: ref mut kind, ..
        } = graph.nodes[output.index()].node
        {
            *kind = Op::PackFixed;
        }
    }
}
