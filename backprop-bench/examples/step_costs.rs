//! Times every line of the generated `_backward` of the broadcast
//! subtraction, the MLP and the RNN (the code `show_expansion` prints), each
//! line alone on fresh inputs, beside what the hand-written code does instead,
//! to say where the generated code loses: `cargo run --release --example step_costs`.

use backprop::__private as bp;
use backprop::ndarray::linalg::general_mat_vec_mul;
use backprop::ndarray::{Array1, Array2, ArrayView1, Axis, Zip};
use backprop_bench::alloc::measure;
use backprop_bench::check::{flat, same};
use backprop_bench::report::fmt_ns;
use backprop_bench::two_heads::softmax_xent_in_place;
use backprop_bench::{bsub, mlp, rnn};
use std::hint::black_box;
use std::time::Instant;

/// The median over 41 samples of `f` on fresh `setup()` inputs, and the
/// allocations of one call. With `reps == 1` the input is made before the
/// clock starts. With `reps > 1` (lines of a few ns) a sample times `reps`
/// rounds of `f(setup())`, each result dropped at once as the generated code
/// drops a step's temporaries, minus `reps` rounds of `setup()` alone, so the
/// inputs stay hot in the cache as they are in the real loop.
fn step<I, R>(name: &str, reps: usize, mut setup: impl FnMut() -> I, mut f: impl FnMut(I) -> R) {
    let mut times = Vec::new();
    for _ in 0..41 {
        if reps == 1 {
            let input = setup();
            let t = Instant::now();
            let r = black_box(f(black_box(input)));
            times.push(t.elapsed().as_secs_f64() * 1e9);
            drop(r);
        } else {
            let t = Instant::now();
            for _ in 0..reps {
                drop(black_box(f(black_box(setup()))));
            }
            let with_f = t.elapsed().as_secs_f64();
            let t = Instant::now();
            for _ in 0..reps {
                drop(black_box(setup()));
            }
            let setup_only = t.elapsed().as_secs_f64();
            times.push((with_f - setup_only).max(0.0) * 1e9 / reps as f64);
        }
    }
    times.sort_by(f64::total_cmp);
    // Inputs made before the measurement, so only the line itself counts.
    let mut inputs = vec![setup(), setup()];
    let a = measure(|| f(inputs.pop().expect("two inputs")));
    println!(
        "| `{name}` | {} | {} | {} | {} |",
        fmt_ns(times[times.len() / 2]),
        a.allocs,
        a.peak_bytes,
        a.page_faults
    );
}

fn header(title: &str) {
    println!("\n### {title}\n");
    println!("| line | median | allocs | peak bytes | page faults |");
    println!("|---|---:|---:|---:|---:|");
}

fn bsub_steps() {
    let i = bsub::Inputs::new(bsub::N);
    let (a, b) = (&i.a, &i.b);
    let c = bp::sub(a, b);
    let out_1 = bp::square(&c);
    let out = bp::sum(&out_1);
    let d_out_1 = bp::sum_vjp(1.0, &out_1, &out);
    let d_c = bp::square_vjp(d_out_1.clone(), &c, &out_1);
    header("generated `broadcast_sub_sq_backward`, line by line");
    step("let c = bp::sub(a, b)", 1, || (), |_| bp::sub(a, b));
    step("let out_1 = bp::square(&c)", 1, || (), |_| bp::square(&c));
    step("let out = bp::sum(&out_1)", 1, || (), |_| bp::sum(&out_1));
    step(
        "let d_out_1 = bp::sum_vjp(d_out, &out_1, &out)",
        1,
        || (),
        |_| bp::sum_vjp(1.0, &out_1, &out),
    );
    step(
        "let d_c = bp::square_vjp(d_out_1, &c, &out_1) (in place)",
        1,
        || d_out_1.clone(),
        |g| bp::square_vjp(g, &c, &out_1),
    );
    step(
        "let (d_a, d_b) = bp::sub_vjp_both(d_c, a, b)",
        1,
        || d_c.clone(),
        |g| bp::sub_vjp_both(g, a, b),
    );
    step(
        "the whole generated function",
        1,
        || (),
        |_| bsub::generated(&i),
    );
    header("what the hand-written code does instead");
    step("let c = &a - &b", 1, || (), |_| a - b);
    step(
        "Σ c² as a fold over c (no array)",
        1,
        || (),
        |_| c.fold(0.0, |s, &x| s + x * x),
    );
    step(
        "c *= 2.0 in place (∂A is c's own buffer)",
        1,
        || c.clone(),
        |mut c| {
            c *= 2.0;
            c
        },
    );
    step(
        "∂B = −c.sum_axis(Axis(1))",
        1,
        || (),
        |_| {
            let mut d = d_c.sum_axis(Axis(1)).insert_axis(Axis(1));
            d.mapv_inplace(|x| -x);
            d
        },
    );
    step(
        "the whole hand-written function",
        1,
        || (),
        |_| bsub::hand(&i),
    );
}

