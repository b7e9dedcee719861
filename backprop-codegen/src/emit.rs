//! Emission: the graph becomes the gradient struct and `NAME_backward`.
//!
//! The forward pass is one `let` per live node, in order; the reverse sweep is
//! one `let` per contribution, in reverse order. A value used k times gets k
//! contributions and one `let d_x = c1 + ... + ck;` (the fork rule, written
//! once: no zero-filled accumulator). The last read of an adjoint moves it into
//! its rule, so the rule can reuse its buffer; earlier reads borrow it.

use crate::ast::{Function, Kind};
use crate::check::Analysis;
use crate::graph::{Branch, Call, CallArg, ConstArg, Form, Graph, Loop, Name, Node, NodeId};
use crate::lower::Lowered;
use crate::vocab::{fused, Op, Rules};
use proc_macro2::{Ident, Literal, Span, TokenStream, TokenTree};
use quote::{format_ident, quote, quote_spanned, ToTokens};
use std::collections::{HashMap, HashSet};

/// Hands out names that collide with nothing the user wrote nor with each other.
pub struct Namer {
    /// Every identifier in the user's function.
    used: HashSet<String>,
    taken: HashSet<String>,
    /// The next number to try for each base (so numbering stays linear).
    next: HashMap<String, usize>,
}

impl Namer {
    pub fn new(used: HashSet<String>) -> Namer {
        Namer {
            used,
            taken: HashSet::new(),
            next: HashMap::new(),
        }
    }

    fn free(&self, name: &str) -> bool {
        !self.taken.contains(name) && !self.used.contains(name)
    }

