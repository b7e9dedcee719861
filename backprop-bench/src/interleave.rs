//! Ratios timed interleaved: batches of the two functions back to back, many
//! rounds, the median of the per-round ratios.
//!
//! criterion times one function after the other, seconds apart, so on a shared
//! machine a slow phase can land on one of them and move a ratio by 30 %.
//! Here each round times a batch of `a` and a batch of `b` within a few
//! milliseconds of each other (in alternating order), so a slow phase slows
//! both; the spread of the per-round ratios shows how steady the machine was.

use crate::{bsub, closure_chain, hvp, mlp, plain_data, rnn, scalar_net, state_buffer, two_heads};
use std::hint::black_box;
use std::time::{Duration, Instant};

/// The median and the quartiles of the per-round ratios `time(b) / time(a)`.
#[derive(Clone, Copy, Debug)]
pub struct Ratio {
    pub median: f64,
    pub q1: f64,
    pub q3: f64,
    /// The smallest and the largest per-round ratio.
    pub min: f64,
    pub max: f64,
    /// Rounds, and calls of each function per round.
    pub rounds: usize,
    pub reps: usize,
}

fn time<R>(f: &dyn Fn() -> R, reps: usize) -> Duration {
    let start = Instant::now();
    for _ in 0..reps {
        black_box(f());
    }
    start.elapsed()
}

/// `time(b) / time(a)` over `rounds` rounds of about `batch` each.
pub fn ratio<R, S>(a: &dyn Fn() -> R, b: &dyn Fn() -> S, rounds: usize, batch: Duration) -> Ratio {
    // Warm up both, then size the batch from `a`.
    time(a, 3);
    time(b, 3);
    let mut reps = 1;
    while time(a, reps) < batch && reps < 1 << 24 {
        reps *= 2;
    }
    let mut ratios: Vec<f64> = (0..rounds)
        .map(|k| {
            let (ta, tb) = if k % 2 == 0 {
                let ta = time(a, reps);
                (ta, time(b, reps))
            } else {
                let tb = time(b, reps);
                (time(a, reps), tb)
            };
            tb.as_secs_f64() / ta.as_secs_f64()
        })
        .collect();
    ratios.sort_by(f64::total_cmp);
    let at = |q: f64| ratios[((ratios.len() - 1) as f64 * q).round() as usize];
    Ratio {
        median: at(0.5),
        q1: at(0.25),
        q3: at(0.75),
        min: ratios[0],
        max: ratios[ratios.len() - 1],
        rounds,
        reps,
    }
}

/// generated / hand for every workload, in batches timed back to back (see
/// the module's documentation): 101 rounds of about 2 ms per batch.
pub fn all_workloads() -> Vec<(&'static str, Ratio)> {
    let (rounds, batch) = (101, Duration::from_millis(2));
    macro_rules! workload {
        ($name:literal, $module:ident, $inputs:expr) => {{
            let i = $inputs;
            let hand = || $module::hand(black_box(&i));
            let generated = || $module::generated(black_box(&i));
            ($name, ratio(&hand, &generated, rounds, batch))
        }};
    }
    // (a) again on 1,024 points taken in turn, each side cycling through
    // them: the pre-activations' signs vary from call to call, so a branch
    // on them (a sigmoid written with one) would be mispredicted.
    let sets = scalar_net::Inputs::varied(1024);
    let (kh, kg) = (std::cell::Cell::new(0), std::cell::Cell::new(0));
    let turn = |k: &std::cell::Cell<usize>| {
        let i = k.get();
        k.set((i + 1) % sets.len());
        &sets[i]
    };
    let hand = || scalar_net::hand(black_box(turn(&kh)));
    let generated = || scalar_net::generated(black_box(turn(&kg)));
    let varied = (
        "(a) scalar network, 1,024 points in turn",
        ratio(&hand, &generated, rounds, batch),
    );
    // (a) against the hand-written code with the loss spelled as the
    // function spells it (the same value, bit for bit).
    let lesson = scalar_net::Inputs::lesson();
    let hand = || scalar_net::hand_as_spelled(black_box(&lesson));
    let generated = || scalar_net::generated(black_box(&lesson));
    let spelled = (
        "(a) against `0.5 * e.powi(2)` by hand",
        ratio(&hand, &generated, rounds, batch),
    );
    let hand = || scalar_net::hand_as_spelled(black_box(turn(&kh)));
    let generated = || scalar_net::generated(black_box(turn(&kg)));
    let spelled_varied = (
        "(a) against `0.5 * e.powi(2)`, 1,024 points",
        ratio(&hand, &generated, rounds, batch),
    );
    vec![
        workload!(
            "(a) scalar network",
            scalar_net,
            scalar_net::Inputs::lesson()
        ),
        varied,
        spelled,
        spelled_varied,
        workload!("(b) two heads", two_heads, two_heads::Inputs::lesson()),
        workload!("(c) MLP", mlp, mlp::Inputs::new(mlp::BATCH)),
        workload!("(d) broadcast sub", bsub, bsub::Inputs::new(bsub::N)),
        workload!("(e) RNN", rnn, rnn::Inputs::bench()),
    ]
}

