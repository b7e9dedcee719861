//! `for` loops over iterators, as the loop over indices they are: each
//! source is walked by an index (`x.rows()` is `x.row(k)` for `k` in
//! `0..x.nrows()`, `x.iter()` of a differentiable array its elements in
//! logical order, `x[bp::unravel(x.raw_dim(), k)]`, a constant iterable is
//! collected once and its items cloned by index), `.enumerate()` adds the
//! index, `.zip(..)` pairs items and stops at the shorter. The items of
//! constant data are constants of the gradient; the elements, rows,
//! columns and lanes of a differentiable array are values the macro
//! differentiates.
//!
//! Before: `for (i, &label) in labels.iter().enumerate() { .. }`
//!
//! After: `{ let items = labels.iter().collect::<Vec<_>>();
//! for k in 0..items.len() { let (i, &label) = (k, items[k].clone()); .. } }`

use super::{Fresh, Lowerer};
pub(super) use crate::ast::reads::returns_early;
use crate::graph::NodeId;
use proc_macro2::TokenStream;
use quote::quote;
use syn::spanned::Spanned;
use syn::{Expr, ExprForLoop};

/// One walk of a source: how many items, and the item at the index.
struct Walk {
    /// `let` statements before the loop (a constant source collected).
    setup: Vec<TokenStream>,
    len: TokenStream,
    item: Item,
}

/// The item at the index, as the pattern destructures it.
enum Item {
    /// A view of an array, or the index.
    Value(TokenStream),
    /// An element of a differentiable array: a number, which Rust's
    /// `x.iter()` gives by reference (the body's `*v` is `v`).
    Element(TokenStream),
    /// An item of a constant iterable: the names it binds are read as
    /// values (`bp::Plain`: a `&f64` as the `f64`).
    Constant(TokenStream),
    /// An element of a constant container of floats, by value (the
    /// pattern's `&` dropped, see `by_value`), of the float type given
    /// where it is known; read as a constant's item is.
    Number(TokenStream, Option<TokenStream>),
    /// `(a, b)`: `.enumerate()`, `.zip(..)`.
    Pair(Box<Item>, Box<Item>),
    /// An element of a model's `Vec` (`model.layers[k]`): the name bound
    /// to it is that place wherever the body reads it, so that its fields
    /// are the model's.
    Place(TokenStream),
}