    fn take(&mut self, name: String) -> Ident {
        // A raw identifier of the user (`r#type`) stays raw; a name derived
        // from one (`d_type`) needs no `r#`.
        let ident = match name.strip_prefix("r#") {
            Some(raw) => Ident::new_raw(raw, Span::call_site()),
            None => Ident::new(&name.replace("r#", ""), Span::call_site()),
        };
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
        let mut k = self.next.get(base).copied().unwrap_or(1);
        loop {
            let name = format!("{base}_{k}");
            k += 1;
            if self.free(&name) {
                self.next.insert(base.to_owned(), k);
                return self.take(name);
            }
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
            let doc = format!(" The gradient with respect to `{ident}`.");
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
        " The gradient of [`{name}`] with respect to its differentiable parameters, one field each, written by `#[differentiable]`."
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
        " Runs [`{name}`] and its reverse sweep: returns the value and the gradient of `d_out · {name}(..)` with respect to every differentiable parameter (pass `d_out = 1.0` for a scalar loss). Written by `#[differentiable]`."
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
        " The gradients of [`{name}`] by parameter position (`NotDifferentiable` for a constant), for differentiable functions that call `{name}`. Written by `#[differentiable]`."
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

/// The user's function, unchanged but for one lint: a `for` loop over a range
/// is the only loop a differentiable function may have, so clippy's advice to
/// iterate over the indexed data instead (`needless_range_loop`) cannot be
/// followed there.
pub fn original_item(func: &Function) -> TokenStream {
    struct HasLoop(bool);
    impl<'ast> syn::visit::Visit<'ast> for HasLoop {
        fn visit_expr_for_loop(&mut self, _: &'ast syn::ExprForLoop) {
            self.0 = true;
        }
    }
    let mut v = HasLoop(false);
    syn::visit::Visit::visit_block(&mut v, &func.item.block);
    let item = &func.item;
    if v.0 {
        quote!(#[allow(clippy::needless_range_loop)] #item)
    } else {
        item.to_token_stream()
    }
}

/// The locals a region keeps for its reverse sweep, moved, except those that
/// also leave the region as its results (`next`), which are cloned.
///
/// A view (`t`, `row`, ...) borrows the local it views, so it is kept as an
/// owned copy, and views come first (see [`views_first`]), before the locals
/// they borrow are moved.
fn keep(
    locals: &[Ident],
    next: &[TokenStream],
    views: &HashSet<String>,
    bp: &Ident,
) -> Vec<TokenStream> {
    locals
        .iter()
        .map(|n| {
            if views.contains(&n.to_string()) {
                quote!(#bp::copy(&#n))
            } else if next.iter().any(|x| *n == x.to_string()) {
                quote!(::core::clone::Clone::clone(&#n))
            } else {
                n.to_token_stream()
            }
        })
        .collect()
}

/// The locals a region keeps, views first.
fn views_first(locals: &mut [Ident], views: &HashSet<String>) {
    locals.sort_by_key(|n| !views.contains(&n.to_string()));
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

/// Writes `NAME_backward`: the original function, the frame, and the body.
pub fn emit(
    func: &Function,
    l: &Lowered,
    a: &Analysis,
    krate: &TokenStream,
    mut namer: Namer,
) -> TokenStream {
    let frame = frame(func, krate, &mut namer, true);
    let bp = namer.fresh("bp");
    let mut sh = Shared { func, bp, namer };
    let mut body = GraphEmitter::new(&l.graph, a, Vec::new(), None, vec![l.output]);
    body.top_level = true;
    body.seed(l.output, frame.d_out.to_token_stream(), func.array_output);
    body.assign_names(&mut sh, Some((l.output, &frame.d_out)));
    let forward = body.forward(&mut sh);
    let reverse = body.reverse(&mut sh);
    let value = body.value(&sh, l.output);
    let grad = sh.namer.fresh("grad");
    let fields = body.grad_fields(&sh);
    let struct_name = &frame.struct_name;
    let bp = &sh.bp;
    let item = original_item(func);
    let signature = &frame.signature;
    let items = &frame.items;
    let name = &func.item.sig.ident;
    quote! {
        #item

        #items

        #signature {
            use #krate::__private as #bp;
            // The original function counts as used where only its backward is.
            let _ = #name;
            #(#forward)*
            #(#reverse)*
            let #grad = #struct_name { #(#fields,)* };
            (#value, #grad)
        }
    }
}

/// What the emitters of a function's graphs share.
struct Shared<'a> {
    func: &'a Function,
    bp: Ident,
    namer: Namer,
}

/// How a loop body's `Input(j)` node is written: passed to an op, and by name.
#[derive(Clone)]
struct InputForm {
    operand: TokenStream,
    name: TokenStream,
}

/// The emitter of one graph: the function body, or a loop body.
struct GraphEmitter<'g> {
    graph: &'g Graph,
    a: &'g Analysis,
    inputs: Vec<InputForm>,
    /// The loop variable, in a loop body.
    loop_var: Option<Ident>,
    /// The local each node lives in (`None` for literals and inputs).
    names: Vec<Option<Ident>>,
    /// The saved intermediate of an op that keeps one (softmax probabilities).
    saved: Vec<Option<Ident>>,
    /// The adjoint of each active node.
    adj: Vec<Option<Ident>>,
    /// How many contributions are known before the sweep (`d_out`, a loop's
    /// state adjoint).
    seeds: Vec<usize>,
    /// The contributions to each node's adjoint: seeds, then those written so far.
    contributions: Vec<Vec<TokenStream>>,
    /// An adjoint that arrives by reference (an array output's `d_out`).
    borrowed: Vec<bool>,
    loops: HashMap<NodeId, LoopEmitter<'g>>,
    branches: HashMap<NodeId, BranchEmitter<'g>>,
    /// The locals the forward statements define, in order (what a loop saves).
    defined: Vec<Ident>,
    /// Those of them that are views of another local.
    views: HashSet<String>,
    /// The values the graph gives back (the function's value, a region's results).
    results: Vec<NodeId>,
    /// An op that writes its result over its first operand's buffer, by its
    /// in-place forward function (see [`reuses`]).
    takes: HashSet<NodeId>,
    /// A temporary whose buffer its one reader takes over; the local that
    /// keeps its shape for the adjoint rules, when they run.
    given: HashMap<NodeId, Option<Ident>>,
    /// An op whose rule is the last reader of its first operand, and takes
    /// it by value to write the gradient over it.
    rule_takes: HashSet<NodeId>,
    /// `sum(square(x))` as one reduction: the sum, its `x`, and whether its
    /// rule may write over `x`. The square is never made.
    sum_squares: HashMap<NodeId, (NodeId, bool)>,
    /// The squares of `sum_squares`.
    unmade: HashSet<NodeId>,
    /// An in-place elementwise function over the result of an in-place
    /// arithmetic op: both in one pass (`add_owned_map`). The function's node,
    /// and the arithmetic op's.
    fused: HashMap<NodeId, NodeId>,
    /// The arithmetic ops of `fused`, and the products of `dot_adds`, written
    /// where their reader is.
    deferred: HashSet<NodeId>,
    /// `x + m·v` with the product added into `x`'s buffer (`add_dot_owned`):
    /// the sum's node, and the product's.
    dot_adds: HashMap<NodeId, NodeId>,
    /// In a loop body: the accumulator outside the loop of each captured
    /// value's gradient.
    acc_into: HashMap<NodeId, Ident>,
    /// How many contributions to each of them went into the accumulator.
    accumulated: HashMap<NodeId, usize>,
    /// In a loop body: the products whose outer products the loop's
    /// `Outers` keeps (`dot_vjp_lhs_defer`), term by term, which the loop
    /// adds into their accumulators after its reverse sweep.
    terms: Vec<OuterTerm>,
    /// In a loop body: the name of the loop's `Outers`, and of the index of
    /// an iteration among the kept steps, once a rule needs them.
    outers: Option<Ident>,
    step: Option<Ident>,
    /// A gradient that borrows another's (`bp::lent`), with the other.
    lent_from: HashMap<String, Ident>,
    /// The function's body, whose forward pass and reverse sweep are one
    /// block (a loop body's or a branch arm's are two).
    top_level: bool,
    /// The nodes known to be scalars (`plan_reuse`).
    scalar: Vec<bool>,
    /// In a loop body: which of the loop's inputs are known to be scalars.
    input_scalar: Vec<bool>,
    /// In a loop body: the captured values known to be vectors or scalars,
    /// whose gradients are never outer products.
    flat: HashSet<NodeId>,
    /// How many contributions to a value were added into one written before.
    merged: HashMap<NodeId, usize>,
    /// The contributions that are loops' accumulators.
    loop_accs: HashSet<String>,
    /// In a loop body: the carried adjoint (a `let mut` of the reverse loop)
    /// that seeds a body output, which its other contributions may be added
    /// into.
    acc_seed: HashMap<NodeId, Ident>,
    /// In a loop body: the product that starts the buffer of a carried
    /// variable's new value, with the `Spare` it may be computed into.
    spare_heads: HashMap<NodeId, Ident>,
    /// The statement of each of them that computes into the spare buffer,
    /// and where it stands in the forward statements (the loop decides after
    /// its reverse sweep is written whether it has a spare).
    spare_stmts: HashMap<NodeId, (usize, TokenStream)>,
}

/// A product of a loop body whose outer products the loop's `Outers` keeps.
struct OuterTerm {
    /// The accumulator they are added into.
    acc: Ident,
    /// The gradient (`u`), by the name of the gradient it borrows if it does:
    /// two terms of one gradient share their `u`s.
    u: String,
    /// The vector operand (`v`) of a matrix-vector product, whose values may
    /// be read where they are kept; `None` for a vector-matrix product.
    v: Option<NodeId>,
}

/// The names of one branch.
struct BranchEmitter<'g> {
    arms: [GraphEmitter<'g>; 2],
    cond: Ident,
    /// What each arm keeps for the reverse sweep.
    saved: [Ident; 2],
}

/// The names of one loop.
struct LoopEmitter<'g> {
    body: GraphEmitter<'g>,
    /// The carried state, one `let mut` each (the loop's results after it).
    state: Vec<Ident>,
    /// The carried values at the start of an iteration.
    ins: Vec<Ident>,
    start: Ident,
    end: Ident,
    /// What each iteration keeps for the reverse sweep.
    steps: Ident,
    /// The adjoint of each carried state that has one.
    d_state: Vec<Option<Ident>>,
    /// The body's reverse sweep, written with the forward pass so that each
    /// iteration keeps only the locals it reads.
    body_reverse: Vec<TokenStream>,
    /// The locals each iteration keeps.
    kept: Vec<Ident>,
    /// The accumulator of each captured value that gets a gradient, by its
    /// position among the loop's inputs.
    accs: Vec<(usize, Ident)>,
    /// A carried value that the reverse sweep reads is not kept (nor cloned):
    /// an iteration's new value is the next iteration's starting value, so the
    /// reverse loop hands it back from one iteration to the one before. The
    /// carried variable, the body's local, and the local that carries it back.
    handoff: Vec<(usize, Ident, Ident)>,
    /// A carried array variable whose values the reverse sweep reads, kept
    /// as the rows of one buffer instead of one array per iteration.
    rows: Vec<KeptRows>,
    /// The name of each iteration's index among the kept steps, where rows
    /// are read.
    step: Option<Ident>,
}

/// A carried variable kept in a `bp::Rows`: row `k` is its value at the
/// start of iteration `k`, row `k + 1` its new value.
struct KeptRows {
    /// Which carried variable.
    k: usize,
    /// The `Rows`.
    rows: Ident,
    /// The body's local of the new value, when the reverse sweep reads it
    /// (then the value after the last iteration is a row too).
    next: Option<Ident>,
    /// The `Spare` that takes the buffer of the starting value once the
    /// iteration no longer needs it.
    spare: Option<Ident>,
}

impl<'g> GraphEmitter<'g> {
    fn new(
        graph: &'g Graph,
        a: &'g Analysis,
        inputs: Vec<InputForm>,
        loop_var: Option<Ident>,
        results: Vec<NodeId>,
    ) -> Self {
        let n = graph.len();
        GraphEmitter {
            graph,
            a,
            inputs,
            loop_var,
            names: Vec::new(),
            saved: Vec::new(),
            adj: Vec::new(),
            seeds: vec![0; n],
            contributions: vec![Vec::new(); n],
            borrowed: vec![false; n],
            loops: HashMap::new(),
            branches: HashMap::new(),
            defined: Vec::new(),
            views: HashSet::new(),
            results,
            takes: HashSet::new(),
            given: HashMap::new(),
            rule_takes: HashSet::new(),
            sum_squares: HashMap::new(),
            unmade: HashSet::new(),
            fused: HashMap::new(),
            deferred: HashSet::new(),
            dot_adds: HashMap::new(),
            acc_into: HashMap::new(),
            accumulated: HashMap::new(),
            terms: Vec::new(),
            outers: None,
            step: None,
            lent_from: HashMap::new(),
            top_level: false,
            flat: HashSet::new(),
            scalar: Vec::new(),
            input_scalar: Vec::new(),
            merged: HashMap::new(),
            loop_accs: HashSet::new(),
            acc_seed: HashMap::new(),
            spare_heads: HashMap::new(),
            spare_stmts: HashMap::new(),
        }
    }

    fn seed(&mut self, id: NodeId, seed: TokenStream, borrowed: bool) {
        self.seeds[id.index()] += 1;
        self.contributions[id.index()].push(seed);
        self.borrowed[id.index()] |= borrowed;
    }

    fn node(&self, id: NodeId) -> &'g Node {
        &self.graph.get(id).node
    }

    fn span(&self, id: NodeId) -> Span {
        self.graph.get(id).span
    }

    fn name(&self, id: NodeId) -> &Ident {
        self.names[id.index()]
            .as_ref()
            .expect("a node with a local")
    }

    fn adj(&self, id: NodeId) -> &Ident {
        self.adj[id.index()].as_ref().expect("an active node")
    }

    /// How many contributions make up a node's adjoint.
    fn parts(&self, id: NodeId) -> usize {
        self.a.uses[id.index()].len() + self.seeds[id.index()]
    }

    /// The user's name of the `k`-th carried variable of a loop.
    fn carried_name(&self, lp: NodeId, k: usize) -> String {
        self.outs_of(lp)
            .into_iter()
            .find_map(|(kk, o)| match &self.graph.get(o).name {
                Name::User(n) if kk == k => Some(n.clone()),
                _ => None,
            })
            .unwrap_or_else(|| "state".to_owned())
    }

    /// Names every local of this graph, then every adjoint, then the loops'
    /// bodies. `output` is the function's value and `d_out`, at the top.
    fn assign_names(&mut self, sh: &mut Shared, output: Option<(NodeId, &Ident)>) {
        let mut loop_ids = Vec::new();
        let mut branch_ids = Vec::new();
        for id in self.graph.ids() {
            let data = self.graph.get(id);
            let live = self.a.live[id.index()];
            let name = match (&data.node, &data.name) {
                (Node::Param(i), _) => {
                    let ident = sh.func.params[*i].ident.clone();
                    sh.namer.taken.insert(ident.to_string());
                    Some(ident)
                }
                (Node::Float(_) | Node::Int(_) | Node::Error | Node::Input(_), _) => None,
                (Node::LoopVar, _) => self.loop_var.clone(),
                _ if !live => None,
                (Node::Loop(lp), _) => {
                    let state: Vec<Ident> = (0..lp.carried)
                        .map(|k| sh.namer.user(&self.carried_name(id, k)))
                        .collect();
                    let ins: Vec<Ident> = state
                        .iter()
                        .map(|s| sh.namer.fresh(&format!("{s}_in")))
                        .collect();
                    let var = lp.var.as_ref().map(|v| sh.namer.user(&v.to_string()));
                    let base = var.as_ref().map_or("range".to_owned(), |v| v.to_string());
                    let start = sh.namer.fresh(&format!("{base}_start"));
                    let end = sh.namer.fresh(&format!("{base}_end"));
                    let steps = sh.namer.fresh("steps");
                    let mut inputs: Vec<InputForm> = ins
                        .iter()
                        .map(|i| InputForm {
                            operand: quote!(&#i),
                            name: i.to_token_stream(),
                        })
                        .collect();
                    for p in &lp.inputs[lp.carried..] {
                        inputs.push(InputForm {
                            operand: self.operand(sh, *p),
                            name: self.raw(*p),
                        });
                    }
                    let la = &self.a.loops[&id];
                    let body = GraphEmitter::new(
                        &lp.body.graph,
                        &la.body,
                        inputs,
                        var,
                        lp.body.outputs.clone(),
                    );
                    self.loops.insert(
                        id,
                        LoopEmitter {
                            body,
                            state,
                            ins,
                            start,
                            end,
                            steps,
                            d_state: Vec::new(),
                            body_reverse: Vec::new(),
                            kept: Vec::new(),
                            accs: Vec::new(),
                            handoff: Vec::new(),
                            rows: Vec::new(),
                            step: None,
                        },
                    );
                    loop_ids.push(id);
                    None
                }
                (Node::Branch(b), _) => {
                    let ba = &self.a.branches[&id];
                    let arms = [0, 1].map(|a| {
                        let inputs = b.arm_inputs[a]
                            .iter()
                            .map(|p| InputForm {
                                operand: self.operand(sh, *p),
                                name: self.raw(*p),
                            })
                            .collect();
                        GraphEmitter::new(
                            &b.arms[a].graph,
                            &ba.arms[a],
                            inputs,
                            self.loop_var.clone(),
                            b.arms[a].outputs.clone(),
                        )
                    });
                    let cond = sh.namer.fresh("cond");
                    let saved = [sh.namer.fresh("then_saved"), sh.namer.fresh("else_saved")];
                    self.branches
                        .insert(id, BranchEmitter { arms, cond, saved });
                    branch_ids.push(id);
                    None
                }
                (Node::Out { of, k }, _) if self.loops.contains_key(of) => {
                    Some(self.loops[of].state[*k].clone())
                }
                (_, Name::User(n)) => Some(sh.namer.user(n)),
                (_, Name::Temp(base)) => Some(sh.namer.numbered(base)),
                (_, Name::Output) => Some(sh.namer.fresh("out")),
            };
            let saved = match (&data.node, &name) {
                (Node::Op { op, .. }, Some(n)) => op
                    .def()
                    .saves
                    .map(|(s, _)| sh.namer.fresh(&format!("{n}_{s}"))),
                _ => None,
            };
            self.names.push(name);
            self.saved.push(saved);
        }
        for id in self.graph.ids() {
            let top_output =
                output.filter(|(o, _)| *o == id && matches!(self.graph.get(id).name, Name::Output));
            let adj = if !self.a.active[id.index()] {
                None
            } else if let Some((_, d_out)) = top_output {
                Some(d_out.clone())
            } else {
                let base = match self.node(id) {
                    Node::Input(j) => format!("{}_step", self.inputs[*j].name),
                    _ => self.name(id).to_string(),
                };
                Some(sh.namer.fresh(&format!("d_{base}")))
            };
            self.adj.push(adj);
        }
        self.plan_reuse(sh);
        for id in loop_ids {
            let mut le = self.loops.remove(&id).expect("a loop emitter");
            if let Node::Loop(lp) = self.node(id) {
                // A carried variable has its initial value's type, and a
                // captured value is the enclosing graph's.
                le.body.input_scalar = lp.inputs.iter().map(|p| self.scalar[p.index()]).collect();
            }
            le.body.assign_names(sh, None);
            self.loops.insert(id, le);
        }
        for id in branch_ids {
            let mut be = self.branches.remove(&id).expect("a branch emitter");
            for arm in &mut be.arms {
                arm.assign_names(sh, None);
            }
            self.branches.insert(id, be);
        }
    }

    /// Finds the temporaries whose one reader may write over them: a value
    /// that only one op reads (no constant argument, loop, branch or result
    /// mentions it), made by an op whose rule does not read its own output,
    /// and read by an op that has an in-place form and whose rules need
    /// only its shape.
    fn plan_reuse(&mut self, sh: &mut Shared) {
        let readers = self.readers();
        // A scalar's copy is free: only arrays (or values that may be arrays)
        // are worth a shape.
        let mut scalar = vec![false; self.graph.len()];
        for id in self.graph.ids() {
            scalar[id.index()] = match self.node(id) {
                Node::Param(i) => matches!(sh.func.params[*i].kind, Kind::Scalar(_)),
                Node::Input(j) => self.input_scalar.get(*j).copied().unwrap_or(false),
                Node::Float(_) | Node::Int(_) => true,
                Node::Op { op, inputs, .. } => match op {
                    Op::Sum | Op::Mean | Op::Index | Op::Mse | Op::SoftmaxCrossEntropy => true,
                    _ if op.elementwise() => inputs.iter().all(|i| scalar[i.index()]),
                    _ => false,
                },
                _ => false,
            };
        }
        for id in self.graph.ids().filter(|id| self.a.live[id.index()]) {
            let Node::Op { op, inputs, .. } = self.node(id) else {
                continue;
            };
            let active: Vec<bool> = inputs.iter().map(|i| self.a.active[i.index()]).collect();
            // Only this op reads `x`, an owned array made by an op whose rule
            // does not read its own output.
            let sole = |x: NodeId| {
                let made_owned = match self.node(x) {
                    Node::Op { op: made_by, .. } => {
                        let def = made_by.def();
                        !def.reads_out && def.saves.is_none() && !matches!(made_by, Op::Call(_))
                    }
                    _ => false,
                };
                readers[x.index()] == 1 && made_owned && !scalar[x.index()]
            };
            if let (
                Op::Sum,
                Node::Op {
                    op: Op::Square,
                    inputs: sq,
                    ..
                },
            ) = (op, self.node(inputs[0]))
            {
                let x = sq[0];
                if readers[inputs[0].index()] == 1 && !scalar[x.index()] {
                    // `Σ x²` with no array of squares; `2g·x` over `x` when
                    // nothing else reads it.
                    self.sum_squares.insert(id, (x, sole(x)));
                    self.unmade.insert(inputs[0]);
                    continue;
                }
            }
            if *op == Op::Mse && active == [true, false] && sole(inputs[0]) {
                // `∂pred = 2g(pred − target)/n` is written over `pred`.
                self.rule_takes.insert(id);
                continue;
            }
            let x = inputs[0];
            if reuses(*op, &active) && sole(x) {
                let shape = self.a.active[id.index()]
                    .then(|| sh.namer.fresh(&format!("{}_shape", self.name(x))));
                self.given.insert(x, shape);
                self.takes.insert(id);
            }
        }
        // An elementwise function that takes the buffer of an arithmetic op
        // that took its own operand's: one pass for both.
        let arith = |op: &Op| matches!(op, Op::Add | Op::Sub | Op::Mul | Op::Div);
        let mut pairs: Vec<(NodeId, NodeId)> = Vec::new();
        for &id in &self.takes {
            let Node::Op { op, inputs, .. } = self.node(id) else {
                continue;
            };
            if op.def().elem.is_empty() {
                continue;
            }
            let x = inputs[0];
            if matches!(self.node(x), Node::Op { op, .. } if arith(op)) && self.takes.contains(&x) {
                pairs.push((id, x));
            }
        }
        for (id, x) in pairs {
            self.fused.insert(id, x);
            self.deferred.insert(x);
        }
        // `x + m·v`, the product read by nothing else: added into `x`'s
        // buffer where the runtime can (a matrix-vector product).
        let mut dots: Vec<(NodeId, NodeId)> = Vec::new();
        for &id in &self.takes {
            let Node::Op {
                op: Op::Add,
                inputs,
                ..
            } = self.node(id)
            else {
                continue;
            };
            if self.deferred.contains(&id) {
                continue;
            }
            let d = inputs[1];
            let product = matches!(self.node(d), Node::Op { op: Op::Dot, .. });
            if product
                && d != inputs[0]
                && readers[d.index()] == 1
                && !scalar[d.index()]
                && !self.given.contains_key(&d)
            {
                dots.push((id, d));
            }
        }
        for (id, d) in dots {
            let shape = self.a.active[id.index()]
                .then(|| sh.namer.fresh(&format!("{}_shape", self.name(d))));
            self.given.insert(d, shape);
            self.deferred.insert(d);
            self.dot_adds.insert(id, d);
        }
        self.scalar = scalar;
    }

    /// The op whose result's buffer `o` is: `o`, or through the ops that
    /// write over their first operand, the first op of that chain.
    fn buffer_head(&self, mut o: NodeId) -> NodeId {
        while self.takes.contains(&o) {
            let Node::Op { inputs, .. } = self.node(o) else {
                break;
            };
            o = inputs[0];
        }
        o
    }

    /// Whether `head` is a product written by `bp::dot`, which
    /// `bp::dot_reuse` may compute into a spare buffer.
    fn spare_candidate(&self, head: NodeId) -> bool {
        matches!(self.node(head), Node::Op { op: Op::Dot, .. })
            && self.a.live[head.index()]
            && !self.deferred.contains(&head)
            && !self.fused.contains_key(&head)
            && !self.unmade.contains(&head)
    }

    /// Whether a loop body's carried input `x` (and the body's new value `o`
    /// of it, when the reverse reads that too) may be read back as a view of
    /// a row: only the vocabulary's own ops read them, whose rules take any
    /// array (a called function's rule takes the types its user wrote, and
    /// `concat` one type for all its operands), and `o` is made by an op
    /// whose rule takes its output as any array.
    fn rows_ok(&self, x: NodeId, o: Option<NodeId>) -> bool {
        let made_ok = o.is_none_or(|o| {
            matches!(self.node(o), Node::Op { op, .. }
                if op.elementwise() || matches!(op, Op::Softmax | Op::LogSoftmax | Op::Dot))
        });
        made_ok
            && self.graph.ids().all(|id| {
                let reads = self
                    .graph
                    .deps(id)
                    .iter()
                    .any(|d| *d == x || Some(*d) == o);
                !reads
                    || !self.a.live[id.index()]
                    || matches!(self.node(id), Node::Op { op, .. } if !matches!(op, Op::Call(_) | Op::Concat))
            })
    }

    /// How many live nodes read each node, a value the graph gives back
    /// counting as one more.
    fn readers(&self) -> Vec<usize> {
        let mut readers = vec![0usize; self.graph.len()];
        for id in self.graph.ids().filter(|id| self.a.live[id.index()]) {
            for d in self.graph.deps(id) {
                readers[d.index()] += 1;
            }
        }
        for r in &self.results {
            readers[r.index()] += 1;
        }
        readers
    }

    /// Whether a loop may take the buffer of `p`, its carried variable's
    /// initial value, instead of a copy: an array made here by an op, read
    /// by nothing but the loop, and not by its own rule either.
    fn movable_init(&self, p: NodeId, readers: &[usize]) -> bool {
        let Node::Op { op, .. } = self.node(p) else {
            return false;
        };
        let view_or_call = matches!(
            op,
            Op::T | Op::Row | Op::Column | Op::InsertAxis | Op::Call(_)
        );
        let rule_reads = op.def().reads_out && self.a.active[p.index()];
        readers[p.index()] == 1
            && !view_or_call
            && !rule_reads
            && !self.given.contains_key(&p)
            && !self.scalar[p.index()]
            && !self.views.contains(&self.name(p).to_string())
    }

    /// `let x_shape = bp::shape_of(&from);` where `x` gives its buffer away
    /// and its rules run (`from` is `x`, or a value of `x`'s shape made from
    /// it); the shape becomes a local of the region.
    fn keep_shape(&mut self, bp: &Ident, x: NodeId, from: &Ident) -> Option<TokenStream> {
        let shape = self.given[&x].clone()?;
        let stmt = quote!(let #shape = #bp::shape_of(&#from););
        self.defined.push(shape);
        Some(stmt)
    }

    /// How an op receives a node: parameters that are references bare,
    /// everything else borrowed.
    fn operand(&self, sh: &Shared, id: NodeId) -> TokenStream {
        if let Some(shape) = self.given.get(&id) {
            // Only the rules of the op that took its buffer read it.
            let bp = &sh.bp;
            let shape = shape.as_ref().expect("a kept shape where a rule runs");
            return quote!(&#bp::stand_in(&#shape));
        }
        match self.node(id) {
            Node::Param(i) => {
                let p = &sh.func.params[*i];
                let ident = &p.ident;
                if p.by_ref {
                    quote!(#ident)
                } else {
                    quote!(&#ident)
                }
            }
            Node::Input(j) => self.inputs[*j].operand.clone(),
            Node::Float(t) => quote!(&#t),
            _ => {
                let n = self.name(id);
                quote!(&#n)
            }
        }
    }

    /// A node by its plain name (a literal as itself).
    fn raw(&self, id: NodeId) -> TokenStream {
        match self.node(id) {
            Node::Input(j) => self.inputs[*j].name.clone(),
            Node::Float(t) | Node::Int(t) => quote!((#t)),
            _ => self.name(id).to_token_stream(),
        }
    }

    /// A constant expression with every binding replaced by its node's local.
    fn subst(&self, c: &ConstArg) -> TokenStream {
        c.render(|id, form| {
            let raw = self.raw(id);
            // A binding that held a reference or a view keeps that form.
            match form {
                Form::Ref => quote!((&#raw)),
                Form::View => quote!((#raw).view()),
                Form::Value => raw,
            }
        })
    }

    /// The op of a node that is one.
    fn node_op(&self, id: NodeId) -> Op {
        match self.node(id) {
            Node::Op { op, .. } => *op,
            _ => unreachable!("an op node"),
        }
    }

    /// The forward pass: one `let` per live node.
    fn forward(&mut self, sh: &mut Shared) -> Vec<TokenStream> {
        let bp = &sh.bp.clone();
        let mut out = Vec::new();
        for id in self.graph.ids() {
            if !self.a.live[id.index()] || self.unmade.contains(&id) {
                continue;
            }
            let span = self.span(id);
            if let Some(&(x, _)) = self.sum_squares.get(&id) {
                let name = self.name(id).clone();
                let x = self.operand(sh, x);
                let f = Ident::new(fused::SUM_SQUARE, span);
                out.push(quote_spanned!(span=> let #name = #bp::#f(#x);));
                self.defined.push(name);
                continue;
            }
            match self.node(id) {
                Node::Const(c) => {
                    let name = self.name(id).clone();
                    let tokens = self.subst(c);
                    out.push(quote_spanned!(span=> let #name = #tokens;));
                    self.defined.push(name);
                }
                Node::Op { inputs, .. } if self.dot_adds.contains_key(&id) => {
                    let name = self.name(id).clone();
                    let (x, d) = (inputs[0], self.dot_adds[&id]);
                    let Node::Op { inputs: mv, .. } = self.node(d) else {
                        unreachable!("the product of a fused sum is an op")
                    };
                    let (m, v) = (self.operand(sh, mv[0]), self.operand(sh, mv[1]));
                    let x_name = self.name(x).clone();
                    out.extend(self.keep_shape(bp, x, &x_name));
                    let d_shape = match &self.given[&d] {
                        Some(shape) => {
                            self.defined.push(shape.clone());
                            shape.to_token_stream()
                        }
                        None => quote!(_),
                    };
                    let f = Ident::new(fused::ADD_DOT_OWNED, span);
                    out.push(
                        quote_spanned!(span=> let (#name, #d_shape) = #bp::#f(#x_name, #m, #v);),
                    );
                    if !self.given.contains_key(&id) {
                        self.defined.push(name);
                    }
                }
                Node::Op { op, inputs, consts } => {
                    let name = self.name(id).clone();
                    let takes = self.takes.contains(&id);
                    let args: Vec<TokenStream> = inputs
                        .iter()
                        .enumerate()
                        .map(|(p, i)| match (takes, p) {
                            (true, 0) => self.name(*i).to_token_stream(),
                            _ => self.operand(sh, *i),
                        })
                        .collect();
                    let consts: Vec<TokenStream> = consts.iter().map(|c| self.subst(c)).collect();
                    let def = op.def();
                    if takes && !self.fused.contains_key(&id) {
                        // The operand's buffer becomes the result; its shape
                        // is kept for the rules.
                        let x = self.name(inputs[0]).clone();
                        out.extend(self.keep_shape(bp, inputs[0], &x));
                    }
                    if self.deferred.contains(&id) {
                        // Computed by the elementwise function that reads it.
                        continue;
                    }
                    let stmt = if let Some(&x) = self.fused.get(&id) {
                        // `f(a ⊕ b)` in one pass over `a`'s buffer; the
                        // intermediate's shape is the result's.
                        let Node::Op {
                            inputs: x_inputs, ..
                        } = self.node(x)
                        else {
                            unreachable!("a fused operand is an op")
                        };
                        let x_args = [
                            self.name(x_inputs[0]).to_token_stream(),
                            self.operand(sh, x_inputs[1]),
                        ];
                        let map = Ident::new(self.node_op(x).def().owned_map, span);
                        let elem = Ident::new(def.elem, span);
                        out.push(
                            quote_spanned!(span=> let #name = #bp::#map(#(#x_args,)* #bp::#elem);),
                        );
                        self.defined.push(name.clone());
                        out.extend(self.keep_shape(bp, x, &name));
                        continue;
                    } else if takes {
                        let f = Ident::new(def.owned, span);
                        match &self.saved[id.index()] {
                            Some(saved) => {
                                self.defined.push(saved.clone());
                                quote_spanned!(span=> let (#name, #saved) = #bp::#f(#(#args,)* #(#consts),*);)
                            }
                            None => {
                                quote_spanned!(span=> let #name = #bp::#f(#(#args),* #(, #consts)*);)
                            }
                        }
                    } else if let Op::Call(k) = op {
                        let call = &self.graph.calls[*k as usize];
                        let path = &call.path;
                        let args = self.call_args(sh, call, inputs);
                        quote_spanned!(span=> let #name = #path(#(#args),*);)
                    } else if *op == Op::Concat {
                        let f = Ident::new(def.forward, span);
                        quote_spanned!(span=> let #name = #bp::#f(#(#consts),*, &[#(#args),*]);)
                    } else if let Some(saved) = &self.saved[id.index()] {
                        let f = Ident::new(def.saves.expect("an op that saves").1, span);
                        let stmt = quote_spanned!(span=> let (#name, #saved) = #bp::#f(#(#args,)* #(#consts),*););
                        self.defined.push(saved.clone());
                        stmt
                    } else {
                        if let Some(spare) = self.spare_heads.get(&id) {
                            let f = Ident::new(fused::DOT_REUSE, span);
                            let stmt = quote_spanned!(span=> let #name = #bp::#f(&mut #spare, #(#args),*););
                            self.spare_stmts.insert(id, (out.len(), stmt));
                        }
                        let f = Ident::new(def.forward, span);
                        quote_spanned!(span=> let #name = #bp::#f(#(#args),* #(, #consts)*);)
                    };
                    out.push(stmt);
                    // A view of a parameter may be kept as it is; a view of a
                    // local borrows what the region moves, so it is copied.
                    let of_param = match self.node(inputs[0]) {
                        Node::Param(_) => true,
                        Node::Input(j) => {
                            let source = self.inputs[*j].name.to_string();
                            sh.func.params.iter().any(|p| p.ident == source)
                        }
                        _ => false,
                    };
                    if matches!(op, Op::T | Op::Row | Op::Column | Op::InsertAxis) && !of_param {
                        self.views.insert(name.to_string());
                    }
                    if !self.given.contains_key(&id) {
                        self.defined.push(name);
                    }
                }
                Node::Loop(lp) => out.extend(self.loop_forward(sh, id, lp)),
                Node::Branch(b) => out.extend(self.branch_forward(sh, id, b)),
                Node::Param(_)
                | Node::Float(_)
                | Node::Int(_)
                | Node::Error
                | Node::Input(_)
                | Node::LoopVar
                | Node::Out { .. } => {}
            }
        }
        out
    }

    /// The Out nodes of a loop or branch, by result index.
    fn outs_of(&self, id: NodeId) -> Vec<(usize, NodeId)> {
        self.graph
            .ids()
            .filter_map(|o| match self.node(o) {
                Node::Out { of, k } if *of == id => Some((*k, o)),
                _ => None,
            })
            .collect()
    }

    /// Whether a branch has a reverse sweep: some adjoint flows through it.
    fn branch_active(&self, id: NodeId) -> bool {
        self.a.uses.iter().flatten().any(|(c, _)| *c == id)
            || self.a.branches[&id].seeded.iter().any(|s| *s)
    }

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
    fn branch_forward(&mut self, sh: &mut Shared, id: NodeId, b: &'g Branch) -> Vec<TokenStream> {
        let bp = &sh.bp.clone();
        let active = self.branch_active(id);
        let cond_tokens = self.subst(&b.cond);
        let outs = self.outs_of(id);
        let results: Vec<TokenStream> = (0..b.outputs)
            .map(|k| match outs.iter().find(|(kk, _)| *kk == k) {
                Some((_, o)) if self.a.live[o.index()] => self.name(*o).to_token_stream(),
                _ => quote!(_),
            })
            .collect();
        let be = self.branches.get_mut(&id).expect("a branch emitter");
        let cond = be.cond.clone();
        let saved_names = be.saved.clone();
        let mut arm_code = Vec::new();
        for (a, arm) in be.arms.iter_mut().enumerate() {
            let body = arm.forward(sh);
            let next: Vec<TokenStream> = b.arms[a]
                .outputs
                .iter()
                .map(|o| match arm.node(*o) {
                    Node::Op { .. } | Node::Const(_) | Node::Out { .. } => {
                        arm.name(*o).to_token_stream()
                    }
                    _ => {
                        let operand = arm.operand(sh, *o);
                        quote!(#bp::copy(#operand))
                    }
                })
                .collect();
            let mut tuple = next.clone();
            let mut keeping = Vec::new();
            if active {
                views_first(&mut arm.defined, &arm.views);
                let saved = keep(&arm.defined, &next, &arm.views, bp);
                // Kept before the results are moved out.
                let name = &saved_names[a];
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
        let mut pattern = results;
        if active {
            pattern.extend(saved_names.iter().map(|n| n.to_token_stream()));
        }
        let (then_code, else_code) = (&arm_code[0], &arm_code[1]);
        self.defined.push(cond.clone());
        for p in &pattern {
            if let Ok(ident) = syn::parse2::<Ident>(p.clone()) {
                self.defined.push(ident);
            }
        }
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
    fn branch_reverse(&mut self, sh: &mut Shared, id: NodeId, b: &'g Branch) -> Vec<TokenStream> {
        let mut out = Vec::new();
        if !self.branch_active(id) {
            return out;
        }
        let bp = sh.bp.clone();
        let seeded = self.a.branches[&id].seeded.clone();
        let outs = self.outs_of(id);
        let mut seeds: Vec<Option<(Ident, bool)>> = vec![None; b.outputs];
        for (k, o) in outs {
            if seeded[k] && self.a.active[o.index()] {
                out.extend(self.adjoint_sum(o));
                seeds[k] = Some((self.adj(o).clone(), self.borrowed[o.index()]));
            }
        }
        let inputs: Vec<NodeId> = crate::check::branch_inputs(b)
            .into_iter()
            .filter(|p| self.a.uses[p.index()].iter().any(|(c, _)| *c == id))
            .collect();
        let mut targets = Vec::new();
        for p in &inputs {
            targets.push(self.contribution_target(sh, *p, id));
        }
        let zeros: Vec<TokenStream> = inputs
            .iter()
            .map(|p| {
                let operand = self.operand(sh, *p);
                quote!(#bp::zeros_like(#operand))
            })
            .collect();
        let be = self.branches.get_mut(&id).expect("a branch emitter");
        let cond = be.cond.clone();
        let mut arm_code = Vec::new();
        for a in 0..2 {
            let arm = &mut be.arms[a];
            for (k, seed) in seeds.iter().enumerate() {
                // Both arms must give owned gradients: a borrowed `d_out` is
                // copied in the arm that passes it through.
                match seed {
                    Some((d, true)) => arm.seed(b.arms[a].outputs[k], quote!(#bp::copy(#d)), false),
                    Some((d, false)) => arm.seed(b.arms[a].outputs[k], d.to_token_stream(), false),
                    None => {}
                }
            }
            let body = arm.reverse(sh);
            let results: Vec<TokenStream> = inputs
                .iter()
                .zip(&zeros)
                .map(|(p, zero)| {
                    let j = b.arm_inputs[a].iter().position(|q| q == p);
                    match j.map(|j| b.arms[a].inputs[j]) {
                        Some(input) if arm.a.active[input.index()] => {
                            arm.adj(input).to_token_stream()
                        }
                        _ => zero.clone(),
                    }
                })
                .collect();
            let saved = &be.saved[a];
            let locals = &arm.defined;
            arm_code.push(quote! {
                let (#(#locals,)*) = ::core::option::Option::unwrap(#saved);
                #(#body)*
                (#(#results,)*)
            });
        }
        let (then_code, else_code) = (&arm_code[0], &arm_code[1]);
        out.push(quote!(let (#(#targets,)*) = if #cond { #then_code } else { #else_code };));
        out
    }

    /// The adjoint of each carried state of a loop that has one: the adjoint of
    /// the loop's result where it is active, else a fresh name (for a zero).
    fn loop_d_state(&self, sh: &mut Shared, id: NodeId, lp: &Loop) -> Vec<Option<Ident>> {
        let seeded = &self.a.loops[&id].seeded;
        let outs = self.outs_of(id);
        (0..lp.carried)
            .map(|k| {
                if !seeded[k] {
                    return None;
                }
                match outs
                    .iter()
                    .find(|(kk, o)| *kk == k && self.a.active[o.index()])
                {
                    Some((_, o)) => Some(self.adj(*o).clone()),
                    None => Some(sh.namer.fresh(&format!("d_{}", self.loops[&id].state[k]))),
                }
            })
            .collect()
    }

    /// Whether a loop has a reverse sweep: some adjoint flows through it.
    fn loop_active(&self, id: NodeId, lp: &Loop) -> bool {
        let la = &self.a.loops[&id];
        la.seeded.iter().any(|s| *s)
            || (lp.carried..lp.inputs.len()).any(|j| la.body.active[lp.body.inputs[j].index()])
    }

    /// ```text
    /// Before: for t in 0..n { h = tanh(&(w.dot(&h) + xs.row(t))); }
    /// After:  let t_start = 0; let t_end = n;
    ///         let mut h_1 = bp::copy(&h);
    ///         let mut steps = Vec::with_capacity(..);
    ///         let mut h_1_rows = bp::Rows::with_steps(..);
    ///         let mut h_1_spare = bp::Spare::new();
    ///         for t in t_start..t_end {
    ///             let h_1_in = h_1;
    ///             h_1_rows.push(&h_1_in);
    ///             let h_2 = bp::dot_reuse(&mut h_1_spare, w, &h_1_in);
    ///             ... one `let` per step of the body ...
    ///             steps.push((..., h_3));
    ///             h_1_spare.put(h_1_in);
    ///             h_1 = h_5;
    ///         }
    ///         h_1_rows.push(&h_1);
    /// ```
    ///
    /// A carried array that the reverse sweep reads is kept as rows of one
    /// buffer (`Rows`: the value at the start of each iteration, and the last
    /// value), and the product that starts its new value writes into the
    /// buffer of the value before (`Spare`). Other values an iteration's
    /// reverse reads are moved into `steps`.
    fn loop_forward(&mut self, sh: &mut Shared, id: NodeId, lp: &'g Loop) -> Vec<TokenStream> {
        let bp = &sh.bp.clone();
        let active = self.loop_active(id, lp);
        let d_state = if active {
            self.loop_d_state(sh, id, lp)
        } else {
            Vec::new()
        };
        let init: Vec<TokenStream> = lp.inputs[..lp.carried]
            .iter()
            .map(|p| self.operand(sh, *p))
            .collect();
        let start_tokens = self.subst(&lp.start);
        let end_tokens = self.subst(&lp.end);
        // One accumulator per captured value that gets a gradient.
        let mut accs: Vec<(usize, Ident)> = Vec::new();
        if active {
            for j in lp.carried..lp.inputs.len() {
                let p = lp.inputs[j];
                if self.a.loops[&id].body.active[lp.body.inputs[j].index()]
                    && self.a.active[p.index()]
                {
                    let acc = self.contribution_target(sh, p, id);
                    self.loop_accs.insert(acc.to_string());
                    accs.push((j, acc));
                }
            }
        }
        // A loop result that the enclosing graph gives back is read after
        // the reverse sweep: its value cannot be handed back.
        let outs = self.outs_of(id);
        let given_back: Vec<bool> = (0..lp.carried)
            .map(|k| {
                outs.iter()
                    .any(|(kk, o)| *kk == k && self.results.contains(o))
            })
            .collect();
        let flat: Vec<bool> = accs
            .iter()
            .map(|(j, _)| match self.node(lp.inputs[*j]) {
                Node::Param(i) => match &sh.func.params[*i].kind {
                    Kind::Array { owned, .. } => owned.to_string().contains("Array1"),
                    _ => true,
                },
                _ => false,
            })
            .collect();
        // The carried variables that may be arrays (a scalar is kept in the
        // steps for free).
        let arrays: Vec<bool> = lp.inputs[..lp.carried]
            .iter()
            .map(|p| !self.scalar.get(p.index()).copied().unwrap_or(false))
            .collect();
        // An initial value that nothing else reads is moved in, not copied.
        let readers = self.readers();
        let moved_init: Vec<Option<Ident>> = lp.inputs[..lp.carried]
            .iter()
            .map(|p| {
                self.movable_init(*p, &readers)
                    .then(|| self.name(*p).clone())
            })
            .collect();
        let le = self.loops.get_mut(&id).expect("a loop emitter");
        // The product that starts each carried array's new buffer may write
        // into the buffer of the value before (decided after the reverse).
        let mut spares: Vec<Option<(NodeId, Ident)>> = vec![None; lp.carried];
        if active {
            for (k, spare) in spares.iter_mut().enumerate() {
                let head = le.body.buffer_head(lp.body.outputs[k]);
                if arrays[k] && le.body.spare_candidate(head) {
                    let name = sh.namer.fresh(&format!("{}_spare", le.state[k]));
                    le.body.spare_heads.insert(head, name.clone());
                    *spare = Some((head, name));
                }
            }
        }
        for ((j, acc), flat) in accs.iter().zip(flat) {
            le.body.acc_into.insert(lp.body.inputs[*j], acc.clone());
            if flat {
                le.body.flat.insert(lp.body.inputs[*j]);
            }
        }
        le.accs = accs;
        let (start, end, steps) = (le.start.clone(), le.end.clone(), le.steps.clone());
        let state = le.state.clone();
        let ins = le.ins.clone();
        let mut body = le.body.forward(sh);
        let var = le
            .body
            .loop_var
            .clone()
            .map_or(quote!(_), |v| v.to_token_stream());
        // The value each carried variable has at the end of an iteration.
        let outputs: Vec<NodeId> = lp.body.outputs.clone();
        let next: Vec<TokenStream> = outputs
            .iter()
            .map(|o| match le.body.node(*o) {
                Node::Op { .. } | Node::Const(_) | Node::Out { .. } => {
                    le.body.name(*o).to_token_stream()
                }
                Node::Input(j) if *j < lp.carried => ins[*j].to_token_stream(),
                _ => {
                    let operand = le.body.operand(sh, *o);
                    quote!(#bp::copy(#operand))
                }
            })
            .collect();
        let end_expr = if lp.inclusive {
            quote!(#end_tokens + 1)
        } else {
            end_tokens
        };
        let mut out = vec![
            quote!(let #start = #start_tokens;),
            quote!(let #end = #end_expr;),
        ];
        for ((s, i), moved) in state.iter().zip(&init).zip(&moved_init) {
            match moved {
                Some(name) => out.push(quote!(let mut #s = #name;)),
                None => out.push(quote!(let mut #s = #bp::copy(#i);)),
            }
        }
        let mut push = Vec::new();
        let (mut before, mut first, mut last, mut after) =
            (Vec::new(), Vec::new(), Vec::new(), Vec::new());
        if active {
            // The body's reverse sweep, now, to know which locals it reads.
            for (k, d) in d_state.iter().enumerate() {
                if let Some(d) = d {
                    le.body.seed(lp.body.outputs[k], d.to_token_stream(), false);
                    le.body.acc_seed.insert(lp.body.outputs[k], d.clone());
                }
            }
            let body_reverse = le.body.reverse(sh);
            let mut read = HashSet::new();
            for stmt in &body_reverse {
                idents(stmt.clone(), &mut read);
            }
            for (k, d) in d_state.iter().enumerate() {
                if d.is_some() && !le.body.a.active[lp.body.inputs[k].index()] {
                    read.insert(ins[k].to_string());
                }
            }
            let mut kept: Vec<Ident> = ins
                .iter()
                .chain(&le.body.defined)
                .filter(|n| read.contains(&n.to_string()))
                .cloned()
                .collect();
            let mut handoff = Vec::new();
            for k in 0..lp.carried {
                let o = outputs[k];
                if given_back[k] || !matches!(le.body.node(o), Node::Op { .. } | Node::Const(_)) {
                    continue;
                }
                let local = le.body.name(o).clone();
                let once = next.iter().filter(|n| local == n.to_string()).count() == 1;
                let Some(at) = kept.iter().position(|n| *n == local) else {
                    continue;
                };
                if !once || le.body.views.contains(&local.to_string()) {
                    continue;
                }
                kept.remove(at);
                if !kept.contains(&ins[k]) {
                    kept.push(ins[k].clone());
                }
                let carry = sh.namer.fresh(&format!("{}_after", state[k]));
                handoff.push((k, local, carry));
            }
            // A carried array that the reverse reads is kept as rows of one
            // buffer, its new value as the next row, and its buffer, once
            // copied, is the spare that the next value is computed into.
            let mut rows = Vec::new();
            for k in 0..lp.carried {
                let handed = handoff.iter().position(|(kk, ..)| *kk == k);
                if !arrays[k]
                    || !kept.contains(&ins[k])
                    || !le
                        .body
                        .rows_ok(lp.body.inputs[k], handed.map(|_| outputs[k]))
                {
                    continue;
                }
                let next_local = handed.map(|at| handoff.remove(at).1);
                kept.retain(|n| *n != ins[k]);
                let moved = next.iter().any(|n| ins[k] == n.to_string());
                let spare = match &spares[k] {
                    Some((head, spare)) if !moved => {
                        le.body.spare_stmts.get(head).cloned().map(|(at, stmt)| {
                            body[at] = stmt;
                            spare.clone()
                        })
                    }
                    _ => None,
                };
                let name = sh.namer.fresh(&format!("{}_rows", le.state[k]));
                rows.push(KeptRows {
                    k,
                    rows: name,
                    next: next_local,
                    spare,
                });
            }
            if !rows.is_empty() || le.body.step.is_some() {
                le.step = Some(
                    le.body
                        .step
                        .clone()
                        .unwrap_or_else(|| sh.namer.fresh("step")),
                );
            }
            for r in &rows {
                let (name, i, s) = (&r.rows, &ins[r.k], &le.state[r.k]);
                before.push(
                    quote!(let mut #name = #bp::Rows::with_steps((#start..#end).size_hint().0);),
                );
                first.push(quote!(#name.push(&#i);));
                if let Some(spare) = &r.spare {
                    before.push(quote!(let mut #spare = #bp::Spare::new();));
                    last.push(quote!(#spare.put(#i);));
                }
                if r.next.is_some() {
                    after.push(quote!(#name.push(&#s);));
                }
                self.defined.push(name.clone());
            }
            le.rows = rows;
            le.handoff = handoff;
            views_first(&mut kept, &le.body.views);
            le.d_state = d_state;
            le.body_reverse = body_reverse;
            le.kept = kept.clone();
            out.push(quote!(let mut #steps = ::std::vec::Vec::with_capacity((#start..#end).size_hint().0);));
            let saved = keep(&kept, &next, &le.body.views, bp);
            push.push(quote!(#steps.push((#(#saved,)*));));
        }
        out.extend(before);
        out.push(quote! {
            for #var in #start..#end {
                #(let #ins = #state;)*
                #(#first)*
                #(#body)*
                #(#push)*
                #(#last)*
                #(#state = #next;)*
            }
        });
        out.extend(after);
        self.defined.extend(state.iter().cloned());
        self.defined.extend([start, end]);
        if active {
            self.defined.push(steps);
        }
        out
    }

    /// ```text
    /// Before: for t in 0..n { h = tanh(&(w.dot(&h) + xs.row(t))); }
    /// After:  let mut d_h_1 = d_h_1;
    ///         let mut d_w = h_1_spare.zeros_like(w);
    ///         let mut outers = bp::Outers::new(steps.len(), [bp::outer_term(&d_w).v_from(h_1_rows.starts())]);
    ///         for (t, (step, (h_3, ...))) in (t_start..t_end).zip(steps.into_iter().enumerate()).rev() {
    ///             let h_1_in = h_1_rows.row(step);
    ///             let h_5 = h_1_rows.row(step + 1);
    ///             ... the body's reverse sweep, seeded with d_h_1, with
    ///             bp::dot_vjp_lhs_defer(outers.term(0, step), &mut d_w, &d_h_2, w, &h_1_in); ...
    ///             d_h_1 = d_h_in_step;
    ///         }
    ///         d_w = bp::add_outers(d_w, &mut outers, 0);
    ///         let d_h = d_h_1;
    /// ```
    fn loop_reverse(&mut self, sh: &mut Shared, id: NodeId, lp: &'g Loop) -> Vec<TokenStream> {
        let mut out = Vec::new();
        if !self.loop_active(id, lp) {
            return out;
        }
        let bp = sh.bp.clone();
        let d_state = self.loops[&id].d_state.clone();
        let outs = self.outs_of(id);
        // The adjoint of each carried state, flowing back through the iterations.
        for &(k, o) in &outs {
            let Some(d) = &d_state[k] else { continue };
            if self.a.active[o.index()] {
                let c = &self.contributions[o.index()];
                if self.borrowed[o.index()] {
                    out.push(quote!(let mut #d = #bp::copy(#(#c)+*);));
                } else if self.parts(o) > 1 || self.seeds[o.index()] == 1 {
                    out.push(quote!(let mut #d = #(#c)+*;));
                } else {
                    out.push(quote!(let mut #d = #d;));
                }
            }
        }
        // The gradients that start from zero: a last state that nothing
        // reads gives its own buffer, the loop's spare buffer serves the
        // first of its size (where the spare is in scope: the forward pass
        // and the reverse sweep of a loop body or a branch arm are two
        // blocks).
        let spare = self.loops[&id]
            .rows
            .iter()
            .find_map(|r| r.spare.clone())
            .filter(|_| self.top_level);
        let zeros = |x: TokenStream| match &spare {
            Some(spare) => quote!(#spare.zeros_like(#x)),
            None => quote!(#bp::zeros_like(#x)),
        };
        for (k, d) in d_state.iter().enumerate() {
            let active_out = outs
                .iter()
                .any(|(kk, o)| *kk == k && self.a.active[o.index()]);
            if let (Some(d), false) = (d, active_out) {
                let le = &self.loops[&id];
                let s = &le.state[k];
                let unread = outs.iter().all(|(kk, o)| {
                    *kk != k || (self.a.uses[o.index()].is_empty() && !self.results.contains(o))
                });
                if unread && !le.handoff.iter().any(|(kk, ..)| *kk == k) {
                    out.push(quote!(let mut #d = #bp::zeros_in(#s);));
                } else {
                    let z = zeros(quote!(&#s));
                    out.push(quote!(let mut #d = #z;));
                }
            }
        }
        let accs = self.loops[&id].accs.clone();
        for (j, acc) in &accs {
            let z = zeros(self.operand(sh, lp.inputs[*j]));
            out.push(quote!(let mut #acc = #z;));
        }
        // The outer products of the loop's weights, term by term: a term
        // reads its vectors where the loop keeps them (a state's rows, the
        // rows of an input it walks through) and shares the gradient of an
        // earlier term of the same gradient.
        let le = &self.loops[&id];
        let mut terms = Vec::new();
        for (k, t) in le.body.terms.iter().enumerate() {
            let acc = &t.acc;
            let mut term = quote!(#bp::outer_term(&#acc));
            if let Some(j) = le.body.terms[..k].iter().position(|o| o.u == t.u) {
                let j = Literal::usize_unsuffixed(j);
                term = quote!(#term.u_from(#j));
            }
            if let Some(rows) = t.v.and_then(|v| self.rows_of(sh, id, lp, v)) {
                term = quote!(#term.v_from(#rows));
            }
            terms.push(term);
        }
        let le = self.loops.get_mut(&id).expect("a loop emitter");
        let steps = &le.steps;
        if let Some(outers) = &le.body.outers {
            out.push(quote!(let mut #outers = #bp::Outers::new(#steps.len(), [#(#terms),*]);));
        }
        // The last iteration's new value is the loop's result.
        let mut head = Vec::new();
        for (k, local, carry) in &le.handoff {
            let s = &le.state[*k];
            out.push(quote!(let mut #carry = #s;));
            head.push(quote!(let #local = #carry;));
        }
        let body = std::mem::take(&mut le.body_reverse);
        let (start, end, steps) = (&le.start, &le.end, &le.steps);
        let var = le
            .body
            .loop_var
            .clone()
            .map_or(quote!(_), |v| v.to_token_stream());
        let saved = &le.kept;
        for r in &le.rows {
            let (rows, i) = (&r.rows, &le.ins[r.k]);
            let step = le.step.as_ref().expect("a step index where rows are read");
            head.push(quote!(let #i = #rows.row(#step);));
            if let Some(local) = &r.next {
                head.push(quote!(let #local = #rows.row(#step + 1);));
            }
        }
        let mut tail = Vec::new();
        for (j, acc) in &accs {
            let input = lp.body.inputs[*j];
            // Unless every contribution went into the accumulator already.
            if le.body.accumulated.get(&input).copied().unwrap_or(0) < le.body.parts(input) {
                let step = le.body.adj(input);
                tail.push(quote!(#acc = #acc + #step;));
            }
        }
        for (k, d) in d_state.iter().enumerate() {
            if let Some(d) = d {
                let input = lp.body.inputs[k];
                if le.body.a.active[input.index()] {
                    let step = le.body.adj(input);
                    tail.push(quote!(#d = #step;));
                } else {
                    let i = &le.ins[k];
                    tail.push(quote!(#d = #bp::zeros_like(&#i);));
                }
            }
        }
        for (k, _, carry) in &le.handoff {
            let i = &le.ins[*k];
            tail.push(quote!(#carry = #i;));
        }
        let header = match &le.step {
            Some(step) => quote! {
                for (#var, (#step, (#(#saved,)*))) in (#start..#end).zip(#steps.into_iter().enumerate()).rev()
            },
            None => quote!(for (#var, (#(#saved,)*)) in (#start..#end).zip(#steps).rev()),
        };
        out.push(quote! {
            #header {
                #(#head)*
                #(#body)*
                #(#tail)*
            }
        });
        if let Some(outers) = &le.body.outers {
            for (k, t) in le.body.terms.iter().enumerate() {
                let (acc, k) = (&t.acc, Literal::usize_unsuffixed(k));
                out.push(quote!(#acc = #bp::add_outers(#acc, &mut #outers, #k);));
            }
        }
        // What flows to the carried variables' initial values.
        for (k, d) in d_state.iter().enumerate() {
            let p = lp.inputs[k];
            if let Some(d) = d {
                if self.a.active[p.index()] {
                    let target = self.contribution_target(sh, p, id);
                    out.push(quote!(let #target = #d;));
                }
            }
        }
        out
    }

    /// Where the loop `id` keeps the values its body node `v` takes, one
    /// row per iteration: the rows of a carried state (`v` is the state at
    /// the start of an iteration), or the rows of a captured matrix that
    /// `v = m.row(i)` walks through with `i` the loop's index.
    fn rows_of(&self, sh: &Shared, id: NodeId, lp: &Loop, v: NodeId) -> Option<TokenStream> {
        let le = &self.loops[&id];
        let body = &lp.body.graph;
        match &body.nodes[v.index()].node {
            Node::Input(k) if *k < lp.carried => le.rows.iter().find(|r| r.k == *k).map(|r| {
                let rows = &r.rows;
                quote!(#rows.starts())
            }),
            Node::Op {
                op: Op::Row,
                inputs,
                consts,
            } => {
                let (Some(var), [m], [index]) = (&lp.var, &inputs[..], &consts[..]) else {
                    return None;
                };
                let Node::Input(j) = body.nodes[m.index()].node else {
                    return None;
                };
                // The index is the loop's variable and nothing else.
                let by_var = match &index.expr {
                    syn::Expr::Path(p) if p.qself.is_none() => match p.path.get_ident() {
                        Some(i) => match index.resolve(&i.to_string()) {
                            Some((d, _)) => matches!(body.nodes[d.index()].node, Node::LoopVar),
                            None => i == var,
                        },
                        None => false,
                    },
                    _ => false,
                };
                if j < lp.carried || !by_var {
                    return None;
                }
                let m = self.operand(sh, lp.inputs[j]);
                let bp = &sh.bp;
                let (start, end) = (&le.start, &le.end);
                Some(quote!(#bp::rows_in(#m, #start, #end)))
            }
            _ => None,
        }
    }

    /// The reverse sweep: for each active node, latest first, its adjoint
    /// (the sum of its contributions) and then its contributions to its inputs.
    fn reverse(&mut self, sh: &mut Shared) -> Vec<TokenStream> {
        let bp = sh.bp.clone();
        let mut out = Vec::new();
        for id in self.graph.ids().rev() {
            if let Node::Loop(lp) = self.node(id) {
                if self.a.live[id.index()] {
                    out.extend(self.loop_reverse(sh, id, lp));
                }
                continue;
            }
            if let Node::Branch(b) = self.node(id) {
                if self.a.live[id.index()] {
                    out.extend(self.branch_reverse(sh, id, b));
                }
                continue;
            }
            if !self.a.active[id.index()] {
                continue;
            }
            if matches!(self.node(id), Node::Out { .. }) || self.unmade.contains(&id) {
                // The loop reads (and sums) this adjoint; a square that was
                // never made has none (its sum's rule skips it).
                continue;
            }
            let adj = self.adj(id).clone();
            out.extend(self.adjoint_sum(id));
            if let Some(&(x, owned)) = self.sum_squares.get(&id) {
                let target = self.contribution_target(sh, x, id);
                let span = self.span(id);
                let name = self.name(id);
                out.push(if owned {
                    let x = self.name(x);
                    let f = Ident::new(fused::SUM_SQUARE_VJP_OWNED, span);
                    quote_spanned!(span=> let #target = #bp::#f(#adj, #x, &#name);)
                } else {
                    let x = self.operand(sh, x);
                    let f = Ident::new(fused::SUM_SQUARE_VJP, span);
                    quote_spanned!(span=> let #target = #bp::#f(#adj, #x, &#name);)
                });
                continue;
            }
            let Node::Op { op, inputs, consts } = self.node(id) else {
                continue;
            };
            let span = self.span(id);
            let def = op.def();
            let rule_takes = self.rule_takes.contains(&id);
            let args: Vec<TokenStream> = inputs
                .iter()
                .enumerate()
                .map(|(p, i)| match (rule_takes, p) {
                    (true, 0) => self.name(*i).to_token_stream(),
                    _ => self.operand(sh, *i),
                })
                .collect();
            let consts: Vec<TokenStream> = consts.iter().map(|c| self.subst(c)).collect();
            let tail: Vec<TokenStream> = match (&self.saved[id.index()], def.reads_out) {
                // The rule is the saved value's last reader: it may reuse it.
                (Some(saved), _) => vec![quote!(#saved)],
                (None, true) => {
                    let n = self.name(id);
                    vec![quote!(&#n)]
                }
                (None, false) => Vec::new(),
            };
            let active: Vec<usize> = (0..inputs.len())
                .filter(|&p| self.a.active[inputs[p].index()])
                .collect();
            let borrowed = self.borrowed[id.index()];
            if let Op::Call(k) = op {
                let call = &self.graph.calls[*k as usize];
                let mut targets: Vec<TokenStream> = Vec::new();
                for a in &call.args {
                    match a {
                        CallArg::Input { input, .. } if self.a.active[inputs[*input].index()] => {
                            let target = self.contribution_target(sh, inputs[*input], id);
                            targets.push(target.into_token_stream());
                        }
                        _ => targets.push(quote!(_)),
                    }
                }
                let vjp = &call.vjp;
                let args = self.call_args(sh, call, inputs);
                out.push(quote_spanned!(span=> let (#(#targets,)*) = #vjp(#(#args,)* #adj);));
                continue;
            }
            let both = Some(def.both).filter(|b| !b.is_empty());
            // Where a contribution can be added into an accumulator, the
            // accumulated operands go first (borrowing the gradient) and the
            // last rule takes it.
            let accumulates = |s: &Self, p: usize| {
                s.acc_target(*op, inputs[p]).is_some() || s.partial(*op, inputs[p]).is_some()
            };
            let mut active = active;
            active.sort_by_key(|&p| !accumulates(self, p));
            let any_acc = active.iter().any(|&p| accumulates(self, p));
            if let (Op::Add, 2, false, Some(later)) =
                (op, active.len(), any_acc, self.lender(inputs))
            {
                // Both operands' gradients are the upstream one when neither
                // was broadcast: the one whose rule runs first borrows it.
                let lhs = self.contribution_target(sh, inputs[0], id);
                let rhs = self.contribution_target(sh, inputs[1], id);
                let lend = def.lend.expect("a sum lends");
                let (rule, own, lent) = if later == 1 {
                    (lend[0], &lhs, &rhs)
                } else {
                    (lend[1], &rhs, &lhs)
                };
                let rule = Ident::new(rule, span);
                out.push(quote_spanned!(span=> let (#lhs, #rhs) = #bp::#rule(#adj, #(#args),*);));
                out.push(quote_spanned!(span=> let #lent = #bp::lent(#lent, &#own);));
                self.lent_from.insert(lent.to_string(), own.clone());
                continue;
            }
            if let (Some(rule), 2, false) = (both, active.len(), any_acc) {
                // One call decides at run time which operand gets the buffer.
                let lhs = self.contribution_target(sh, inputs[0], id);
                let rhs = self.contribution_target(sh, inputs[1], id);
                let rule = Ident::new(rule, span);
                out.push(quote_spanned!(span=> let (#lhs, #rhs) = #bp::#rule(#adj, #(#args),*);));
                continue;
            }
            for (j, &pos) in active.iter().enumerate() {
                let input = inputs[pos];
                // An array output's upstream gradient arrives by reference already.
                let g = if j + 1 == active.len() || borrowed {
                    quote!(#adj)
                } else {
                    quote!(&#adj)
                };
                if let Some((acc, captured)) = self.acc_target(*op, input) {
                    // A weight every iteration reads, or a carried value's
                    // adjoint: the contribution is added into it, with no
                    // array of its own.
                    if captured && *op == Op::Dot && !self.flat.contains(&input) {
                        // A weight's outer products are added after the
                        // loop, by one matrix product.
                        let u = self.lent_from.get(&adj.to_string()).unwrap_or(&adj);
                        let term = OuterTerm {
                            acc: acc.clone(),
                            u: u.to_string(),
                            v: (pos == 0).then(|| inputs[1]),
                        };
                        let (outers, step, k) = self.outer_term(sh, term);
                        let defer = def
                            .accumulating
                            .and_then(|a| a.defer)
                            .expect("a deferred rule");
                        let rule = Ident::new(defer[pos.min(1)], span);
                        out.push(quote_spanned!(span=>
                            #bp::#rule(#outers.term(#k, #step), &mut #acc, #g, #(#args),*);
                        ));
                    } else {
                        let acc_rules = def.accumulating.expect("an accumulating rule");
                        let rule = Ident::new(acc_rules.acc[pos.min(1)], span);
                        out.push(quote_spanned!(span=> #bp::#rule(&mut #acc, #g, #(#args),*);));
                    }
                    if captured {
                        *self.accumulated.entry(input).or_insert(0) += 1;
                    }
                    continue;
                }
                if let Some(k) = self.partial(*op, input) {
                    // The fork rule, summed as it goes: this contribution is
                    // added into one written before (no array of its own).
                    let prev = self.contributions[input.index()][k].clone();
                    let written = self.contributions[input.index()].len()
                        - self.seeds[input.index()]
                        + self.merged.get(&input).copied().unwrap_or(0);
                    let whole = written + 1 == self.a.uses[input.index()].len()
                        && self.contributions[input.index()].len() == 1;
                    let target = if whole {
                        self.adj(input).clone()
                    } else {
                        let name = format!("{}_from_{}", self.adj(input), self.name(id));
                        sh.namer.fresh(&name)
                    };
                    let acc_rules = def.accumulating.expect("an accumulating rule");
                    let rule = Ident::new(acc_rules.add[pos.min(1)], span);
                    out.push(
                        quote_spanned!(span=> let #target = #bp::#rule(#prev, #g, #(#args),*);),
                    );
                    self.contributions[input.index()][k] = target.to_token_stream();
                    *self.merged.entry(input).or_insert(0) += 1;
                    continue;
                }
                let target = self.contribution_target(sh, input, id);
                let call = match def.rules {
                    Rules::Indexed(rule) => {
                        let rule = Ident::new(rule, span);
                        quote_spanned!(span=> #bp::#rule(#g, #(#consts),*, &[#(#args),*], #pos #(, #tail)*))
                    }
                    Rules::One(rule) => {
                        let rule = Ident::new(rule, span);
                        quote_spanned!(span=> #bp::#rule(#g, #(#args,)* #(#consts,)* #(#tail)*))
                    }
                    Rules::Two(_, _) if rule_takes && pos == 0 => {
                        let rule = Ident::new(def.rule_owned, span);
                        quote_spanned!(span=> #bp::#rule(#g, #(#args,)* #(#consts,)* #(#tail)*))
                    }
                    Rules::Two(lhs, rhs) => {
                        let rule = Ident::new(if pos == 0 { lhs } else { rhs }, span);
                        quote_spanned!(span=> #bp::#rule(#g, #(#args,)* #(#consts,)* #(#tail)*))
                    }
                };
                out.push(quote!(let #target = #call;));
            }
        }
        out
    }

    /// For a sum `a + b` of two arrays: the position of the operand whose
    /// gradient may borrow the other's. Each operand's gradient must be this
    /// sum's contribution alone, and both made by ops (the borrower's rule
    /// reads the gradient as a `Cot`, and nothing else does). The borrower is
    /// the later of the two, whose rule the reverse sweep writes first, so
    /// the borrow ends before the other gradient is used.
    fn lender(&self, inputs: &[NodeId]) -> Option<usize> {
        let [a, b] = inputs else { return None };
        let alone = |x: &NodeId| {
            self.parts(*x) == 1 && !self.scalar.get(x.index()).copied().unwrap_or(true)
        };
        if a == b || !alone(a) || !alone(b) {
            return None;
        }
        // Both made by ops: a parameter or a loop's value is more often a
        // broadcast bias or a scalar, where there is nothing to share.
        let made = |x: &NodeId| {
            matches!(self.node(*x), Node::Op { op, .. } if !matches!(op, Op::Call(_)))
                && !self.unmade.contains(x)
        };
        (made(a) && made(b)).then_some(if b > a { 1 } else { 0 })
    }

    /// A new term of the loop's `Outers`: the `Outers`, the iteration's
    /// index and the term's number (a literal).
    fn outer_term(&mut self, sh: &mut Shared, term: OuterTerm) -> (Ident, Ident, Literal) {
        let outers = self
            .outers
            .get_or_insert_with(|| sh.namer.fresh("outers"))
            .clone();
        let step = self
            .step
            .get_or_insert_with(|| sh.namer.fresh("step"))
            .clone();
        self.terms.push(term);
        (
            outers,
            step,
            Literal::usize_unsuffixed(self.terms.len() - 1),
        )
    }

    /// The accumulator a contribution of `op` to `input` may be added into:
    /// in a loop body, the loop's gradient of a captured value (`true`), or
    /// the carried adjoint that seeds `input` (`false`). Products, sums and
    /// differences have accumulating rules.
    fn acc_target(&self, op: Op, input: NodeId) -> Option<(Ident, bool)> {
        if !matches!(op, Op::Dot | Op::Add | Op::Sub) {
            return None;
        }
        if let Some(acc) = self.acc_into.get(&input) {
            return Some((acc.clone(), true));
        }
        self.acc_seed.get(&input).map(|d| (d.clone(), false))
    }

    /// The contribution already written to `input` (by position in its list)
    /// that a product's, sum's or difference's contribution may be added
    /// into: the latest one a rule or region wrote, never a seed (`d_out` may
    /// be borrowed).
    fn partial(&self, op: Op, input: NodeId) -> Option<usize> {
        if !matches!(op, Op::Dot | Op::Add | Op::Sub) || self.parts(input) < 2 {
            return None;
        }
        let c = &self.contributions[input.index()];
        // A loop's accumulator is named before the loop's reverse sweep
        // writes it.
        (self.seeds[input.index()]..c.len())
            .rev()
            .find(|&k| !self.loop_accs.contains(&c[k].to_string()))
    }

    /// `let d_x = c1 + c2;` once all contributions to `d_x` are written (the
    /// fork rule), or `let d_x = seed;`; nothing when the single contribution
    /// was written under the adjoint's own name.
    fn adjoint_sum(&self, id: NodeId) -> Option<TokenStream> {
        let adj = self.adj(id);
        let c = &self.contributions[id.index()];
        if let Some(k) = self.accumulated.get(&id) {
            // Products added into the loop's accumulator directly; the rest
            // is summed here (and added by the loop).
            return (*k < self.parts(id) && !c.is_empty()).then(|| quote!(let #adj = #(#c)+*;));
        }
        let wanted = self.parts(id) > 1 || self.seeds[id.index()] == 1;
        (wanted && !(c.len() == 1 && *adj == c[0].to_string())).then(|| quote!(let #adj = #(#c)+*;))
    }

    /// The name of the contribution of `consumer` to the adjoint of `input`:
    /// the adjoint itself when it is the only one.
    fn contribution_target(&mut self, sh: &mut Shared, input: NodeId, consumer: NodeId) -> Ident {
        if self.parts(input) == 1 {
            return self.adj(input).clone();
        }
        let consumer_name = match self.names[consumer.index()].as_ref() {
            Some(n) => n.to_string(),
            None => match self.node(consumer) {
                Node::Branch(_) => "branch".to_owned(),
                _ => "loop".to_owned(),
            },
        };
        let want = format!("{}_from_{}", self.adj(input), consumer_name);
        let c = sh.namer.fresh(&want);
        self.contributions[input.index()].push(c.to_token_stream());
        c
    }

    /// The arguments of a call as the user passed them: borrowed values
    /// borrowed, values by value cloned (a clone of a reference or a float is a
    /// copy), constants as written.
    fn call_args(&self, sh: &Shared, call: &Call, inputs: &[NodeId]) -> Vec<TokenStream> {
        call.args
            .iter()
            .map(|a| match a {
                CallArg::Const(c) => self.subst(c),
                CallArg::Input {
                    input, view: true, ..
                } => {
                    let raw = self.raw(inputs[*input]);
                    quote!((#raw).view())
                }
                CallArg::Input {
                    input,
                    by_ref: true,
                    ..
                } => self.operand(sh, inputs[*input]),
                CallArg::Input {
                    input,
                    by_ref: false,
                    ..
                } => {
                    let id = inputs[*input];
                    match self.node(id) {
                        Node::Float(t) => t.clone(),
                        Node::Param(i) => {
                            let p = &sh.func.params[*i];
                            let ident = &p.ident;
                            // A reference or a float is copied; an array by value is cloned.
                            if p.by_ref || matches!(p.kind, Kind::Scalar(_)) {
                                quote!(#ident)
                            } else {
                                quote!(::core::clone::Clone::clone(&#ident))
                            }
                        }
                        _ => {
                            let n = self.raw(id);
                            quote!(::core::clone::Clone::clone(&#n))
                        }
                    }
                }
            })
            .collect()
    }

    /// The value the function returns.
    fn value(&self, sh: &Shared, id: NodeId) -> TokenStream {
        match self.node(id) {
            Node::Param(i) => {
                let p = &sh.func.params[*i];
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
    fn grad_fields(&self, sh: &Shared) -> Vec<TokenStream> {
        let bp = &sh.bp;
        let mut out = Vec::new();
        for id in self.graph.ids() {
            let Node::Param(i) = self.node(id) else {
                continue;
            };
            let p = &sh.func.params[*i];
            if !p.differentiable {
                continue;
            }
            let ident = &p.ident;
            if self.a.active[id.index()] {
                let adj = self.adj(id);
                out.push(quote!(#ident: #adj));
            } else {
                let arg = self.operand(sh, id);
                out.push(quote!(#ident: #bp::zeros_like(#arg)));
            }
        }
        out
    }
}

/// Whether `op` has an in-place form that may write over its first operand:
/// only where no adjoint rule of `op` that runs (those of its `active`
/// operands) reads that operand's values, so a shape stands in for it.
fn reuses(op: Op, active: &[bool]) -> bool {
    op.in_place(active)
}
