//! The matrix-vector products of the runtime read the matrix as slices
//! instead of through ndarray's row views; their values must be ndarray's
//! bit for bit, in every shape and layout, for the forward values and for
//! the adjoints that promise ndarray's bits.

mod common;

use backprop_runtime::ops::*;
use backprop_runtime::steps::Spare;
use common::rand;
use ndarray::{s, Array1, Array2, ShapeBuilder};

fn bits1(a: &Array1<f64>) -> Vec<u64> {
    a.iter().map(|x| x.to_bits()).collect()
}

/// Numbers over sixteen orders of magnitude, so that any other order of
/// summation shows in the last bits, and some signed zeros.
fn wild(shape: (usize, usize), seed: u64, f: bool) -> Array2<f64> {
    let scale = rand(shape, seed + 1, -8.0, 8.0);
    let base = rand(shape, seed, -1.0, 1.0);
    let vals: Vec<f64> = base
        .iter()
        .zip(&scale)
        .enumerate()
        .map(|(i, (b, e))| {
            if i % 11 == 3 {
                -0.0
            } else {
                b * 10f64.powf(e.round())
            }
        })
        .collect();
    if f {
        let mut m = Array2::zeros(shape.f());
        m.assign(&Array2::from_shape_vec(shape, vals).unwrap());
        m
    } else {
        Array2::from_shape_vec(shape, vals).unwrap()
    }
}

fn wild1(n: usize, seed: u64) -> Array1<f64> {
    wild((1, n), seed, false).row(0).to_owned()
}

#[test]
fn matrix_vector_products_have_ndarrays_bits() {
    for rows in [0, 1, 2, 3, 7, 8, 9, 16, 17, 40, 65, 70] {
        for k in [0, 1, 2, 7, 8, 9, 15, 16, 17, 33] {
            for f in [false, true] {
                let seed = (rows * 100 + k) as u64;
                let m = wild((rows, k), seed, f);
                let x = wild1(k, seed + 7);
                let y0 = wild1(rows, seed + 9);
                let want = m.dot(&x);
                let what = format!("{rows} × {k}, column-major {f}");
                assert_eq!(bits1(&dot(&m, &x)), bits1(&want), "dot {what}");
                // Into a spare buffer, and added into a vector (β = 1).
                let mut spare = Spare::new();
                spare.put(Array1::<f64>::ones(rows));
                assert_eq!(
                    bits1(&dot_reuse(&mut spare, &m, &x)),
                    bits1(&want),
                    "reuse {what}"
                );
                let (sum, _) = add_dot(y0.clone(), &m, &x);
                assert_eq!(bits1(&sum), bits1(&(&y0 + &want)), "add {what}");
                // The vector-matrix forms read the transpose.
                let v = wild1(rows, seed + 11);
                assert_eq!(bits1(&dot(&v, &m)), bits1(&v.dot(&m)), "v·m {what}");
                // The adjoints: mᵀ g added into an accumulator, and m · g.
                let g = wild1(rows, seed + 13);
                let mut acc = wild1(k, seed + 15);
                let want_acc = &acc + &m.t().dot(&g);
                dot_vjp_rhs(&g, &m, &x).add_to(&mut acc);
                assert_eq!(bits1(&acc), bits1(&want_acc), "∂x += mᵀ g {what}");
                let gk = wild1(k, seed + 17);
                let mut acc = wild1(rows, seed + 19);
                let want_acc = &acc + &m.dot(&gk);
                dot_vjp_lhs(&gk, &v, &m).add_to(&mut acc);
                assert_eq!(bits1(&acc), bits1(&want_acc), "∂v += m g {what}");
                if rows == k {
                    // A square weight's ∂h = mᵀ g, written into g's buffer.
                    let got = dot_vjp_rhs(g.clone(), &m, &x).value();
                    assert_eq!(bits1(&got), bits1(&m.t().dot(&g)), "mᵀ g {what}");
                }
            }
        }
    }
}

/// Views that are neither layout (every other column, a strided vector) go
/// to ndarray, with its bits too.
#[test]
fn other_layouts_are_ndarrays() {
    let big = wild((9, 20), 5, false);
    let m = big.slice(s![.., ..;2]);
    let xs = wild1(20, 6);
    let x = xs.slice(s![..;2]);
    assert_eq!(bits1(&dot(&m, &x)), bits1(&m.dot(&x)));
    let v = wild1(9, 7);
    assert_eq!(bits1(&dot(&v, &m)), bits1(&v.dot(&m)));
    let acc = wild1(9, 8);
    let want = &acc + &m.dot(&x);
    let (sum, _) = add_dot(acc, &m, &x);
    assert_eq!(bits1(&sum), bits1(&want));
}
