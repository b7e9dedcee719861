//! `Outers`: the outer products of a loop's reverse sweep, kept by iteration
//! and added after the loop as one matrix product per weight. Whatever a
//! term was declared with (a shared `u`, `v`s read in rows), the sum is the
//! sum of the outer products; where a promise does not hold, that product
//! is added at once.

mod common;

use backprop_runtime::ops::*;
use common::rand;
use ndarray::linalg::general_mat_mul;
use ndarray::{s, Array1, Array2};

const T: usize = 7;
const H: usize = 5;
const I: usize = 3;

fn close(a: &Array2<f64>, b: &Array2<f64>) {
    assert_eq!(a.shape(), b.shape());
    for (x, y) in a.iter().zip(b) {
        assert!(
            (x - y).abs() <= 1e-13 * (1.0 + y.abs()),
            "{x} vs {y}\n{a}\n{b}"
        );
    }
}

/// `Σ_k u_k ⊗ v_k` one outer product at a time.
fn rank_ones(pairs: &[(Array1<f64>, Array1<f64>)], rows: usize, cols: usize) -> Array2<f64> {
    let mut acc = Array2::zeros((rows, cols));
    for (u, v) in pairs {
        dot_vjp_lhs(u, &Array2::<f64>::zeros((rows, cols)), v).add_to(&mut acc);
    }
    acc
}

/// A recurrent network's reverse sweep: `δ_k` for both weights, `x_k` the
/// rows of an input, `h_k` the rows of the kept states. Both gradients are
/// those of one matrix product each, bit for bit: `Δᵀ X` and `Δᵀ H`.
#[test]
fn a_shared_delta_and_rows_read_in_place_give_the_matrix_products() {
    let xs = rand((T, I), 1, -1.0, 1.0);
    let hs = rand((T + 1, H), 2, -1.0, 1.0);
    let deltas = rand((T, H), 3, -1.0, 1.0);
    let w = rand((H, H), 4, -1.0, 1.0);
    let u = rand((H, I), 5, -1.0, 1.0);
    let (mut d_u, mut d_w) = (Array2::<f64>::zeros((H, I)), Array2::<f64>::zeros((H, H)));
    let mut outers = Outers::new(
        T,
        [
            outer_term(&d_u).v_from(rows_in(&xs, 0, T)),
            outer_term(&d_w)
                .u_from(0)
                .v_from(Some(hs.slice(s![..T, ..]))),
        ],
    );
    for k in (0..T).rev() {
        let delta = deltas.row(k).to_owned();
        dot_vjp_lhs(&delta, &u, &xs.row(k)).defer(outers.term(0, k), &mut d_u);
        dot_vjp_lhs(&delta, &w, &hs.row(k)).defer(outers.term(1, k), &mut d_w);
        assert!(d_u.iter().chain(&d_w).all(|&x| x == 0.0), "kept, not added");
    }
    let d_u = add_outers(d_u, &mut outers, 0);
    let d_w = add_outers(d_w, &mut outers, 1);
    let mut want_u = Array2::zeros((H, I));
    general_mat_mul(1.0, &deltas.t(), &xs, 1.0, &mut want_u);
    let mut want_w = Array2::zeros((H, H));
    general_mat_mul(1.0, &deltas.t(), &hs.slice(s![..T, ..]), 1.0, &mut want_w);
    assert_eq!(d_u, want_u);
    assert_eq!(d_w, want_w);
    // The sum of the outer products, up to rounding.
    let pairs_u: Vec<_> = (0..T)
        .map(|k| (deltas.row(k).to_owned(), xs.row(k).to_owned()))
        .collect();
    close(&d_u, &rank_ones(&pairs_u, H, I));
}

/// Promises that do not hold in some iterations: another `u` than the term
/// it shares with, a `v` that is not the row (or a copy of it, which is the
/// row), iterations skipped, an iteration past the announced ones, a `NaN`.
/// The sums are right every time.
#[test]
fn broken_promises_are_added_at_once() {
    let xs = rand((T, I), 11, -1.0, 1.0);
    let deltas = rand((T, H), 12, -1.0, 1.0);
    let others = rand((T, H), 13, -1.0, 1.0);
    let stray = rand((T, I), 14, -1.0, 1.0);
    let m = rand((H, I), 15, -1.0, 1.0);
    for case in 0..6 {
        let (mut a, mut b) = (Array2::<f64>::zeros((H, I)), Array2::<f64>::zeros((H, I)));
        let mut outers = Outers::new(
            T,
            [
                outer_term(&a).v_from(rows_in(&xs, 0, T)),
                outer_term(&b).u_from(0).v_from(rows_in(&xs, 0, T)),
            ],
        );
        let (mut pairs_a, mut pairs_b) = (Vec::new(), Vec::new());
        for k in (0..T + 1).rev() {
            let row = |m: &Array2<f64>| m.row(k.min(T - 1)).to_owned();
            let (ua, va) = (row(&deltas), row(&xs));
            let mut ub = ua.clone();
            let mut vb = va.clone();
            let a_runs = !(case == 2 && k % 3 == 1);
            match case {
                0 if k % 2 == 0 => ub = row(&others),
                1 if k == 3 || k == 4 => vb = row(&stray),
                4 if k == 2 => ub[1] = f64::NAN,
                5 if k == 5 => ub.fill(0.0),
                _ => {}
            }
            if case == 5 && k == 5 {
                // The term b shares with does not run here: b's zero `u`
                // matches the place left empty.
                pairs_b.push((ub.clone(), vb.clone()));
                dot_vjp_lhs(&ub, &m, &vb).defer(outers.term(1, k), &mut b);
                continue;
            }
            if a_runs {
                pairs_a.push((ua.clone(), va.clone()));
                dot_vjp_lhs(&ua, &m, &va).defer(outers.term(0, k), &mut a);
            }
            pairs_b.push((ub.clone(), vb.clone()));
            dot_vjp_lhs(&ub, &m, &vb).defer(outers.term(1, k), &mut b);
        }
        let a = add_outers(a, &mut outers, 0);
        let b = add_outers(b, &mut outers, 1);
        close(&a, &rank_ones(&pairs_a, H, I));
        let want_b = rank_ones(&pairs_b, H, I);
        if case == 4 {
            assert!(b.row(1).iter().all(|x| x.is_nan()), "{b}");
            assert!(b.row(0).iter().all(|x| x.is_finite()), "{b}");
            close(
                &b.slice(s![..1, ..]).to_owned(),
                &want_b.slice(s![..1, ..]).to_owned(),
            );
        } else {
            close(&b, &want_b);
        }
    }
}

