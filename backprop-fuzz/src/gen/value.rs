//! What the generator knows of a value it may use as an operand: its code,
//! its shape, a bound on its magnitude and how it may be spelled.

/// A shape: no axes for a scalar.
pub type Shape = Vec<usize>;

/// The magnitude bound above which an op that grows values is not applied
/// (central differences stay accurate below it).
pub const LIMIT: f64 = 12.0;

/// The bound above which `exp` (and `sinh`, `cosh`, `exp2`, `exp_m1`)
/// first squashes its operand.
pub const EXP_LIMIT: f64 = 3.0;

/// How a value may be spelled as an operand.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Form {
    /// A name that already is a reference (a `&Array2<f64>` parameter).
    Ref,
    /// An owned (or view) name: borrowed as `&t`.
    Name,
    /// A compound expression (an owned value, or a scalar).
    Expr,
    /// An expression that is an `ArrayView` borrowing a name (`t.t()`).
    View,
    /// A view of a temporary (`(a + b).t()`): consumed in its statement.
    TView,
}

/// A value: its Rust code, shape, magnitude bound and spelling.
#[derive(Clone, Debug)]
pub struct V {
    pub code: String,
    pub shape: Shape,
    pub bound: f64,
    pub form: Form,
    /// A name bound to an `ArrayView` (not an owned array).
    pub is_view: bool,
    /// A name bound to a borrow of a local or of an owned parameter
    /// (`let r = &t;`).
    pub borrowed: bool,
}

impl V {
    /// A compound expression.
    pub fn new(code: impl Into<String>, shape: Shape, bound: f64) -> V {
        V {
            code: code.into(),
            shape,
            bound,
            form: Form::Expr,
            is_view: false,
            borrowed: false,
        }
    }

    /// A scalar expression.
    pub fn scalar_expr(code: impl Into<String>, bound: f64) -> V {
        V::new(code, Vec::new(), bound)
    }

    /// The same, spelled as `form`.
    pub fn form(mut self, form: Form) -> V {
        self.form = form;
        self
    }

    /// The same, a view.
    pub fn view(mut self) -> V {
        self.is_view = true;
        self
    }

    pub fn scalar(&self) -> bool {
        self.shape.is_empty()
    }

    /// Whether its form is a name (`Ref` or `Name`).
    pub fn named(&self) -> bool {
        matches!(self.form, Form::Ref | Form::Name)
    }

    /// The code, safe as an operand of a binary operator or a receiver.
    pub fn atom(&self) -> String {
        let plain = !self.code.is_empty()
            && self
                .code
                .chars()
                .all(|c| c == '_' || c.is_ascii_alphanumeric());
        if self.named() || plain {
            self.code.clone()
        } else {
            format!("({})", self.code)
        }
    }

    /// An array as a reference (a function argument or an operand).
    pub fn as_ref(&self) -> String {
        debug_assert!(!self.scalar(), "as_ref of a scalar: {}", self.code);
        match self.form {
            Form::Ref => self.code.clone(),
            Form::Name => format!("&{}", self.code),
            _ => format!("&{}", self.atom()),
        }
    }

    /// As an argument of a `backprop::ops` function.
    pub fn arg(&self) -> String {
        if self.scalar() {
            self.code.clone()
        } else {
            self.as_ref()
        }
    }

    /// As the receiver of a method call.
    pub fn recv(&self) -> String {
        self.atom()
    }
}

/// numpy's broadcasting of two shapes; `None` if they do not broadcast.
pub fn broadcast(a: &[usize], b: &[usize]) -> Option<Shape> {
    let n = a.len().max(b.len());
    let mut out = vec![0; n];
    for k in 0..n {
        let da = if k < a.len() { a[a.len() - 1 - k] } else { 1 };
        let db = if k < b.len() { b[b.len() - 1 - k] } else { 1 };
        out[n - 1 - k] = if da == db || db == 1 {
            da
        } else if da == 1 {
            db
        } else {
            return None;
        };
    }
    Some(out)
}

