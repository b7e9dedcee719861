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
//!
//! A labelled exit from an inner loop sets the outer loop's flag and
//! breaks the inner loop, which is then rewritten in its turn:
//!
//! Before: `'rows: for i in 0..n { for j in 0..m { if c { continue 'rows; } a; } b; }`
//!
//! After: `{ for i in 0..n { let mut skip = false; 'cols: for j in 0..m {
//! if c { skip = true; break 'cols; } a; } if !skip { b; } } }`
//!
//! A `loop` whose value is used, `let r = loop { .. break v; .. };`,
//! keeps its value in a variable the `break` sets:
//! `let r = { let mut value = Default::default(); loop { .. { value = v; break; } .. } value };`
//! (Rust infers `value`'s type from what the `break`s give it).

use super::{Fresh, Lowerer};
use crate::graph::NodeId;
use proc_macro2::Span;
use quote::quote;
use syn::spanned::Spanned;
use syn::visit::Visit;
use syn::visit_mut::VisitMut;
use syn::{Block, Expr, Lifetime, Stmt};

/// The flags a loop's exits set, and the names still free for the labels
/// of the loops inside it.
struct Flags {
    going: syn::Ident,
    skip: syn::Ident,
    breaks: bool,
    continues: bool,
    /// The loop's label, which exits from loops inside it name.
    label: Option<Lifetime>,
    fresh: Fresh,
}

