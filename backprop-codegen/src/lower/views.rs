//! Named `&mut` views: `let mut r = h.row_mut(t);` (also `column_mut(j)`,
//! `slice_mut(s![..])` and `view_mut()`) names a part of `h`, and each use
//! of `r` is the read or the write of that part it is, spelled on `h`;
//! the writes are then lowered as any other (see `control`).
//!
//! Before: `let mut r = h.row_mut(t); r += &v; r[0] = x; let s = r.sum();`
//!
//! After: `h.row_mut(t).assign(&(&h.row(t) + &v)); h[[t, 0]] = x;
//! let s = h.row(t).sum();`
//!
//! Rust's borrow checker already orders the uses: while `r` lives nothing
//! else reads or writes `h`. What it does not see is rejected: the view
//! escaping (moved, returned, borrowed `&mut`, passed by value, bound to
//! another name), a view of the view, an index of the view (`t`)
//! assigned or `h` or `t` shadowed while the view is used, an element
//! write through a slice.

use super::control::is_compound;
use super::Lowerer;
use crate::vocab::{WRITE_METHODS, WRITE_VIEWS};
use proc_macro2::{Span, TokenStream};
use quote::quote;
use std::collections::HashSet;
use syn::spanned::Spanned;
use syn::visit::Visit;
use syn::visit_mut::VisitMut;
use syn::{BinOp, Expr, Ident, Pat, Stmt};

/// A named view: `name` is part `arg` of `base` through `method`.
struct View {
    name: String,
    base: Ident,
    /// `row_mut`, `column_mut`, `slice_mut`; `None` for `view_mut()`.
    method: Option<(Ident, Expr)>,
    /// The read of the same part: `row`, `column`, `slice`.
    read: &'static str,
}

impl View {
    /// `let mut r = h.row_mut(t);`, if the statement is one.
    fn of(s: &Stmt) -> Option<Result<View, (Span, &'static str)>> {
        let Stmt::Local(local) = s else { return None };
        let init = local.init.as_ref()?;
        let pat = match &local.pat {
            Pat::Type(pt) => &*pt.pat,
            other => other,
        };
        let Expr::MethodCall(m) = strip(&init.expr) else {
            return None;
        };
        let method = m.method.to_string();
        let read = match WRITE_VIEWS.iter().find(|(name, ..)| *name == method) {
            Some((.., read)) if m.args.len() == 1 => *read,
            None if method == "view_mut" && m.args.is_empty() => "view",
            _ if method.ends_with("_mut") => {
                return Some(Err((m.method.span(), UNSUPPORTED_VIEW)));
            }
            _ => return None,
        };
        let (Pat::Ident(pi), Some(base)) = (pat, binding(&m.receiver)) else {
            return Some(Err((init.expr.span(), UNSUPPORTED_VIEW)));
        };
        if pi.by_ref.is_some() || pi.subpat.is_some() || init.diverge.is_some() {
            return Some(Err((init.expr.span(), UNSUPPORTED_VIEW)));
        }
        let method = m.args.first().map(|a| (m.method.clone(), a.clone()));
        Some(Ok(View {
            name: pi.ident.to_string(),
            base: base.clone(),
            method,
            read,
        }))
    }