/// A `v` equal to its row but in another buffer is not the row: its outer
/// product is added at once; a row matrix of another shape is not read
/// (each `v` is copied and kept); a gradient that is not a matrix of the
/// term's shape takes its outer product at once.
#[test]
fn what_is_kept_and_what_is_added_at_once() {
    let xs = rand((T, I), 21, -1.0, 1.0);
    let deltas = rand((T, H), 22, -1.0, 1.0);
    let m = rand((H, I), 23, -1.0, 1.0);
    let mut a = Array2::<f64>::zeros((H, I));
    let mut b = Array2::<f64>::zeros((H, I));
    let mut outers = Outers::new(
        T,
        [
            outer_term(&a).v_from(rows_in(&xs, 0, T)),
            outer_term(&b).v_from(rows_in(&xs, 1, T)),
        ],
    );
    for k in (0..T).rev() {
        let copy = xs.row(k).to_owned();
        dot_vjp_lhs(&deltas.row(k).to_owned(), &m, &copy).defer(outers.term(0, k), &mut a);
        dot_vjp_lhs(&deltas.row(k).to_owned(), &m, &copy).defer(outers.term(1, k), &mut b);
    }
    assert!(a.iter().all(|&x| x != 0.0), "added at once");
    assert!(b.iter().all(|&x| x == 0.0), "kept");
    let (a, b) = (add_outers(a, &mut outers, 0), add_outers(b, &mut outers, 1));
    let pairs: Vec<_> = (0..T)
        .map(|k| (deltas.row(k).to_owned(), xs.row(k).to_owned()))
        .collect();
    close(&a, &rank_ones(&pairs, H, I));
    close(&b, &rank_ones(&pairs, H, I));
    assert_eq!(rows_in(&xs, 2, T + 1), None);
    assert_eq!(rows_in(&xs, 3, 2), None);

    // Declared for a (H, I) gradient, pushed with another one.
    let mut other = Array2::<f64>::zeros((H, H));
    let declared = Array2::<f64>::zeros((H, I));
    let mut outers = Outers::new(T, [outer_term(&declared)]);
    let sq = rand((H, H), 24, -1.0, 1.0);
    let h = rand(H, 25, -1.0, 1.0);
    let d = rand(H, 26, -1.0, 1.0);
    dot_vjp_lhs(&d, &sq, &h).defer(outers.term(0, 1), &mut other);
    close(&other, &rank_ones(&[(d, h)], H, H));
    // Nothing kept: the gradient comes back as it was, in its buffer.
    let at = other.as_ptr();
    let back = add_outers(other, &mut outers, 0);
    assert_eq!(back.as_ptr(), at);
}

/// Nine terms of one gradient each, all kept, each its own sum.
#[test]
fn many_terms_are_kept_apart() {
    let m = rand((H, I), 31, -1.0, 1.0);
    let zero = Array2::<f64>::zeros((H, I));
    let terms: [_; 9] = std::array::from_fn(|_| outer_term(&zero));
    let mut outers = Outers::new(2, terms);
    let mut accs: Vec<Array2<f64>> = vec![zero.clone(); 9];
    let mut pairs = vec![Vec::new(); 9];
    for k in (0..2).rev() {
        for (j, acc) in accs.iter_mut().enumerate() {
            let u = rand(H, 32 + (10 * j + k) as u64, -1.0, 1.0);
            let v = rand(I, 132 + (10 * j + k) as u64, -1.0, 1.0);
            dot_vjp_lhs(&u, &m, &v).defer(outers.term(j, k), acc);
            pairs[j].push((u, v));
        }
    }
    assert!(accs.iter().all(|a| *a == zero), "all kept");
    for (j, acc) in accs.into_iter().enumerate() {
        close(
            &add_outers(acc, &mut outers, j),
            &rank_ones(&pairs[j], H, I),
        );
    }
}
