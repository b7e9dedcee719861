//! A body over statically sized nalgebra values, written on their
//! elements before it is lowered: each such value is its elements, a
//! local's bound to one name each (`q_x`, `q_y`, `q_z`; `m_01` for row 0,
//! column 1 of a matrix), a parameter's read by index (`v[0]`, column
//! major), and each operation is the arithmetic nalgebra does on them, in
//! nalgebra's order (so the value is the original's bit for bit). What is
//! left is a function of floats, which the rest of the pipeline
//! differentiates as any other; a parameter read only by element is held
//! on the stack (`bp::Fixed`), so the backward allocates nothing.
//!
//! Before: `let q = r.cross(p) + t; q.norm()`
//!
//! After: `let q_x = r[1] * p[2] - r[2] * p[1] + t[0]; .. ; (q_x * q_x + q_y * q_y + q_z * q_z).sqrt()`
//!
//! What the rewrite does not know on a nalgebra value is an error at its
//! tokens, with what is supported.

use super::matrices::{lit_usize, Shape};
use crate::ctxt::Ctxt;
use proc_macro2::{Span, TokenStream};
use quote::ToTokens;
use std::collections::{HashMap, HashSet};
use syn::{parse_quote, BinOp, Block, Expr, Ident, Pat, Stmt};

/// A value of the body: a float (its expression, rewritten) or a nalgebra
/// value (its elements, column major).
#[derive(Clone)]
enum Val {
    S(Expr),
    M(Mat),
    /// A rotation (see [`rotations`]).
    R(rotations::Rot),
}

#[derive(Clone)]
struct Mat {
    shape: Shape,
    c: Vec<Expr>,
}

/// What a name is in a scope.
#[derive(Clone)]
enum Bind {
    /// A nalgebra value: its elements (names, or a parameter's reads).
    Mat(Mat),
    /// A rotation: its elements' names.
    Rot(rotations::Rot),
    /// A float or anything else, hiding an outer nalgebra value.
    Other,
}

/// What a block's value becomes where it is a nalgebra value.
#[derive(Clone, Copy, PartialEq)]
enum Tail {
    /// The function's value: an array of its elements (`[a, b, c]`).
    Flat,
    /// An arm's or a block's value: a tuple of its elements.
    Tuple,
}

const SUPPORTED: &str = "on statically sized nalgebra values the macro knows `+ - *` (matrix and scalar products), `/` by a float, unary `-`, `dot`, `cross`, `norm`, `norm_squared`, `normalize`, `transpose`, `component_mul`, `component_div`, `sum`, `scale`, `map`, `abs`, `determinant` (up to 3 × 3), the fields `x y z w`, indexing by literals (`v[0]`, `m[(0, 1)]`), `column`, `row`, `fixed_rows`, `Vector3::new`, `zeros`, `identity`, `from_element`, passing to a call (`helper(&v)`), and rotations `Rotation3::from_scaled_axis(w)` and `UnitQuaternion::from_scaled_axis(w)` applied to a 3-vector or a point (`r * p`, `transform_vector`, `inverse`)";