    /// `h.row(t)`: the part's value now.
    fn part(&self) -> Expr {
        let base = &self.base;
        match &self.method {
            Some((m, arg)) => {
                let read = Ident::new(self.read, m.span());
                syn::parse_quote_spanned!(m.span()=> #base.#read(#arg))
            }
            None => syn::parse_quote!(#base),
        }
    }

    /// `h.row_mut(t)`: the receiver of a write method.
    fn target(&self) -> Expr {
        let base = &self.base;
        match &self.method {
            Some((m, arg)) => syn::parse_quote_spanned!(m.span()=> #base.#m(#arg)),
            None => syn::parse_quote!(#base),
        }
    }
}

/// The array `y` of a named view `let mut r = y.row_mut(t);`, which its
/// uses may write.
pub(super) fn view_base(local: &syn::Local) -> Option<&Ident> {
    let Expr::MethodCall(m) = strip(&local.init.as_ref()?.expr) else {
        return None;
    };
    let method = m.method.to_string();
    let is_view = WRITE_VIEWS.iter().any(|(name, ..)| *name == method) || method == "view_mut";
    is_view.then(|| binding(&m.receiver)).flatten()
}

const UNSUPPORTED_VIEW: &str = "a named `&mut` view is supported as `let mut r = y.row_mut(i);` (also `column_mut(j)`, `slice_mut(s![..])`, `view_mut()`) of an array binding of the function; write through the array itself otherwise (`y.slice_mut(s![..]).assign(&v)`)";

fn strip(e: &Expr) -> &Expr {
    match e {
        Expr::Paren(p) => strip(&p.expr),
        Expr::Group(g) => strip(&g.expr),
        other => other,
    }
}

fn binding(e: &Expr) -> Option<&Ident> {
    match strip(e) {
        Expr::Path(p) if p.qself.is_none() => p.path.get_ident(),
        _ => None,
    }
}

/// The methods that write through a view or give a view that can: on a
/// named view, not reads.
fn writes_through(method: &str) -> bool {
    method.ends_with("_mut")
        || method.ends_with("_inplace")
        || method.starts_with("into_")
        || method.starts_with("swap")
        || matches!(
            method,
            "mapv_into"
                | "mapv_into_any"
                | "reversed_axes"
                | "permuted_axes"
                | "insert_axis"
                | "remove_axis"
                | "invert_axis"
                | "collapse_axis"
                | "slice_collapse"
                | "merge_axes"
                | "split_at"
                | "reborrow"
                | "cell_view"
        )
}

impl Lowerer<'_> {
    /// The statements with each named view's uses spelled on its array,
    /// `None` if the block names no view (errors are reported here).
    pub(super) fn named_views(&mut self, stmts: &[Stmt]) -> Option<Vec<Stmt>> {
        if !stmts.iter().any(|s| View::of(s).is_some()) {
            return None;
        }
        let mut stmts = stmts.to_vec();
        // Views reported as errors, bound to error nodes so that their uses
        // report nothing more.
        let mut failed: HashSet<String> = HashSet::new();
        let mut i = 0;
        while i < stmts.len() {
            let view = match View::of(&stmts[i]) {
                None => {
                    i += 1;
                    continue;
                }
                Some(Err((span, message))) => {
                    self.cx.error(span, message);
                    if let Stmt::Local(l) = &stmts[i] {
                        if let Pat::Ident(pi) = &l.pat {
                            self.view_failed(&pi.ident, &mut failed);
                        }
                    }
                    stmts.remove(i);
                    continue;
                }
                Some(Ok(view)) => view,
            };
            stmts.remove(i);
            let name = Ident::new(&view.name, view.base.span());
            if failed.contains(&view.base.to_string()) {
                self.view_failed(&name, &mut failed);
                continue;
            }
            // The view lives until a `let` binds its name again (whose value
            // may still read it).
            let end = stmts[i..]
                .iter()
                .position(|s| matches!(s, Stmt::Local(l) if binds(&l.pat, &view.name)))
                .map_or(stmts.len(), |k| i + k);
            let last_use = (i..stmts.len().min(end + 1))
                .rev()
                .find(|k| mentions(&stmts[*k], &view.name));
            let Some(last_use) = last_use else {
                continue;
            };
            if let Err((span, message)) = self.check_view_life(&view, &stmts[i..=last_use]) {
                self.cx.error(span, message);
                self.view_failed(&name, &mut failed);
                continue;
            }
            let krate = self.env.krate.clone();
            let mut spell = Spell {
                view: &view,
                krate: &krate,
                errors: Vec::new(),
            };
            for (k, s) in stmts.iter_mut().enumerate().take(last_use + 1).skip(i) {
                match s {
                    Stmt::Local(l) if k == end => {
                        if let Some(init) = &mut l.init {
                            spell.visit_expr_mut(&mut init.expr);
                        }
                    }
                    s => spell.visit_stmt_mut(s),
                }
            }
            let mut errors = spell.errors;
            // What the spelling did not reach (a macro's tokens).
            for (k, s) in stmts.iter().enumerate().take(last_use + 1).skip(i) {
                if k != end && errors.is_empty() && mentions(s, &view.name) {
                    errors.push((s.span(), ESCAPE));
                }
            }
            if !errors.is_empty() {
                self.view_failed(&name, &mut failed);
            }
            for (span, message) in errors {
                self.cx.error(span, message);
            }
        }
        Some(stmts)
    }

    /// A view that was reported: its name stands for an error from now on.
    fn view_failed(&mut self, name: &Ident, failed: &mut HashSet<String>) {
        let id = self.error_node(name.span());
        let scope = self.scopes.last_mut().expect("a block's scope");
        scope.names.insert(name.to_string(), id);
        failed.insert(name.to_string());
    }

    /// Rejects what would make the view's uses differ from the spelled
    /// ones: its array's name or an index it was made with bound again, or
    /// an index assigned, while it is used.
    fn check_view_life(&self, view: &View, stmts: &[Stmt]) -> Result<(), (Span, &'static str)> {
        let mut names = HashSet::new();
        names.insert(view.base.to_string());
        if let Some((_, arg)) = &view.method {
            crate::names::idents(quote!(#arg), &mut names);
        }
        // The view's own name (a macro `s![..]` may share it) is the view's.
        names.remove(&view.name);
        let mut find = Changes {
            names: &names,
            found: None,
        };
        for s in stmts {
            find.visit_stmt(s);
        }
        match find.found {
            Some(span) => Err((span, CHANGED)),
            None => Ok(()),
        }
    }
}

const CHANGED: &str = "this changes the array or an index of a named view while the view is used; the view keeps the part it was made with: bind the index to a name of its own before the view (`let k = t; let mut r = h.row_mut(k);`), or write through `h.row_mut(t)` where it is meant";

const ESCAPE: &str = "a named `&mut` view is supported where it is read (`r[j]`, `&r`, `r.sum()`, `&r * 2.0`) or written (`r[j] = e`, `r += &v`, `r.assign(&v)`, `r.fill(e)`, `r.scaled_add(a, &v)`, `r.mapv_inplace(f)`); here it could be moved, returned, borrowed `&mut` or written another way: use it in one of those forms, or copy it (`r.to_owned()`)";

const VIEW_OF_VIEW: &str = "a view of a named view is not supported; take the part from the array itself (`h.slice_mut(s![t, a..b])`)";

const SLICE_ELEMENT: &str = "an element write through a named slice (`s[j] = e` of `s = x.slice_mut(..)`) is not supported; write the element of the array (`x[a + j] = e`) or assign the slice (`s.assign(&v)`)";

/// Whether a pattern binds `name`.
fn binds(p: &Pat, name: &str) -> bool {
    struct Find<'a>(&'a str, bool);
    impl<'ast> Visit<'ast> for Find<'_> {
        fn visit_pat_ident(&mut self, p: &'ast syn::PatIdent) {
            self.1 |= p.ident == self.0;
            syn::visit::visit_pat_ident(self, p);
        }
    }
    let mut f = Find(name, false);
    f.visit_pat(p);
    f.1
}

/// Whether a statement mentions `name` (as a path, a binding or a token
/// of a macro).
fn mentions(s: &Stmt, name: &str) -> bool {
    let mut all = HashSet::new();
    crate::names::idents(quote!(#s), &mut all);
    all.contains(name)
}

/// A binding or an assignment of one of `names`.
struct Changes<'a> {
    names: &'a HashSet<String>,
    found: Option<Span>,
}

impl<'ast> Visit<'ast> for Changes<'_> {
    fn visit_pat_ident(&mut self, p: &'ast syn::PatIdent) {
        if self.names.contains(&p.ident.to_string()) {
            self.found.get_or_insert(p.ident.span());
        }
    }
    fn visit_expr(&mut self, e: &'ast Expr) {
        let place = match e {
            Expr::Assign(a) => Some(&*a.left),
            Expr::Binary(b) if is_compound(&b.op) => Some(&*b.left),
            _ => None,
        };
        if let Some(name) = place.and_then(binding) {
            // The array itself is written through other places only after
            // the view's last use (the borrow checker says so).
            if self.names.contains(&name.to_string()) {
                self.found.get_or_insert(e.span());
            }
        }
        syn::visit::visit_expr(self, e);
    }
}

/// Spells each use of a view on its array.
struct Spell<'a> {
    view: &'a View,
    krate: &'a TokenStream,
    errors: Vec<(Span, &'static str)>,
}

impl Spell<'_> {
    fn is_view(&self, e: &Expr) -> bool {
        binding(e).is_some_and(|i| *i == self.view.name)
    }

    /// The index in the array of element `index` of the view; `None` for a
    /// slice.
    fn element(&self, index: &Expr) -> Option<Expr> {
        let Some((m, at)) = &self.view.method else {
            return Some(index.clone());
        };
        let krate = self.krate;
        let one = match strip(index) {
            Expr::Array(a) if a.elems.len() == 1 => Some(a.elems[0].clone()),
            Expr::Lit(_) => Some(index.clone()),
            _ => None,
        };
        Some(match (m.to_string().as_str(), one) {
            ("row_mut", Some(j)) => syn::parse_quote_spanned!(index.span()=> [#at, #j]),
            ("column_mut", Some(i)) => syn::parse_quote_spanned!(index.span()=> [#i, #at]),
            ("row_mut", None) => {
                syn::parse_quote_spanned!(index.span()=> #krate::__private::row_element(#at, #index))
            }
            ("column_mut", None) => {
                syn::parse_quote_spanned!(index.span()=> #krate::__private::column_element(#at, #index))
            }
            _ => return None,
        })
    }
}

impl VisitMut for Spell<'_> {
    fn visit_expr_mut(&mut self, e: &mut Expr) {
        let base = self.view.base.clone();
        let span = e.span();
        // `r[j] = e`, `r[j] op= e`: the element of the array.
        let (left, right) = match e {
            Expr::Assign(a) => (Some(&mut a.left), Some(&mut a.right)),
            Expr::Binary(b) if is_compound(&b.op) => (Some(&mut b.left), Some(&mut b.right)),
            _ => (None, None),
        };
        if let (Some(left), Some(right)) = (left, right) {
            if let Expr::Index(i) = strip(left) {
                if self.is_view(&i.expr) {
                    let mut index = (*i.index).clone();
                    self.visit_expr_mut(&mut index);
                    self.visit_expr_mut(right);
                    match self.element(&index) {
                        Some(at) => **left = syn::parse_quote_spanned!(span=> #base[#at]),
                        None => self.errors.push((span, SLICE_ELEMENT)),
                    }
                    return;
                }
            }
        }
        match e {
            // `r = ..`: a new value for the view itself.
            Expr::Assign(a) if self.is_view(&a.left) => self.errors.push((span, ESCAPE)),
            // `r op= e`: the part set to `part op e`.
            Expr::Binary(b) if is_compound(&b.op) && self.is_view(&b.left) => {
                self.visit_expr_mut(&mut b.right);
                if self.view.method.is_none() {
                    *b.left = syn::parse_quote!(#base);
                    return;
                }
                let op: TokenStream = match b.op {
                    BinOp::AddAssign(_) => quote!(+),
                    BinOp::SubAssign(_) => quote!(-),
                    BinOp::MulAssign(_) => quote!(*),
                    _ => quote!(/),
                };
                let right = b.right.clone();
                let (part, target) = (self.view.part(), self.view.target());
                *e = syn::parse_quote_spanned!(span=> #target.assign(&(&#part #op &(#right))));
            }
            Expr::MethodCall(m) if self.is_view(&m.receiver) => {
                for a in &mut m.args {
                    self.visit_expr_mut(a);
                }
                let method = m.method.to_string();
                if WRITE_METHODS.contains(&(method.as_str(), m.args.len())) {
                    *m.receiver = self.view.target();
                } else if WRITE_VIEWS.iter().any(|(v, ..)| *v == method) || method == "view_mut" {
                    self.errors.push((m.method.span(), VIEW_OF_VIEW));
                } else if writes_through(&method) {
                    self.errors.push((m.method.span(), ESCAPE));
                } else {
                    *m.receiver = self.view.part();
                }
            }
            // `r[j]`, read.
            Expr::Index(i) if self.is_view(&i.expr) => {
                self.visit_expr_mut(&mut i.index);
                match self.element(&i.index) {
                    Some(at) => *e = syn::parse_quote_spanned!(span=> #base[#at]),
                    None => *i.expr = self.view.part(),
                }
            }
            Expr::Reference(r) if r.mutability.is_none() && self.is_view(&r.expr) => {
                *r.expr = self.view.part();
            }
            Expr::Binary(b) if !is_compound(&b.op) => {
                for side in [&mut b.left, &mut b.right] {
                    if self.is_view(side) {
                        **side = self.view.part();
                    } else {
                        self.visit_expr_mut(side);
                    }
                }
            }
            _ if self.is_view(e) => self.errors.push((span, ESCAPE)),
            _ => syn::visit_mut::visit_expr_mut(self, e),
        }
    }
}
