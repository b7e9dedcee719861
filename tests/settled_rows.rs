//! Settled rows: a loop that writes the rows of a buffer in order reads the
//! rows it read and wrote back from the buffer it leaves behind, instead of
//! keeping them per iteration (`backprop-codegen/src/plan/settled.rs`).
//! Each function is compiled twice, as planned and `without(settled_rows)`
//! (every row kept): the two give the same value and gradient bit for bit,
//! and the gradient passes central differences.

use backprop::prelude::*;
use backprop_testkit::random;

macro_rules! programs {
    ($($args:tt)*) => {
        use backprop::prelude::*;

        /// A second-order recurrence: rows `t - 1` and `t` read, `t + 1`
        /// written.
        #[differentiable(wrt(w, u) $($args)*)]
        pub fn second_order(w: &Array2<f64>, u: &Array2<f64>, xs: &Array2<f64>) -> f64 {
            let (t_max, n) = xs.dim();
            let mut h = Array2::<f64>::zeros((t_max + 1, n));
            h.row_mut(0).assign(&xs.row(0));
            for t in 1..t_max {
                let next = (w.dot(&h.row(t)) + u.dot(&h.row(t - 1)) + xs.row(t)).tanh();
                h.row_mut(t + 1).assign(&next);
            }
            (&h * &h).sum()
        }

        /// A vector of one element, broadcast over the row it is written
        /// into, and read by its rule (`tanh`) and by a product.
        #[differentiable(wrt(a) $($args)*)]
        pub fn broadcast(a: &Array2<f64>, xs: &Array2<f64>) -> f64 {
            let (t_max, n) = xs.dim();
            let mut h = Array2::<f64>::zeros((t_max + 1, n));
            let mut loss = 0.0;
            for t in 0..t_max {
                let s = (a.dot(&h.row(t)) + xs.row(t).sum()).tanh();
                h.row_mut(t + 1).assign(&s);
                loss += s.dot(&s);
            }
            loss + h.sum()
        }

        /// Two rows written per step: the one at `t + 2` is written over
        /// by the next step, the one at `t + 1` is not.
        #[differentiable(wrt(w) $($args)*)]
        pub fn two_writes(w: &Array2<f64>, xs: &Array2<f64>) -> f64 {
            let (t_max, n) = xs.dim();
            let mut h = Array2::<f64>::zeros((t_max + 2, n));
            for t in 0..t_max {
                let a = (w.dot(&h.row(t)) + xs.row(t)).tanh();
                let b = (w.dot(&a) - xs.row(t)).tanh();
                h.row_mut(t + 2).assign(&a);
                h.row_mut(t + 1).assign(&b);
            }
            (&h * &h).sum()
        }

        /// A write after the loop, into a copy of its buffer.
        #[differentiable(wrt(w) $($args)*)]
        pub fn written_after(w: &Array2<f64>, xs: &Array2<f64>) -> f64 {
            let (t_max, n) = xs.dim();
            let mut h = Array2::<f64>::zeros((t_max + 1, n));
            for t in 0..t_max {
                let next = (w.dot(&h.row(t)) + xs.row(t)).tanh();
                h.row_mut(t + 1).assign(&next);
            }
            let r = &h.row(2) * 3.0;
            h.row_mut(1).assign(&r);
            (&h * &h).sum()
        }
    };
}

#[allow(dead_code, reason = "the generated `NAME_vjp`s are not called here")]
mod planned {
    programs!();
}

#[allow(dead_code, reason = "the generated `NAME_vjp`s are not called here")]
mod kept {
    programs!(, without(settled_rows));
}

/// The value and gradient of both forms, bit for bit.
fn same<G: backprop::Gradient, H: backprop::Gradient>(a: (f64, G), b: (f64, H)) {
    assert_eq!(a.0.to_bits(), b.0.to_bits(), "the values differ");
    fn bits(g: &impl backprop::Gradient) -> Vec<Vec<u64>> {
        g.fields()
            .into_iter()
            .map(|(_, v)| v.iter().map(|x| x.to_bits()).collect())
            .collect()
    }
    assert_eq!(bits(&a.1), bits(&b.1), "the gradients differ");
}

#[test]
fn a_second_order_recurrence_reads_two_settled_rows() {
    let mut seed = 5;
    let (w, u) = (
        random((3, 3), &mut seed) * 0.5,
        random((3, 3), &mut seed) * 0.5,
    );
    let xs = random((6, 3), &mut seed);
    let (v, g) = planned::second_order_backward(&w, &u, &xs, 1.0);
    assert_eq!(v, planned::second_order(&w, &u, &xs));
    same((v, g), kept::second_order_backward(&w, &u, &xs, 1.0));
    gradcheck(&(w, u), |(w, u)| {
        planned::second_order_backward(w, u, &xs, 1.0)
    })
    .unwrap();
}

#[test]
fn a_vector_of_one_element_broadcast_into_a_row() {
    let mut seed = 9;
    let a = random((1, 4), &mut seed);
    let xs = random((5, 4), &mut seed) * 0.3;
    let (v, g) = planned::broadcast_backward(&a, &xs, 1.0);
    assert_eq!(v, planned::broadcast(&a, &xs));
    same((v, g), kept::broadcast_backward(&a, &xs, 1.0));
    gradcheck(&(a,), |(a,)| planned::broadcast_backward(a, &xs, 1.0)).unwrap();
}

#[test]
fn a_row_written_over_by_the_next_step_is_kept() {
    let mut seed = 13;
    let w = random((3, 3), &mut seed) * 0.5;
    let xs = random((5, 3), &mut seed);
    let (v, g) = planned::two_writes_backward(&w, &xs, 1.0);
    assert_eq!(v, planned::two_writes(&w, &xs));
    same((v, g), kept::two_writes_backward(&w, &xs, 1.0));
    gradcheck(&(w,), |(w,)| planned::two_writes_backward(w, &xs, 1.0)).unwrap();
}

#[test]
fn a_write_after_the_loop_leaves_its_rows() {
    let mut seed = 17;
    let w = random((3, 3), &mut seed) * 0.5;
    let xs = random((4, 3), &mut seed);
    let (v, g) = planned::written_after_backward(&w, &xs, 1.0);
    assert_eq!(v, planned::written_after(&w, &xs));
    same((v, g), kept::written_after_backward(&w, &xs, 1.0));
    gradcheck(&(w,), |(w,)| planned::written_after_backward(w, &xs, 1.0)).unwrap();
}