fn mlp_steps() {
    let i = mlp::Inputs::new(mlp::BATCH);
    let (x, w1, b1, w2, b2, labels) = (&i.x, &i.w1, &i.b1, &i.w2, &i.b2, &i.labels[..]);
    let h_1 = bp::dot(x, w1);
    let h_2 = bp::add(&h_1, b1);
    let h = bp::relu(&h_2);
    let logits_1 = bp::dot(&h, w2);
    let logits = bp::add(&logits_1, b2);
    let (_, out_probs) = bp::softmax_cross_entropy_fwd(&logits, labels);
    let d_logits = bp::softmax_cross_entropy_vjp(1.0, &logits, labels, out_probs.clone());
    let d_h = bp::dot_vjp_lhs(&d_logits, &h, w2);
    let d_h_2 = bp::relu_vjp(d_h.clone(), &h_2, &h);
    header("generated `mlp_backward`, line by line");
    step("let h_1 = bp::dot(x, w1)", 1, || (), |_| bp::dot(x, w1));
    step(
        "let h_2 = bp::add(&h_1, b1) (new array)",
        1,
        || (),
        |_| bp::add(&h_1, b1),
    );
    step(
        "let h = bp::relu(&h_2) (new array)",
        1,
        || (),
        |_| bp::relu(&h_2),
    );
    step(
        "let logits_1 = bp::dot(&h, w2)",
        1,
        || (),
        |_| bp::dot(&h, w2),
    );
    step(
        "let logits = bp::add(&logits_1, b2) (new array)",
        1,
        || (),
        |_| bp::add(&logits_1, b2),
    );
    step(
        "bp::softmax_cross_entropy_fwd(&logits, labels) (copies logits)",
        1,
        || (),
        |_| bp::softmax_cross_entropy_fwd(&logits, labels),
    );
    step(
        "bp::softmax_cross_entropy_vjp(d_out, .., out_probs) (in place)",
        1,
        || out_probs.clone(),
        |p| bp::softmax_cross_entropy_vjp(1.0, &logits, labels, p),
    );
    step(
        "let (d_logits_1, d_b2) = bp::add_vjp_both(d_logits, ..)",
        1,
        || d_logits.clone(),
        |g| bp::add_vjp_both(g, &logits_1, b2),
    );
    step(
        "let d_h = bp::dot_vjp_lhs(&d_logits_1, &h, w2)",
        1,
        || (),
        |_| bp::dot_vjp_lhs(&d_logits, &h, w2),
    );
    step(
        "let d_w2 = bp::dot_vjp_rhs(d_logits_1, &h, w2)",
        1,
        || d_logits.clone(),
        |g| bp::dot_vjp_rhs(g, &h, w2),
    );
    step(
        "let d_h_2 = bp::relu_vjp(d_h, &h_2, &h) (in place)",
        1,
        || d_h.clone(),
        |g| bp::relu_vjp(g, &h_2, &h),
    );
    step(
        "let (d_h_1, d_b1) = bp::add_vjp_both(d_h_2, &h_1, b1)",
        1,
        || d_h_2.clone(),
        |g| bp::add_vjp_both(g, &h_1, b1),
    );
    step(
        "let d_w1 = bp::dot_vjp_rhs(d_h_1, x, w1)",
        1,
        || d_h_2.clone(),
        |g| bp::dot_vjp_rhs(g, x, w1),
    );
    step(
        "the whole generated function",
        1,
        || (),
        |_| mlp::generated(&i),
    );
    header("what the hand-written code does instead");
    step(
        "bias + ReLU in place over the dot output (h_2, h)",
        1,
        || h_1.clone(),
        |mut z| {
            Zip::from(z.rows_mut()).for_each(|mut r| {
                Zip::from(&mut r)
                    .and(b1)
                    .for_each(|z, &b| *z = (*z + b).max(0.0));
            });
            z
        },
    );
    step(
        "logits += b2 in place",
        1,
        || logits_1.clone(),
        |mut z| {
            z += b2;
            z
        },
    );
    step(
        "softmax_xent_in_place (logits become ∂logits)",
        1,
        || logits.clone(),
        |mut z| {
            let l = softmax_xent_in_place(&mut z, labels);
            (l, z)
        },
    );
    step(
        "ReLU mask in place, read from h",
        1,
        || d_h.clone(),
        |mut d| {
            Zip::from(&mut d).and(&h).for_each(|d, &a| {
                if a <= 0.0 {
                    *d = 0.0
                }
            });
            d
        },
    );
    step(
        "proposed relu_vjp: mask over g read from out, two streams, NaN kept",
        1,
        || d_h.clone(),
        |mut d| {
            Zip::from(&mut d).and(&h).for_each(|d, &o| {
                if o <= 0.0 || o.is_nan() {
                    *d = if o.is_nan() { o } else { 0.0 }
                }
            });
            d
        },
    );
    step(
        "d_logits.sum_axis(Axis(0)) (∂b2)",
        1,
        || (),
        |_| d_logits.sum_axis(Axis(0)),
    );
    step(
        "d_h_2.sum_axis(Axis(0)) (∂b1)",
        1,
        || (),
        |_| d_h_2.sum_axis(Axis(0)),
    );
    step(
        "the whole hand-written function",
        1,
        || (),
        |_| mlp::hand(&i),
    );
}