/// The MLP's fwd+bwd / forward (the target is at most 3), timed interleaved
/// against the hand-written forward: the hand-written fwd+bwd's ratio, then
/// the generated one's.
pub fn mlp_over_forward() -> [(&'static str, Ratio); 2] {
    let (rounds, batch) = (101, Duration::from_millis(2));
    let i = mlp::Inputs::new(mlp::BATCH);
    let forward = || mlp::forward(black_box(&i));
    let hand = || mlp::hand(black_box(&i));
    let generated = || mlp::generated(black_box(&i));
    [
        ("fwd+bwd by hand", ratio(&forward, &hand, rounds, batch)),
        (
            "`#[differentiable]` `_backward`",
            ratio(&forward, &generated, rounds, batch),
        ),
    ]
}

/// Second order: `NAME_hvp` / `NAME_backward` at the same point, for the
/// MLP of (c) and the scalar network of (a) (the target is at most 4).
pub fn hvp_over_gradient() -> [(&'static str, Ratio); 2] {
    let (rounds, batch) = (101, Duration::from_millis(2));
    let m = hvp::MlpInputs::new();
    let gradient = || hvp::mlp_gradient(black_box(&m));
    let hessian = || hvp::mlp_hessian(black_box(&m));
    let mlp = ratio(&gradient, &hessian, rounds, batch);
    let n = hvp::NetworkInputs::new();
    let gradient = || hvp::network_gradient(black_box(&n));
    let hessian = || hvp::network_hessian(black_box(&n));
    let network = ratio(&gradient, &hessian, rounds, batch);
    [("(c) MLP", mlp), ("(a) scalar network", network)]
}

/// (f): the closure-fused chain and the same chain op by op, each against
/// the hand-written fused loop, and the closure against op by op.
pub fn closure_chain() -> [(&'static str, Ratio); 3] {
    let (rounds, batch) = (101, Duration::from_millis(2));
    let i = closure_chain::Inputs::new(closure_chain::N);
    let hand = || closure_chain::hand(black_box(&i));
    let fused = || closure_chain::generated(black_box(&i));
    let op_by_op = || closure_chain::generated_op_by_op(black_box(&i));
    [
        (
            "closure (`x.mapv(|v| ..)`) / hand",
            ratio(&hand, &fused, rounds, batch),
        ),
        ("op by op / hand", ratio(&hand, &op_by_op, rounds, batch)),
        (
            "closure / op by op",
            ratio(&op_by_op, &fused, rounds, batch),
        ),
    ]
}

/// (g): the RNN written into a state buffer against the same RNN with its
/// state carried, at T = 20 and T = 200 (a cost that grew with the buffer
/// would show as a larger ratio at 200).
pub fn state_buffer() -> [(&'static str, Ratio); 2] {
    let (rounds, batch) = (41, Duration::from_millis(2));
    let short = state_buffer::Inputs::new(20);
    let long = state_buffer::Inputs::new(200);
    let ratio_at = |i: &state_buffer::Inputs| {
        let carried = || state_buffer::carried(black_box(i));
        let buffer = || state_buffer::buffer(black_box(i));
        ratio(&carried, &buffer, rounds, batch)
    };
    [
        ("buffer / carried, T = 20", ratio_at(&short)),
        ("buffer / carried, T = 200", ratio_at(&long)),
    ]
}

/// (h) to (j): plain Rust data, generated / hand-written fwd+bwd ((j)
/// against the loop as the function writes it, and with `c` factored out
/// of the sum by hand).
pub fn plain_data() -> [(&'static str, Ratio); 5] {
    let (rounds, batch) = (101, Duration::from_millis(2));
    let net = plain_data::NET;
    let x = plain_data::rosenbrock_point();
    let pairs32 = plain_data::pairs32_point();
    [
        (
            "(h) network over `[f64; 9]`",
            ratio(
                &|| plain_data::net_hand(black_box(&net)),
                &|| plain_data::net_generated(black_box(&net)),
                rounds,
                batch,
            ),
        ),
        (
            "(i) Rosenbrock over `&[f64]`, n = 1,000",
            ratio(
                &|| plain_data::rosenbrock_hand(black_box(&x)),
                &|| plain_data::rosenbrock_generated(black_box(&x)),
                rounds,
                batch,
            ),
        ),
        (
            "(j) pairs over `[f64; 8]`, nested loops",
            ratio(
                &|| plain_data::pairs_hand_termwise(black_box(&plain_data::PAIRS)),
                &|| plain_data::pairs_generated(black_box(&plain_data::PAIRS)),
                rounds,
                batch,
            ),
        ),
        (
            "(j) over `[f64; 32]`",
            ratio(
                &|| plain_data::pairs32_hand(black_box(&pairs32)),
                &|| plain_data::pairs32_generated(black_box(&pairs32)),
                rounds,
                batch,
            ),
        ),
        (
            "(j) against `c` factored out by hand",
            ratio(
                &|| plain_data::pairs_hand(black_box(&plain_data::PAIRS)),
                &|| plain_data::pairs_generated(black_box(&plain_data::PAIRS)),
                rounds,
                batch,
            ),
        ),
    ]
}

/// (k): the reprojection residual over nalgebra values.
pub fn nalgebra_data() -> [(&'static str, Ratio); 1] {
    let (rounds, batch) = (101, Duration::from_millis(2));
    let i = crate::nalgebra_data::point();
    [(
        "(k) reprojection over nalgebra `Matrix3`, `Vector3`, `Point3`",
        ratio(
            &|| crate::nalgebra_data::hand(black_box(&i)),
            &|| crate::nalgebra_data::generated(black_box(&i)),
            rounds,
            batch,
        ),
    )]
}

/// [`plain_data`] as a markdown table.
pub fn print_plain_data(ratios: &[(&str, Ratio)]) {
    print_ratios(
        "Plain Rust data: generated / hand fwd+bwd, timed interleaved",
        "workload",
        ratios,
    );
}

/// [`nalgebra_data`] as a markdown table.
pub fn print_nalgebra_data(ratios: &[(&str, Ratio)]) {
    print_ratios(
        "nalgebra: generated / hand fwd+bwd, timed interleaved",
        "workload",
        ratios,
    );
}

/// [`state_buffer`] as a markdown table.
pub fn print_state_buffer(ratios: &[(&str, Ratio)]) {
    print_ratios(
        "(g) RNN, hidden 16: states written into a buffer / state carried, fwd+bwd, timed interleaved",
        "steps",
        ratios,
    );
}

/// [`hvp_over_gradient`] as a markdown table.
pub fn print_hvp_over_gradient(ratios: &[(&str, Ratio)]) {
    print_ratios(
        "HVP / gradient: `NAME_hvp` / `NAME_backward`, timed interleaved",
        "workload",
        ratios,
    );
}

/// [`closure_chain`] as a markdown table.
pub fn print_closure_chain(ratios: &[(&str, Ratio)]) {
    print_ratios(
        "(f) `Σ (a x + 1)² ⊙ x - a x`, 100,000 elements: fwd+bwd ratios, timed interleaved",
        "implementation",
        ratios,
    );
}

/// The ratios as a markdown table.
pub fn print_interleaved(ratios: &[(&str, Ratio)]) {
    print_ratios(
        "generated / hand fwd+bwd, timed interleaved",
        "workload",
        ratios,
    );
}

/// [`mlp_over_forward`] as a markdown table.
pub fn print_over_forward(ratios: &[(&str, Ratio)]) {
    print_ratios(
        "(c) MLP: fwd+bwd / forward by hand, timed interleaved",
        "implementation",
        ratios,
    );
}

/// A table of ratios under a `###` title, one row per named ratio.
fn print_ratios(title: &str, first_column: &str, ratios: &[(&str, Ratio)]) {
    println!("\n### {title}\n");
    println!("| {first_column} | median ratio | quartiles | rounds × calls per batch |");
    println!("|---|---:|---:|---:|");
    for (name, r) in ratios {
        println!(
            "| {name} | {:.2} | {:.2} to {:.2} | {} × {} |",
            r.median, r.q1, r.q3, r.rounds, r.reps
        );
    }
}
