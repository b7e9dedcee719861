//! A tuple of differentiable values bound to a name: `let p = polar(x, y);`
//! or `let p = (a, b);`, read by its components (`p.0`) and returned
//! whole, is bound by a tuple pattern, one name per component, and each
//! component read is that name.
//!
//! Before: `let p = polar(x, y); let s = p.0 * p.1; p`
//!
//! After: `let (p_0, p_1) = polar(x, y); let s = p_0 * p_1; (p_0, p_1)`
//!
//! The number of components is the tuple's where it is written out, the
//! function's where `p` is its value, else one more than the last
//! component read.

use super::Lowerer;
use proc_macro2::Span;
use std::collections::BTreeSet;
use syn::spanned::Spanned;
use syn::visit::Visit;
use syn::visit_mut::VisitMut;
use syn::{Expr, Ident, Member, Pat, Stmt};

const WHOLE_HINT: &str = "a tuple bound to a name is read by its components (`p.0`, `p.1`) or returned as the function's value; pass its components on (`g(p.0, p.1)`), or bind it with a tuple pattern (`let (r, theta) = polar(x, y);`)";

fn strip(e: &Expr) -> &Expr {
    match e {
        Expr::Paren(p) => strip(&p.expr),
        Expr::Group(g) => strip(&g.expr),
        other => other,
    }
}

fn is_name(e: &Expr, name: &str) -> bool {
    matches!(strip(e), Expr::Path(p) if p.qself.is_none() && p.path.is_ident(name))
}

impl Lowerer<'_> {
    /// The body's statements with its value, a tuple bound to a name
    /// (`p`), written as its components (`(p.0, p.1)`); `None` otherwise.
    pub(super) fn tuple_value(&self, stmts: &[Stmt], is_body: bool) -> Option<Vec<Stmt>> {
        let (true, Some(arrays), Some(Stmt::Expr(tail, None))) =
            (is_body, &self.func.tuple, stmts.last())
        else {
            return None;
        };
        let Expr::Path(p) = strip(tail) else {
            return None;
        };
        let name = p.path.get_ident()?;
        let bound = stmts.iter().any(
            |s| matches!(s, Stmt::Local(l) if matches!(&l.pat, Pat::Ident(pi) if pi.ident == *name)),
        );
        if !bound {
            return None;
        }
        let fields = (0..arrays.len()).map(syn::Index::from);
        let whole: Expr = syn::parse_quote_spanned!(tail.span()=> (#(#name.#fields),*));
        let mut v = stmts.to_vec();
        *v.last_mut().expect("a tail") = Stmt::Expr(whole, None);
        Some(v)
    }

    /// If statement `k` binds a tuple of differentiable values to a name
    /// that the statements after it read by its components, binds it by a
    /// tuple pattern instead and reads the components' names.
    pub(super) fn tuple_let_at(&mut self, stmts: &mut std::borrow::Cow<'_, [Stmt]>, k: usize) {
        let Some((name, width)) = self.tuple_let(&stmts[k]) else {
            return;
        };
        let i = k + 1;
        let end = stmts[i..]
            .iter()
            .position(|s| matches!(s, Stmt::Local(l) if binds(&l.pat, &name.to_string())))
            .map_or(stmts.len(), |e| i + e);
        let last_stmt = (end + 1).min(stmts.len());
        // The uses: components, and anything else.
        let mut uses = Uses {
            name: &name,
            fields: BTreeSet::new(),
            whole: None,
            shadowed: false,
        };
        for (j, s) in stmts.iter().enumerate().take(last_stmt).skip(i) {
            match s {
                Stmt::Local(l) if j == end => {
                    if let Some(init) = &l.init {
                        uses.visit_expr(&init.expr);
                    }
                }
                s => uses.visit_stmt(s),
            }
        }
        let Some(&last) = uses.fields.last() else {
            return;
        };
        if uses.shadowed {
            return;
        }
        // Reported, and the components bound still, so that their reads
        // report nothing more.
        if let Some(span) = uses.whole {
            self.cx.error(span, WHOLE_HINT);
        }
        let width = width.unwrap_or(last as usize + 1);
        let mut fresh = super::Fresh::of(&self.func.item);
        for s in stmts.iter() {
            crate::names::idents(quote::quote!(#s), &mut fresh.used);
        }
        let parts: Vec<Ident> = (0..width)
            .map(|c| {
                let mut part = fresh.name(&format!("{name}_{c}"));
                part.set_span(name.span());
                part
            })
            .collect();
        let stmts = stmts.to_mut();
        if let Stmt::Local(l) = &mut stmts[k] {
            l.pat = syn::parse_quote_spanned!(name.span()=> (#(#parts,)*));
        }
        let mut spell = Spell {
            name: &name,
            parts: &parts,
        };
        for (j, s) in stmts.iter_mut().enumerate().take(last_stmt).skip(i) {
            match s {
                Stmt::Local(l) if j == end => {
                    if let Some(init) = &mut l.init {
                        spell.visit_expr_mut(&mut init.expr);
                    }
                }
                s => spell.visit_stmt_mut(s),
            }
        }
    }

    /// `let p = polar(x, y);` or `let p = (a, b);` of differentiable
    /// values: the name, and the number of components if written out.
    fn tuple_let(&mut self, s: &Stmt) -> Option<(Ident, Option<usize>)> {
        let Stmt::Local(l) = s else { return None };
        let Pat::Ident(pi) = &l.pat else { return None };
        if pi.by_ref.is_some() || pi.subpat.is_some() {
            return None;
        }
        let init = l.init.as_ref().filter(|i| i.diverge.is_none())?;
        let width = match strip(&init.expr) {
            Expr::Call(_) => None,
            Expr::Tuple(t) => Some(t.elems.len()),
            _ => return None,
        };
        self.mentions_varying(&init.expr)
            .then(|| (pi.ident.clone(), width))
    }
}

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

/// How a tuple's name is used: the components read, a use of the whole
/// (its span), and whether a pattern inside binds the name again.
struct Uses<'a> {
    name: &'a Ident,
    fields: BTreeSet<u32>,
    whole: Option<Span>,
    shadowed: bool,
}

impl<'ast> Visit<'ast> for Uses<'_> {
    fn visit_pat_ident(&mut self, p: &'ast syn::PatIdent) {
        self.shadowed |= p.ident == *self.name;
        syn::visit::visit_pat_ident(self, p);
    }
    fn visit_expr(&mut self, e: &'ast Expr) {
        match e {
            Expr::Field(f) if is_name(&f.base, &self.name.to_string()) => match &f.member {
                Member::Unnamed(k) => {
                    self.fields.insert(k.index);
                }
                Member::Named(_) => {
                    self.whole.get_or_insert(e.span());
                }
            },
            _ if is_name(e, &self.name.to_string()) => {
                self.whole.get_or_insert(e.span());
            }
            _ => syn::visit::visit_expr(self, e),
        }
    }
}

/// Each `p.k` as the name of component `k`.
struct Spell<'a> {
    name: &'a Ident,
    parts: &'a [Ident],
}

impl VisitMut for Spell<'_> {
    fn visit_expr_mut(&mut self, e: &mut Expr) {
        if let Expr::Field(f) = e {
            if let (true, Member::Unnamed(k)) =
                (is_name(&f.base, &self.name.to_string()), &f.member)
            {
                if let Some(part) = self.parts.get(k.index as usize) {
                    *e = syn::parse_quote_spanned!(f.span()=> #part);
                    return;
                }
            }
        }
        syn::visit_mut::visit_expr_mut(self, e);
    }
}
