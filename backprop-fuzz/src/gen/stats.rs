//! How often the generator wrote each construct (`--stats`), and a census
//! of the spellings in generated text, which also reads the Python
//! generator's output: the two generators are compared on both.

use std::collections::BTreeMap;
use std::fmt;

/// Counts by name.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Stats(BTreeMap<String, usize>);

impl Stats {
    /// Adds `n` to the count of `key`.
    pub fn add(&mut self, key: &str, n: usize) {
        *self.0.entry(key.to_owned()).or_default() += n;
    }

    /// Adds every count of `other`.
    pub fn merge(&mut self, other: &Stats) {
        for (k, v) in &other.0 {
            self.add(k, *v);
        }
    }

    /// The count of `key` (0 if never counted).
    pub fn get(&self, key: &str) -> usize {
        self.0.get(key).copied().unwrap_or(0)
    }

    /// The counts, by name.
    pub fn iter(&self) -> impl Iterator<Item = (&str, usize)> {
        self.0.iter().map(|(k, v)| (k.as_str(), *v))
    }
}

impl fmt::Display for Stats {
    /// One line a count, as the Python generator's `--stats` printed them.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (k, v) in self.iter() {
            writeln!(f, "{k:<28} {v}")?;
        }
        Ok(())
    }
}

/// The words the census counts in the bodies of generated functions,
/// besides the elementwise functions of the table: ops, ndarray's methods,
/// constants, control flow.
const WORDS: &[&str] = &[
    "sum",
    "mean",
    "sum_axis",
    "mean_axis",
    "logsumexp",
    "softmax",
    "log_softmax",
    "softmax_cross_entropy",
    "mse",
    "concat",
    "concatenate",
    "stack",
    "dot",
    "t",
    "var",
    "std",
    "var_axis",
    "std_axis",
    "product",
    "select",
    "slice",
    "slice_axis",
    "index_axis",
    "to_shape",
    "into_shape_with_order",
    "permuted_axes",
    "reversed_axes",
    "broadcast",
    "remove_axis",
    "row",
    "column",
    "row_mut",
    "column_mut",
    "assign",
    "powi",
    "powf",
    "max",
    "min",
    "hypot",
    "log",
    "atan2",
    "mul_add",
    "clamp",
    "mapv",
    "map",
    "mapv_into",
    "Zip",
    "map_collect",
    "iter",
    "zip",
    "enumerate",
    "rows",
    "columns",
    "labels",
    "ws",
    "k0",
    "zeros",
    "ones",
    "from_elem",
    "eye",
    "linspace",
    "from_shape_vec",
    "array",
    "dim",
    "nrows",
    "ncols",
    "len",
    "unwrap",
    "expect",
    "to_owned",
    "clone",
    "view",
    "for",
    "while",
    "loop",
    "match",
    "if",
    "else",
    "return",
    "break",
    "continue",
    "mut",
    "rev",
    "step_by",
];

/// Spellings of more than one word: a label and the texts (`|` between
/// alternatives).
const SPELLINGS: &[(&str, &str)] = &[
    ("spelling `backprop::ops::f`", "backprop::ops::"),
    ("spelling `f64::f`/`f32::f`", "f64::|f32::"),
    ("compound assignment", " += | -= | *= | /= "),
    ("labelled loop", ": for _ in"),
    (
        "`break` with a value",
        "break t|break d|break o|break x|break u|break g",
    ),
];

/// A census of generated text: programs, their kinds (attributes,
/// outputs, float types, constant parameters), and in the bodies the
/// spellings of `SPELLINGS`, the words of `WORDS` and of `functions`
/// (the elementwise functions of the table). It reads the Python
/// generator's files too.
pub fn census(text: &str, functions: &[&str]) -> Stats {
    let mut stats = Stats::default();
    let mut in_body = false;
    for line in text.lines() {
        let t = line.trim_start();
        if t.starts_with("#[differentiable") {
            in_body = true;
            stats.add("programs", 1);
            for (label, attr) in [
                ("attr jvp", "jvp"),
                ("attr hvp", "hvp"),
                ("attr wrt(..)", "wrt("),
            ] {
                stats.add(label, usize::from(t.contains(attr)));
            }
            continue;
        }
        if t.starts_with("#[test]") {
            in_body = false;
            continue;
        }
        if !in_body {
            continue;
        }
        if t.starts_with("fn f") {
            let ret = t.rsplit("->").next().unwrap_or_default();
            stats.add("signature f32", usize::from(t.contains("f32")));
            stats.add(
                "output tuple",
                usize::from(ret.trim_start().starts_with('(')),
            );
            stats.add("output array", usize::from(ret.contains("Array")));
            stats.add("param labels", usize::from(t.contains("labels: &[usize]")));
            stats.add("param ws", usize::from(t.contains("ws: &[")));
            stats.add("param k0", usize::from(t.contains("k0: usize")));
            stats.add("param view", usize::from(t.contains("ArrayView")));
        }
        for (label, pats) in SPELLINGS {
            let n: usize = pats.split('|').map(|p| line.matches(p).count()).sum();
            stats.add(label, n);
        }
        for w in super::value::words(line) {
            if functions.contains(&w) {
                stats.add(&format!("fn {w}"), 1);
            } else if WORDS.contains(&w) {
                stats.add(&format!("word {w}"), 1);
            }
        }
    }
    stats
}
