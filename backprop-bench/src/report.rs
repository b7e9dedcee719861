//! Reading criterion's medians back and printing the results tables.

use crate::alloc::AllocStats;
use std::path::PathBuf;

/// Where criterion writes its results: `$CRITERION_HOME`, else
/// `$CARGO_TARGET_DIR/criterion`, else this crate's `target/criterion`.
pub fn criterion_home() -> PathBuf {
    if let Some(h) = std::env::var_os("CRITERION_HOME") {
        return h.into();
    }
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target"));
    target.join("criterion")
}

/// The median (in nanoseconds) of the last run of `group/bench`, read from
/// criterion's `estimates.json`.
pub fn median_ns(group: &str, bench: &str) -> Option<f64> {
    let path = criterion_home()
        .join(group)
        .join(bench)
        .join("new")
        .join("estimates.json");
    let text = std::fs::read_to_string(path).ok()?;
    let rest = &text[text.find("\"median\"")?..];
    let rest = &rest[rest.find("\"point_estimate\":")? + "\"point_estimate\":".len()..];
    let end = rest.find([',', '}'])?;
    rest[..end].trim().parse().ok()
}

/// A duration in a readable unit.
pub fn fmt_ns(ns: f64) -> String {
    if ns < 1e3 {
        format!("{ns:.1} ns")
    } else if ns < 1e6 {
        format!("{:.2} µs", ns / 1e3)
    } else if ns < 1e9 {
        format!("{:.2} ms", ns / 1e6)
    } else {
        format!("{:.3} s", ns / 1e9)
    }
}

/// One row of a workload's table.
pub struct Row {
    /// The implementation's bench id.
    pub bench: &'static str,
    /// What it is.
    pub label: &'static str,
    /// Allocations, when measured.
    pub alloc: Option<AllocStats>,
}

/// Prints a markdown table for one workload: median, ratio to `hand`, ratio
/// to `forward`, allocations and peak bytes per call.
pub fn print_table(group: &str, title: &str, rows: &[Row]) {
    let hand = median_ns(group, "hand");
    let fwd = median_ns(group, "forward");
    println!("\n### {title}\n");
    println!("| implementation | median | / hand fwd+bwd | / forward | allocs/call | peak bytes/call | page faults/call |");
    println!("|---|---:|---:|---:|---:|---:|---:|");
    for r in rows {
        let m = median_ns(group, r.bench);
        let ratio = |base: Option<f64>| match (m, base) {
            (Some(m), Some(b)) => format!("{:.2}", m / b),
            _ => "-".into(),
        };
        let (allocs, peak, faults) = match r.alloc {
            Some(a) => (
                a.allocs.to_string(),
                a.peak_bytes.to_string(),
                a.page_faults.to_string(),
            ),
            None => ("-".into(), "-".into(), "-".into()),
        };
        println!(
            "| {} | {} | {} | {} | {allocs} | {peak} | {faults} |",
            r.label,
            m.map(fmt_ns).unwrap_or_else(|| "-".into()),
            ratio(hand),
            ratio(fwd),
        );
    }
}
