//! `break` and `continue` in a loop, as flags: a loop that breaks carries
//! `going` (the iterations after a `break` do nothing, and a `while` stops
//! at once), and a `continue` sets `skip` for the rest of its iteration;
//! the statements after one run only `if going && !skip`. The path taken is
//! a constant of the gradient, as a branch's is.
//!
//! Before: `for i in 0..n { a; if c { break; } b; }`
//!
//! After: `{ let mut going = true; for i in 0..n { if going { a;
//! if c { going = false; } if going { b; } } } }`

use super::{Fresh, Lowerer};
use crate::graph::NodeId;
use proc_macro2::Span;
use quote::quote;
use syn::spanned::Spanned;
use syn::visit::Visit;
use syn::{Block, Expr, Stmt};

/// The flags a loop's exits set.
struct Flags {
    going: syn::Ident,
    skip: syn::Ident,
    breaks: bool,
    continues: bool,
}

impl Lowerer<'_> {
    /// A `for` loop whose body breaks or continues, rewritten with flags
    /// and lowered; `None` if it has no exit.
    pub(super) fn for_with_exits(&mut self, f: &syn::ExprForLoop) -> Option<NodeId> {
        let flags = self.flags(&f.body)?;
        let span = f.for_token.span();
        let Some((flags, body)) = self.rewrite_body(&f.body, flags) else {
            return Some(self.error_node(span));
        };
        let mut f = f.clone();
        f.body = body;
        let going = &flags.going;
        let block: Block = if flags.breaks {
            syn::parse_quote_spanned!(span=> { let mut #going = true; #f })
        } else {
            syn::parse_quote_spanned!(span=> { #f })
        };
        self.block(&block, false, false);
        Some(self.error_node(span))
    }

    /// A `while` loop whose body breaks or continues, rewritten with flags
    /// (`while going && cond`) and lowered; `None` if it has no exit.
    pub(super) fn while_with_exits(&mut self, w: &syn::ExprWhile) -> Option<NodeId> {
        let flags = self.flags(&w.body)?;
        let span = w.while_token.span();
        let Some((flags, body)) = self.rewrite_body(&w.body, flags) else {
            return Some(self.error_node(span));
        };
        let mut w = w.clone();
        w.body = body;
        let going = &flags.going;
        let block: Block = if flags.breaks {
            let cond = &w.cond;
            *w.cond = syn::parse_quote_spanned!(span=> #going && (#cond));
            syn::parse_quote_spanned!(span=> { let mut #going = true; #w })
        } else {
            syn::parse_quote_spanned!(span=> { #w })
        };
        self.block(&block, false, false);
        Some(self.error_node(span))
    }

    /// `loop { .. }`, which only a `break` ends: `while true { .. }` with
    /// its exits as flags (so `while going { .. }`).
    pub(super) fn loop_until_break(&mut self, l: &syn::ExprLoop) -> NodeId {
        let span = l.loop_token.span();
        if let Some(label) = &l.label {
            self.cx.error_at(
                label,
                "labelled loops are not supported in a differentiable function; remove the label",
            );
            return self.error_node(span);
        }
        let mut find = Exits::default();
        find.visit_block(&l.body);
        if !find.breaks {
            self.cx
                .error(span, "this `loop` never ends: it has no `break`");
            return self.error_node(span);
        }
        let body = &l.body;
        let w: syn::ExprWhile = syn::parse_quote_spanned!(span=> while true #body);
        match self.while_with_exits(&w) {
            Some(id) => id,
            None => self.error_node(span),
        }
    }

    /// The flags a body needs, with names that collide with nothing.
    fn flags(&self, body: &Block) -> Option<Flags> {
        let mut find = Exits::default();
        find.visit_block(body);
        if !find.breaks && !find.continues {
            return None;
        }
        let mut fresh = Fresh::of(&self.func.item);
        Some(Flags {
            going: fresh.name("going"),
            skip: fresh.name("skip"),
            breaks: find.breaks,
            continues: find.continues,
        })
    }

    /// The body with its exits as flags, `None` after reporting an exit
    /// where a value is needed.
    fn rewrite_body(&mut self, body: &Block, flags: Flags) -> Option<(Flags, Block)> {
        let stmts = match rewrite(&body.stmts, &flags) {
            Ok(s) => s,
            Err((span, message)) => {
                self.cx.error(span, message);
                return None;
            }
        };
        let (going, skip) = (&flags.going, &flags.skip);
        let reset = flags.continues.then(|| quote!(let mut #skip = false;));
        let block: Block = if flags.breaks {
            syn::parse_quote!({ #reset if #going { #(#stmts)* } })
        } else {
            syn::parse_quote!({ #reset #(#stmts)* })
        };
        Some((flags, block))
    }
}

/// Finds the `break`s and `continue`s of a loop (not of loops inside it).
#[derive(Default)]
struct Exits {
    breaks: bool,
    continues: bool,
}

impl<'ast> Visit<'ast> for Exits {
    fn visit_expr(&mut self, e: &'ast Expr) {
        match e {
            Expr::Break(_) => self.breaks = true,
            Expr::Continue(_) => self.continues = true,
            Expr::ForLoop(_) | Expr::While(_) | Expr::Loop(_) | Expr::Closure(_) => {}
            _ => syn::visit::visit_expr(self, e),
        }
    }
}

fn has_exit(s: &Stmt) -> bool {
    let mut find = Exits::default();
    find.visit_stmt(s);
    find.breaks || find.continues
}

/// The statements with each exit as its flag, and each statement after
/// one run only while the flags say so.
fn rewrite(stmts: &[Stmt], flags: &Flags) -> Result<Vec<Stmt>, (Span, &'static str)> {
    let mut out = Vec::new();
    for (i, s) in stmts.iter().enumerate() {
        if !has_exit(s) {
            out.push(s.clone());
            continue;
        }
        out.push(rewrite_stmt(s, flags)?);
        let rest = rewrite(&stmts[i + 1..], flags)?;
        if !rest.is_empty() {
            let cond = flags_hold(flags);
            out.push(syn::parse_quote!(if #cond { #(#rest)* }));
        }
        return Ok(out);
    }
    Ok(out)
}

/// `going && !skip`, of the flags the loop uses.
fn flags_hold(flags: &Flags) -> proc_macro2::TokenStream {
    let (going, skip) = (&flags.going, &flags.skip);
    match (flags.breaks, flags.continues) {
        (true, true) => quote!(#going && !#skip),
        (true, false) => quote!(#going),
        _ => quote!(!#skip),
    }
}

/// One statement that exits: `break;` as `going = false;`, `continue;` as
/// `skip = true;`, inside `if`s, blocks and `match` arms.
fn rewrite_stmt(s: &Stmt, flags: &Flags) -> Result<Stmt, (Span, &'static str)> {
    match s {
        Stmt::Expr(e, _) => Ok(Stmt::Expr(
            rewrite_expr(e, flags)?,
            Some(Default::default()),
        )),
        other => Err((other.span(), VALUE_HINT)),
    }
}

fn rewrite_expr(e: &Expr, flags: &Flags) -> Result<Expr, (Span, &'static str)> {
    let (going, skip) = (&flags.going, &flags.skip);
    Ok(match e {
        Expr::Break(b) if b.label.is_none() && b.expr.is_none() => {
            syn::parse_quote_spanned!(b.span()=> { #going = false; })
        }
        Expr::Continue(c) if c.label.is_none() => {
            syn::parse_quote_spanned!(c.span()=> { #skip = true; })
        }
        Expr::If(i) => {
            let mut i = i.clone();
            i.then_branch = rewrite_block(&i.then_branch, flags)?;
            if let Some((token, other)) = &i.else_branch {
                let other = match &**other {
                    Expr::Block(b) => Expr::Block(syn::ExprBlock {
                        block: rewrite_block(&b.block, flags)?,
                        ..b.clone()
                    }),
                    e => rewrite_expr(e, flags)?,
                };
                i.else_branch = Some((*token, Box::new(other)));
            }
            Expr::If(i)
        }
        Expr::Block(b) if b.label.is_none() => Expr::Block(syn::ExprBlock {
            block: rewrite_block(&b.block, flags)?,
            ..b.clone()
        }),
        Expr::Match(m) => {
            let mut m = m.clone();
            for arm in &mut m.arms {
                let mut find = Exits::default();
                find.visit_expr(&arm.body);
                if find.breaks || find.continues {
                    let body = match &*arm.body {
                        Expr::Block(b) => Expr::Block(syn::ExprBlock {
                            block: rewrite_block(&b.block, flags)?,
                            ..b.clone()
                        }),
                        e => rewrite_expr(e, flags)?,
                    };
                    *arm.body = body;
                    arm.comma = Some(Default::default());
                }
            }
            Expr::Match(m)
        }
        Expr::Break(b) if b.label.is_some() || b.expr.is_some() => {
            return Err((b.span(), LABEL_HINT))
        }
        Expr::Continue(c) => return Err((c.span(), LABEL_HINT)),
        other => return Err((other.span(), VALUE_HINT)),
    })
}

const VALUE_HINT: &str = "`break` and `continue` are supported as statements (`if c { break; }`, a `match` arm `=> continue,`), not inside an expression whose value is used; assign the value first";

const LABEL_HINT: &str = "a labelled `break`/`continue` and `break` with a value are not supported in a differentiable function; set a flag and test it in the outer loop";

fn rewrite_block(b: &Block, flags: &Flags) -> Result<Block, (Span, &'static str)> {
    let stmts = rewrite(&b.stmts, flags)?;
    Ok(syn::parse_quote_spanned!(b.brace_token.span.join()=> { #(#stmts)* }))
}