fn rnn_steps() {
    const R: usize = 2000;
    let i = rnn::Inputs::bench();
    let (w, u, b, v, xs, ys) = (&i.w, &i.u, &i.b, &i.v, &i.xs, &i.ys);
    let t = 10;
    // One step's values, as the generated forward computes them.
    let h_1_in = i.h0.clone();
    let h_2 = bp::dot(w, &h_1_in);
    let h_3 = bp::row(xs, t);
    let h_4 = bp::dot(u, &h_3);
    let h_5 = bp::add(&h_2, &h_4);
    let h_6 = bp::add(&h_5, b);
    let h_7 = bp::tanh(&h_6);
    let pred = bp::dot(v, &h_7);
    let loss_1 = bp::index(ys, t);
    let loss_2 = bp::sub(&pred, &loss_1);
    let d_pred = 2.0 * loss_2;
    let g16 = Array1::from_elem(h_7.len(), 0.25);
    header("generated `rnn_backward`, one step of the loop (per call)");
    step(
        "let h_2 = bp::dot(w, &h_1_in)",
        R,
        || (),
        |_| bp::dot(w, &h_1_in),
    );
    step("let h_3 = bp::row(xs, t)", R, || (), |_| bp::row(xs, t));
    step("let h_4 = bp::dot(u, &h_3)", R, || (), |_| bp::dot(u, &h_3));
    step(
        "let h_5 = bp::add(&h_2, &h_4)",
        R,
        || (),
        |_| bp::add(&h_2, &h_4),
    );
    step("let h_6 = bp::add(&h_5, b)", R, || (), |_| bp::add(&h_5, b));
    step("let h_7 = bp::tanh(&h_6)", R, || (), |_| bp::tanh(&h_6));
    step(
        "let pred = bp::dot(v, &h_7)",
        R,
        || (),
        |_| bp::dot(v, &h_7),
    );
    step(
        "Clone::clone(&h_7) (saved and carried)",
        R,
        || (),
        |_| h_7.clone(),
    );
    step(
        "let d_v_step = bp::dot_vjp_lhs(&d_pred, v, &h_7)",
        R,
        || (),
        |_| bp::dot_vjp_lhs(&d_pred, v, &h_7),
    );
    step(
        "let d_h_7_from_pred = bp::dot_vjp_rhs(d_pred, v, &h_7)",
        R,
        || (),
        |_| bp::dot_vjp_rhs(d_pred, v, &h_7),
    );
    step(
        "let d_h_7 = d_h_1 + d_h_7_from_pred",
        R,
        || (g16.clone(), g16.clone()),
        |(x, y)| x + y,
    );
    step(
        "let d_h_6 = bp::tanh_vjp(d_h_7, &h_6, &h_7) (in place)",
        R,
        || g16.clone(),
        |g| bp::tanh_vjp(g, &h_6, &h_7),
    );
    step(
        "let (d_h_5, d_b_step) = bp::add_vjp_both(d_h_6, &h_5, b) (clones)",
        R,
        || g16.clone(),
        |g| bp::add_vjp_both(g, &h_5, b),
    );
    step(
        "let (d_h_2, d_h_4) = bp::add_vjp_both(d_h_5, &h_2, &h_4) (clones)",
        R,
        || g16.clone(),
        |g| bp::add_vjp_both(g, &h_2, &h_4),
    );
    step(
        "let d_u_step = bp::dot_vjp_lhs(d_h_4, u, &h_3) (16 × 8 outer)",
        R,
        || g16.clone(),
        |g| bp::dot_vjp_lhs(g, u, &h_3),
    );
    step(
        "let d_w_step = bp::dot_vjp_lhs(&d_h_2, w, &h_1_in) (16 × 16 outer)",
        R,
        || (),
        |_| bp::dot_vjp_lhs(&g16, w, &h_1_in),
    );
    step(
        "let d_h_1_in_step = bp::dot_vjp_rhs(d_h_2, w, &h_1_in)",
        R,
        || g16.clone(),
        |g| bp::dot_vjp_rhs(g, w, &h_1_in),
    );
    let dw = Array2::from_elem(w.raw_dim(), 0.5);
    let du = Array2::from_elem(u.raw_dim(), 0.5);
    step(
        "d_w = d_w + d_w_step (16 × 16)",
        R,
        || (dw.clone(), dw.clone()),
        |(x, y)| x + y,
    );
    step(
        "d_u = d_u + d_u_step (16 × 8)",
        R,
        || (du.clone(), du.clone()),
        |(x, y)| x + y,
    );
    step(
        "the whole generated function (20 steps)",
        1,
        || (),
        |_| rnn::generated(&i),
    );
    header("what the hand-written code does instead (per step, then per call)");
    let mut z = Array1::zeros(h_7.len());
    step(
        "z = b; z += W h; z += U x_t; tanh in place (no allocation)",
        R,
        || (),
        |_| {
            z.assign(b);
            general_mat_vec_mul(1.0, w, &h_1_in, 1.0, &mut z);
            general_mat_vec_mul(1.0, u, &xs.row(t), 1.0, &mut z);
            z.mapv_inplace(f64::tanh);
            v.dot(&z)
        },
    );
    step(
        "tanh of 16 elements in place",
        R,
        || h_6.clone(),
        |mut z| {
            z.mapv_inplace(f64::tanh);
            z
        },
    );
    let mut dh = g16.clone();
    let mut dz = g16.clone();
    step(
        "∂h += 2e·v; δ = ∂h ⊙ (1 − h²); ∂h = Wᵀ δ (no allocation)",
        R,
        || (),
        |_| {
            dh.scaled_add(d_pred, v);
            Zip::from(&mut dz)
                .and(&dh)
                .and(&h_7)
                .for_each(|d, &g, &h| *d = g * (1.0 - h * h));
            general_mat_vec_mul(1.0, &w.t(), &dz, 0.0, &mut dh);
        },
    );
    let mut dw_acc = dw.clone();
    step(
        "∂W += δ ⊗ h_prev in place, one row at a time (per-step alternative)",
        R,
        || (),
        |_| {
            Zip::from(dw_acc.rows_mut())
                .and(&dz)
                .for_each(|mut r, &d| r.scaled_add(d, &h_1_in));
        },
    );
    step(
        "proposed `outer` (ops/linalg.rs): row i = u[i]·v, contiguous writes",
        R,
        || (),
        |_| {
            let mut o = Array2::zeros((g16.len(), h_1_in.len()));
            Zip::from(o.rows_mut())
                .and(&g16)
                .for_each(|mut r, &a| Zip::from(&mut r).and(&h_1_in).for_each(|o, &b| *o = a * b));
            o
        },
    );
    let big_dz = Array2::from_elem((rnn::STEPS, rnn::HIDDEN), 0.1);
    let hs = Array2::from_elem((rnn::STEPS, rnn::HIDDEN), 0.2);
    step(
        "∂W = Δᵀ H_prev, one (16 × 20)(20 × 16) product for all steps",
        1,
        || (),
        |_| big_dz.t().dot(&hs),
    );
    step(
        "the whole hand-written function (20 steps)",
        1,
        || (),
        |_| rnn::hand(&i),
    );
    step(
        "the hand-written forward only (20 steps)",
        1,
        || (),
        |_| rnn::forward(&i),
    );
    step(
        "the original `rnn` (the generated forward, nothing kept)",
        1,
        || (),
        |_| rnn::rnn(&i.w, &i.u, &i.b, &i.v, &i.h0, &i.xs, &i.ys),
    );
}

