//! Emission: the graph becomes the gradient struct and `NAME_backward`.
//!
//! The forward pass is one `let` per live node, in order; the reverse sweep is
//! one `let` per contribution, in reverse order. A value used k times gets k
//! contributions and one `let d_x = c1 + ... + ck;` (the fork rule, written
//! once: no zero-filled accumulator). The last read of an adjoint moves it into
//! its rule, so the rule can reuse its buffer; earlier reads borrow it.

use crate::ast::{Function, Kind};
use crate::check::Analysis;
use crate::graph::{Call, CallArg, Name, Node, NodeId, Op, Vjps};
use crate::lower::{Lowered, NODE_MARKER};
use proc_macro2::{Delimiter, Group, Ident, Span, TokenStream, TokenTree};
use quote::{format_ident, quote, quote_spanned, ToTokens};
use std::collections::HashSet;

/// Hands out names that collide with nothing the user wrote nor with each other.
pub struct Namer {
    /// Every identifier in the user's function.
    used: HashSet<String>,
    taken: HashSet<String>,
}

impl Namer {
    pub fn new(used: HashSet<String>) -> Namer {
        Namer {
            used,
            taken: HashSet::new(),
        }
    }

    fn free(&self, name: &str) -> bool {
        !self.taken.contains(name) && !self.used.contains(name)
    }

    fn take(&mut self, name: String) -> Ident {
        let ident = Ident::new(&name, Span::call_site());
        self.taken.insert(name);
        ident
    }

    /// The user's own name where possible (the first binding of it), else
    /// `name_1`, `name_2`, ...
    pub fn user(&mut self, name: &str) -> Ident {
        if !self.taken.contains(name) {
            return self.take(name.to_owned());
        }
        self.numbered(name)
    }

    /// `want` if it is free, else `want_1`, `want_2`, ...
    pub fn fresh(&mut self, want: &str) -> Ident {
        if self.free(want) {
            return self.take(want.to_owned());
        }
        self.numbered(want)
    }

    /// `base_1`, `base_2`, ...: the first free one.
    pub fn numbered(&mut self, base: &str) -> Ident {
        let mut k = 1;
        loop {
            let name = format!("{base}_{k}");
            if self.free(&name) {
                return self.take(name);
            }
            k += 1;
        }
    }
}

/// Every identifier in a token stream.
pub fn idents(tokens: TokenStream, out: &mut HashSet<String>) {
    for tt in tokens {
        match tt {
            TokenTree::Ident(i) => {
                out.insert(i.to_string());
            }
            TokenTree::Group(g) => idents(g.stream(), out),
            _ => {}
        }
    }
}

/// `two_heads` -> `TwoHeadsGrad`.
pub fn grad_struct_name(f: &Ident) -> Ident {
    let s = f.to_string();
    let s = s.strip_prefix("r#").unwrap_or(&s);
    let mut camel = String::new();
    for part in s.split('_').filter(|p| !p.is_empty()) {
        let mut chars = part.chars();
        if let Some(c) = chars.next() {
            camel.extend(c.to_uppercase());
            camel.push_str(chars.as_str());
        }
    }
    format_ident!("{}Grad", camel, span = f.span())
}

/// The gradient struct, the `Gradient` impl and the signature of
/// `NAME_backward`, shared by the real expansion and the fallback.
pub struct Frame {
    pub struct_name: Ident,
    pub d_out: Ident,
    pub items: TokenStream,
    pub signature: TokenStream,
}

