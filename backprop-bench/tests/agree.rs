//! The implementations of every workload agree before anything is timed.

use backprop_bench::alloc::measure;
use backprop_bench::expansion::{chain_source, chain_tokens, expand_chain};
use backprop_bench::{bsub, burn_ad, check, mlp, rnn, scalar_net, two_heads};

#[test]
fn scalar_network_agrees() {
    scalar_net::verify().unwrap();
}

#[test]
fn two_heads_agrees() {
    two_heads::verify().unwrap();
}

#[test]
fn mlp_agrees() {
    mlp::verify().unwrap();
}

#[test]
fn broadcast_sub_agrees() {
    bsub::verify().unwrap();
}

#[test]
fn rnn_agrees() {
    rnn::verify().unwrap();
}

#[test]
fn rnn_agrees_on_other_sizes() {
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
    let i = scalar_net::Inputs::lesson();
    assert_eq!(measure(|| scalar_net::hand(&i)).own_allocs, 0);
    assert_eq!(measure(|| scalar_net::generated(&i)).own_allocs, 0);
}

#[test]
fn the_allocator_counts() {
    let s = measure(|| vec![0u8; 1000]);
    // The harness's threads may allocate meanwhile; this thread made one call.
    assert_eq!(s.own_allocs, 1);
    assert!(s.allocs >= 1);
    assert!(s.peak_bytes >= 1000);
}

#[test]
fn chains_expand_without_errors() {
    assert_eq!(chain_source(3).matches("let").count(), 3);
    for n in [1, 10, 100] {
        let out = expand_chain(chain_tokens(n)).to_string();
        assert!(out.contains("chain_backward"), "{out}");
        assert!(!out.contains("compile_error"), "{out}");
    }
}

/// The generated RNN makes no more allocations per call than the
/// hand-written one (the target of the benchmarks issue): its states in one
/// buffer of rows, the weights' outer products in one buffer, the zero
/// gradients in buffers the forward pass no longer needs.
#[test]
fn rnn_allocates_no_more_than_by_hand() {
    let i = rnn::Inputs::bench();
    let hand = measure(|| rnn::hand(&i));
    let generated = measure(|| rnn::generated(&i));
    println!("allocations: generated {generated:?}, hand {hand:?}");
    assert!(
        generated.own_allocs <= hand.own_allocs,
        "generated {} allocations against {}",
        generated.own_allocs,
        hand.own_allocs
    );
}