use rnn::RnnOut;

/// `acc += g ⊗ x`, in place, one row at a time: what an accumulating
/// `dot_vjp_lhs` (matrix · vector) would do.
fn rank1_acc(acc: &mut Array2<f64>, g: &Array1<f64>, x: &ArrayView1<'_, f64>) {
    Zip::from(acc.rows_mut())
        .and(g)
        .for_each(|mut r, &gi| r.scaled_add(gi, x));
}

/// (A) `rnn_backward` exactly as the macro writes it (`show_expansion`).
#[allow(clippy::type_complexity)]
fn rnn_as_generated(i: &rnn::Inputs) -> RnnOut {
    let (w, u, b, v, h0, xs, ys) = (&i.w, &i.u, &i.b, &i.v, &i.h0, &i.xs, &i.ys);
    let d_out = 1.0;
    let h = bp::copy(h0);
    let t_start = 0;
    let t_end = xs.nrows();
    let mut h_1 = bp::copy(&h);
    let mut loss = bp::copy(&0.0_f64);
    let mut steps = ::std::vec::Vec::new();
    for t in t_start..t_end {
        let h_1_in = h_1;
        let loss_in = loss;
        let h_2 = bp::dot(w, &h_1_in);
        let h_3 = bp::row(xs, t);
        let h_4 = bp::dot(u, &h_3);
        let h_5 = bp::add(&h_2, &h_4);
        let h_6 = bp::add(&h_5, b);
        let h_7 = bp::tanh(&h_6);
        let pred = bp::dot(v, &h_7);
        let loss_1 = bp::index(ys, t);
        let loss_2 = bp::sub(&pred, &loss_1);
        let loss_3 = bp::powi(&loss_2, 2);
        let loss_4 = bp::add(&loss_in, &loss_3);
        steps.push((
            h_1_in,
            loss_in,
            h_2,
            h_3,
            h_4,
            h_5,
            h_6,
            h_7.clone(),
            pred,
            loss_1,
            loss_2,
            loss_3,
        ));
        h_1 = h_7;
        loss = loss_4;
    }
    let mut d_loss = d_out;
    let mut d_h_1 = bp::zeros_like(&h_1);
    let mut d_w = bp::zeros_like(w);
    let mut d_u = bp::zeros_like(u);
    let mut d_b = bp::zeros_like(b);
    let mut d_v = bp::zeros_like(v);
    for (_t, (h_1_in, loss_in, h_2, h_3, h_4, h_5, h_6, h_7, pred, loss_1, loss_2, loss_3)) in
        (t_start..t_end).zip(steps).rev()
    {
        let d_loss_4 = d_loss;
        let (d_loss_in_step, d_loss_3) = bp::add_vjp_both(d_loss_4, &loss_in, &loss_3);
        let d_loss_2 = bp::powi_vjp(d_loss_3, &loss_2, 2, &loss_3);
        let d_pred = bp::sub_vjp_lhs(d_loss_2, &pred, &loss_1);
        let d_v_step = bp::dot_vjp_lhs(&d_pred, v, &h_7);
        let d_h_7_from_pred = bp::dot_vjp_rhs(d_pred, v, &h_7);
        let d_h_7 = d_h_1 + d_h_7_from_pred;
        let d_h_6 = bp::tanh_vjp(d_h_7, &h_6, &h_7);
        let (d_h_5, d_b_step) = bp::add_vjp_both(d_h_6, &h_5, b);
        let (d_h_2, d_h_4) = bp::add_vjp_both(d_h_5, &h_2, &h_4);
        let d_u_step = bp::dot_vjp_lhs(d_h_4, u, &h_3);
        let d_w_step = bp::dot_vjp_lhs(&d_h_2, w, &h_1_in);
        let d_h_1_in_step = bp::dot_vjp_rhs(d_h_2, w, &h_1_in);
        d_w = d_w + d_w_step;
        d_u = d_u + d_u_step;
        d_b = d_b + d_b_step;
        d_v = d_v + d_v_step;
        d_h_1 = d_h_1_in_step;
        d_loss = d_loss_in_step;
    }
    (loss, d_w, d_u, d_b, d_v)
}

