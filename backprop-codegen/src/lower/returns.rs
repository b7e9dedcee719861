//! Early `return`, as a result and a flag: `return e;` sets the result and
//! `done`, every statement after one runs only `if !done`, a loop it is in
//! stops (its `break` is then rewritten as any other, see `exits`), and the
//! body's value is `if done { result } else { value }`. The path taken is
//! a constant of the gradient, as a branch's is.
//!
//! Before: `fn huber(r: f64, d: f64) -> f64 { if r.abs() <= d { return 0.5 * r * r; } d * (r.abs() - 0.5 * d) }`
//!
//! After: `{ let mut result = <f64 as Default>::default(); let mut done = false;
//! if r.abs() <= d { result = 0.5 * r * r; done = true; }
//! if done { result } else { d * (r.abs() - 0.5 * d) } }`

use proc_macro2::{Span, TokenStream};
use quote::quote;
use syn::spanned::Spanned;
use syn::visit::Visit;
use syn::{Block, Expr, Stmt};

/// The names of the result (one per component of a tuple value) and its
/// flag.
struct Names {
    results: Vec<syn::Ident>,
    done: syn::Ident,
}

impl Names {
    /// `result = v;` (`result_0 = v.0; ..` for a tuple `v`, which must be
    /// written out as one).
    fn assign(&self, v: &Expr) -> Result<TokenStream, (Span, &'static str)> {
        match (&self.results[..], strip(v)) {
            ([result], _) => Ok(quote!(#result = #v;)),
            (results, Expr::Tuple(t)) if t.elems.len() == results.len() => {
                let elems = t.elems.iter();
                Ok(quote!(#(#results = #elems;)*))
            }
            // A tuple bound to a name: its components (see `tuples`).
            (results, Expr::Path(p)) if p.path.get_ident().is_some() => {
                let fields = (0..results.len()).map(syn::Index::from);
                Ok(quote!(#(#results = #p.#fields;)*))
            }
            _ => Err((v.span(), TUPLE_HINT)),
        }
    }
}

const TUPLE_HINT: &str = "a function that returns a tuple returns one written out, with as many components (`return (a, b);`), or a tuple bound to a name (`return p;`)";

fn strip(e: &Expr) -> &Expr {
    match e {
        Expr::Paren(p) => strip(&p.expr),
        Expr::Group(g) => strip(&g.expr),
        other => other,
    }
}

/// The body with its early returns as a result and a flag; the body itself
/// if it has none; `Err` with the span and message of a return the
/// rewriting cannot take.
pub fn rewrite_returns(item: &syn::ItemFn) -> Result<Block, (Span, &'static str)> {
    let body = &item.block;
    if !has_return(&Stmt::Expr(Expr::Block(block_expr(body)), None)) {
        return Ok((**body).clone());
    }
    let syn::ReturnType::Type(_, ty) = &item.sig.output else {
        return Ok((**body).clone());
    };
    // One result per component of a tuple value.
    let types: Vec<&syn::Type> = match &**ty {
        syn::Type::Tuple(t) => t.elems.iter().collect(),
        other => vec![other],
    };
    let mut fresh = super::Fresh::of(item);
    let names = Names {
        results: match types.len() {
            1 => vec![fresh.name("result")],
            k => (0..k).map(|i| fresh.name(&format!("result_{i}"))).collect(),
        },
        done: fresh.name("done"),
    };
    // The value is the result's last assignment, guarded with the
    // statements before it, so that the names bound after a return are in
    // scope where it is computed.
    let (results, done) = (&names.results, &names.done);
    let (stmts, tail) = split_tail(&body.stmts);
    let mut all = stmts.to_vec();
    match tail {
        Some(e) if has_return(&Stmt::Expr(e.clone(), None)) && !matches!(e, Expr::Return(_)) => {
            return Err((e.span(), VALUE_HINT));
        }
        Some(Expr::Return(r)) => all.push(syn::parse_quote!(#r;)),
        Some(e) => {
            let assign = names.assign(e)?;
            all.push(syn::parse_quote_spanned!(e.span()=> { #assign }));
        }
        None => {}
    }
    let stmts = rewrite(&all, &names, false)?;
    let value = match &results[..] {
        [result] => quote!(#result),
        results => quote!((#(#results),*)),
    };
    Ok(syn::parse_quote_spanned! {body.span()=> {
        #(let mut #results = <#types as ::core::default::Default>::default();)*
        let mut #done = false;
        #(#stmts)*
        #value
    }})
}

const VALUE_HINT: &str = "an early `return` is supported as a statement (`if c { return x; }`), not inside an expression whose value is used; assign the value first";

/// The statements, and the final expression if there is one.
fn split_tail(stmts: &[Stmt]) -> (&[Stmt], Option<&Expr>) {
    match stmts.split_last() {
        Some((Stmt::Expr(e, None), rest)) => (rest, Some(e)),
        _ => (stmts, None),
    }
}

fn block_expr(b: &Block) -> syn::ExprBlock {
    syn::ExprBlock {
        attrs: Vec::new(),
        label: None,
        block: b.clone(),
    }
}

/// Finds a `return` (not one of a closure).
#[derive(Default)]
struct Returns(bool);

impl<'ast> Visit<'ast> for Returns {
    // A `let .. else`'s `return` is reported as the `let .. else` it is.
    fn visit_local_init(&mut self, init: &'ast syn::LocalInit) {
        self.visit_expr(&init.expr);
    }
    fn visit_expr(&mut self, e: &'ast Expr) {
        match e {
            Expr::Return(_) => self.0 = true,
            Expr::Closure(_) => {}
            _ => syn::visit::visit_expr(self, e),
        }
    }
}

fn has_return(s: &Stmt) -> bool {
    let mut r = Returns::default();
    r.visit_stmt(s);
    r.0
}

/// The statements with each `return` as the result and the flag, and the
/// statements after one guarded; `in_loop` when they are a loop's body
/// (where a return also stops the loop).
fn rewrite(stmts: &[Stmt], n: &Names, in_loop: bool) -> Result<Vec<Stmt>, (Span, &'static str)> {
    let mut out = Vec::new();
    for (i, s) in stmts.iter().enumerate() {
        if !has_return(s) {
            out.push(s.clone());
            continue;
        }
        out.push(rewrite_stmt(s, n, in_loop)?);
        let done = &n.done;
        // A return from a loop inside this one stops this one too.
        if in_loop
            && matches!(
                s,
                Stmt::Expr(Expr::ForLoop(_) | Expr::While(_) | Expr::Loop(_), _)
            )
        {
            out.push(syn::parse_quote!(if #done { break; }));
        }
        let rest = rewrite(&stmts[i + 1..], n, in_loop)?;
        if !rest.is_empty() {
            out.push(syn::parse_quote!(if !#done { #(#rest)* }));
        }
        return Ok(out);
    }
    Ok(out)
}

fn rewrite_stmt(s: &Stmt, n: &Names, in_loop: bool) -> Result<Stmt, (Span, &'static str)> {
    match s {
        Stmt::Expr(e, _) => Ok(Stmt::Expr(
            rewrite_expr(e, n, in_loop)?,
            Some(Default::default()),
        )),
        other => Err((other.span(), VALUE_HINT)),
    }
}

fn rewrite_expr(e: &Expr, n: &Names, in_loop: bool) -> Result<Expr, (Span, &'static str)> {
    let done = &n.done;
    Ok(match e {
        Expr::Return(r) => {
            let Some(v) = &r.expr else {
                return Err((
                    r.span(),
                    "a differentiable function returns a value: `return x;`",
                ));
            };
            let stop: TokenStream = if in_loop { quote!(break;) } else { quote!() };
            let assign = n.assign(v)?;
            syn::parse_quote_spanned!(r.span()=> { #assign #done = true; #stop })
        }
        Expr::If(i) => {
            let mut i = i.clone();
            i.then_branch = rewrite_block(&i.then_branch, n, in_loop)?;
            if let Some((token, other)) = &i.else_branch {
                let other = match &**other {
                    Expr::Block(b) => Expr::Block(syn::ExprBlock {
                        block: rewrite_block(&b.block, n, in_loop)?,
                        ..b.clone()
                    }),
                    e => rewrite_expr(e, n, in_loop)?,
                };
                i.else_branch = Some((*token, Box::new(other)));
            }
            Expr::If(i)
        }
        Expr::Block(b) if b.label.is_none() => Expr::Block(syn::ExprBlock {
            block: rewrite_block(&b.block, n, in_loop)?,
            ..b.clone()
        }),
        Expr::Match(m) => {
            let mut m = m.clone();
            for arm in &mut m.arms {
                if has_return(&Stmt::Expr((*arm.body).clone(), None)) {
                    *arm.body = match &*arm.body {
                        Expr::Block(b) => Expr::Block(syn::ExprBlock {
                            block: rewrite_block(&b.block, n, in_loop)?,
                            ..b.clone()
                        }),
                        e => rewrite_expr(e, n, in_loop)?,
                    };
                    arm.comma = Some(Default::default());
                }
            }
            Expr::Match(m)
        }
        Expr::ForLoop(f) => {
            let mut f = f.clone();
            f.body = rewrite_block(&f.body, n, true)?;
            Expr::ForLoop(f)
        }
        Expr::While(w) => {
            let mut w = w.clone();
            w.body = rewrite_block(&w.body, n, true)?;
            Expr::While(w)
        }
        Expr::Loop(l) => {
            let mut l = l.clone();
            l.body = rewrite_block(&l.body, n, true)?;
            Expr::Loop(l)
        }
        other => return Err((other.span(), VALUE_HINT)),
    })
}

fn rewrite_block(b: &Block, n: &Names, in_loop: bool) -> Result<Block, (Span, &'static str)> {
    let stmts = rewrite(&b.stmts, n, in_loop)?;
    Ok(syn::parse_quote_spanned!(b.brace_token.span.join()=> { #(#stmts)* }))
}
