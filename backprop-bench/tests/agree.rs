//! The implementations of every workload agree before anything is timed.

use backprop_bench::alloc::measure;
use backprop_bench::expansion::{chain_source, chain_tokens, expand_chain};
use backprop_bench::{bsub, mlp, rnn, scalar_net, two_heads};

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
