//! Data-parallel gradients (issue 17): workload (c), the MLP, at a batch of
//! 8,192 rows, one call of the generated `mlp_backward` against
//! `backprop::parallel`'s mean over shards of the rows, one shard per
//! thread of rayon's pool (each shard slices its rows of `x` and calls the
//! same `mlp_backward`; the shard gradients, `MlpGrad`s, are weighed by
//! their share of the rows and added).

use crate::interleave::{ratio, Ratio};
use crate::mlp;
use crate::networks::{mlp_backward, MlpGrad};
use backprop::model::Differentiable;
use backprop::ndarray::s;
use backprop::parallel::Shards;
use std::hint::black_box;
use std::time::Duration;

/// The batch of the measurement.
pub const BATCH: usize = 8192;

/// One call on the whole batch.
#[inline(never)]
pub fn one_call(i: &mlp::Inputs) -> (f64, MlpGrad) {
    mlp::generated(i)
}

/// The mean over `shards` shards of the rows, in parallel.
#[inline(never)]
pub fn sharded(i: &mlp::Inputs, shards: Shards) -> (f64, MlpGrad) {
    shards.mean(i.x.nrows(), |rows| {
        let x = i.x.slice(s![rows.clone(), ..]).to_owned();
        mlp_backward(&i.w1, &i.b1, &i.w2, &i.b2, &x, &i.labels[rows], 1.0)
    })
}

/// The same shards, one after the other on this thread, weighed and added
/// as [`sharded`] does: what splitting the batch does without parallelism
/// (smaller arrays stay in the caches).
#[inline(never)]
pub fn in_turn(i: &mlp::Inputs, shards: Shards) -> (f64, MlpGrad) {
    let n = i.x.nrows() as f64;
    let mut total: Option<(f64, MlpGrad)> = None;
    for rows in shards.ranges(i.x.nrows()) {
        let share = rows.len() as f64 / n;
        let x = i.x.slice(s![rows.clone(), ..]).to_owned();
        let (v, g) = mlp_backward(&i.w1, &i.b1, &i.w2, &i.b2, &x, &i.labels[rows], 1.0);
        match &mut total {
            None => {
                let mut g = g;
                g.scale(share);
                total = Some((v * share, g));
            }
            Some((value, grad)) => {
                *value += v * share;
                grad.axpy(share, &g);
            }
        }
    }
    total.expect("at least one shard")
}

/// The sharded value and gradient equal one call's to 1e-12 (relative to
/// the largest element).
pub fn verify() -> Result<(), String> {
    let i = mlp::Inputs::new(BATCH);
    let (value, grad) = one_call(&i);
    for k in [1, 2, Shards::per_thread().count()] {
        let (v, g) = sharded(&i, Shards::new(k));
        let (v2, g2) = in_turn(&i, Shards::new(k));
        if (v2, g2.to_flat()) != (v, g.to_flat()) {
            return Err(format!("{k} shards: in turn and in parallel differ"));
        }
        let (a, b) = (g.to_flat(), grad.to_flat());
        let scale = b.iter().fold(0.0_f64, |m, x| m.max(x.abs()));
        let worst = a
            .iter()
            .zip(&b)
            .fold(0.0_f64, |m, (x, y)| m.max((x - y).abs()));
        if (v - value).abs() > 1e-12 * value.abs() || worst > 1e-12 * scale {
            return Err(format!(
                "{k} shards: value {v} against {value}, gradient off by {worst:e} (largest {scale:e})"
            ));
        }
    }
    Ok(())
}

/// one call / sharded (the speed-up), timed interleaved, for one shard per
/// thread, for the same shards one after the other on one thread (the part
/// of the speed-up that is the smaller arrays, not the second core), and
/// for one shard (the helper's own cost).
pub fn speedup() -> [(String, Ratio); 3] {
    let (rounds, batch) = (101, Duration::from_millis(20));
    let i = mlp::Inputs::new(BATCH);
    let threads = Shards::per_thread();
    let one = || one_call(black_box(&i));
    let per_thread = || sharded(black_box(&i), threads);
    let single = || sharded(black_box(&i), Shards::new(1));
    let sequential = || in_turn(black_box(&i), threads);
    [
        (
            format!("{} shards (one per thread)", threads.count()),
            ratio(&per_thread, &one, rounds, batch),
        ),
        (
            format!("{} shards one after the other, one thread", threads.count()),
            ratio(&sequential, &one, rounds, batch),
        ),
        (
            "1 shard (the helper's overhead)".to_owned(),
            ratio(&single, &one, rounds, batch),
        ),
    ]
}

/// [`speedup`] as a markdown table.
pub fn print_speedup(ratios: &[(String, Ratio)]) {
    println!(
        "\n### (c) MLP at batch {BATCH}: one call / `parallel::mean` over shards (the speed-up), \
         timed interleaved, rayon threads: {}\n",
        rayon_threads()
    );
    println!("| shards | median | quartiles | min to max | rounds × calls per batch |");
    println!("|---|---:|---:|---:|---:|");
    for (name, r) in ratios {
        println!(
            "| {name} | {:.2} | {:.2} to {:.2} | {:.2} to {:.2} | {} × {} |",
            r.median, r.q1, r.q3, r.min, r.max, r.rounds, r.reps
        );
    }
}

fn rayon_threads() -> usize {
    Shards::per_thread().count()
}

/// The median time of one call of a form alone in this process (`one`,
/// `sharded` with one shard per thread, or `in-turn`), over 41 rounds of
/// about 50 ms: run each form in a process of its own, so that rayon's
/// idle workers (which spin a while after each parallel call) do not slow
/// the one-thread forms timed beside them. `None` for an unknown form.
pub fn solo(form: &str) -> Option<Duration> {
    let i = mlp::Inputs::new(BATCH);
    let threads = Shards::per_thread();
    let run: Box<dyn Fn()> = match form {
        "one" => Box::new(|| {
            black_box(one_call(black_box(&i)));
        }),
        "sharded" => Box::new(move || {
            black_box(sharded(black_box(&i), threads));
        }),
        "in-turn" => Box::new(move || {
            black_box(in_turn(black_box(&i), threads));
        }),
        _ => return None,
    };
    let time = |reps: u32| {
        let start = std::time::Instant::now();
        for _ in 0..reps {
            run();
        }
        start.elapsed()
    };
    time(3);
    let mut reps = 1;
    while time(reps) < Duration::from_millis(50) && reps < 1 << 20 {
        reps *= 2;
    }
    let mut per_call: Vec<Duration> = (0..41).map(|_| time(reps) / reps).collect();
    per_call.sort();
    Some(per_call[per_call.len() / 2])
}
