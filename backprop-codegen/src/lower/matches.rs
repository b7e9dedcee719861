//! `match`, as the chain of `if`s it is: each arm but the last is taken
//! when its pattern (and guard) matches, tested in order, and the last arm
//! is the `else` (the user's `match` is exhaustive, which the compiler
//! checks on the original function). The arm taken is a constant of the
//! gradient, as a branch's is; a guard may compare differentiable values.
//!
//! Before: `match act { Act::Relu => relu(x), Act::Tanh => x.tanh() }`
//!
//! After: `if matches!(act, Act::Relu) { relu(x) } else { x.tanh() }`
//! (then lowered as any `if`).

use super::Lowerer;
use crate::graph::NodeId;
use syn::spanned::Spanned;
use syn::visit::Visit;
use syn::{Expr, ExprMatch, Pat};

impl Lowerer<'_> {
    /// A `match` as a value (`with_value`) or as a statement.
    pub(super) fn match_expr(&mut self, m: &ExprMatch, with_value: bool) -> NodeId {
        let span = m.match_token.span();
        let whole = Expr::Match(m.clone());
        if !self.mentions_varying(&whole) && super::control::side_effect(&whole).is_none() {
            // Of constants only, assigning nothing: Rust's (also what binds
            // an arm's names).
            return self.constant(&whole, "");
        }
        if self.mentions_varying(&m.expr) {
            if let Some(bad) = m
                .arms
                .iter()
                .find_map(|a| bindings(&a.pat).into_iter().next())
            {
                self.cx.error_at(
                    &bad,
                    format!("a `match` on a differentiable value may not bind names (`{bad}` does): the name would be a differentiable value the macro cannot follow; compare the value in a guard instead (`_ if x > 0.0 =>`)"),
                );
                return self.error_node(span);
            }
        }
        match as_if(m) {
            Some(Expr::If(i)) => self.branch(&i, with_value),
            Some(body) => self.arm_alone(&body, with_value),
            None => {
                self.cx.error(span, "a `match` needs at least one arm");
                self.error_node(span)
            }
        }
    }

    /// A `match` of one arm: its body.
    fn arm_alone(&mut self, body: &Expr, with_value: bool) -> NodeId {
        let id = self.expr(body);
        if with_value {
            id
        } else {
            self.error_node(body.span())
        }
    }
}

/// The names a pattern binds: lowercase identifiers that are not paths
/// (`n` of `Some(n)`, `k @ 1..=3`); `Act::Relu`, `MAX` and `_` bind nothing.
fn bindings(p: &Pat) -> Vec<syn::Ident> {
    struct Find(Vec<syn::Ident>);
    impl<'ast> Visit<'ast> for Find {
        fn visit_pat_ident(&mut self, p: &'ast syn::PatIdent) {
            let name = p.ident.to_string();
            let lower = name
                .chars()
                .next()
                .is_some_and(|c| c.is_lowercase() || c == '_');
            if (lower || p.subpat.is_some()) && !self.0.contains(&p.ident) {
                self.0.push(p.ident.clone());
            }
            syn::visit::visit_pat_ident(self, p);
        }
        // A guard's names are read, not bound.
        fn visit_expr(&mut self, _: &'ast Expr) {}
    }
    let mut f = Find(Vec::new());
    f.visit_pat(p);
    f.0
}

/// The pattern as a test: each name it binds that its guard does not read
/// becomes `_` (`Penalty::L2(l)` tests as `Penalty::L2(_)`), so that the
/// test binds nothing unused.
fn unbound(p: &Pat) -> Pat {
    struct Unbind(Vec<String>);
    impl syn::visit_mut::VisitMut for Unbind {
        fn visit_pat_mut(&mut self, p: &mut Pat) {
            if let Pat::Ident(pi) = p {
                let bound = bindings(&Pat::Ident(pi.clone()));
                if bound
                    .first()
                    .is_some_and(|b| !self.0.contains(&b.to_string()))
                {
                    *p = match pi.subpat.take() {
                        Some((_, sub)) => *sub,
                        None => Pat::Wild(syn::PatWild {
                            attrs: Vec::new(),
                            underscore_token: Default::default(),
                        }),
                    };
                }
            }
            syn::visit_mut::visit_pat_mut(self, p);
        }
        fn visit_expr_mut(&mut self, _: &mut Expr) {}
    }
    let read: Vec<String> = match p {
        Pat::Guard(g) => {
            let mut names = Vec::new();
            super::consts::idents_of(&g.guard, &mut names);
            names
        }
        _ => Vec::new(),
    };
    let mut p = p.clone();
    syn::visit_mut::VisitMut::visit_pat_mut(&mut Unbind(read), &mut p);
    p
}

/// The pattern without its guard.
fn unguarded(p: &Pat) -> &Pat {
    match p {
        Pat::Guard(g) => &g.pat,
        other => other,
    }
}

/// The `match` as `if`s (the body alone for one arm).
fn as_if(m: &ExprMatch) -> Option<Expr> {
    let (last, rest) = m.arms.split_last()?;
    let scrutinee = &m.expr;
    let mut chain = arm_block(scrutinee, last);
    for arm in rest.iter().rev() {
        let pat = &arm.pat;
        let span = arm.pat.span();
        let cond: Expr = match pat {
            // `_ if x > 0.0`: the guard alone.
            Pat::Guard(g) if matches!(*g.pat, Pat::Wild(_)) => (*g.guard).clone(),
            _ => {
                let pat = unbound(pat);
                syn::parse_quote_spanned! {span=>
                    ::core::matches!(#scrutinee, #pat)
                }
            }
        };
        let then = arm_block(scrutinee, arm);
        chain = syn::parse_quote_spanned! {span=>
            if #cond #then else #chain
        };
    }
    Some(match chain {
        Expr::Block(b) if rest.is_empty() => match b.block.stmts.as_slice() {
            [syn::Stmt::Expr(e, None)] => e.clone(),
            _ => Expr::Block(b),
        },
        other => other,
    })
}

/// An arm's body as a block, after a `let` for each name its pattern binds
/// (of a constant scrutinee: `let n = match k { Some(n) => n, _ => unreachable!() };`).
fn arm_block(scrutinee: &Expr, arm: &syn::Arm) -> Expr {
    let names = bindings(&arm.pat);
    if names.is_empty() {
        return block_of(&arm.body);
    }
    let pat = unguarded(&arm.pat);
    let body = &arm.body;
    let span = arm.pat.span();
    let bound = if names.len() == 1 {
        quote::quote!(#(#names)*)
    } else {
        quote::quote!((#(#names),*))
    };
    syn::parse_quote_spanned! {span=> {
        let #bound = match #scrutinee {
            #pat => #bound,
            _ => ::core::unreachable!("the arm's pattern matched"),
        };
        #body
    }}
}

/// An arm's body as a block expression.
fn block_of(body: &Expr) -> Expr {
    match body {
        Expr::Block(b) if b.label.is_none() => Expr::Block(b.clone()),
        other => syn::parse_quote_spanned!(other.span()=> { #other }),
    }
}
