//! The five workloads, each in five implementations: hand-written forward,
//! hand-written forward + backward, `#[differentiable]`'s `_backward`,
//! candle-core's autograd and burn's autodiff (ndarray backend). Agreement is checked and allocations are counted
//! before criterion times anything; the tables are printed at the end.

use backprop_bench::alloc::{measure, AllocStats};
use backprop_bench::interleave::{
    all_workloads, mlp_over_forward, print_interleaved, print_over_forward,
};
use backprop_bench::report::{print_table, Row};
use backprop_bench::{bsub, mlp, rnn, scalar_net, two_heads};
use criterion::Criterion;
use std::hint::black_box;
use std::time::Duration;

/// Allocation counts of the five implementations, in table order.
type Allocs = [AllocStats; 5];

fn scalar(c: &mut Criterion) -> Allocs {
    let i = scalar_net::Inputs::lesson();
    let ci = scalar_net::CandleInputs::new(&i);
    let bi = scalar_net::BurnInputs::new(&i);
    let allocs = [
        measure(|| scalar_net::forward(black_box(&i))),
        measure(|| scalar_net::hand(black_box(&i))),
        measure(|| scalar_net::generated(black_box(&i))),
        measure(|| scalar_net::candle(black_box(&ci)).unwrap()),
        measure(|| scalar_net::burn(black_box(&bi))),
    ];
    let mut g = c.benchmark_group("scalar_net");
    g.bench_function("forward", |b| b.iter(|| scalar_net::forward(black_box(&i))));
    g.bench_function("hand", |b| b.iter(|| scalar_net::hand(black_box(&i))));
    g.bench_function("generated", |b| {
        b.iter(|| scalar_net::generated(black_box(&i)))
    });
    g.bench_function("candle", |b| {
        b.iter(|| scalar_net::candle(black_box(&ci)).unwrap())
    });
    g.bench_function("burn", |b| b.iter(|| scalar_net::burn(black_box(&bi))));
    g.finish();
    allocs
}

fn heads(c: &mut Criterion) -> Allocs {
    let i = two_heads::Inputs::lesson();
    let ci = two_heads::CandleInputs::new(&i);
    let bi = two_heads::BurnInputs::new(&i);
    let allocs = [
        measure(|| two_heads::forward(black_box(&i))),
        measure(|| two_heads::hand(black_box(&i))),
        measure(|| two_heads::generated(black_box(&i))),
        measure(|| two_heads::candle(black_box(&ci)).unwrap()),
        measure(|| two_heads::burn(black_box(&bi))),
    ];
    let mut g = c.benchmark_group("two_heads");
    g.bench_function("forward", |b| b.iter(|| two_heads::forward(black_box(&i))));
    g.bench_function("hand", |b| b.iter(|| two_heads::hand(black_box(&i))));
    g.bench_function("generated", |b| {
        b.iter(|| two_heads::generated(black_box(&i)))
    });
    g.bench_function("candle", |b| {
        b.iter(|| two_heads::candle(black_box(&ci)).unwrap())
    });
    g.bench_function("burn", |b| b.iter(|| two_heads::burn(black_box(&bi))));
    g.finish();
    allocs
}

fn mlp_bench(c: &mut Criterion) -> Allocs {
    let i = mlp::Inputs::new(mlp::BATCH);
    let ci = mlp::CandleInputs::new(&i);
    let bi = mlp::BurnInputs::new(&i);
    let allocs = [
        measure(|| mlp::forward(black_box(&i))),
        measure(|| mlp::hand(black_box(&i))),
        measure(|| mlp::generated(black_box(&i))),
        measure(|| mlp::candle(black_box(&ci)).unwrap()),
        measure(|| mlp::burn(black_box(&bi))),
    ];
    let mut g = c.benchmark_group("mlp");
    g.bench_function("forward", |b| b.iter(|| mlp::forward(black_box(&i))));
    g.bench_function("hand", |b| b.iter(|| mlp::hand(black_box(&i))));
    g.bench_function("generated", |b| b.iter(|| mlp::generated(black_box(&i))));
    g.bench_function("candle", |b| {
        b.iter(|| mlp::candle(black_box(&ci)).unwrap())
    });
    g.bench_function("burn", |b| b.iter(|| mlp::burn(black_box(&bi))));
    g.finish();
    allocs
}