/// (B) = (A), but the shared weights' gradients are accumulated in place
/// (`d_w += g ⊗ h` row by row, `d_b += g`, `d_v += g·h`) instead of a fresh
/// `d_*_step` array and an add, and the same-shape operands of `+` borrow
/// the one upstream buffer instead of a clone.
#[allow(clippy::type_complexity)]
fn rnn_accumulating(i: &rnn::Inputs) -> RnnOut {
    let (w, u, b, v, h0, xs, ys) = (&i.w, &i.u, &i.b, &i.v, &i.h0, &i.xs, &i.ys);
    let mut h_1 = bp::copy(h0);
    let mut loss = 0.0_f64;
    let mut steps = ::std::vec::Vec::new();
    for t in 0..xs.nrows() {
        let h_1_in = h_1;
        let h_2 = bp::dot(w, &h_1_in);
        let h_3 = bp::row(xs, t);
        let h_4 = bp::dot(u, &h_3);
        let h_5 = bp::add(&h_2, &h_4);
        let h_6 = bp::add(&h_5, b);
        let h_7 = bp::tanh(&h_6);
        let loss_2 = bp::dot(v, &h_7) - ys[t];
        loss += bp::powi(&loss_2, 2);
        steps.push((h_1_in, h_2, h_4, h_5, h_6, h_7.clone(), loss_2));
        h_1 = h_7;
    }
    let mut d_h_1 = bp::zeros_like(&h_1);
    let mut d_w = bp::zeros_like(w);
    let mut d_u = bp::zeros_like(u);
    let mut d_b = bp::zeros_like(b);
    let mut d_v = bp::zeros_like(v);
    for (t, (h_1_in, _h_2, _h_4, _h_5, h_6, h_7, loss_2)) in steps.into_iter().enumerate().rev() {
        let d_pred = bp::powi_vjp(1.0, &loss_2, 2, &(loss_2 * loss_2));
        d_v.scaled_add(d_pred, &h_7);
        d_h_1.scaled_add(d_pred, v);
        let d_h_6 = bp::tanh_vjp(d_h_1, &h_6, &h_7);
        d_b += &d_h_6;
        rank1_acc(&mut d_u, &d_h_6, &xs.row(t));
        rank1_acc(&mut d_w, &d_h_6, &h_1_in.view());
        d_h_1 = bp::dot_vjp_rhs(&d_h_6, w, &h_1_in);
    }
    (loss, d_w, d_u, d_b, d_v)
}

/// (C) = (B), and the forward updates its dead temporaries in place
/// (`z = W h; z += U x_t; z += b; tanh in place`) and keeps only what the
/// reverse sweep reads: the state entering each step and its error. The
/// state leaving step t is read from step t + 1's entry (no clone).
#[allow(clippy::type_complexity)]
fn rnn_in_place(i: &rnn::Inputs) -> RnnOut {
    let (w, u, b, v, h0, xs, ys) = (&i.w, &i.u, &i.b, &i.v, &i.h0, &i.xs, &i.ys);
    let mut h_1 = bp::copy(h0);
    let mut loss = 0.0_f64;
    let mut steps = ::std::vec::Vec::new();
    for t in 0..xs.nrows() {
        let h_1_in = h_1;
        let mut z = bp::dot(w, &h_1_in);
        general_mat_vec_mul(1.0, u, &xs.row(t), 1.0, &mut z);
        z += b;
        z.mapv_inplace(f64::tanh);
        let e = v.dot(&z) - ys[t];
        loss += e * e;
        steps.push((h_1_in, e));
        h_1 = z;
    }
    let mut d_h_1 = bp::zeros_like(&h_1);
    let mut d_w = bp::zeros_like(w);
    let mut d_u = bp::zeros_like(u);
    let mut d_b = bp::zeros_like(b);
    let mut d_v = bp::zeros_like(v);
    let mut h_out = h_1;
    for (t, (h_1_in, e)) in steps.into_iter().enumerate().rev() {
        let d_pred = 2.0 * e;
        d_v.scaled_add(d_pred, &h_out);
        d_h_1.scaled_add(d_pred, v);
        let d_h_6 = bp::tanh_vjp(d_h_1, &h_out, &h_out);
        d_b += &d_h_6;
        rank1_acc(&mut d_u, &d_h_6, &xs.row(t));
        rank1_acc(&mut d_w, &d_h_6, &h_1_in.view());
        d_h_1 = bp::dot_vjp_rhs(&d_h_6, w, &h_1_in);
        h_out = h_1_in;
    }
    (loss, d_w, d_u, d_b, d_v)
}

/// (D) = (C) with the step vector allocated once, at the known trip count.
#[allow(clippy::type_complexity)]
fn rnn_in_place_reserved(i: &rnn::Inputs) -> RnnOut {
    let (w, u, b, v, h0, xs, ys) = (&i.w, &i.u, &i.b, &i.v, &i.h0, &i.xs, &i.ys);
    let mut h_1 = bp::copy(h0);
    let mut loss = 0.0_f64;
    let mut steps = ::std::vec::Vec::with_capacity(xs.nrows());
    for t in 0..xs.nrows() {
        let h_1_in = h_1;
        let mut z = bp::dot(w, &h_1_in);
        general_mat_vec_mul(1.0, u, &xs.row(t), 1.0, &mut z);
        z += b;
        z.mapv_inplace(f64::tanh);
        let e = v.dot(&z) - ys[t];
        loss += e * e;
        steps.push((h_1_in, e));
        h_1 = z;
    }
    let mut d_h_1 = bp::zeros_like(&h_1);
    let mut d_w = bp::zeros_like(w);
    let mut d_u = bp::zeros_like(u);
    let mut d_b = bp::zeros_like(b);
    let mut d_v = bp::zeros_like(v);
    let mut h_out = h_1;
    for (t, (h_1_in, e)) in steps.into_iter().enumerate().rev() {
        let d_pred = 2.0 * e;
        d_v.scaled_add(d_pred, &h_out);
        d_h_1.scaled_add(d_pred, v);
        let d_h_6 = bp::tanh_vjp(d_h_1, &h_out, &h_out);
        d_b += &d_h_6;
        rank1_acc(&mut d_u, &d_h_6, &xs.row(t));
        rank1_acc(&mut d_w, &d_h_6, &h_1_in.view());
        d_h_1 = bp::dot_vjp_rhs(&d_h_6, w, &h_1_in);
        h_out = h_1_in;
    }
    (loss, d_w, d_u, d_b, d_v)
}

