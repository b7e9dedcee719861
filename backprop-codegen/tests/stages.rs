//! The compiler's stages import each other one way: a module of
//! `backprop-codegen/src` names (`use crate::x`, `crate::x::y`) only the
//! modules before it in [`ORDER`], so the data flows from the attribute to
//! the tokens and never back, and the module graph has no cycle.
//!
//! Every path in the code is read (with syn, so comments and strings do not
//! count); a module that is not in the order fails the test, so a new one
//! is placed on purpose.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use syn::visit::Visit;

/// The stages, each after everything it may use.
const ORDER: &[&str] = &[
    // Leaves: the op table, errors, names, the attribute.
    "vocab", "ctxt", "names", "args",
    // The function's signature as the macro understands it.
    "ast",     // The copy over duals as the lowering sees it (its float type).
    "generic", // The IR, and what is known of its values' types.
    "graph", "types", // The pipeline: lower, analyse, plan, emit.
    "lower", "check", "plan", "derive", "emit",
    // The second pipeline (the copy over duals) and the user's own rules.
    "dual", "adjoint", // Running the pipelines, and reading their output.
    "expand", "pretty", // The unit tests run whole pipelines.
    "tests",
];

/// The first segment after `crate::` of every path and `use` in a file.
#[derive(Default)]
struct CratePaths(BTreeSet<String>);

impl<'ast> Visit<'ast> for CratePaths {
    fn visit_path(&mut self, p: &'ast syn::Path) {
        let mut segments = p.segments.iter();
        if let (Some(first), Some(second)) = (segments.next(), segments.next()) {
            if first.ident == "crate" {
                self.0.insert(second.ident.to_string());
            }
        }
        syn::visit::visit_path(self, p);
    }

    fn visit_item_use(&mut self, u: &'ast syn::ItemUse) {
        if let syn::UseTree::Path(p) = &u.tree {
            if p.ident == "crate" {
                collect_use(&p.tree, &mut self.0);
            }
        }
    }

    // A macro's tokens are not parsed: read `crate :: x` in them.
    fn visit_macro(&mut self, m: &'ast syn::Macro) {
        let tokens: Vec<proc_macro2::TokenTree> = m.tokens.clone().into_iter().collect();
        collect_tokens(&tokens, &mut self.0);
    }
}

/// The modules a `use crate::..` tree names.
fn collect_use(tree: &syn::UseTree, out: &mut BTreeSet<String>) {
    match tree {
        syn::UseTree::Path(p) => {
            out.insert(p.ident.to_string());
        }
        syn::UseTree::Name(n) => {
            out.insert(n.ident.to_string());
        }
        syn::UseTree::Rename(r) => {
            out.insert(r.ident.to_string());
        }
        syn::UseTree::Group(g) => g.items.iter().for_each(|t| collect_use(t, out)),
        syn::UseTree::Glob(_) => {}
    }
}

/// `crate :: x` in a macro's tokens.
fn collect_tokens(tokens: &[proc_macro2::TokenTree], out: &mut BTreeSet<String>) {
    use proc_macro2::TokenTree;
    for (k, t) in tokens.iter().enumerate() {
        match t {
            TokenTree::Ident(i) if i == "crate" => {
                if let (
                    Some(TokenTree::Punct(a)),
                    Some(TokenTree::Punct(b)),
                    Some(TokenTree::Ident(m)),
                ) = (tokens.get(k + 1), tokens.get(k + 2), tokens.get(k + 3))
                {
                    if a.as_char() == ':' && b.as_char() == ':' {
                        out.insert(m.to_string());
                    }
                }
            }
            TokenTree::Group(g) => {
                let inner: Vec<TokenTree> = g.stream().into_iter().collect();
                collect_tokens(&inner, out);
            }
            _ => {}
        }
    }
}

/// Every `.rs` file below `dir`.
fn files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("a source directory") {
        let path = entry.expect("an entry").path();
        if path.is_dir() {
            files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// For each top-level module of `src`, the modules its files name.
fn imports() -> BTreeMap<String, BTreeSet<String>> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut all = Vec::new();
    files(&src, &mut all);
    let mut imports: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for path in all {
        let rel = path.strip_prefix(&src).expect("below src");
        let first = rel.components().next().expect("a component");
        let module = first
            .as_os_str()
            .to_string_lossy()
            .trim_end_matches(".rs")
            .to_owned();
        if module == "lib" {
            continue;
        }
        let text = std::fs::read_to_string(&path).expect("a source file");
        let file = syn::parse_file(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let mut paths = CratePaths::default();
        paths.visit_file(&file);
        let named = imports.entry(module.clone()).or_default();
        named.extend(paths.0.into_iter().filter(|m| *m != module));
    }
    imports
}

#[test]
fn every_stage_imports_only_the_stages_before_it() {
    let imports = imports();
    let position = |m: &str| ORDER.iter().position(|o| *o == m);
    let mut wrong = Vec::new();
    for (module, named) in &imports {
        let Some(at) = position(module) else {
            wrong.push(format!(
                "`{module}` is not in ORDER: place it after what it uses"
            ));
            continue;
        };
        for n in named {
            match position(n) {
                Some(p) if p < at => {}
                Some(_) => wrong.push(format!("`{module}` uses `{n}`, a later stage")),
                None => wrong.push(format!("`{module}` uses `{n}`, which is not in ORDER")),
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn the_order_names_every_module() {
    let imports = imports();
    for m in ORDER {
        assert!(imports.contains_key(*m), "`{m}` is in ORDER but not in src");
    }
}
