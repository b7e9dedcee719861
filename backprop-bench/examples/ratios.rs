//! generated / hand-written fwd+bwd for every workload, timed interleaved
//! (see `backprop_bench::interleave`), and the MLP's fwd+bwd / forward,
//! the HVP / gradient ratios (`ratios hvp`: those only),
//! and the data-parallel speed-up of the MLP at batch 8,192, without
//! criterion: about 10 seconds (`ratios parallel`: the speed-up only).
//!
//! ```text
//! cargo run --release --example ratios
//! ```

fn main() {
    // `ratios parallel-solo FORM`: one form of the data-parallel entry
    // alone in this process (`one`, `sharded`, `in-turn`), its median time
    // per call; no check first (`ratios parallel` checks).
    if std::env::args().nth(1).as_deref() == Some("parallel-solo") {
        let form = std::env::args().nth(2).unwrap_or_default();
        match backprop_bench::parallel::solo(&form) {
            Some(t) => println!("{form}: {:.3} ms per call", t.as_secs_f64() * 1e3),
            None => eprintln!("parallel-solo takes one, sharded or in-turn"),
        }
        return;
    }
    if let Err(e) = backprop_bench::verify_all() {
        panic!("the implementations disagree, nothing is timed: {e}");
    }
    // `ratios f`: only the closure chain.
    if std::env::args().nth(1).as_deref() == Some("f") {
        let chain = backprop_bench::interleave::closure_chain();
        backprop_bench::interleave::print_closure_chain(&chain);
        return;
    }
    // `ratios g`: only the state buffer.
    if std::env::args().nth(1).as_deref() == Some("g") {
        let g = backprop_bench::interleave::state_buffer();
        backprop_bench::interleave::print_state_buffer(&g);
        return;
    }
    // `ratios hvp`: only the HVP / gradient ratios.
    if std::env::args().nth(1).as_deref() == Some("hvp") {
        let hvp = backprop_bench::interleave::hvp_over_gradient();
        backprop_bench::interleave::print_hvp_over_gradient(&hvp);
        return;
    }
    // `ratios plain`: only plain Rust data, (h) and (i).
    if std::env::args().nth(1).as_deref() == Some("plain") {
        let plain = backprop_bench::interleave::plain_data();
        backprop_bench::interleave::print_plain_data(&plain);
        for (name, hand, generated) in backprop_bench::plain_data::allocations() {
            println!("{name} allocations per call: hand {hand}, generated {generated}");
        }
        return;
    }
    // `ratios nalgebra`: only (k).
    if std::env::args().nth(1).as_deref() == Some("nalgebra") {
        let k = backprop_bench::interleave::nalgebra_data();
        backprop_bench::interleave::print_nalgebra_data(&k);
        let (hand, generated) = backprop_bench::nalgebra_data::allocations();
        println!("(k) allocations per call: hand {hand}, generated {generated}");
        return;
    }
    // `ratios parallel`: only the data-parallel speed-up.
    if std::env::args().nth(1).as_deref() == Some("parallel") {
        let speedup = backprop_bench::parallel::speedup();
        backprop_bench::parallel::print_speedup(&speedup);
        return;
    }
    let ratios = backprop_bench::interleave::all_workloads();
    backprop_bench::interleave::print_interleaved(&ratios);
    let over_forward = backprop_bench::interleave::mlp_over_forward();
    backprop_bench::interleave::print_over_forward(&over_forward);
    let chain = backprop_bench::interleave::closure_chain();
    backprop_bench::interleave::print_closure_chain(&chain);
    let g = backprop_bench::interleave::state_buffer();
    backprop_bench::interleave::print_state_buffer(&g);
    let hvp = backprop_bench::interleave::hvp_over_gradient();
    backprop_bench::interleave::print_hvp_over_gradient(&hvp);
    let plain = backprop_bench::interleave::plain_data();
    backprop_bench::interleave::print_plain_data(&plain);
    let k = backprop_bench::interleave::nalgebra_data();
    backprop_bench::interleave::print_nalgebra_data(&k);
    let speedup = backprop_bench::parallel::speedup();
    backprop_bench::parallel::print_speedup(&speedup);
}