/// (E) the hand-written `rnn::hand`, but with the weight gradients
/// accumulated per step by rank-1 updates (as (B) to (D) do) instead of one
/// product each after the loop.
#[allow(clippy::type_complexity)]
fn rnn_hand_rank1(i: &rnn::Inputs) -> RnnOut {
    use backprop::ndarray::s;
    let (steps, hidden) = (i.xs.nrows(), i.h0.len());
    let mut hs = Array2::zeros((steps + 1, hidden));
    hs.row_mut(0).assign(&i.h0);
    let mut errs = Vec::with_capacity(steps);
    let mut loss = 0.0;
    for t in 0..steps {
        let (prev, mut next) = hs.multi_slice_mut((s![t, ..], s![t + 1, ..]));
        next.assign(&i.b);
        general_mat_vec_mul(1.0, &i.w, &prev, 1.0, &mut next);
        general_mat_vec_mul(1.0, &i.u, &i.xs.row(t), 1.0, &mut next);
        next.mapv_inplace(f64::tanh);
        let e = i.v.dot(&next) - i.ys[t];
        loss += e * e;
        errs.push(e);
    }
    let mut d = Array1::zeros(hidden);
    let mut dh = Array1::zeros(hidden);
    let mut dv = Array1::zeros(hidden);
    let mut dw = Array2::zeros(i.w.raw_dim());
    let mut du = Array2::zeros(i.u.raw_dim());
    let mut db = Array1::zeros(hidden);
    for t in (0..steps).rev() {
        let h = hs.row(t + 1);
        let g = 2.0 * errs[t];
        dv.scaled_add(g, &h);
        dh.scaled_add(g, &i.v);
        Zip::from(&mut d)
            .and(&dh)
            .and(&h)
            .for_each(|d, &dh, &h| *d = dh * (1.0 - h * h));
        db += &d;
        rank1_acc(&mut du, &d, &i.xs.row(t));
        rank1_acc(&mut dw, &d, &hs.row(t));
        general_mat_vec_mul(1.0, &i.w.t(), &d, 0.0, &mut dh);
    }
    (loss, dw, du, db, dv)
}

fn rnn_variants() {
    let i = rnn::Inputs::bench();
    let (v, g) = rnn::hand(&i);
    let reference = (
        v,
        vec![
            ("w", flat(&g.w)),
            ("u", flat(&g.u)),
            ("b", flat(&g.b)),
            ("v", flat(&g.v)),
        ],
    );
    let as_grads = |(v, w, u, b, vv): RnnOut| {
        (
            v,
            vec![
                ("w", flat(&w)),
                ("u", flat(&u)),
                ("b", flat(&b)),
                ("v", flat(&vv)),
            ],
        )
    };
    type Variant = fn(&rnn::Inputs) -> RnnOut;
    let variants: [(&str, Variant); 5] = [
        ("(A) as generated, copied", rnn_as_generated),
        (
            "(B) = A, weight gradients accumulated in place",
            rnn_accumulating,
        ),
        (
            "(C) = B, forward in place, only h_in and e kept",
            rnn_in_place,
        ),
        ("(D) = C, steps Vec reserved", rnn_in_place_reserved),
        ("(E) hand-written, rank-1 updates per step", rnn_hand_rank1),
    ];
    for (name, f) in variants {
        same("rnn", name, &reference, &as_grads(f(&i))).expect("the variant agrees");
    }
    header(
        "the generated `rnn_backward`, edited by hand one change at a time (per call, 20 steps)",
    );
    // Interleaved: every round times each function for 100 calls, so a slow
    // phase of the machine hits them all alike; the median of 61 rounds.
    let mut all: Vec<(&str, Variant)> = vec![("rnn::generated (the macro's)", rnn::generated_out)];
    all.extend(variants);
    all.push(("rnn::hand", rnn::hand_out));
    let mut times = vec![Vec::new(); all.len()];
    for _ in 0..61 {
        for (k, (_, f)) in all.iter().enumerate() {
            let t = Instant::now();
            for _ in 0..100 {
                drop(black_box(f(black_box(&i))));
            }
            times[k].push(t.elapsed().as_secs_f64() * 1e9 / 100.0);
        }
    }
    for ((name, f), mut ts) in all.into_iter().zip(times) {
        ts.sort_by(f64::total_cmp);
        let a = measure(|| f(&i));
        println!(
            "| {name} | {} | {} | {} | {} |",
            fmt_ns(ts[ts.len() / 2]),
            a.allocs,
            a.peak_bytes,
            a.page_faults
        );
    }
}

/// Times each function interleaved: every round runs each one `reps` times,
/// so a slow phase of the machine hits them all alike; prints the median of
/// `rounds` rounds per call, and the allocations and page faults of one call.
fn compare(title: &str, rounds: usize, reps: usize, fns: &[(&str, &dyn Fn())]) {
    header(title);
    let mut times = vec![Vec::new(); fns.len()];
    for _ in 0..rounds {
        for (k, (_, f)) in fns.iter().enumerate() {
            let t = Instant::now();
            for _ in 0..reps {
                f();
            }
            times[k].push(t.elapsed().as_secs_f64() * 1e9 / reps as f64);
        }
    }
    for ((name, f), mut ts) in fns.iter().zip(times) {
        ts.sort_by(f64::total_cmp);
        let a = measure(f);
        println!(
            "| {name} | {} | {} | {} | {} |",
            fmt_ns(ts[ts.len() / 2]),
            a.allocs,
            a.peak_bytes,
            a.page_faults
        );
    }
}

/// (A) `broadcast_sub_sq_backward` as the macro writes it.
fn bsub_as_generated(a: &Array2<f64>, b: &Array2<f64>) -> (f64, Array2<f64>, Array2<f64>) {
    let c = bp::sub(a, b);
    let out_1 = bp::square(&c);
    let out = bp::sum(&out_1);
    let d_out_1 = bp::sum_vjp(1.0, &out_1, &out);
    let d_c = bp::square_vjp(d_out_1, &c, &out_1);
    let (d_a, d_b) = bp::sub_vjp_both(d_c, a, b);
    (out, d_a, d_b)
}

