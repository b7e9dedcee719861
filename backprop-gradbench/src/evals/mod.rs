//! One module per GradBench eval. Each has the same entry point:
//!
//! ```ignore
//! pub fn prepare(function: &str, input: &serde_json::Value)
//!     -> Result<Box<dyn FnMut() -> serde_json::Value>, String>;
//! ```
//!
//! `prepare` reads the input (untimed) and returns a closure that evaluates
//! the function once (timed by [`crate::protocol`], run as often as the
//! input's `min_runs` and `min_seconds` say) and returns its result as an
//! [`Output`], which becomes JSON in the layout of GradBench's reference
//! `manual` tool after the timing. An input it cannot read,
//! or a function the module does not have, is an `Err` with a message.

use serde_json::Value;

pub mod input;

pub mod det;
pub mod gd;
pub mod hello;
pub mod kmeans;
pub mod llsq;
pub mod lse;
pub mod ode;
pub mod particle;
pub mod saddle;
// The ADBench evals.
pub mod ba;
pub mod gmm;
pub mod ht;
pub mod lstm;

/// A prepared evaluation: one call, one run of the function.
pub type Prepared = Box<dyn FnMut() -> Output>;

/// One run's result, made JSON only when asked, after the timing: the C++
/// tools GradBench compares with time their computation and write its JSON
/// after, and a Jacobian of millions of numbers takes longer to make JSON
/// than to compute.
pub struct Output(Box<dyn FnOnce() -> Value>);

impl Output {
    /// A result whose JSON `to_json` makes.
    pub fn later(to_json: impl FnOnce() -> Value + 'static) -> Output {
        Output(Box::new(to_json))
    }

    /// The result as JSON.
    pub fn json(self) -> Value {
        (self.0)()
    }
}

/// The modules `define` accepts.
pub const MODULES: &[&str] = &[
    "ba", "det", "gmm", "hello", "ht", "kmeans", "llsq", "lse", "lstm", "ode", "particle", "saddle",
];

/// Whether `define` succeeds for `module`, and why not.
pub fn define(module: &str) -> Result<(), String> {
    match module {
        _ if MODULES.contains(&module) => Ok(()),
        _ => Err(format!("backprop has no module `{module}`")),
    }
}

/// Prepares `function` of `module` on `input`.
pub fn prepare(module: &str, function: &str, input: &Value) -> Result<Prepared, String> {
    match module {
        "det" => det::prepare(function, input),
        "hello" => hello::prepare(function, input),
        "kmeans" => kmeans::prepare(function, input),
        "llsq" => llsq::prepare(function, input),
        "lse" => lse::prepare(function, input),
        "ode" => ode::prepare(function, input),
        "particle" => particle::prepare(function, input),
        "saddle" => saddle::prepare(function, input),
        "ba" => ba::prepare(function, input),
        "gmm" => gmm::prepare(function, input),
        "ht" => ht::prepare(function, input),
        "lstm" => lstm::prepare(function, input),
        _ => Err(format!("backprop has no module `{module}`")),
    }
}

/// An empty vector with room for `capacity` elements, for an output of
/// hundreds of megabytes (`ba`'s Jacobian). On Linux its memory is advised
/// to be backed by transparent huge pages: each run makes its output anew,
/// and with 4 KiB pages the kernel's page faults on first write and its
/// unmapping after took half of a `ba14` Jacobian's time on our machines
/// (GradBench's C++ tools pay the same, unless glibc is told
/// `GLIBC_TUNABLES=glibc.malloc.hugetlb=1`).
pub(crate) fn output_vec<T>(capacity: usize) -> Vec<T> {
    let v = Vec::with_capacity(capacity);
    #[cfg(target_os = "linux")]
    advise_huge_pages(v.as_ptr() as usize, capacity * std::mem::size_of::<T>());
    v
}

/// Asks the kernel to back the whole 2 MiB pages in `len` bytes from
/// `start` with huge pages. Only advice: where transparent huge pages are
/// off, or the range too small, nothing changes.
#[cfg(target_os = "linux")]
fn advise_huge_pages(start: usize, len: usize) {
    const HUGE: usize = 2 << 20;
    let (begin, end) = (start.next_multiple_of(HUGE), (start + len) / HUGE * HUGE);
    if end > begin {
        // SAFETY: `[begin, end)` is page-aligned and lies inside one live
        // allocation of ours; `MADV_HUGEPAGE` changes how its pages are
        // backed, never their contents, and an error is only unheeded advice.
        unsafe {
            libc::madvise(begin as *mut libc::c_void, end - begin, libc::MADV_HUGEPAGE);
        }
    }
}

/// The error for a function a module does not have.
pub(crate) fn unknown_function(module: &str, function: &str) -> String {
    format!("the `{module}` module has no function `{function}`")
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    /// The `VmFlags` the kernel lists for the mapping holding `addr`.
    fn vm_flags(addr: usize) -> String {
        let smaps = std::fs::read_to_string("/proc/self/smaps").expect("Linux lists its mappings");
        let hex = |s| usize::from_str_radix(s, 16).ok();
        let mut inside = false;
        for line in smaps.lines() {
            // A mapping's first line starts with its range, `start-end`.
            let first = line.split_whitespace().next().unwrap_or_default();
            if let Some((start, end)) = first.split_once('-') {
                if let (Some(start), Some(end)) = (hex(start), hex(end)) {
                    inside = (start..end).contains(&addr);
                }
            } else if inside && first == "VmFlags:" {
                return line.to_string();
            }
        }
        panic!("no mapping holds {addr:#x}")
    }

    #[test]
    fn a_large_output_is_advised_huge_pages() {
        const BYTES: usize = 16 << 20;
        let advised: Vec<f64> = super::output_vec(BYTES / 8);
        let plain: Vec<f64> = Vec::with_capacity(BYTES / 8);
        let middle = |v: &Vec<f64>| v.as_ptr() as usize + BYTES / 2;
        assert!(vm_flags(middle(&advised))
            .split_whitespace()
            .any(|f| f == "hg"));
        assert!(!vm_flags(middle(&plain))
            .split_whitespace()
            .any(|f| f == "hg"));
    }
}