impl Item {
    fn tokens(&self) -> TokenStream {
        match self {
            Item::Value(t) | Item::Element(t) | Item::Constant(t) | Item::Number(t, _) => t.clone(),
            // The name is the place itself (see `places`).
            Item::Place(_) => quote!(0usize),
            Item::Pair(a, b) => {
                let (a, b) = (a.tokens(), b.tokens());
                quote!((#a, #b))
            }
        }
    }

    /// Each single item with the part of `pat` that destructures it
    /// (through type ascriptions, parentheses, `&` and the pairs of
    /// `.enumerate()` and `.zip(..)`).
    fn leaves<'p>(&self, pat: &'p syn::Pat, f: &mut impl FnMut(&Item, &'p syn::Pat)) {
        match (self, pat) {
            (_, syn::Pat::Type(t)) => self.leaves(&t.pat, f),
            (_, syn::Pat::Paren(p)) => self.leaves(&p.pat, f),
            (_, syn::Pat::Reference(r)) => self.leaves(&r.pat, f),
            (Item::Pair(a, b), syn::Pat::Tuple(t)) if t.elems.len() == 2 => {
                a.leaves(&t.elems[0], f);
                b.leaves(&t.elems[1], f);
            }
            (item, p) => f(item, p),
        }
    }

    /// `pat` without the `&` of the parts that destructure a number (an
    /// element of a container of floats, which the walk gives by value:
    /// `&v` of `xs.iter()` binds `v` to `xs[k]`).
    fn by_value(&self, pat: &syn::Pat) -> syn::Pat {
        let number = matches!(self, Item::Element(_) | Item::Number(..));
        match (self, pat) {
            (_, syn::Pat::Reference(r)) if number => self.by_value(&r.pat),
            (Item::Pair(a, b), syn::Pat::Tuple(t)) if t.elems.len() == 2 => {
                let mut t = t.clone();
                t.elems[0] = a.by_value(&t.elems[0]);
                t.elems[1] = b.by_value(&t.elems[1]);
                syn::Pat::Tuple(t)
            }
            (_, syn::Pat::Paren(p)) => self.by_value(&p.pat),
            _ => pat.clone(),
        }
    }

    /// The names `pat` binds to items of constant iterables, with their
    /// float type where it is known.
    fn constant_names(&self, pat: &syn::Pat, out: &mut Vec<(syn::Ident, Option<TokenStream>)>) {
        self.leaves(pat, &mut |item, p| {
            let ty = match item {
                Item::Constant(_) => None,
                Item::Number(_, ty) => ty.clone(),
                _ => return,
            };
            let mut names = Vec::new();
            names_in(p, &mut names);
            out.extend(names.into_iter().map(|n| (n, ty.clone())));
        });
    }

    /// The names `pat` binds to elements of differentiable arrays.
    fn element_names(&self, pat: &syn::Pat, out: &mut Vec<syn::Ident>) {
        self.leaves(pat, &mut |item, p| {
            if let Item::Element(_) = item {
                names_in(p, out);
            }
        });
    }

    /// The item, an element where it is a view's.
    fn element(self) -> Item {
        match self {
            Item::Value(t) => Item::Element(t),
            other => other,
        }
    }

    /// The names `pat` binds to elements of a model's `Vec`, with the
    /// place each stands for.
    fn places(&self, pat: &syn::Pat, out: &mut Vec<(syn::Ident, TokenStream)>) {
        self.leaves(pat, &mut |item, p| {
            if let (Item::Place(place), syn::Pat::Ident(p)) = (item, p) {
                out.push((p.ident.clone(), place.clone()));
            }
        });
    }
}

/// `stmts` with `*v` read as `v` for each name `v` of `names`.
fn read_through(mut stmts: Vec<syn::Stmt>, names: &[syn::Ident]) -> Vec<syn::Stmt> {
    struct Derefs<'a>(&'a [syn::Ident]);
    impl syn::visit_mut::VisitMut for Derefs<'_> {
        fn visit_expr_mut(&mut self, e: &mut Expr) {
            if let Expr::Unary(u) = e {
                if let (syn::UnOp::Deref(_), Expr::Path(p)) = (&u.op, &*u.expr) {
                    if p.path.get_ident().is_some_and(|i| self.0.contains(i)) {
                        *e = (*u.expr).clone();
                        return;
                    }
                }
            }
            syn::visit_mut::visit_expr_mut(self, e);
        }
    }
    if !names.is_empty() {
        let mut derefs = Derefs(names);
        for s in &mut stmts {
            syn::visit_mut::VisitMut::visit_stmt_mut(&mut derefs, s);
        }
    }
    stmts
}

/// The body with each name of `places` replaced by its place; `Err` with
/// the name where the body binds it again (it would stand for two things).
pub(super) fn put_places(
    body: &[syn::Stmt],
    places: &[(syn::Ident, TokenStream)],
) -> Result<Vec<syn::Stmt>, syn::Ident> {
    struct Rebinds<'a>(&'a [(syn::Ident, TokenStream)], Option<syn::Ident>);
    impl<'ast> syn::visit::Visit<'ast> for Rebinds<'_> {
        fn visit_pat_ident(&mut self, p: &'ast syn::PatIdent) {
            if self.0.iter().any(|(n, _)| *n == p.ident) {
                self.1 = Some(p.ident.clone());
            }
        }
    }
    struct Put<'a>(&'a [(syn::Ident, TokenStream)]);
    impl syn::visit_mut::VisitMut for Put<'_> {
        fn visit_expr_mut(&mut self, e: &mut Expr) {
            if let Expr::Path(p) = e {
                if let Some((_, place)) = self.0.iter().find(|(n, _)| p.path.is_ident(n)) {
                    // A place (field and index accesses) binds tightest.
                    *e = syn::parse_quote_spanned!(p.span()=> #place);
                    return;
                }
            }
            syn::visit_mut::visit_expr_mut(self, e);
        }
    }
    let mut rebinds = Rebinds(places, None);
    for s in body {
        syn::visit::Visit::visit_stmt(&mut rebinds, s);
    }
    if let Some(name) = rebinds.1 {
        return Err(name);
    }
    let mut out = body.to_vec();
    for s in &mut out {
        syn::visit_mut::VisitMut::visit_stmt_mut(&mut Put(places), s);
    }
    Ok(out)
}

