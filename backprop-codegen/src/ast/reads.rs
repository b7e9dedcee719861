//! What the body does with a name, read from its syntax before lowering:
//! whether a fixed-size array is read only element by element (the
//! parameters the generated code holds as `bp::Fixed`).

/// Whether the body reads `name` only as `name[i]` (in straight-line code,
/// loops and branches, not in closures or macros) and `name.len()`, never
/// writes or rebinds it, and reads it at least once. Anything else (a
/// walk, a whole-array op, a write) keeps the array an ndarray view.
pub(crate) fn scalar_reads(block: &syn::Block, name: &str) -> bool {
    use syn::visit::Visit;
    struct Reads<'n> {
        name: &'n str,
        /// Inside a closure or a macro.
        nested: usize,
        reads: usize,
        other: bool,
    }
    impl Reads<'_> {
        fn named(&self, e: &syn::Expr) -> bool {
            matches!(e, syn::Expr::Path(p) if p.qself.is_none() && p.path.is_ident(self.name))
        }
    }
    impl<'a> Reads<'_> {
        /// An iterator walked by index: `name.iter()`, `&name` and `name`
        /// are reads of its elements, through `.zip(..)`, `.enumerate()`,
        /// the adapters, and `.map(f)` (whose closure reads as any other).
        fn walk(&mut self, e: &'a syn::Expr) {
            let e = strip_paren(e);
            match e {
                syn::Expr::Reference(r) if r.mutability.is_none() && self.named(&r.expr) => {
                    self.reads += 1;
                }
                _ if self.named(e) => self.reads += 1,
                syn::Expr::MethodCall(m) => match (m.method.to_string().as_str(), &m.args.len()) {
                    ("iter", 0) if self.named(&m.receiver) => self.reads += 1,
                    ("zip", 1) => {
                        self.walk(&m.receiver);
                        self.walk(&m.args[0]);
                    }
                    ("map", 1)
                        if matches!(strip_paren(&m.args[0]), syn::Expr::Closure(c)
                            if !returns_early(&c.body)) =>
                    {
                        self.walk(&m.receiver);
                        self.visit_expr(&m.args[0]);
                    }
                    (
                        "enumerate" | "skip" | "take" | "step_by" | "rev" | "copied" | "cloned",
                        _,
                    ) => {
                        self.walk(&m.receiver);
                        for a in &m.args {
                            self.visit_expr(a);
                        }
                    }
                    _ => self.visit_expr(e),
                },
                _ => self.visit_expr(e),
            }
        }
    }
    impl<'a> Visit<'a> for Reads<'_> {
        fn visit_expr(&mut self, e: &'a syn::Expr) {
            match e {
                syn::Expr::Index(i) if self.named(&i.expr) => {
                    // An element, not a sub-slice (`x[1..]`).
                    let range = matches!(&*i.index, syn::Expr::Range(_));
                    if self.nested == 0 && !range {
                        self.reads += 1;
                    } else {
                        self.other = true;
                    }
                    self.visit_expr(&i.index);
                }
                // A shape query reads no element.
                syn::Expr::MethodCall(m)
                    if self.named(&m.receiver) && m.method == "len" && m.args.is_empty() => {}
                // A walk the macro reads by index: a `for` loop's, or a sum's
                // (the loop it is).
                syn::Expr::ForLoop(f) if self.nested == 0 => {
                    self.walk(&f.expr);
                    self.visit_pat(&f.pat);
                    self.visit_block(&f.body);
                }
                syn::Expr::MethodCall(m)
                    if self.nested == 0
                        && matches!(m.method.to_string().as_str(), "sum" | "product")
                        && m.args.is_empty() =>
                {
                    self.walk(&m.receiver);
                }
                syn::Expr::Path(_) if self.named(e) => self.other = true,
                syn::Expr::Assign(a) => {
                    if let syn::Expr::Index(i) = &*a.left {
                        if self.named(&i.expr) {
                            self.other = true;
                        }
                    }
                    syn::visit::visit_expr(self, e);
                }
                syn::Expr::Binary(b) if is_compound(&b.op) => {
                    if let syn::Expr::Index(i) = &*b.left {
                        if self.named(&i.expr) {
                            self.other = true;
                        }
                    }
                    syn::visit::visit_expr(self, e);
                }
                syn::Expr::Closure(_) | syn::Expr::Macro(_) => {
                    self.nested += 1;
                    syn::visit::visit_expr(self, e);
                    self.nested -= 1;
                }
                _ => syn::visit::visit_expr(self, e),
            }
        }
        fn visit_macro(&mut self, m: &'a syn::Macro) {
            // Tokens the macro cannot see into: as a use of the name.
            if m.tokens
                .to_string()
                .split(|c: char| !c.is_alphanumeric() && c != '_')
                .any(|w| w == self.name)
            {
                self.other = true;
            }
        }
        fn visit_pat_ident(&mut self, p: &'a syn::PatIdent) {
            if p.ident == self.name {
                self.other = true;
            }
        }
    }
    let mut r = Reads {
        name,
        nested: 0,
        reads: 0,
        other: false,
    };
    r.visit_block(block);
    r.reads > 0 && !r.other
}

/// `e` without parentheses and groups.
pub(crate) fn strip_paren(e: &syn::Expr) -> &syn::Expr {
    match e {
        syn::Expr::Paren(p) => strip_paren(&p.expr),
        syn::Expr::Group(g) => strip_paren(&g.expr),
        other => other,
    }
}

/// Whether a closure's body returns from the closure early (`return`, or
/// `?`), which the loop it becomes would make a return from the function.
pub(crate) fn returns_early(body: &syn::Expr) -> bool {
    struct Find(bool);
    impl<'ast> syn::visit::Visit<'ast> for Find {
        fn visit_expr(&mut self, e: &'ast syn::Expr) {
            match e {
                syn::Expr::Return(_) | syn::Expr::Try(_) => self.0 = true,
                syn::Expr::Closure(_) => {}
                _ => syn::visit::visit_expr(self, e),
            }
        }
    }
    let mut find = Find(false);
    syn::visit::Visit::visit_expr(&mut find, body);
    find.0
}

/// `+=` and the other compound assignments.
pub(crate) fn is_compound(op: &syn::BinOp) -> bool {
    use syn::BinOp::*;
    matches!(
        op,
        AddAssign(_)
            | SubAssign(_)
            | MulAssign(_)
            | DivAssign(_)
            | RemAssign(_)
            | BitXorAssign(_)
            | BitAndAssign(_)
            | BitOrAssign(_)
            | ShlAssign(_)
            | ShrAssign(_)
    )
}
