//! Nested loops: a loop in a loop body adds the gradients of what it
//! captures into the enclosing loop's accumulators, and takes over the
//! buffer of a carried state it starts from
//! (`backprop-codegen/src/plan/nested.rs`). Each function is compiled as
//! planned and `without(nested_loops)`: the same value bit for bit, the
//! same gradient up to the order of its sums (1e-12 relative), and the
//! gradient passes central differences.

use backprop::prelude::*;
use backprop_testkit::random;

macro_rules! programs {
    ($($args:tt)*) => {
        use backprop::prelude::*;

        /// ADBench's LSTM in small: three loops, a state written element by
        /// element, weights read by the innermost.
        #[differentiable(wrt(m, e) $($args)*)]
        pub fn stack(m: &Array2<f64>, e: &Array1<f64>, state: &Array2<f64>, xs: &Array2<f64>) -> f64 {
            let layers = m.nrows() / 2;
            let (c, b) = xs.dim();
            let mut state = state.to_owned();
            let mut total = 0.0;
            for t in 0..c {
                for j in 0..b {
                    let mut input = xs[[t, j]] * e[j];
                    for k in 0..layers {
                        let cell = (state[[2 * k + 1, j]] * m[[2 * k, j]] + input).tanh();
                        let hidden = cell * m[[2 * k + 1, j]];
                        state[[2 * k + 1, j]] = cell;
                        state[[2 * k, j]] = hidden;
                        input = hidden;
                    }
                    total += input * input;
                }
            }
            total
        }

        /// A scalar weight, and a state that the outer loop also reads.
        #[differentiable(wrt(a, x) $($args)*)]
        pub fn scalar_weight(a: f64, x: &Array1<f64>) -> f64 {
            let mut y = x.to_owned();
            let mut total = 0.0;
            for _t in 0..3 {
                total += (&y * &y).sum();
                for i in 0..y.len() {
                    y[i] = (y[i] * a).sin() + a;
                }
            }
            total + y.sum()
        }
    };
}

#[allow(dead_code, reason = "the generated `NAME_vjp`s are not called here")]
mod planned {
    programs!();
}

#[allow(dead_code, reason = "the generated `NAME_vjp`s are not called here")]
mod separate {
    programs!(, without(nested_loops));
}

/// The same value, and gradients within 1e-12 relative.
fn close<G: backprop::Gradient, H: backprop::Gradient>(a: (f64, G), b: (f64, H)) {
    assert_eq!(a.0.to_bits(), b.0.to_bits(), "the values differ");
    for ((_, x), (_, y)) in a.1.fields().into_iter().zip(b.1.fields()) {
        for (x, y) in x.iter().zip(&y) {
            assert!(
                (x - y).abs() <= 1e-12 * x.abs().max(y.abs()).max(1.0),
                "{x} {y}"
            );
        }
    }
}

#[test]
fn an_lstm_stack_accumulates_into_one_gradient() {
    let mut seed = 3;
    let (m, e) = (random((4, 3), &mut seed), random(3, &mut seed));
    let state = random((4, 3), &mut seed);
    let xs = random((5, 3), &mut seed);
    let (v, g) = planned::stack_backward(&m, &e, &state, &xs, 1.0);
    assert_eq!(v, planned::stack(&m, &e, &state, &xs));
    close((v, g), separate::stack_backward(&m, &e, &state, &xs, 1.0));
    gradcheck(&(m, e), |(m, e)| {
        planned::stack_backward(m, e, &state, &xs, 1.0)
    })
    .unwrap();
}

#[test]
fn a_scalar_weight_through_nested_loops() {
    let mut seed = 7;
    let x = random(4, &mut seed);
    let (v, g) = planned::scalar_weight_backward(0.7, &x, 1.0);
    assert_eq!(v, planned::scalar_weight(0.7, &x));
    close((v, g), separate::scalar_weight_backward(0.7, &x, 1.0));
    gradcheck(&(0.7, x), |(a, x)| {
        planned::scalar_weight_backward(*a, x, 1.0)
    })
    .unwrap();
}