/// (B) = (A) with `sum(square(c))` as one fold (no `out_1` array).
fn bsub_fused_sum(a: &Array2<f64>, b: &Array2<f64>) -> (f64, Array2<f64>, Array2<f64>) {
    let c = bp::sub(a, b);
    let out = c.fold(0.0, |s, &x| s + x * x);
    let d_out_1 = Array2::from_elem(c.raw_dim(), 1.0);
    let d_c = bp::square_vjp(d_out_1, &c, &c);
    let (d_a, d_b) = bp::sub_vjp_both(d_c, a, b);
    (out, d_a, d_b)
}

/// (C) = (B) with a scalar seed for `sum`'s adjoint and `square`'s adjoint
/// written over `c`, whose last use it is (`d_c = 2·g·c` in place).
fn bsub_in_place(a: &Array2<f64>, b: &Array2<f64>) -> (f64, Array2<f64>, Array2<f64>) {
    let mut c = bp::sub(a, b);
    let out = c.fold(0.0, |s, &x| s + x * x);
    let g = 1.0;
    c.mapv_inplace(|x| (g + g) * x);
    let (d_a, d_b) = bp::sub_vjp_both(c, a, b);
    (out, d_a, d_b)
}

/// (D) = (C) with `∂B` summed directly (not through `sub_vjp_both`).
fn bsub_direct_db(a: &Array2<f64>, b: &Array2<f64>) -> (f64, Array2<f64>, Array2<f64>) {
    let mut c = bp::sub(a, b);
    let out = c.fold(0.0, |s, &x| s + x * x);
    let g = 1.0;
    c.mapv_inplace(|x| (g + g) * x);
    let mut d_b = c.sum_axis(Axis(1)).insert_axis(Axis(1));
    d_b.mapv_inplace(|x| -x);
    (out, c, d_b)
}

fn bsub_variants() {
    let i = bsub::Inputs::new(bsub::N);
    let (a, b) = (&i.a, &i.b);
    let (v, da, db) = bsub::hand(&i);
    let reference = (v, vec![("a", flat(&da)), ("b", flat(&db))]);
    type Variant = fn(&Array2<f64>, &Array2<f64>) -> (f64, Array2<f64>, Array2<f64>);
    let variants: [(&str, Variant); 4] = [
        ("(A) as generated, copied", bsub_as_generated),
        ("(B) = A, sum(square(c)) as one fold", bsub_fused_sum),
        (
            "(C) = B, scalar seed, square's adjoint over c in place",
            bsub_in_place,
        ),
        (
            "(D) = C, ∂B summed directly, not by sub_vjp_both",
            bsub_direct_db,
        ),
    ];
    for (name, f) in variants {
        let (v, da, db) = f(a, b);
        same(
            "bsub",
            name,
            &reference,
            &(v, vec![("a", flat(&da)), ("b", flat(&db))]),
        )
        .expect("the variant agrees");
    }
    let g = || drop(black_box(bsub::generated(black_box(&i))));
    let f0 = || drop(black_box(bsub_as_generated(black_box(a), b)));
    let f1 = || drop(black_box(bsub_fused_sum(black_box(a), b)));
    let f2 = || drop(black_box(bsub_in_place(black_box(a), b)));
    let f3 = || drop(black_box(bsub_direct_db(black_box(a), b)));
    let h = || drop(black_box(bsub::hand(black_box(&i))));
    compare(
        "the generated `broadcast_sub_sq_backward`, edited by hand one change at a time",
        41,
        3,
        &[
            ("bsub::generated (the macro's)", &g),
            (variants[0].0, &f0),
            (variants[1].0, &f1),
            (variants[2].0, &f2),
            (variants[3].0, &f3),
            ("bsub::hand", &h),
        ],
    );
}

/// (A) `mlp_backward` as the macro writes it.
#[allow(clippy::type_complexity)]
fn mlp_as_generated(i: &mlp::Inputs) -> (f64, Array2<f64>, Array1<f64>, Array2<f64>, Array1<f64>) {
    let (w1, b1, w2, b2, x, labels) = (&i.w1, &i.b1, &i.w2, &i.b2, &i.x, &i.labels[..]);
    let h_1 = bp::dot(x, w1);
    let h_2 = bp::add(&h_1, b1);
    let h = bp::relu(&h_2);
    let logits_1 = bp::dot(&h, w2);
    let logits = bp::add(&logits_1, b2);
    let (out, out_probs) = bp::softmax_cross_entropy_fwd(&logits, labels);
    let d_logits = bp::softmax_cross_entropy_vjp(1.0, &logits, labels, out_probs);
    let (d_logits_1, d_b2) = bp::add_vjp_both(d_logits, &logits_1, b2);
    let d_h = bp::dot_vjp_lhs(&d_logits_1, &h, w2);
    let d_w2 = bp::dot_vjp_rhs(d_logits_1, &h, w2);
    let d_h_2 = bp::relu_vjp(d_h, &h_2, &h);
    let (d_h_1, d_b1) = bp::add_vjp_both(d_h_2, &h_1, b1);
    let d_w1 = bp::dot_vjp_rhs(d_h_1, x, w1);
    (out, d_w1, d_b1, d_w2, d_b2)
}

/// The proposed `relu_vjp`: the mask read from `out`, two streams, the
/// gradient written only where it is masked (NaN kept).
fn relu_vjp_2(mut g: Array2<f64>, out: &Array2<f64>) -> Array2<f64> {
    Zip::from(&mut g).and(out).for_each(|g, &o| {
        if o <= 0.0 || o.is_nan() {
            *g = if o.is_nan() { o } else { 0.0 }
        }
    });
    g
}

