//! Expansion time of the macro's compiler (`backprop_codegen::expand`) on a
//! chain of 100, 1,000 and 10,000 operations: growth should be linear.

use backprop_bench::expansion::{chain_tokens, expand_chain};
use backprop_bench::report::{fmt_ns, median_ns};
use criterion::{BatchSize, BenchmarkId, Criterion};
use std::time::Duration;

const SIZES: [usize; 3] = [100, 1_000, 10_000];

fn main() {
    let mut c = Criterion::default()
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(4))
        .sample_size(10)
        .configure_from_args();
    let mut g = c.benchmark_group("expand");
    for n in SIZES {
        let item = chain_tokens(n);
        let out = expand_chain(item.clone()).to_string();
        assert!(
            out.contains("chain_backward"),
            "{n} ops: no chain_backward in the expansion"
        );
        assert!(
            !out.contains("compile_error"),
            "{n} ops: the expansion is an error"
        );
        g.bench_with_input(BenchmarkId::from_parameter(n), &item, |b, item| {
            b.iter_batched(|| item.clone(), expand_chain, BatchSize::LargeInput)
        });
    }
    g.finish();
    c.final_summary();
    println!("\n## Expansion time (medians of this run)\n");
    println!("| operations | median | per operation |");
    println!("|---:|---:|---:|");
    for n in SIZES {
        if let Some(m) = median_ns("expand", &n.to_string()) {
            println!("| {n} | {} | {} |", fmt_ns(m), fmt_ns(m / n as f64));
        }
    }
}
