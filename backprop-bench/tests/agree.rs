//! The implementations of every workload agree before anything is timed.

use backprop_bench::alloc::measure;
use backprop_bench::expansion::{chain_source, chain_tokens, expand_chain};
use backprop_bench::{bsub, burn_ad, check, mlp, rnn, scalar_net, two_heads};
use std::sync::{Mutex, MutexGuard};

/// The allocation counters are global: the tests of this file run one at a
/// time, so that no other test allocates during a measurement.
static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

fn alone() -> MutexGuard<'static, ()> {
    ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner())
}

/// The fewest allocations of `f` over several measurements. The lock keeps
/// the other tests' bodies out, but not the rest of the process: with more
/// than one test thread, the harness (starting test threads, collecting
/// results) and finishing test threads allocate now and then during a
/// measurement. Counting once, `scalar_code_does_not_allocate` or
/// `the_allocator_counts` failed 4 runs in 20 before burn was added and most
/// runs after, never with `--test-threads=1`. An allocation of `f` itself
/// shows in every measurement, so the minimum is its count.
fn fewest_allocs<R>(mut f: impl FnMut() -> R) -> backprop_bench::alloc::AllocStats {
    (0..10)
        .map(|_| measure(&mut f))
        .min_by_key(|s| s.allocs)
        .expect("ten measurements")
}

#[test]
fn scalar_network_agrees() {
    let _alone = alone();
    scalar_net::verify().unwrap();
}

#[test]
fn two_heads_agrees() {
    let _alone = alone();
    two_heads::verify().unwrap();
}

#[test]
fn mlp_agrees() {
    let _alone = alone();
    mlp::verify().unwrap();
}

#[test]
fn broadcast_sub_agrees() {
    let _alone = alone();
    bsub::verify().unwrap();
}

#[test]
fn rnn_agrees() {
    let _alone = alone();
    rnn::verify().unwrap();
}

#[test]
fn rnn_agrees_on_other_sizes() {
    let _alone = alone();
    // One step, and a longer sequence than the benchmark's.
    for (hidden, input, steps) in [(4, 3, 1), (4, 3, 5), (16, 8, 50)] {
        let i = rnn::Inputs::new(hidden, input, steps);
        let (v, g) = rnn::hand(&i);
        let (gv, gg) = rnn::generated(&i);
        let reference = (
            v,
            vec![
                ("w", backprop_bench::check::flat(&g.w)),
                ("u", backprop_bench::check::flat(&g.u)),
                ("b", backprop_bench::check::flat(&g.b)),
                ("v", backprop_bench::check::flat(&g.v)),
            ],
        );
        backprop_bench::check::same(
            "rnn",
            "generated",
            &reference,
            &(gv, backprop::Gradient::fields(&gg)),
        )
        .unwrap();
        backprop_bench::check::same_value("rnn", "forward", v, rnn::forward(&i)).unwrap();
    }
}

/// Why burn's scalar network builds σ as `(1 + exp(−x)).recip()` (as candle
/// does) and not with burn's own `activation::sigmoid`: on the ndarray
/// backend that op is the backend trait's default, which casts an `f64`
/// tensor to `f32`, computes there and casts back. Its result is an `f32`
/// number in an `f64` tensor, about 1e-8 relative off, so it would not pass
/// the 1e-9 agreement.
#[test]
fn burn_sigmoid_is_computed_in_f32() {
    let _alone = alone();
    for x in [0.3, -1.7, 2.5] {
        let own = burn_ad::value(burn::tensor::activation::sigmoid(burn_ad::scalar(x)));
        let composed = burn_ad::value(burn_ad::scalar(x).neg().exp().add_scalar(1.0).recip());
        let exact = 1.0 / (1.0 + (-x).exp());
        assert!(check::close(composed, exact), "{composed} vs {exact}");
        assert_eq!(
            own, own as f32 as f64,
            "burn's sigmoid({x}) = {own} is an f32 value"
        );
        assert!(
            !check::close(own, exact),
            "burn's sigmoid({x}) = {own} agrees to 1e-9"
        );
        assert!((own - exact).abs() <= 1e-7 * exact, "{own} vs {exact}");
    }
}

/// criterion calls `burn(..)` many times on one `BurnInputs`: each call
/// builds a fresh graph over the same leaves, and `backward()` consumes only
/// that graph, so every call gives the same value and gradients.
#[test]
fn burn_runs_again_on_the_same_leaves() {
    let _alone = alone();
    fn again(w: &str, run: impl Fn() -> (f64, backprop_bench::Grads)) {
        let first = run();
        for _ in 0..3 {
            check::same(w, "burn again", &first, &run()).unwrap();
        }
    }
    let b = scalar_net::BurnInputs::new(&scalar_net::Inputs::other());
    again("scalar network", || b.result());
    let b = two_heads::BurnInputs::new(&two_heads::Inputs::lesson());
    again("two heads", || b.result());
    let b = mlp::BurnInputs::new(&mlp::Inputs::new(mlp::BATCH));
    again("mlp", || b.result());
    let b = bsub::BurnInputs::new(&bsub::Inputs::new(bsub::N));
    again("broadcast sub", || b.result());
    let b = rnn::BurnInputs::new(&rnn::Inputs::bench());
    again("rnn", || b.result());
}

#[test]
fn scalar_code_does_not_allocate() {
    let _alone = alone();
    let i = scalar_net::Inputs::lesson();
    assert_eq!(fewest_allocs(|| scalar_net::hand(&i)).allocs, 0);
    assert_eq!(fewest_allocs(|| scalar_net::generated(&i)).allocs, 0);
}

#[test]
fn the_allocator_counts() {
    let _alone = alone();
    let s = fewest_allocs(|| vec![0u8; 1000]);
    assert_eq!(s.allocs, 1);
    assert!(s.peak_bytes >= 1000);
}

#[test]
fn chains_expand_without_errors() {
    let _alone = alone();
    assert_eq!(chain_source(3).matches("let").count(), 3);
    for n in [1, 10, 100] {
        let out = expand_chain(chain_tokens(n)).to_string();
        assert!(out.contains("chain_backward"), "{out}");
        assert!(!out.contains("compile_error"), "{out}");
    }
}