fn bsub_bench(c: &mut Criterion) -> Allocs {
    let i = bsub::Inputs::new(bsub::N);
    let ci = bsub::CandleInputs::new(&i);
    let bi = bsub::BurnInputs::new(&i);
    let allocs = [
        measure(|| bsub::forward(black_box(&i))),
        measure(|| bsub::hand(black_box(&i))),
        measure(|| bsub::generated(black_box(&i))),
        measure(|| bsub::candle(black_box(&ci)).unwrap()),
        measure(|| bsub::burn(black_box(&bi))),
    ];
    let mut g = c.benchmark_group("bsub");
    g.bench_function("forward", |b| b.iter(|| bsub::forward(black_box(&i))));
    g.bench_function("hand", |b| b.iter(|| bsub::hand(black_box(&i))));
    g.bench_function("generated", |b| b.iter(|| bsub::generated(black_box(&i))));
    g.bench_function("candle", |b| {
        b.iter(|| bsub::candle(black_box(&ci)).unwrap())
    });
    g.bench_function("burn", |b| b.iter(|| bsub::burn(black_box(&bi))));
    g.finish();
    allocs
}

fn rnn_bench(c: &mut Criterion) -> Allocs {
    let i = rnn::Inputs::bench();
    let ci = rnn::CandleInputs::new(&i);
    let bi = rnn::BurnInputs::new(&i);
    let allocs = [
        measure(|| rnn::forward(black_box(&i))),
        measure(|| rnn::hand(black_box(&i))),
        measure(|| rnn::generated(black_box(&i))),
        measure(|| rnn::candle(black_box(&ci)).unwrap()),
        measure(|| rnn::burn(black_box(&bi))),
    ];
    let mut g = c.benchmark_group("rnn");
    g.bench_function("forward", |b| b.iter(|| rnn::forward(black_box(&i))));
    g.bench_function("hand", |b| b.iter(|| rnn::hand(black_box(&i))));
    g.bench_function("generated", |b| b.iter(|| rnn::generated(black_box(&i))));
    g.bench_function("candle", |b| {
        b.iter(|| rnn::candle(black_box(&ci)).unwrap())
    });
    g.bench_function("burn", |b| b.iter(|| rnn::burn(black_box(&bi))));
    g.finish();
    allocs
}

fn rows(a: Allocs) -> [Row; 5] {
    [
        Row {
            bench: "forward",
            label: "1. forward only, by hand",
            alloc: Some(a[0]),
        },
        Row {
            bench: "hand",
            label: "2. fwd+bwd by hand",
            alloc: Some(a[1]),
        },
        Row {
            bench: "generated",
            label: "3. `#[differentiable]` `_backward`",
            alloc: Some(a[2]),
        },
        Row {
            bench: "candle",
            label: "4. candle-core autograd",
            alloc: Some(a[3]),
        },
        Row {
            bench: "burn",
            label: "5. burn autodiff (ndarray backend)",
            alloc: Some(a[4]),
        },
    ]
}

fn main() {
    if let Err(e) = backprop_bench::verify_all() {
        panic!("the implementations disagree, nothing is timed: {e}");
    }
    println!("all implementations agree (1e-9 relative) on every workload");
    let mut c = Criterion::default()
        .warm_up_time(Duration::from_millis(700))
        .measurement_time(Duration::from_secs(3))
        .sample_size(60)
        .configure_from_args();
    let a = scalar(&mut c);
    let b = heads(&mut c);
    let m = mlp_bench(&mut c);
    let d = bsub_bench(&mut c);
    let e = rnn_bench(&mut c);
    c.final_summary();
    let interleaved = all_workloads();
    let over_forward = mlp_over_forward();
    println!("\n## Results (medians of this run)");
    print_table(
        "scalar_net",
        "(a) scalar sigmoid network, 9 parameters",
        &rows(a),
    );
    print_table("two_heads", "(b) 2-2-2 two-head network, batch 1", &rows(b));
    print_table(
        "mlp",
        "(c) MLP 2 -> 64 -> 2, ReLU, softmax cross-entropy, batch 1024",
        &rows(m),
    );
    print_table(
        "bsub",
        "(d) broadcast C = A - B, A (512, 512), B (512, 1), L = sum(C * C)",
        &rows(d),
    );
    print_table(
        "rnn",
        "(e) Elman RNN, hidden 16, input 8, T = 20, loss summed over the steps",
        &rows(e),
    );
    print_interleaved(&interleaved);
    print_over_forward(&over_forward);
}