/// `real` is false for the fallback expansion, whose functions cannot run.
pub fn frame(func: &Function, krate: &TokenStream, namer: &mut Namer, real: bool) -> Frame {
    let sig = &func.item.sig;
    let vis = &func.item.vis;
    let name = &sig.ident;
    let struct_name = grad_struct_name(name);
    let backward_name = format_ident!("{}_backward", name, span = name.span());
    let fields: Vec<TokenStream> = func
        .params
        .iter()
        .filter(|p| p.differentiable)
        .map(|p| {
            let ident = &p.ident;
            let ty = match &p.kind {
                Kind::Scalar(e) => e.ident().into_token_stream(),
                Kind::Array { owned, .. } => owned.clone(),
                Kind::Constant => unreachable!("only float parameters are differentiable"),
            };
            let doc = format!("The gradient with respect to `{ident}`.");
            quote!(#[doc = #doc] pub #ident: #ty)
        })
        .collect();
    let field_names: Vec<&Ident> = func
        .params
        .iter()
        .filter(|p| p.differentiable)
        .map(|p| &p.ident)
        .collect();
    let field_strs: Vec<String> = field_names.iter().map(|i| i.to_string()).collect();
    let struct_doc = format!(
        "The gradient of [`{name}`] with respect to its differentiable parameters, one field each, written by `#[differentiable]`."
    );
    let items = quote! {
        #[doc = #struct_doc]
        #[derive(Debug, Clone)]
        #vis struct #struct_name {
            #(#fields,)*
        }

        impl #krate::__private::Gradient for #struct_name {
            fn fields(&self) -> ::std::vec::Vec<(&'static str, ::std::vec::Vec<f64>)> {
                ::std::vec![#((#field_strs, #krate::__private::flatten(&self.#field_names)),)*]
            }
        }
    };
    let d_out = namer.fresh("d_out");
    let ret = match &sig.output {
        syn::ReturnType::Type(_, ty) => ty.to_token_stream(),
        syn::ReturnType::Default => quote!(()),
    };
    let d_out_ty = if func.array_output {
        quote!(&#ret)
    } else {
        func.elem.ident().into_token_stream()
    };
    let inputs = strip_mut(sig.inputs.iter());
    let generics = &sig.generics;
    let doc = format!(
        "Runs [`{name}`] and its reverse sweep: returns the value and the gradient of `d_out · {name}(..)` with respect to every differentiable parameter (pass `d_out = 1.0` for a scalar loss). Written by `#[differentiable]`."
    );
    let signature = quote! {
        #[doc = #doc]
        #[allow(unused_variables, unused_imports, clippy::all)]
        #vis fn #backward_name #generics(#(#inputs,)* #d_out: #d_out_ty) -> (#ret, #struct_name)
    };
    // `NAME_vjp`: the gradients by position, for callers of this function.
    let vjp_name = format_ident!("{}_vjp", name, span = name.span());
    let ret_owned = if func.array_output {
        ret.clone()
    } else {
        func.elem.ident().into_token_stream()
    };
    let d_arg = if func.array_output {
        quote!(#krate::__private::Cot::get(&#d_out))
    } else {
        quote!(*#krate::__private::Cot::get(&#d_out))
    };
    let arg_names: Vec<&Ident> = func.params.iter().map(|p| &p.ident).collect();
    let grad = Namer::new(namer.used.clone()).fresh("grad");
    let positional: Vec<TokenStream> = func
        .params
        .iter()
        .map(|p| {
            let ident = &p.ident;
            if p.differentiable {
                quote!(#grad.#ident)
            } else {
                quote!(#krate::__private::NotDifferentiable)
            }
        })
        .collect();
    let positional_types: Vec<TokenStream> = func
        .params
        .iter()
        .map(|p| match (&p.kind, p.differentiable) {
            (Kind::Scalar(e), true) => e.ident().into_token_stream(),
            (Kind::Array { owned, .. }, true) => owned.clone(),
            _ => quote!(#krate::__private::NotDifferentiable),
        })
        .collect();
    let vjp_doc = format!(
        "The gradients of [`{name}`] by parameter position (`NotDifferentiable` for a constant), for differentiable functions that call `{name}`. Written by `#[differentiable]`."
    );
    let vjp_inputs = strip_mut(sig.inputs.iter());
    let vjp_inputs2 = strip_mut(sig.inputs.iter());
    let backward_name = format_ident!("{}_backward", name, span = name.span());
    let vjp = quote! {
        #[doc = #vjp_doc]
        #[doc(hidden)]
        #[allow(clippy::all)]
        #vis fn #vjp_name #generics(#(#vjp_inputs,)* #d_out: impl #krate::__private::Cot<#ret_owned>) -> (#(#positional_types,)*) {
            let (_, #grad) = #backward_name(#(#arg_names,)* #d_arg);
            (#(#positional,)*)
        }
    };
    let vjp = if real {
        vjp
    } else {
        quote! {
            #[doc(hidden)]
            #[allow(unused_variables, clippy::all)]
            #vis fn #vjp_name #generics(#(#vjp_inputs2,)* #d_out: impl #krate::__private::Cot<#ret_owned>) -> (#(#positional_types,)*) {
                ::core::unreachable!("#[differentiable] reported an error for this function")
            }
        }
    };
    let items = quote!(#items #vjp);
    Frame {
        struct_name,
        d_out,
        items,
        signature,
    }
}

/// The parameters without `mut`: that is for the user's body, not ours.
fn strip_mut<'a>(
    inputs: impl Iterator<Item = &'a syn::FnArg> + 'a,
) -> impl Iterator<Item = syn::FnArg> + 'a {
    inputs.cloned().map(|mut arg| {
        if let syn::FnArg::Typed(pt) = &mut arg {
            if let syn::Pat::Ident(pi) = &mut *pt.pat {
                pi.mutability = None;
            }
        }
        arg
    })
}

/// Writes the body of `NAME_backward`.
pub struct Emitter<'a> {
    func: &'a Function,
    l: &'a Lowered,
    a: &'a Analysis,
    bp: Ident,
    namer: Namer,
    /// The local each node lives in (`None` for literals).
    names: Vec<Option<Ident>>,
    /// The saved intermediate of an op that keeps one (softmax probabilities).
    saved: Vec<Option<Ident>>,
    /// The adjoint of each active node.
    adj: Vec<Option<Ident>>,
    /// The contributions written so far to each node used more than once.
    contributions: Vec<Vec<Ident>>,
}

pub fn emit(
    func: &Function,
    l: &Lowered,
    a: &Analysis,
    krate: &TokenStream,
    mut namer: Namer,
) -> TokenStream {
    let frame = frame(func, krate, &mut namer, true);
    let bp = namer.fresh("bp");
    let mut e = Emitter {
        func,
        l,
        a,
        bp,
        namer,
        names: Vec::new(),
        saved: Vec::new(),
        adj: Vec::new(),
        contributions: vec![Vec::new(); l.graph.len()],
    };
    e.assign_names(&frame.d_out);
    let forward = e.forward();
    let reverse = e.reverse(&frame.d_out);
    let value = e.value();
    let grad = e.namer.fresh("grad");
    let fields = e.grad_fields();
    let struct_name = &frame.struct_name;
    let bp = &e.bp;
    let item = &func.item;
    let signature = &frame.signature;
    let items = &frame.items;
    quote! {
        #item

        #items

        #signature {
            use #krate::__private as #bp;
            #(#forward)*
            #(#reverse)*
            let #grad = #struct_name { #(#fields,)* };
            (#value, #grad)
        }
    }
}

impl Emitter<'_> {
    fn node(&self, id: NodeId) -> &Node {
        &self.l.graph.get(id).node
    }

    fn span(&self, id: NodeId) -> Span {
        self.l.graph.get(id).span
    }

    fn name(&self, id: NodeId) -> &Ident {
        self.names[id.index()]
            .as_ref()
            .expect("a node with a local")
    }

    fn adj(&self, id: NodeId) -> &Ident {
        self.adj[id.index()].as_ref().expect("an active node")
    }

    fn assign_names(&mut self, d_out: &Ident) {
        for id in self.l.graph.ids() {
            let data = self.l.graph.get(id);
            let live = self.a.live[id.index()];
            let name = match (&data.node, &data.name) {
                (Node::Param(i), _) => {
                    let ident = self.func.params[*i].ident.clone();
                    self.namer.taken.insert(ident.to_string());
                    Some(ident)
                }
                (Node::Float(_) | Node::Int(_) | Node::Error, _) => None,
                _ if !live => None,
                (_, Name::User(n)) => Some(self.namer.user(n)),
                (_, Name::Temp(base)) => Some(self.namer.numbered(base)),
                (_, Name::Output) => Some(self.namer.fresh("out")),
            };
            let saved = match (&data.node, &name) {
                (Node::Op { op, .. }, Some(n)) => op
                    .spec()
                    .saves
                    .map(|s| self.namer.fresh(&format!("{n}_{s}"))),
                _ => None,
            };
            self.names.push(name);
            self.saved.push(saved);
        }
        for id in self.l.graph.ids() {
            let adj = if !self.a.active[id.index()] {
                None
            } else if id == self.l.output && matches!(self.l.graph.get(id).name, Name::Output) {
                Some(d_out.clone())
            } else {
                let want = format!("d_{}", self.name(id));
                Some(self.namer.fresh(&want))
            };
            self.adj.push(adj);
        }
    }

    /// How an op receives a node: parameters that are references bare,
    /// everything else borrowed.
    fn operand(&self, id: NodeId) -> TokenStream {
        match self.node(id) {
            Node::Param(i) => {
                let p = &self.func.params[*i];
                let ident = &p.ident;
                if p.by_ref {
                    quote!(#ident)
                } else {
                    quote!(&#ident)
                }
            }
            Node::Float(t) => quote!(&#t),
            _ => {
                let n = self.name(id);
                quote!(&#n)
            }
        }
    }

    /// Constant tokens with every node marker replaced by that node's name.
    fn subst(&self, tokens: &TokenStream) -> TokenStream {
        tokens
            .clone()
            .into_iter()
            .map(|tt| match tt {
                TokenTree::Ident(i) => {
                    let s = i.to_string();
                    match s
                        .strip_prefix(NODE_MARKER)
                        .and_then(|n| n.parse::<u32>().ok())
                    {
                        Some(n) => {
                            let id = NodeId(n);
                            match self.node(id) {
                                Node::Float(t) | Node::Int(t) => {
                                    TokenTree::Group(Group::new(Delimiter::Parenthesis, t.clone()))
                                }
                                _ => TokenTree::Ident(self.name(id).clone()),
                            }
                        }
                        None => TokenTree::Ident(i),
                    }
                }
                TokenTree::Group(g) => {
                    let mut ng = Group::new(g.delimiter(), self.subst(&g.stream()));
                    ng.set_span(g.span());
                    TokenTree::Group(ng)
                }
                other => other,
            })
            .collect()
    }

    /// The forward pass: one `let` per live node.
    fn forward(&self) -> Vec<TokenStream> {
        let bp = &self.bp;
        let mut out = Vec::new();
        for id in self.l.graph.ids() {
            if !self.a.live[id.index()] {
                continue;
            }
            let span = self.span(id);
            match self.node(id) {
                Node::Const(c) => {
                    let name = self.name(id);
                    let tokens = self.subst(&c.tokens);
                    out.push(quote_spanned!(span=> let #name = #tokens;));
                }
                Node::Op { op, inputs, consts } => {
                    let name = self.name(id);
                    let args: Vec<TokenStream> = inputs.iter().map(|i| self.operand(*i)).collect();
                    let consts: Vec<TokenStream> =
                        consts.iter().map(|c| self.subst(&c.tokens)).collect();
                    let spec = op.spec();
                    let f = || Ident::new(spec.forward, span);
                    let stmt = if let Op::Call(k) = op {
                        let call = &self.l.graph.calls[*k as usize];
                        let path = &call.path;
                        let args = self.call_args(call, inputs);
                        quote_spanned!(span=> let #name = #path(#(#args),*);)
                    } else if *op == Op::Concat {
                        let f = f();
                        quote_spanned!(span=> let #name = #bp::#f(#(#consts),*, &[#(#args),*]);)
                    } else if let Some(saved) = &self.saved[id.index()] {
                        let f = format_ident!("{}_fwd", spec.forward, span = span);
                        quote_spanned!(span=> let (#name, #saved) = #bp::#f(#(#args,)* #(#consts),*);)
                    } else {
                        let f = f();
                        quote_spanned!(span=> let #name = #bp::#f(#(#args),* #(, #consts)*);)
                    };
                    out.push(stmt);
                }
                Node::Param(_) | Node::Float(_) | Node::Int(_) | Node::Error => {}
            }
        }
        out
    }

    /// The reverse sweep: for each active node, latest first, its adjoint
    /// (the sum of its contributions) and then its contributions to its inputs.
    fn reverse(&mut self, d_out: &Ident) -> Vec<TokenStream> {
        let bp = self.bp.clone();
        let mut out = Vec::new();
        for id in self.l.graph.ids().rev() {
            if !self.a.active[id.index()] {
                continue;
            }
            let adj = self.adj(id).clone();
            if id == self.l.output {
                if adj != *d_out {
                    out.push(quote!(let #adj = #d_out;));
                }
            } else if self.a.uses[id.index()].len() > 1 {
                let parts = &self.contributions[id.index()];
                out.push(quote!(let #adj = #(#parts)+*;));
            }
            let Node::Op { op, inputs, consts } = self.node(id).clone() else {
                continue;
            };
            let span = self.span(id);
            let spec = op.spec();
            let args: Vec<TokenStream> = inputs.iter().map(|i| self.operand(*i)).collect();
            let consts: Vec<TokenStream> = consts.iter().map(|c| self.subst(&c.tokens)).collect();
            let tail: Vec<TokenStream> = match (&self.saved[id.index()], spec.needs_out) {
                (Some(saved), _) => vec![quote!(&#saved)],
                (None, true) => {
                    let n = self.name(id);
                    vec![quote!(&#n)]
                }
                (None, false) => Vec::new(),
            };
            let active: Vec<usize> = (0..inputs.len())
                .filter(|&p| self.a.active[inputs[p].index()])
                .collect();
            if let Op::Call(k) = op {
                let call = self.l.graph.calls[k as usize].clone();
                let mut targets: Vec<TokenStream> = Vec::new();
                for a in &call.args {
                    match a {
                        CallArg::Input { input, .. } if self.a.active[inputs[*input].index()] => {
                            let target = self.contribution_target(inputs[*input], id);
                            targets.push(target.into_token_stream());
                        }
                        _ => targets.push(quote!(_)),
                    }
                }
                let vjp = &call.vjp;
                let args = self.call_args(&call, &inputs);
                out.push(quote_spanned!(span=> let (#(#targets,)*) = #vjp(#(#args,)* #adj);));
                continue;
            }
            for (j, &pos) in active.iter().enumerate() {
                let input = inputs[pos];
                // An array output's upstream gradient arrives by reference already.
                let borrowed = id == self.l.output && self.func.array_output;
                let g = if j + 1 == active.len() || borrowed {
                    quote!(#adj)
                } else {
                    quote!(&#adj)
                };
                let target = self.contribution_target(input, id);
                let call = match spec.vjps {
                    Vjps::Indexed(rule) => {
                        let rule = Ident::new(rule, span);
                        quote_spanned!(span=> #bp::#rule(#g, #(#consts),*, &[#(#args),*], #pos #(, #tail)*))
                    }
                    Vjps::One(rule) => {
                        let rule = Ident::new(rule, span);
                        quote_spanned!(span=> #bp::#rule(#g, #(#args,)* #(#consts,)* #(#tail)*))
                    }
                    Vjps::Two(lhs, rhs) => {
                        let rule = Ident::new(if pos == 0 { lhs } else { rhs }, span);
                        quote_spanned!(span=> #bp::#rule(#g, #(#args,)* #(#consts,)* #(#tail)*))
                    }
                };
                out.push(quote!(let #target = #call;));
            }
        }
        out
    }

    /// The name of the contribution of `consumer` to the adjoint of `input`:
    /// the adjoint itself when it is the only one.
    fn contribution_target(&mut self, input: NodeId, consumer: NodeId) -> Ident {
        if self.a.uses[input.index()].len() == 1 {
            return self.adj(input).clone();
        }
        let want = format!("{}_from_{}", self.adj(input), self.name(consumer));
        let c = self.namer.fresh(&want);
        self.contributions[input.index()].push(c.clone());
        c
    }

    /// The arguments of a call as the user passed them: borrowed values
    /// borrowed, values by value cloned (a clone of a reference or a float is a
    /// copy), constants as written.
    fn call_args(&self, call: &Call, inputs: &[NodeId]) -> Vec<TokenStream> {
        call.args
            .iter()
            .map(|a| match a {
                CallArg::Const(c) => self.subst(&c.tokens),
                CallArg::Input {
                    input,
                    by_ref: true,
                } => self.operand(inputs[*input]),
                CallArg::Input {
                    input,
                    by_ref: false,
                } => {
                    let id = inputs[*input];
                    match self.node(id) {
                        Node::Float(t) => t.clone(),
                        Node::Param(i) => {
                            let p = &self.func.params[*i];
                            let ident = &p.ident;
                            // A reference or a float is copied; an array by value is cloned.
                            if p.by_ref || matches!(p.kind, Kind::Scalar(_)) {
                                quote!(#ident)
                            } else {
                                quote!(::core::clone::Clone::clone(&#ident))
                            }
                        }
                        _ => {
                            let n = self.name(id);
                            quote!(::core::clone::Clone::clone(&#n))
                        }
                    }
                }
            })
            .collect()
    }

    /// The value the function returns.
    fn value(&self) -> TokenStream {
        let id = self.l.output;
        match self.node(id) {
            Node::Param(i) => {
                let p = &self.func.params[*i];
                let ident = &p.ident;
                if p.by_ref {
                    quote!(::core::clone::Clone::clone(#ident))
                } else {
                    quote!(#ident)
                }
            }
            Node::Float(t) | Node::Int(t) => t.clone(),
            _ => self.name(id).to_token_stream(),
        }
    }

    /// `w: d_w` for each differentiable parameter; a zero where the parameter
    /// does not reach the value.
    fn grad_fields(&self) -> Vec<TokenStream> {
        let bp = &self.bp;
        let mut out = Vec::new();
        for id in self.l.graph.ids() {
            let Node::Param(i) = self.node(id) else {
                continue;
            };
            let p = &self.func.params[*i];
            if !p.differentiable {
                continue;
            }
            let ident = &p.ident;
            if self.a.active[id.index()] {
                let adj = self.adj(id);
                out.push(quote!(#ident: #adj));
            } else {
                let arg = self.operand(id);
                out.push(quote!(#ident: #bp::zeros_like(#arg)));
            }
        }
        out
    }
}