impl Lowerer<'_> {
    /// A `for` loop whose body breaks or continues, rewritten with flags
    /// and lowered; `None` if it has no exit.
    pub(super) fn for_with_exits(&mut self, f: &syn::ExprForLoop) -> Option<NodeId> {
        let label = f.label.as_ref().map(|l| l.name.clone());
        let flags = self.flags(&f.body, label)?;
        let span = f.for_token.span();
        let Some((flags, body)) = self.rewrite_body(&f.body, flags) else {
            return Some(self.error_node(span));
        };
        let mut f = f.clone();
        f.body = body;
        f.label = None;
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
        let label = w.label.as_ref().map(|l| l.name.clone());
        let flags = self.flags(&w.body, label)?;
        let span = w.while_token.span();
        let Some((flags, body)) = self.rewrite_body(&w.body, flags) else {
            return Some(self.error_node(span));
        };
        let mut w = w.clone();
        w.body = body;
        w.label = None;
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
    /// its exits as flags (so `while going { .. }`). A loop that breaks
    /// with a value is a block whose value a variable keeps.
    pub(super) fn loop_until_break(&mut self, l: &syn::ExprLoop) -> NodeId {
        let span = l.loop_token.span();
        let label = l.label.as_ref().map(|l| l.name.clone());
        let mut find = Exits::of(label.as_ref());
        find.visit_block(&l.body);
        if !find.breaks {
            self.cx
                .error(span, "this `loop` never ends: it has no `break`");
            return self.error_node(span);
        }
        if find.valued {
            return self.loop_value(l, label);
        }
        let body = &l.body;
        let mut w: syn::ExprWhile = syn::parse_quote_spanned!(span=> while true #body);
        w.label = l.label.clone();
        match self.while_with_exits(&w) {
            Some(id) => id,
            None => self.error_node(span),
        }
    }

    /// `loop { .. break v; .. }` as a value: each `break v` that ends this
    /// loop sets the value and breaks, and the value is the block's.
    fn loop_value(&mut self, l: &syn::ExprLoop, label: Option<Lifetime>) -> NodeId {
        let span = l.loop_token.span();
        let mut fresh = Fresh::of(&self.func.item);
        crate::names::idents(quote!(#l), &mut fresh.used);
        let value = fresh.name("value");
        let mut set = SetValue {
            label: label.as_ref(),
            value: &value,
            depth: 0,
        };
        let mut l = l.clone();
        set.visit_block_mut(&mut l.body);
        let block: Block = syn::parse_quote_spanned! {span=> {
            let mut #value = ::core::default::Default::default();
            #l
            #value
        }};
        self.block_value(&block, false)
    }

    /// The flags a body needs, with names that collide with nothing (in
    /// the function or in the body, where an outer loop's flags may be).
    fn flags(&self, body: &Block, label: Option<Lifetime>) -> Option<Flags> {
        let mut find = Exits::of(label.as_ref());
        find.visit_block(body);
        if !find.breaks && !find.continues {
            return None;
        }
        let mut fresh = Fresh::of(&self.func.item);
        crate::names::idents(quote!(#body), &mut fresh.used);
        Some(Flags {
            going: fresh.name("going"),
            skip: fresh.name("skip"),
            breaks: find.breaks,
            continues: find.continues,
            label,
            fresh,
        })
    }

    /// The body with its exits as flags, `None` after reporting an exit
    /// where a value is needed.
    fn rewrite_body(&mut self, body: &Block, mut flags: Flags) -> Option<(Flags, Block)> {
        let stmts = match rewrite(&body.stmts, &mut flags) {
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

/// Whether an exit with this label (`None`: unlabelled), inside `depth`
/// loops of the one with label `own`, ends that loop.
fn targets(label: Option<&Lifetime>, own: Option<&Lifetime>, depth: usize) -> bool {
    match label {
        None => depth == 0,
        Some(l) => own.is_some_and(|o| o.ident == l.ident),
    }
}

/// A loop inside another: its label, if it has one.
fn loop_label(e: &Expr) -> Option<Option<&Lifetime>> {
    match e {
        Expr::ForLoop(f) => Some(f.label.as_ref().map(|l| &l.name)),
        Expr::While(w) => Some(w.label.as_ref().map(|l| &l.name)),
        Expr::Loop(l) => Some(l.label.as_ref().map(|l| &l.name)),
        _ => None,
    }
}

/// Finds the `break`s and `continue`s that end a loop: its unlabelled
/// ones (not those of loops inside it) and those that name its label
/// (from any depth); and whether a `break` gives it a value.
struct Exits<'a> {
    label: Option<&'a Lifetime>,
    depth: usize,
    breaks: bool,
    continues: bool,
    valued: bool,
}

impl<'a> Exits<'a> {
    fn of(label: Option<&'a Lifetime>) -> Self {
        Exits {
            label,
            depth: 0,
            breaks: false,
            continues: false,
            valued: false,
        }
    }
}

impl<'ast> Visit<'ast> for Exits<'_> {
    fn visit_expr(&mut self, e: &'ast Expr) {
        match e {
            Expr::Break(b) => {
                if targets(b.label.as_ref(), self.label, self.depth) {
                    self.breaks = true;
                    self.valued |= b.expr.is_some();
                }
                syn::visit::visit_expr(self, e);
            }
            Expr::Continue(c) => {
                if targets(c.label.as_ref(), self.label, self.depth) {
                    self.continues = true;
                }
            }
            Expr::Closure(_) => {}
            _ => match loop_label(e) {
                // A loop inside: only its exits that name this loop's label
                // are this loop's, unless it takes the label itself.
                Some(inner) => {
                    let shadows =
                        matches!((inner, self.label), (Some(i), Some(o)) if i.ident == o.ident);
                    if self.label.is_some() && !shadows {
                        self.depth += 1;
                        syn::visit::visit_expr(self, e);
                        self.depth -= 1;
                    }
                }
                None => syn::visit::visit_expr(self, e),
            },
        }
    }
}

fn has_exit(s: &Stmt, label: Option<&Lifetime>) -> bool {
    let mut find = Exits::of(label);
    find.visit_stmt(s);
    find.breaks || find.continues
}

/// Each `break v` that ends a loop becomes `{ value = v; break; }` (with
/// the loop's label from inside another loop).
struct SetValue<'a> {
    label: Option<&'a Lifetime>,
    value: &'a syn::Ident,
    depth: usize,
}

impl VisitMut for SetValue<'_> {
    fn visit_expr_mut(&mut self, e: &mut Expr) {
        match e {
            Expr::Break(b)
                if b.expr.is_some() && targets(b.label.as_ref(), self.label, self.depth) =>
            {
                let mut v = *b.expr.take().expect("checked");
                self.visit_expr_mut(&mut v);
                let value = self.value;
                let label = &b.label;
                *e = syn::parse_quote_spanned!(b.span()=> { #value = #v; break #label; });
            }
            Expr::Closure(_) => {}
            _ => match loop_label(e) {
                Some(inner) => {
                    let shadows =
                        matches!((inner, self.label), (Some(i), Some(o)) if i.ident == o.ident);
                    if self.label.is_some() && !shadows {
                        self.depth += 1;
                        syn::visit_mut::visit_expr_mut(self, e);
                        self.depth -= 1;
                    }
                }
                None => syn::visit_mut::visit_expr_mut(self, e),
            },
        }
    }
}

/// Each exit that ends the outer loop, found inside a loop inside it
/// (so it names the outer loop's label), sets the outer loop's flag and
/// breaks the inner loop (by the label `inner`).
struct Relabel<'a> {
    flags: &'a Flags,
    inner: &'a Lifetime,
    depth: usize,
}

impl VisitMut for Relabel<'_> {
    fn visit_expr_mut(&mut self, e: &mut Expr) {
        let (going, skip, inner) = (&self.flags.going, &self.flags.skip, self.inner);
        let own = self.flags.label.as_ref();
        match e {
            Expr::Break(b) if b.expr.is_none() && targets(b.label.as_ref(), own, self.depth) => {
                *e = syn::parse_quote_spanned!(b.span()=> { #going = false; break #inner; });
            }
            Expr::Continue(c) if targets(c.label.as_ref(), own, self.depth) => {
                *e = syn::parse_quote_spanned!(c.span()=> { #skip = true; break #inner; });
            }
            Expr::Closure(_) => {}
            _ => match loop_label(e) {
                Some(l) => {
                    let shadows = matches!((l, own), (Some(i), Some(o)) if i.ident == o.ident);
                    if !shadows {
                        self.depth += 1;
                        syn::visit_mut::visit_expr_mut(self, e);
                        self.depth -= 1;
                    }
                }
                None => syn::visit_mut::visit_expr_mut(self, e),
            },
        }
    }
}

/// The statements with each exit as its flag, and each statement after
/// one run only while the flags say so.
fn rewrite(stmts: &[Stmt], flags: &mut Flags) -> Result<Vec<Stmt>, (Span, &'static str)> {
    let mut out = Vec::new();
    for (i, s) in stmts.iter().enumerate() {
        if !has_exit(s, flags.label.as_ref()) {
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
/// `skip = true;`, inside `if`s, blocks, `match` arms and inner loops.
fn rewrite_stmt(s: &Stmt, flags: &mut Flags) -> Result<Stmt, (Span, &'static str)> {
    match s {
        Stmt::Expr(e, _) => Ok(Stmt::Expr(
            rewrite_expr(e, flags)?,
            Some(Default::default()),
        )),
        other => Err((other.span(), VALUE_HINT)),
    }
}

fn rewrite_expr(e: &Expr, flags: &mut Flags) -> Result<Expr, (Span, &'static str)> {
    let (going, skip) = (&flags.going, &flags.skip);
    let own = flags.label.as_ref();
    Ok(match e {
        Expr::Break(b) if b.expr.is_none() && targets(b.label.as_ref(), own, 0) => {
            syn::parse_quote_spanned!(b.span()=> { #going = false; })
        }
        Expr::Continue(c) if targets(c.label.as_ref(), own, 0) => {
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
                let mut find = Exits::of(flags.label.as_ref());
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
        // A loop inside, with exits that name this loop: they set this
        // loop's flags and end the inner loop, under a label of its own.
        Expr::ForLoop(_) | Expr::While(_) | Expr::Loop(_) => {
            let mut inner = e.clone();
            let label = match &mut inner {
                Expr::ForLoop(f) => &mut f.label,
                Expr::While(w) => &mut w.label,
                Expr::Loop(l) => &mut l.label,
                _ => unreachable!("matched above"),
            };
            let name = match label {
                Some(l) => l.name.clone(),
                None => {
                    let ident = flags.fresh.name("inner");
                    let name = Lifetime::new(&format!("'{ident}"), e.span());
                    *label = Some(syn::Label {
                        name: name.clone(),
                        colon_token: Default::default(),
                    });
                    name
                }
            };
            let mut relabel = Relabel {
                flags,
                inner: &name,
                depth: 1,
            };
            match &mut inner {
                Expr::ForLoop(f) => relabel.visit_block_mut(&mut f.body),
                Expr::While(w) => relabel.visit_block_mut(&mut w.body),
                Expr::Loop(l) => relabel.visit_block_mut(&mut l.body),
                _ => unreachable!("matched above"),
            }
            inner
        }
        Expr::Break(b) if b.expr.is_some() => return Err((b.span(), BREAK_VALUE_HINT)),
        Expr::Break(b) => return Err((b.span(), LABEL_HINT)),
        Expr::Continue(c) => return Err((c.span(), LABEL_HINT)),
        other => return Err((other.span(), VALUE_HINT)),
    })
}

const VALUE_HINT: &str = "`break` and `continue` are supported as statements (`if c { break; }`, a `match` arm `=> continue,`), not inside an expression whose value is used; assign the value first";

const LABEL_HINT: &str = "this label is not the label of a loop around this `break`/`continue`; name an enclosing loop (`'outer: for .. { .. continue 'outer; }`)";

const BREAK_VALUE_HINT: &str = "`break` with a value is supported in a `loop` whose value is used (`let r = loop { .. break x; };`); a `for` or `while` loop has no value";

fn rewrite_block(b: &Block, flags: &mut Flags) -> Result<Block, (Span, &'static str)> {
    let stmts = rewrite(&b.stmts, flags)?;
    Ok(syn::parse_quote_spanned!(b.brace_token.span.join()=> { #(#stmts)* }))
}