/// Rewrites `block` (see the module), its parameters of nalgebra types
/// `params`, its value of the nalgebra type `output` if it is one. `taken`
/// holds every identifier of the function. `None` if nothing was rewritten
/// (no nalgebra value) or on an error (in `cx`).
pub(crate) fn scalarize(
    block: &Block,
    params: &[(Ident, Shape, bool)],
    output: Option<Shape>,
    elem: &super::Elem,
    krate: &TokenStream,
    taken: HashSet<String>,
    cx: &mut Ctxt,
) -> Option<Block> {
    if params.is_empty() && output.is_none() && !names_nalgebra(&block.to_token_stream()) {
        return None;
    }
    let mut scope = HashMap::new();
    for (ident, shape, _) in params {
        let c = (0..shape.len())
            .map(|k| {
                let k = syn::Index::from(k);
                parse_quote!(#ident[#k])
            })
            .collect();
        scope.insert(ident.to_string(), Bind::Mat(Mat { shape: *shape, c }));
    }
    let mut s = Scalarizer {
        scopes: vec![scope],
        stmts: Vec::new(),
        taken,
        cx,
        ctx: "out".to_string(),
        output,
        failed: false,
        krate: krate.clone(),
        by_ref: params
            .iter()
            .filter(|(_, _, r)| *r)
            .map(|(i, _, _)| i.to_string())
            .collect(),
        float: {
            let e = elem.ident();
            parse_quote!(#e)
        },
        eps: match elem {
            super::Elem::Generic(t) => parse_quote!(#t::epsilon()),
            e => {
                let e = e.ident();
                parse_quote!(#e::EPSILON)
            }
        },
    };
    let tail = output.map(|_| Tail::Flat);
    let (b, shape) = s.block(block, tail);
    if let (Some(want), Some(got)) = (output, shape) {
        if want.rows * want.cols != got.len() {
            s.fail(
                block,
                format!(
                    "the function's value is {}, its body's {}",
                    want.describe(),
                    got.describe()
                ),
            );
        }
    }
    (!s.failed).then_some(b)
}

struct Scalarizer<'a> {
    scopes: Vec<HashMap<String, Bind>>,
    /// The statements written so far in the block being rewritten.
    stmts: Vec<Stmt>,
    /// Identifiers in use.
    taken: HashSet<String>,
    cx: &'a mut Ctxt,
    /// The name the values being written are named after.
    ctx: String,
    output: Option<Shape>,
    failed: bool,
    /// The float type's epsilon (`f64::EPSILON`).
    eps: Expr,
    /// The float type, which every element's `let` states.
    float: syn::Type,
    /// The path to the `backprop` crate.
    krate: TokenStream,
    /// The parameters passed by reference (`v: &Vector3<f64>`): passed on
    /// bare (`helper(v)`), each is a reference.
    by_ref: HashSet<String>,
}

/// Whether `e` may be read more than once without computing it again.
fn atomic(e: &Expr) -> bool {
    match e {
        Expr::Path(_) | Expr::Lit(_) => true,
        Expr::Index(i) => atomic(&i.expr) && matches!(&*i.index, Expr::Lit(_) | Expr::Path(_)),
        Expr::Field(f) => atomic(&f.base),
        Expr::Paren(p) => atomic(&p.expr),
        _ => false,
    }
}

/// `e` as an operand of an operator: in parentheses unless it binds tighter.
fn operand(e: Expr) -> Expr {
    match e {
        Expr::Binary(_) | Expr::Unary(_) | Expr::Cast(_) | Expr::If(_) | Expr::Block(_) => {
            parse_quote!((#e))
        }
        e => e,
    }
}

fn bin(l: &Expr, op: &str, r: &Expr) -> Expr {
    let (l, r) = (operand(l.clone()), operand(r.clone()));
    match op {
        "+" => parse_quote!(#l + #r),
        "-" => parse_quote!(#l - #r),
        "*" => parse_quote!(#l * #r),
        _ => parse_quote!(#l / #r),
    }
}

/// A sum in order: `a + b + c`.
fn sum(terms: Vec<Expr>) -> Expr {
    let mut it = terms.into_iter();
    let first = it.next().expect("a sum of at least one term");
    it.fold(first, |acc, t| bin(&acc, "+", &t))
}

/// `a × b` of two 3-vectors' elements (atomic), nalgebra's formula.
fn cross(a: &[Expr], b: &[Expr]) -> Vec<Expr> {
    let term = |i: usize, j: usize, k: usize, l: usize| {
        bin(&bin(&a[i], "*", &b[j]), "-", &bin(&a[k], "*", &b[l]))
    };
    vec![term(1, 2, 2, 1), term(2, 0, 0, 2), term(0, 1, 1, 0)]
}

/// The dot product of the elements `a` and `b` of two values of one
/// shape, in the order of nalgebra's `dot` (per column: two to four rows
/// written out, more in eight interleaved sums).
fn dot(shape: Shape, a: &[Expr], b: &[Expr]) -> Expr {
    let prod = |k: usize| bin(&a[k], "*", &b[k]);
    let column = |j: usize| -> Expr {
        let at = |i: usize| prod(i + shape.rows * j);
        match shape.rows {
            1 => at(0),
            2 | 3 => sum((0..shape.rows).map(at).collect()),
            4 => bin(&bin(&at(0), "+", &at(2)), "+", &bin(&at(1), "+", &at(3))),
            n => {
                let blocks = n / 8;
                let mut terms = Vec::new();
                if blocks > 0 {
                    let acc =
                        |r: usize| sum((0..blocks).map(|b| at(8 * b + r)).collect::<Vec<_>>());
                    for r in 0..4 {
                        terms.push(bin(&acc(r), "+", &acc(r + 4)));
                    }
                }
                terms.extend((8 * blocks..n).map(at));
                sum(terms)
            }
        }
    };
    // A vector's dot is its column's (a row vector's, over its columns).
    if shape.rows == 1 && shape.cols > 1 {
        let t = Shape {
            rows: shape.cols,
            cols: 1,
            point: false,
        };
        return dot(t, a, b);
    }
    sum((0..shape.cols).map(column).collect())
}

impl Scalarizer<'_> {
    fn fail(&mut self, node: &impl ToTokens, message: impl std::fmt::Display) {
        self.failed = true;
        self.cx.error_at(node, message);
    }

    fn unsupported<T>(&mut self, node: &impl ToTokens, what: &str) -> Option<T> {
        self.failed = true;
        self.cx.error_at(
            node,
            format!("{what} is not supported on a nalgebra value yet; {SUPPORTED}"),
        );
        None
    }

    fn fresh(&mut self, base: &str) -> Ident {
        let mut name = base.to_string();
        let mut n = 2;
        while self.taken.contains(&name) {
            name = format!("{base}_{n}");
            n += 1;
        }
        self.taken.insert(name.clone());
        Ident::new(&name, Span::call_site())
    }

    fn lookup(&self, name: &str) -> Option<&Mat> {
        match self.bound(name)? {
            Bind::Mat(m) => Some(m),
            _ => None,
        }
    }

    /// The nalgebra value or rotation `name` is in scope, if it is one.
    fn bound(&self, name: &str) -> Option<&Bind> {
        for scope in self.scopes.iter().rev() {
            match scope.get(name) {
                Some(Bind::Other) => return None,
                Some(b) => return Some(b),
                None => {}
            }
        }
        None
    }

    fn bind(&mut self, name: &str, b: Bind) {
        self.scopes
            .last_mut()
            .expect("a scope")
            .insert(name.to_string(), b);
    }

    /// Binds the elements of `m` that are not atomic to names
    /// (`{ctx}_{what}_{suffix}`), so that they may be read again.
    fn atoms(&mut self, m: Mat, what: &str) -> Mat {
        if m.c.iter().all(atomic) {
            return m;
        }
        let base = format!("{}_{what}", self.ctx);
        let c =
            m.c.into_iter()
                .enumerate()
                .map(|(k, e)| {
                    if atomic(&e) {
                        return e;
                    }
                    let name = self.fresh(&format!("{base}_{}", m.shape.suffix(k)));
                    let ty = &self.float;
                    self.stmts.push(parse_quote!(let #name: #ty = #e;));
                    parse_quote!(#name)
                })
                .collect();
        Mat { shape: m.shape, c }
    }

    /// A float read more than once, bound to a name unless atomic.
    fn atom(&mut self, e: Expr, what: &str) -> Expr {
        if atomic(&e) {
            return e;
        }
        let name = self.fresh(&format!("{}_{what}", self.ctx));
        let ty = &self.float;
        self.stmts.push(parse_quote!(let #name: #ty = #e;));
        parse_quote!(#name)
    }

    /// A scope's statements: `block` rewritten, and the shape of its value
    /// where that is a nalgebra value (written as `tail` says).
    fn block(&mut self, block: &Block, tail: Option<Tail>) -> (Block, Option<Shape>) {
        self.scopes.push(HashMap::new());
        let outer = std::mem::take(&mut self.stmts);
        let mut shape = None;
        let n = block.stmts.len();
        for (i, stmt) in block.stmts.iter().enumerate() {
            match stmt {
                Stmt::Expr(e, None) if i + 1 == n => {
                    let v = self.value(e);
                    match (v, tail) {
                        (Some(Val::M(m)), Some(t)) => {
                            shape = Some(m.shape);
                            let c = &m.c;
                            let e: Expr = match t {
                                Tail::Flat => parse_quote!([#(#c),*]),
                                Tail::Tuple => parse_quote!((#(#c),*)),
                            };
                            self.stmts.push(Stmt::Expr(e, None));
                        }
                        (Some(Val::M(_)), None) => {
                            self.fail(e, "a nalgebra value here is not supported: bind it with `let` and read its elements, or make it the function's value");
                        }
                        (Some(Val::R(_)), _) => {
                            self.fail(e, "a rotation as a block's value is not supported: bind it with `let` and apply it to a vector (`r * p`)");
                        }
                        (Some(Val::S(e)), _) => self.stmts.push(Stmt::Expr(e, None)),
                        (None, _) => {}
                    }
                }
                _ => self.stmt(stmt),
            }
        }
        self.scopes.pop();
        let stmts = std::mem::replace(&mut self.stmts, outer);
        (
            Block {
                brace_token: block.brace_token,
                stmts,
            },
            shape,
        )
    }

    fn stmt(&mut self, stmt: &Stmt) {
        match stmt {
            Stmt::Local(l) => self.local(l),
            Stmt::Expr(e, semi) => {
                if let Some(e) = self.effect(e) {
                    self.stmts.push(Stmt::Expr(e, *semi));
                }
            }
            Stmt::Item(_) => self.stmts.push(stmt.clone()),
            Stmt::Macro(m) => {
                if self.mentions(&m.mac.tokens) {
                    self.fail(m, "a macro reading a nalgebra value is not supported: read its elements (`v[0]`, `v.x`) into a float first");
                } else {
                    self.stmts.push(stmt.clone());
                }
            }
        }
    }

    /// Whether `tokens` name a nalgebra value in scope.
    fn mentions(&self, tokens: &TokenStream) -> bool {
        any_ident(tokens, &|i| self.bound(&i.to_string()).is_some())
    }

    fn local(&mut self, l: &syn::Local) {
        let (ident, mutability) = match &l.pat {
            Pat::Ident(p) if p.subpat.is_none() => (Some(&p.ident), p.mutability),
            Pat::Type(t) => match &*t.pat {
                Pat::Ident(p) if p.subpat.is_none() => (Some(&p.ident), p.mutability),
                _ => (None, None),
            },
            _ => (None, None),
        };
        let Some(init) = &l.init else {
            if let Some(ident) = ident {
                self.bind(&ident.to_string(), Bind::Other);
            }
            self.stmts.push(Stmt::Local(l.clone()));
            return;
        };
        if init.diverge.is_some() {
            self.stmts.push(Stmt::Local(l.clone()));
            return;
        }
        let saved = std::mem::replace(
            &mut self.ctx,
            ident.map_or("value".to_string(), |i| i.to_string()),
        );
        let v = self.value(&init.expr);
        self.ctx = saved;
        match (v, ident) {
            (Some(Val::M(m)), Some(ident)) => {
                let names: Vec<Ident> = (0..m.shape.len())
                    .map(|k| self.fresh(&format!("{ident}_{}", m.shape.suffix(k))))
                    .collect();
                for (name, e) in names.iter().zip(&m.c) {
                    let ty = &self.float;
                    self.stmts
                        .push(parse_quote!(let #mutability #name: #ty = #e;));
                }
                let c = names.iter().map(|n| parse_quote!(#n)).collect();
                self.bind(&ident.to_string(), Bind::Mat(Mat { shape: m.shape, c }));
            }
            (Some(Val::R(r)), Some(ident)) => {
                self.bind(&ident.to_string(), Bind::Rot(r));
            }
            (Some(Val::M(_) | Val::R(_)), None) => {
                self.fail(
                    &l.pat,
                    "a nalgebra value is bound to a plain name (`let v = ..;`), not a pattern",
                );
            }
            (Some(Val::S(e)), _) => {
                let mut l = l.clone();
                if let Some(init) = &mut l.init {
                    *init.expr = e;
                }
                if let Some(ident) = ident {
                    self.bind(&ident.to_string(), Bind::Other);
                } else {
                    self.hide_pattern(&l.pat);
                }
                self.stmts.push(Stmt::Local(l));
            }
            (None, _) => {}
        }
    }

    /// Every name a pattern binds hides an outer nalgebra value.
    fn hide_pattern(&mut self, pat: &Pat) {
        for t in pat.to_token_stream() {
            if let proc_macro2::TokenTree::Ident(i) = t {
                self.bind(&i.to_string(), Bind::Other);
            }
        }
    }

    /// A statement's expression: control flow with its blocks rewritten, a
    /// write, or a float expression.
    fn effect(&mut self, e: &Expr) -> Option<Expr> {
        match e {
            Expr::Assign(a) => self.assign(&a.left, None, &a.right, e),
            Expr::Binary(b) if compound(&b.op).is_some() => {
                self.assign(&b.left, compound(&b.op), &b.right, e)
            }
            _ => match self.value(e)? {
                Val::S(e) => Some(e),
                Val::M(_) | Val::R(_) => {
                    self.fail(
                        e,
                        "a nalgebra value computed and not used: bind it with `let`",
                    );
                    None
                }
            },
        }
    }

    /// `left op= right` (`op` `None` for `=`).
    fn assign(
        &mut self,
        left: &Expr,
        op: Option<&str>,
        right: &Expr,
        whole: &Expr,
    ) -> Option<Expr> {
        // An element of a local: `q[0] = ..`, `q.x += ..`.
        if let Some(target) = self.element_place(left) {
            let Val::S(r) = self.value(right)? else {
                return self.unsupported(right, "a nalgebra value written into an element");
            };
            return Some(write(&target, op, &r));
        }
        let Some(name) = path_name(left) else {
            return self.scalar_assign(left, op, right, whole);
        };
        let Some(target) = self.lookup(&name).cloned() else {
            return self.scalar_assign(left, op, right, whole);
        };
        if !target.c.iter().all(|c| matches!(c, Expr::Path(_))) {
            return self.unsupported(left, "a write into a parameter");
        }
        let saved = std::mem::replace(&mut self.ctx, name.clone());
        let r = self.value(right);
        self.ctx = saved;
        let r = r?;
        let rhs: Vec<Expr> = match (op, r) {
            (None | Some("+") | Some("-"), Val::M(m)) if m.shape.len() == target.shape.len() => m.c,
            (Some("*") | Some("/"), Val::S(s)) => {
                let s = self.atom(s, "factor");
                vec![s; target.shape.len()]
            }
            (Some("*"), Val::M(m)) => {
                let prod = self.matmul(
                    Mat {
                        shape: target.shape,
                        c: target.c.clone(),
                    },
                    m,
                    whole,
                )?;
                return Some(self.write_all(&name, &target, None, prod.c));
            }
            _ => return self.unsupported(whole, "this write"),
        };
        Some(self.write_all(&name, &target, op, rhs))
    }

    /// The writes `target_k op= rhs_k`, through names (`{name}_new_x`)
    /// where an element reads another of the target's.
    fn write_all(&mut self, name: &str, target: &Mat, op: Option<&str>, rhs: Vec<Expr>) -> Expr {
        let own: Vec<String> = target
            .c
            .iter()
            .map(|c| c.to_token_stream().to_string())
            .collect();
        let names: HashSet<String> = own.iter().cloned().collect();
        let crossed = rhs.iter().zip(&own).any(|(e, own)| {
            any_ident(&e.to_token_stream(), &|i| {
                let s = i.to_string();
                s != *own && names.contains(&s)
            })
        });
        let rhs = if crossed {
            let saved = std::mem::replace(&mut self.ctx, name.to_string());
            let m = self.atoms(
                Mat {
                    shape: target.shape,
                    c: rhs,
                },
                "new",
            );
            self.ctx = saved;
            m.c
        } else {
            rhs
        };
        let mut writes: Vec<Expr> = target
            .c
            .iter()
            .zip(&rhs)
            .map(|(t, r)| write(t, op, r))
            .collect();
        let last = writes.pop().expect("a value of at least one element");
        self.stmts.extend(
            writes
                .into_iter()
                .map(|w| Stmt::Expr(w, Some(Default::default()))),
        );
        last
    }

    fn scalar_assign(
        &mut self,
        left: &Expr,
        op: Option<&str>,
        right: &Expr,
        whole: &Expr,
    ) -> Option<Expr> {
        let Val::S(l) = self.value(left)? else {
            return self.unsupported(whole, "this write");
        };
        let Val::S(r) = self.value(right)? else {
            return self.unsupported(whole, "a nalgebra value written into a float");
        };
        Some(write(&l, op, &r))
    }

    /// The element of a local nalgebra value that `e` names (`q[1]`, `q.y`,
    /// `m[(0, 1)]`).
    fn element_place(&mut self, e: &Expr) -> Option<Expr> {
        let (base, k) = match e {
            Expr::Index(i) => (&*i.expr, self.literal_index(&i.index)?),
            Expr::Field(f) => (&*f.base, field_index(&f.member)?),
            _ => return None,
        };
        let m = self.lookup(&path_name(base)?)?.clone();
        let k = flat_index(m.shape, k)?;
        matches!(m.c[k], Expr::Path(_)).then(|| m.c[k].clone())
    }

    /// `0`, `(0, 1)`: an index the macro reads.
    fn literal_index(&self, e: &Expr) -> Option<(usize, Option<usize>)> {
        match e {
            Expr::Lit(_) => Some((lit_usize(e)?, None)),
            Expr::Tuple(t) if t.elems.len() == 2 => {
                Some((lit_usize(&t.elems[0])?, Some(lit_usize(&t.elems[1])?)))
            }
            Expr::Paren(p) => self.literal_index(&p.expr),
            _ => None,
        }
    }
}

/// Whether `tokens` name a statically sized nalgebra type or a rotation
/// (`Vector3::new(..)` in a function of floats).
fn names_nalgebra(tokens: &TokenStream) -> bool {
    any_ident(tokens, &|i| {
        // Keywords (`let`, `self`) are no type: parsed, not assumed.
        let ty = syn::parse2::<syn::Type>(quote::quote!(#i<f64>));
        matches!(
            i.to_string().as_str(),
            "Rotation3" | "UnitQuaternion" | "SVector" | "SMatrix"
        ) || ty.is_ok_and(|ty| {
            matches!(
                super::matrices::nalgebra_type(&ty),
                Some(super::matrices::Nalgebra::Static(..))
            )
        })
    })
}

/// Whether an identifier of `tokens`, in groups too, is one `f` accepts.
fn any_ident(tokens: &TokenStream, f: &dyn Fn(&Ident) -> bool) -> bool {
    tokens.clone().into_iter().any(|t| match t {
        proc_macro2::TokenTree::Ident(i) => f(&i),
        proc_macro2::TokenTree::Group(g) => any_ident(&g.stream(), f),
        _ => false,
    })
}

/// `a op= b` (`a = b` for `None`).
fn write(target: &Expr, op: Option<&str>, r: &Expr) -> Expr {
    match op {
        None => parse_quote!(#target = #r),
        Some("+") => parse_quote!(#target += #r),
        Some("-") => parse_quote!(#target -= #r),
        Some("*") => parse_quote!(#target *= #r),
        Some(_) => parse_quote!(#target /= #r),
    }
}

fn compound(op: &BinOp) -> Option<&'static str> {
    match op {
        BinOp::AddAssign(_) => Some("+"),
        BinOp::SubAssign(_) => Some("-"),
        BinOp::MulAssign(_) => Some("*"),
        BinOp::DivAssign(_) => Some("/"),
        _ => None,
    }
}

fn path_name(e: &Expr) -> Option<String> {
    match e {
        Expr::Path(p) if p.qself.is_none() => p.path.get_ident().map(|i| i.to_string()),
        Expr::Paren(p) => path_name(&p.expr),
        Expr::Group(g) => path_name(&g.expr),
        _ => None,
    }
}

/// `x`, `y`, `z`, `w` as element indices.
fn field_index(m: &syn::Member) -> Option<(usize, Option<usize>)> {
    match m {
        syn::Member::Named(n) => ["x", "y", "z", "w"]
            .iter()
            .position(|f| n == f)
            .map(|k| (k, None)),
        syn::Member::Unnamed(_) => None,
    }
}

/// The column-major position of an index: `k` of a vector (or any value,
/// nalgebra's linear index), `(i, j)` of a matrix.
fn flat_index(shape: Shape, (i, j): (usize, Option<usize>)) -> Option<usize> {
    match j {
        None => (i < shape.len()).then_some(i),
        Some(j) => (i < shape.rows && j < shape.cols).then_some(i + shape.rows * j),
    }
}

mod calls;
mod exprs;
mod methods;
mod rotations;