/// The number of elements.
pub fn size(shape: &[usize]) -> usize {
    shape.iter().product()
}

/// Whether `code` is a float literal (`0.5`, `-1.5`).
pub fn is_literal(code: &str) -> bool {
    code.parse::<f64>().is_ok()
}

/// The literal's value (0 if it is none).
pub fn literal(code: &str) -> f64 {
    code.parse().unwrap_or(0.0)
}

/// The Rust type of a value of this shape (`f64`, `Array1<f64>`, ...).
pub fn array_type(shape: &[usize], ty: &str) -> String {
    match shape.len() {
        0 => ty.to_owned(),
        n => format!("Array{n}<{ty}>"),
    }
}

/// The identifier-like words of `code`, in order (what a regex `\b\w+\b`
/// finds).
pub fn words(code: &str) -> impl Iterator<Item = &str> {
    code.split(|c: char| !(c == '_' || c.is_ascii_alphanumeric()))
        .filter(|w| !w.is_empty())
}

/// Whether `code` names `name` as a whole word.
pub fn mentions(code: &str, name: &str) -> bool {
    words(code).any(|w| w == name)
}

/// Whether `word` is a plain identifier (`t3`, `c1`, not `*u` or `p0[1]`).
pub fn is_ident(word: &str) -> bool {
    let mut chars = word.chars();
    chars
        .next()
        .is_some_and(|c| c == '_' || c.is_ascii_alphabetic())
        && chars.all(|c| c == '_' || c.is_ascii_alphanumeric())
}

/// Whether `word` is a letter followed by digits (`t12` for `'t'`).
pub fn numbered(word: &str, letter: char) -> bool {
    word.strip_prefix(letter)
        .is_some_and(|d| !d.is_empty() && d.chars().all(|c| c.is_ascii_digit()))
}

/// `text` with every whole word that `rename` maps replaced.
pub fn replace_words(text: &str, rename: impl Fn(&str) -> Option<String>) -> String {
    let mut out = String::with_capacity(text.len());
    let mut word = String::new();
    let flush = |word: &mut String, out: &mut String| {
        match rename(word) {
            Some(new) => out.push_str(&new),
            None => out.push_str(word),
        }
        word.clear();
    };
    for c in text.chars() {
        if c == '_' || c.is_ascii_alphanumeric() {
            word.push(c);
        } else {
            if !word.is_empty() {
                flush(&mut word, &mut out);
            }
            out.push(c);
        }
    }
    if !word.is_empty() {
        flush(&mut word, &mut out);
    }
    out
}

/// Each line of `lines` indented by `indent`, joined by newlines.
pub fn indent(lines: &[String], indent: &str) -> String {
    lines
        .iter()
        .map(|l| format!("{indent}{l}"))
        .collect::<Vec<_>>()
        .join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn broadcasting() {
        assert_eq!(broadcast(&[3, 2], &[2]), Some(vec![3, 2]));
        assert_eq!(broadcast(&[3, 1], &[1, 2]), Some(vec![3, 2]));
        assert_eq!(broadcast(&[], &[2, 3]), Some(vec![2, 3]));
        assert_eq!(broadcast(&[3, 2], &[3]), None);
    }

    #[test]
    fn words_and_renaming() {
        assert!(mentions("&t1 + t12", "t12"));
        assert!(!mentions("t12.sum()", "t1"));
        let text = "let t1 = p0.dot(&t1); v_p0 + 0.5_f64";
        let out = replace_words(text, |w| (w == "t1" || w == "p0").then(|| "x".to_owned()));
        assert_eq!(out, "let x = x.dot(&x); v_p0 + 0.5_f64");
        assert!(numbered("t12", 't') && !numbered("t", 't') && !numbered("t1a", 't'));
        assert_eq!(V::scalar_expr("0.5", 1.0).atom(), "(0.5)");
        assert_eq!(V::scalar_expr("t_1", 1.0).atom(), "t_1");
    }
}