/// (B) = (A) with the two-stream `relu_vjp`.
#[allow(clippy::type_complexity)]
fn mlp_relu2(i: &mlp::Inputs) -> (f64, Array2<f64>, Array1<f64>, Array2<f64>, Array1<f64>) {
    let (w1, b1, w2, b2, x, labels) = (&i.w1, &i.b1, &i.w2, &i.b2, &i.x, &i.labels[..]);
    let h_1 = bp::dot(x, w1);
    let h_2 = bp::add(&h_1, b1);
    let h = bp::relu(&h_2);
    let logits_1 = bp::dot(&h, w2);
    let logits = bp::add(&logits_1, b2);
    let (out, out_probs) = bp::softmax_cross_entropy_fwd(&logits, labels);
    let d_logits = bp::softmax_cross_entropy_vjp(1.0, &logits, labels, out_probs);
    let (d_logits_1, d_b2) = bp::add_vjp_both(d_logits, &logits_1, b2);
    let d_h = bp::dot_vjp_lhs(&d_logits_1, &h, w2);
    let d_w2 = bp::dot_vjp_rhs(d_logits_1, &h, w2);
    let d_h_2 = relu_vjp_2(d_h, &h);
    let (d_h_1, d_b1) = bp::add_vjp_both(d_h_2, &h_1, b1);
    let d_w1 = bp::dot_vjp_rhs(d_h_1, x, w1);
    (out, d_w1, d_b1, d_w2, d_b2)
}

/// (C) = (B) with the forward's dead temporaries updated in place: the bias
/// add and ReLU over the `dot` output (`h_1` → `h_2` → `h`, one buffer),
/// `logits += b2` over `logits_1`, and the softmax over the logits buffer
/// (`probs` is that buffer). The rules read shapes only from `h_1`,
/// `logits_1`, `logits`, so the shapes are all they keep.
#[allow(clippy::type_complexity)]
fn mlp_in_place(i: &mlp::Inputs) -> (f64, Array2<f64>, Array1<f64>, Array2<f64>, Array1<f64>) {
    let (w1, b1, w2, b2, x, labels) = (&i.w1, &i.b1, &i.w2, &i.b2, &i.x, &i.labels[..]);
    let mut h = bp::dot(x, w1);
    Zip::from(h.rows_mut()).for_each(|mut r| {
        Zip::from(&mut r).and(b1).for_each(|z, &b| {
            let v = *z + b;
            *z = if v > 0.0 || v.is_nan() { v } else { 0.0 }
        })
    });
    let mut logits = bp::dot(&h, w2);
    logits += b2;
    let out = softmax_xent_in_place(&mut logits, labels);
    let d_logits = logits;
    let d_b2 = d_logits.sum_axis(Axis(0));
    let d_h = bp::dot_vjp_lhs(&d_logits, &h, w2);
    let d_w2 = bp::dot_vjp_rhs(d_logits, &h, w2);
    let d_h_2 = relu_vjp_2(d_h, &h);
    let d_b1 = d_h_2.sum_axis(Axis(0));
    let d_w1 = bp::dot_vjp_rhs(d_h_2, x, w1);
    (out, d_w1, d_b1, d_w2, d_b2)
}

fn mlp_variants() {
    let i = mlp::Inputs::new(mlp::BATCH);
    let (v, g) = mlp::hand(&i);
    let grads = |w1: &Array2<f64>, b1: &Array1<f64>, w2: &Array2<f64>, b2: &Array1<f64>| {
        vec![
            ("w1", flat(w1)),
            ("b1", flat(b1)),
            ("w2", flat(w2)),
            ("b2", flat(b2)),
        ]
    };
    let reference = (v, grads(&g.w1, &g.b1, &g.w2, &g.b2));
    #[allow(clippy::type_complexity)]
    type Variant = fn(&mlp::Inputs) -> (f64, Array2<f64>, Array1<f64>, Array2<f64>, Array1<f64>);
    let variants: [(&str, Variant); 3] = [
        ("(A) as generated, copied", mlp_as_generated),
        ("(B) = A, two-stream relu_vjp", mlp_relu2),
        (
            "(C) = B, forward temporaries and softmax in place",
            mlp_in_place,
        ),
    ];
    for (name, f) in variants {
        let (v, w1, b1, w2, b2) = f(&i);
        same("mlp", name, &reference, &(v, grads(&w1, &b1, &w2, &b2))).expect("the variant agrees");
    }
    let g = || drop(black_box(mlp::generated(black_box(&i))));
    let f0 = || drop(black_box(variants[0].1(black_box(&i))));
    let f1 = || drop(black_box(variants[1].1(black_box(&i))));
    let f2 = || drop(black_box(variants[2].1(black_box(&i))));
    let h = || drop(black_box(mlp::hand(black_box(&i))));
    compare(
        "the generated `mlp_backward`, edited by hand one change at a time",
        41,
        5,
        &[
            ("mlp::generated (the macro's)", &g),
            (variants[0].0, &f0),
            (variants[1].0, &f1),
            (variants[2].0, &f2),
            ("mlp::hand", &h),
        ],
    );
}

fn main() {
    let which = std::env::args().nth(1).unwrap_or_default();
    if which.is_empty() || which == "bsub" {
        bsub_steps();
    }
    if which.is_empty() || which == "bsub" || which == "bsub_variants" {
        bsub_variants();
    }
    if which.is_empty() || which == "mlp" {
        mlp_steps();
    }
    if which.is_empty() || which == "mlp" || which == "mlp_variants" {
        mlp_variants();
    }
    if which.is_empty() || which == "rnn" {
        rnn_steps();
    }
    if which.is_empty() || which == "rnn" || which == "rnn_variants" {
        rnn_variants();
    }
}
