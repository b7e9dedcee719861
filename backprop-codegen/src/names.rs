//! Names the generated code uses: the identifiers of the user's code, which
//! it never takes, and the names it hands out (a leaf of the compiler: every
//! stage may name things).

use proc_macro2::{Ident, Span, TokenStream, TokenTree};
use quote::format_ident;
use std::collections::{HashMap, HashSet};

/// Hands out names that collide with nothing the user wrote nor with each other.
pub struct Namer {
    /// Every identifier in the user's function.
    used: HashSet<String>,
    taken: HashSet<String>,
    /// The next number to try for each base (so numbering stays linear).
    next: HashMap<String, usize>,
}

impl Namer {
    pub fn new(used: HashSet<String>) -> Namer {
        Namer {
            used: used.iter().map(|u| unraw(u)).collect(),
            taken: HashSet::new(),
            next: HashMap::new(),
        }
    }

    /// A namer that avoids the same user identifiers and nothing else.
    pub fn fresh_for_user(&self) -> Namer {
        Namer {
            used: self.used.clone(),
            taken: HashSet::new(),
            next: HashMap::new(),
        }
    }

    fn free(&self, name: &str) -> bool {
        !self.taken.contains(name) && !self.used.contains(name)
    }

    /// Takes `name` (without `r#`: `r#loop` and `loop` are one identifier)
    /// and writes it as an identifier, raw where it is a keyword (a user's
    /// `r#type`).
    fn take(&mut self, name: String) -> Ident {
        let ident = if syn::parse_str::<syn::Ident>(&name).is_ok() {
            Ident::new(&name, Span::call_site())
        } else {
            Ident::new_raw(&name, Span::call_site())
        };
        self.taken.insert(name);
        ident
    }

    /// Marks a name the user's function binds itself (a parameter) as taken.
    pub fn reserve(&mut self, name: &Ident) {
        self.taken.insert(unraw(&name.to_string()));
    }

    /// The user's own name where possible (the first binding of it), else
    /// `name_1`, `name_2`, ...
    pub fn user(&mut self, name: &str) -> Ident {
        let name = unraw(name);
        if !self.taken.contains(&name) {
            return self.take(name);
        }
        self.numbered(&name)
    }

    /// `want` if it is free, else `want_1`, `want_2`, ...
    pub fn fresh(&mut self, want: &str) -> Ident {
        let want = unraw(want);
        if self.free(&want) {
            return self.take(want);
        }
        self.numbered(&want)
    }

    /// `base_1`, `base_2`, ...: the first free one.
    pub fn numbered(&mut self, base: &str) -> Ident {
        let base = unraw(base);
        let mut k = self.next.get(&base).copied().unwrap_or(1);
        loop {
            let name = format!("{base}_{k}");
            k += 1;
            if self.free(&name) {
                self.next.insert(base, k);
                return self.take(name);
            }
        }
    }
}

/// A name without the `r#` of raw identifiers: `d_r#fn_2` is `d_fn_2`.
fn unraw(name: &str) -> String {
    name.replace("r#", "")
}

/// Every identifier in a token stream.
pub fn idents(tokens: TokenStream, out: &mut HashSet<String>) {
    for tt in tokens {
        match tt {
            TokenTree::Ident(i) => {
                out.insert(i.to_string());
            }
            TokenTree::Group(g) => idents(g.stream(), out),
            _ => {}
        }
    }
}

/// `two_heads` -> `TwoHeadsGrad`.
pub fn grad_struct_name(f: &Ident) -> Ident {
    let s = f.to_string();
    let s = s.strip_prefix("r#").unwrap_or(&s);
    let mut camel = String::new();
    for part in s.split('_').filter(|p| !p.is_empty()) {
        let mut chars = part.chars();
        if let Some(c) = chars.next() {
            camel.extend(c.to_uppercase());
            camel.push_str(chars.as_str());
        }
    }
    format_ident!("{}Grad", camel, span = f.span())
}
