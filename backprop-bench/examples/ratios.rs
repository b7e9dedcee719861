//! generated / hand-written fwd+bwd for every workload, timed interleaved
//! (see `backprop_bench::interleave`), without criterion: about 5 seconds.
//!
//! ```text
//! cargo run --release --example ratios
//! ```

fn main() {
    if let Err(e) = backprop_bench::verify_all() {
        panic!("the implementations disagree, nothing is timed: {e}");
    }
    let ratios = backprop_bench::interleave::all_workloads();
    backprop_bench::interleave::print_interleaved(&ratios);
}