/// Every name a pattern binds.
pub(super) fn names_in(p: &syn::Pat, out: &mut Vec<syn::Ident>) {
    struct Find<'a>(&'a mut Vec<syn::Ident>);
    impl<'ast> syn::visit::Visit<'ast> for Find<'_> {
        fn visit_pat_ident(&mut self, p: &'ast syn::PatIdent) {
            self.0.push(p.ident.clone());
            syn::visit::visit_pat_ident(self, p);
        }
    }
    syn::visit::Visit::visit_pat(&mut Find(out), p);
}

impl Lowerer<'_> {
    /// `iter.fold(init, |acc, item| body)` over an iterator (`x.iter()`,
    /// `(0..n)`, with adapters) that mentions a differentiable value: the
    /// loop it is, `{ let mut acc = init; for item in iter { acc = body; }
    /// acc }`, lowered as the user's loop would be; a function of the two
    /// (`f64::max`) is called as `acc = f(acc, item)`, and each `.map(f)`
    /// before the fold binds its item in the body (`let item = f(x);`).
    /// `None` when `m` is no such fold: ndarray's `a.fold(..)` (its order
    /// is the memory's), a fold of constants, a closure that returns early
    /// (`return`, `?`), or a map whose names the fold's closure reads from
    /// outside.
    pub(super) fn iterator_fold(&mut self, m: &syn::ExprMethodCall) -> Option<NodeId> {
        if m.method != "fold" || m.args.len() != 2 {
            return None;
        }
        let (init, mut iter) = (&m.args[0], &*m.receiver);
        let span = m.method.span();
        let (acc, ty, item, body): (syn::Ident, _, syn::Pat, Expr) =
            match super::strip_paren(&m.args[1]) {
                Expr::Closure(c) if c.inputs.len() == 2 && !returns_early(&c.body) => {
                    let (acc, ty) = match &c.inputs[0] {
                        syn::Pat::Type(t) => (&*t.pat, Some(&t.ty)),
                        p => (p, None),
                    };
                    let acc = match acc {
                        syn::Pat::Ident(p) if p.by_ref.is_none() && p.subpat.is_none() => {
                            p.ident.clone()
                        }
                        // `|_, &v| ..`: an accumulator the body does not read.
                        syn::Pat::Wild(_) => Fresh::of(&self.func.item).name("acc"),
                        _ => return None,
                    };
                    let ty = ty.map(|t| quote!(: #t));
                    (acc, ty, c.inputs[1].clone(), (*c.body).clone())
                }
                // A function of the accumulator and the item (`f64::max`).
                f @ Expr::Path(_) => {
                    let mut fresh = Fresh::of(&self.func.item);
                    let (acc, item) = (fresh.name("acc"), fresh.name("item"));
                    let body = syn::parse_quote_spanned!(span=> #f(#acc, #item));
                    (acc, None, syn::parse_quote!(#item), body)
                }
                _ => return None,
            };
        // `iter.map(f).fold(..)`: the item is `f` of the source's item.
        let (mut item, mut body) = (item, body);
        while let Expr::MethodCall(map) = super::strip_paren(iter) {
            if map.method != "map" || map.args.len() != 1 {
                break;
            }
            let (source_item, mapped): (syn::Pat, Expr) = match super::strip_paren(&map.args[0]) {
                Expr::Closure(c) if c.inputs.len() == 1 && !returns_early(&c.body) => {
                    (c.inputs[0].clone(), (*c.body).clone())
                }
                f @ Expr::Path(_) => {
                    let x = Fresh::of(&self.func.item).name("mapped");
                    (
                        syn::parse_quote!(#x),
                        syn::parse_quote_spanned!(span=> #f(#x)),
                    )
                }
                _ => return None,
            };
            // The map's names are bound around the fold's body, which must
            // not read an outer value of the same name.
            let (mut bound, mut shadowing) = (Vec::new(), vec![acc.clone()]);
            names_in(&source_item, &mut bound);
            names_in(&item, &mut shadowing);
            bound.retain(|n| !shadowing.contains(n));
            if self
                .mentioned_names(&body)
                .iter()
                .any(|n| bound.contains(n))
            {
                return None;
            }
            body = syn::parse_quote_spanned!(span=> { let #item = #mapped; #body });
            item = source_item;
            iter = &map.receiver;
        }
        if !iterator(iter) {
            return None;
        }
        let folds_varying = [iter, init, &body].iter().any(|e| self.mentions_varying(e));
        if !folds_varying {
            return None;
        }
        let block: Expr = syn::parse_quote_spanned! {span=> {
            let mut #acc #ty = #init;
            for #item in #iter {
                #acc = #body;
            }
            #acc
        }};
        Some(self.expr(&block))
    }

    /// `iter.map(f).sum()` and `.product()` of an iterator the closure sums
    /// of `lower::closures` do not take (`x.iter().enumerate().map(..)`,
    /// `.skip(1)`, `.rev()`, a range), and such an iterator summed without
    /// a map: the fold they are, `iter.fold(-0.0, |acc, item| acc + item)`
    /// (std's sum of floats starts from `-0.0`, its product from `1.0`),
    /// whose maps [`Self::iterator_fold`] binds. `None` for `x.iter().sum()`
    /// itself (a row of the op table) and any other call.
    pub(super) fn iterator_reduction(&mut self, m: &syn::ExprMethodCall) -> Option<NodeId> {
        let (op, init): (syn::BinOp, Expr) = match m.method.to_string().as_str() {
            "sum" => (syn::parse_quote!(+), syn::parse_quote!(-0.0)),
            "product" => (syn::parse_quote!(*), syn::parse_quote!(1.0)),
            _ => return None,
        };
        let receiver = super::strip_paren(&m.receiver);
        let elements_only =
            matches!(receiver, Expr::MethodCall(r) if r.method == "iter" && r.args.is_empty());
        // The source under the maps (`a.sum()` of an array is an op).
        let mut source = receiver;
        while let Expr::MethodCall(map) = source {
            if map.method != "map" {
                break;
            }
            source = super::strip_paren(&map.receiver);
        }
        if !m.args.is_empty() || (elements_only && !self.walks_plain(receiver)) || !iterator(source)
        {
            return None;
        }
        let mut fresh = Fresh::of(&self.func.item);
        let (acc, item) = (fresh.name("acc"), fresh.name("item"));
        let fold: syn::ExprMethodCall = syn::parse_quote_spanned! {m.method.span()=>
            (#receiver).fold(#init, |#acc, #item| #acc #op #item)
        };
        self.iterator_fold(&fold)
    }

    /// A sum, product or fold of an iterator over constants only
    /// (`ys.iter().enumerate().map(..).sum::<f64>()` of data outside
    /// `wrt(..)`, `ys[1..].iter().sum()`): Rust's, a constant.
    pub(super) fn constant_iteration(&mut self, m: &syn::ExprMethodCall) -> Option<NodeId> {
        if !matches!(m.method.to_string().as_str(), "sum" | "product" | "fold") {
            return None;
        }
        let mut source = super::strip_paren(&m.receiver);
        while let Expr::MethodCall(map) = source {
            if map.method != "map" {
                break;
            }
            source = super::strip_paren(&map.receiver);
        }
        let whole = Expr::MethodCall(m.clone());
        if !iterator(source) || self.mentions_varying(&whole) {
            return None;
        }
        Some(self.constant(&whole, ""))
    }

    /// `source.filter(|p| cond)` of a differentiable array's elements,
    /// rows, columns, lanes or windows (through `skip`, `take`,
    /// `step_by`, `rev`, `copied`, `cloned`): the source and the closure.
    /// Its items are values, whose references the closure's pattern and
    /// body read through; `None` for any other `filter` (of `enumerate`'s
    /// indices or of constant data, which the closure reads by their Rust
    /// types), which the caller reports.
    fn filtered<'e>(&mut self, e: &'e Expr) -> Option<(&'e Expr, (&'e syn::ExprClosure, bool))> {
        let Expr::MethodCall(m) = super::strip_paren(e) else {
            return None;
        };
        let Expr::Closure(c) = super::strip_paren(m.args.first()?) else {
            return None;
        };
        if m.method != "filter"
            || m.args.len() != 1
            || c.inputs.len() != 1
            || returns_early(&c.body)
        {
            return None;
        }
        // Whether the items are references (`x.iter()`'s `&f64`), so that
        // the closure gets a reference to one.
        let mut copied = false;
        let mut link = super::strip_paren(&m.receiver);
        loop {
            let Expr::MethodCall(a) = link else {
                return None;
            };
            let method = a.method.to_string();
            match method.as_str() {
                "skip" | "take" | "step_by" | "rev" | "copied" | "cloned" | "into_iter" => {
                    copied |= method == "copied" || method == "cloned";
                    link = super::strip_paren(&a.receiver);
                }
                "iter" | "rows" | "columns" | "outer_iter" | "axis_iter" | "windows" | "chunks" => {
                    let by_ref = method == "iter" && !copied;
                    let varying = self.mentions_varying(&a.receiver);
                    return varying.then_some((&*m.receiver, (c, by_ref)));
                }
                _ => return None,
            }
        }
    }

    /// Whether `e` is a view walk (`x.rows()`, ...), whose `.into_iter()`
    /// is itself.
    fn walk_view(&self, e: &Expr) -> bool {
        matches!(super::strip_paren(e), Expr::MethodCall(m)
            if matches!(m.method.to_string().as_str(), "rows" | "columns" | "outer_iter" | "axis_iter" | "windows" | "chunks"))
    }

    /// `for pat in iter { body }` over an iterator the macro walks by index;
    /// `None` when `iter` is not one (the caller reports it).
    pub(super) fn iter_loop(&mut self, f: &ExprForLoop) -> Option<NodeId> {
        let span = f.for_token.span();
        let mut fresh = Fresh::of(&self.func.item);
        let k = fresh.name("k");
        let (source, keep) = match self.filtered(&f.expr) {
            Some((source, closure)) => (source, Some(closure)),
            None => (&*f.expr, None),
        };
        let walk = match self.walk(source, &quote!(#k), &mut fresh) {
            Ok(w) => w?,
            Err(()) => return Some(self.error_node(span)),
        };
        let Walk { setup, len, item } = walk;
        let pat = &f.pat;
        let mut places = Vec::new();
        item.places(pat, &mut places);
        let body = match put_places(&f.body.stmts, &places) {
            Ok(body) => body,
            Err(name) => {
                self.cx.error(
                    name.span(),
                    format!("`{name}` is an element of a model's `Vec` in this loop, and the body binds the name again; use another name"),
                );
                return Some(self.error_node(span));
            }
        };
        let mut constants = Vec::new();
        item.constant_names(pat, &mut constants);
        // Those names are read as values (`Plain::plain`, typed where the
        // float type is known): the body's `*v` of a `&f64` item is `v`; so
        // is an element's.
        let plain: Vec<TokenStream> = constants
            .iter()
            .map(|(n, ty)| {
                let ty = ty.as_ref().map(|t| quote!(: #t));
                quote!(#n #ty)
            })
            .collect();
        let plain_names: Vec<&syn::Ident> = constants.iter().map(|(n, _)| n).collect();
        let mut numbers: Vec<syn::Ident> = plain_names.iter().map(|n| (*n).clone()).collect();
        item.element_names(pat, &mut numbers);
        let body = read_through(body, &numbers);
        let krate = &self.env.krate;
        let pat = item.by_value(pat);
        let item = item.tokens();
        // `.filter(|p| cond)`: the items it drops are skipped; which ones is
        // a constant of the gradient, as a branch's condition is.
        let skip = keep.map(|(c, by_ref)| {
            let (p, cond) = (&c.inputs[0], &c.body);
            let refs = if by_ref { quote!(&&) } else { quote!(&) };
            quote!(if !({ let #p = #refs #item; #cond }) { continue; })
        });
        let block: syn::Block = syn::parse_quote_spanned! {span=> {
            #(#setup)*
            for #k in 0..#len {
                #skip
                let #pat = #item;
                #(let #plain = #krate::__private::Plain::plain(#plain_names);)*
                #(#body)*
            }
        }};
        self.block(&block, false, false);
        Some(self.error_node(span))
    }

    /// How to walk `e` by the index `k` (an expression of the loop's
    /// index): `Ok(None)` if it is not an iterator of the kinds here, `Err`
    /// once an error is reported.
    fn walk(&mut self, e: &Expr, k: &TokenStream, fresh: &mut Fresh) -> Result<Option<Walk>, ()> {
        let e = super::strip_paren(e);
        // A `Vec` of a model (`&model.layers`, `model.layers.iter()`): its
        // elements by index, as places of the model.
        let of_model = |x: &Expr| self.model_root(x).is_some();
        let vec = match e {
            Expr::Reference(r) if r.mutability.is_none() && of_model(&r.expr) => Some(&*r.expr),
            Expr::MethodCall(m)
                if matches!(m.method.to_string().as_str(), "iter" | "into_iter")
                    && m.args.is_empty()
                    && of_model(&m.receiver) =>
            {
                Some(&*m.receiver)
            }
            _ => None,
        };
        if let Some(vec) = vec {
            return Ok(Some(Walk {
                setup: Vec::new(),
                len: quote!(#vec.len()),
                item: Item::Place(quote!(#vec[#k])),
            }));
        }
        // The elements of a container of one axis as Rust writes it, by
        // index (`xs[k]`), whether it is differentiable or not.
        if let Some(x) = self.plain_source(e) {
            let elem = self.plain_elem(x);
            let x = quote!(#x);
            let item = if self.mentions_varying(e) {
                Item::Element(quote!(#x[#k]))
            } else {
                Item::Number(quote!(#x[#k]), elem)
            };
            return Ok(Some(Walk {
                setup: Vec::new(),
                len: quote!(#x.len()),
                item,
            }));
        }
        // The elements of a differentiable array, in logical order.
        let krate = &self.env.krate;
        let element = |x: &TokenStream| quote!(#x[#krate::__private::unravel(#x.raw_dim(), #k)]);
        match e {
            Expr::Reference(r) if r.mutability.is_none() && self.mentions_varying(&r.expr) => {
                return Ok(Some(
                    view(&r.expr, quote!(len()), element, fresh).elements(),
                ));
            }
            // A differentiable array by name (`zip(y)` of `y: &Array1<f64>`).
            Expr::Path(p) if p.path.get_ident().is_some() && self.mentions_varying(e) => {
                return Ok(Some(view(e, quote!(len()), element, fresh).elements()));
            }
            Expr::MethodCall(m)
                if m.method == "iter"
                    && m.args.is_empty()
                    && self.mentions_varying(&m.receiver) =>
            {
                return Ok(Some(
                    view(&m.receiver, quote!(len()), element, fresh).elements(),
                ));
            }
            _ => {}
        }
        if let Expr::MethodCall(m) = e {
            let recv = &m.receiver;
            match (m.method.to_string().as_str(), m.args.len()) {
                ("into_iter", 0) if self.walk_view(recv) => return self.walk(recv, k, fresh),
                // The elements of a differentiable array are values already.
                ("copied" | "cloned", 0) if self.mentions_varying(recv) => {
                    return self.walk(recv, k, fresh)
                }
                ("enumerate", 0) => {
                    let Some(w) = self.walk(recv, k, fresh)? else {
                        return Ok(None);
                    };
                    return Ok(Some(Walk {
                        item: Item::Pair(Box::new(Item::Value(quote!(#k))), Box::new(w.item)),
                        ..w
                    }));
                }
                // Adapters: the walk of the source at another index.
                ("skip", 1) if !self.mentions_varying(&m.args[0]) => {
                    let n = &m.args[0];
                    let Some(w) = self.walk(recv, &quote!((#k + #n)), fresh)? else {
                        return Ok(None);
                    };
                    let len = &w.len;
                    let len = quote!(#len.saturating_sub(#n));
                    return Ok(Some(Walk { len, ..w }));
                }
                ("take", 1) if !self.mentions_varying(&m.args[0]) => {
                    let n = &m.args[0];
                    let Some(w) = self.walk(recv, k, fresh)? else {
                        return Ok(None);
                    };
                    let len = &w.len;
                    let len = quote!(::core::cmp::min(#len, #n));
                    return Ok(Some(Walk { len, ..w }));
                }
                ("step_by", 1) if !self.mentions_varying(&m.args[0]) => {
                    let n = &m.args[0];
                    let Some(w) = self.walk(recv, &quote!((#k * #n)), fresh)? else {
                        return Ok(None);
                    };
                    let len = &w.len;
                    let len = quote!(#len.div_ceil(#n));
                    return Ok(Some(Walk { len, ..w }));
                }
                ("rev", 0) => {
                    let n = fresh.name("len");
                    let Some(mut w) = self.walk(recv, &quote!((#n - 1 - #k)), fresh)? else {
                        return Ok(None);
                    };
                    let len = &w.len;
                    w.setup.push(quote!(let #n = #len;));
                    w.len = quote!(#n);
                    return Ok(Some(w));
                }
                // `x.windows(2)` of a vector: `x.slice(s![k..k + 2])`.
                ("windows", 1) if int_literal(&m.args[0]) && self.mentions_varying(recv) => {
                    let n = &m.args[0];
                    let window =
                        |x: &TokenStream| quote!(#x.slice(#krate::ndarray::s![#k..#k + #n]));
                    let len = quote!(len().saturating_sub(#n - 1));
                    return Ok(Some(view(recv, len, window, fresh)));
                }
                // `x.chunks(n)` of a slice or a `Vec` (the last one shorter):
                // `x.slice(s![k * n..min(k * n + n, x.len())])`.
                ("chunks", 1)
                    if self.mentions_varying(recv) && !self.mentions_varying(&m.args[0]) =>
                {
                    let n = &m.args[0];
                    let chunk = |x: &TokenStream| quote!(#x.slice(#krate::ndarray::s![#k * (#n)..::core::cmp::min(#k * (#n) + (#n), #x.len())]));
                    let len = quote!(len().div_ceil(#n));
                    return Ok(Some(view(recv, len, chunk, fresh)));
                }
                ("zip", 1) => {
                    let (Some(a), Some(b)) =
                        (self.walk(recv, k, fresh)?, self.walk(&m.args[0], k, fresh)?)
                    else {
                        return Ok(None);
                    };
                    let (la, lb) = (&a.len, &b.len);
                    let len = quote!(::core::cmp::min(#la, #lb));
                    let mut setup = a.setup;
                    setup.extend(b.setup);
                    return Ok(Some(Walk {
                        setup,
                        len,
                        item: Item::Pair(Box::new(a.item), Box::new(b.item)),
                    }));
                }
                // Views of an array, differentiable or not.
                ("rows", 0) => {
                    let row = |x: &TokenStream| quote!(#x.row(#k));
                    return Ok(Some(view(recv, quote!(nrows()), row, fresh)));
                }
                ("columns", 0) => {
                    let column = |x: &TokenStream| quote!(#x.column(#k));
                    return Ok(Some(view(recv, quote!(ncols()), column, fresh)));
                }
                ("outer_iter", 0) => {
                    let axis = quote!(#krate::ndarray::Axis(0));
                    let lane = |x: &TokenStream| quote!(#x.index_axis(#axis, #k));
                    return Ok(Some(view(recv, quote!(len_of(#axis)), lane, fresh)));
                }
                ("axis_iter", 1) => {
                    let axis = &m.args[0];
                    let lane = |x: &TokenStream| quote!(#x.index_axis(#axis, #k));
                    return Ok(Some(view(recv, quote!(len_of(#axis)), lane, fresh)));
                }
                _ => {}
            }
        }
        // Any other iterable of constants: collected once, its items cloned.
        if self.mentions_varying(e) {
            self.cx.error_at(
                e,
                "a `for` loop (and an iterator's `fold`, `sum` or `product`, which are one) walks a differentiable array only by `x.iter()` or `&x` (its elements), `x.windows(n)` of a vector (`n` a literal of at least 1), `x.chunks(n)`, `x.rows()`, `x.columns()`, `x.outer_iter()` or `x.axis_iter(Axis(k))` (with `.enumerate()`, `.zip(..)`, `.skip(n)`, `.take(n)`, `.step_by(n)` and `.rev()`, and a last `.filter(..)` of one source without `.enumerate()` or `.zip(..)`), or by index (`for i in 0..x.len()` and `x[i]`)",
            );
            return Err(());
        }
        // In a copy over duals, the places of `self` it reads are bound
        // first (as the copy's floats, owned): the items may borrow them.
        let mut setup = Vec::new();
        let mut e = e.clone();
        if self.generic_copy() {
            for (name, place) in crate::generic::bind_self_places(&mut e, || fresh.name("data")) {
                setup.push(quote!(let #name = #place;));
            }
        }
        let items = fresh.name("items");
        setup.push(quote! {
            let #items = ::std::iter::Iterator::collect::<::std::vec::Vec<_>>(
                ::core::iter::IntoIterator::into_iter(#e)
            );
        });
        Ok(Some(Walk {
            setup,
            len: quote!(#items.len()),
            item: Item::Constant(quote!(::core::clone::Clone::clone(&#items[#k]))),
        }))
    }
}

/// Whether `e` is an iterator a `for` loop may walk: a range, or a chain
/// that ends in an iterator's method (not an array, whose own `fold`
/// visits its elements in memory order).
fn iterator(e: &Expr) -> bool {
    match super::strip_paren(e) {
        Expr::Range(_) => true,
        Expr::MethodCall(m) => matches!(
            m.method.to_string().as_str(),
            "iter"
                | "into_iter"
                | "enumerate"
                | "zip"
                | "skip"
                | "take"
                | "step_by"
                | "filter"
                | "rev"
                | "windows"
                | "chunks"
                | "chunks_exact"
                | "copied"
                | "cloned"
        ),
        _ => false,
    }
}

/// `2`: a window's length, whose type says the vector's one axis (not
/// `0`, for which ndarray panics).
fn int_literal(e: &Expr) -> bool {
    match super::strip_paren(e) {
        Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Int(i),
            ..
        }) => i.base10_parse::<usize>().is_ok_and(|n| n > 0),
        _ => false,
    }
}

impl Walk {
    /// The walk of a differentiable array's elements (numbers).
    fn elements(self) -> Walk {
        Walk {
            item: self.item.element(),
            ..self
        }
    }
}

/// `x.rows()` and the like: `x.nrows()` items, `x.row(k)` each (`x`
/// bound first where it is not a name, so that it is computed once).
fn view(
    x: &Expr,
    len: TokenStream,
    item: impl Fn(&TokenStream) -> TokenStream,
    fresh: &mut Fresh,
) -> Walk {
    if let Expr::Path(p) = super::strip(x) {
        if p.path.get_ident().is_some() {
            let x = quote!(#x);
            return Walk {
                setup: Vec::new(),
                len: quote!(#x.#len),
                item: Item::Value(item(&x)),
            };
        }
    }
    let source = fresh.name("source");
    let name = quote!(#source);
    Walk {
        setup: vec![quote!(let #source = #x;)],
        len: quote!(#source.#len),
        item: Item::Value(item(&name)),
    }
}
