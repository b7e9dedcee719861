//! Print the code `#[differentiable]` writes, for a reader without `cargo expand`.
//!
//! ```text
//! cargo run --example inspect
//! ```
//!
//! The function is the two-head network of the fork-rule lesson
//! (`examples/inspect/two_heads.rs`): `a1` is used by both heads, so its
//! adjoint is the sum of exactly two contributions: the first head's is
//! written as `d_a1_from_loss_b_2`, and the second head's product adds its own
//! into that buffer (`let d_a1 = bp::dot_vjp_lhs_add(d_a1_from_loss_b_2, ..)`,
//! as a hand-written backward would with a matrix product that accumulates).
//! The same file is compiled as a module here, so the
//! printed source is the one that builds, and the lesson's numbers are printed
//! from it after the code.

mod two_heads;

use backprop::prelude::*;
use two_heads::{two_heads, two_heads_backward};

/// The source text of `two_heads.rs`, as the macro sees it.
const SOURCE: &str = include_str!("two_heads.rs");

fn main() {
    let code = match backprop_codegen::pretty_backward(SOURCE) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("two_heads.rs does not expand: {e}");
            std::process::exit(1);
        }
    };
    println!("// The generated backward of examples/inspect/two_heads.rs:\n");
    println!("{code}");

    // The lesson's network, at its worked numbers.
    let w1 = array![[1.0, -0.5], [-0.5, 1.0]];
    let b1 = array![0.5, -0.5];
    let w2 = array![[1.0, 1.0], [-1.0, 0.5]];
    let b2 = array![-0.5, 0.0];
    let v = array![[1.0, -1.0]];
    let c = array![0.0];
    let x = array![[1.0, 2.0]];
    let labels = [1];
    let y = array![[1.0]];
    let (loss, g) = two_heads_backward(&w1, &b1, &w2, &b2, &v, &c, &x, &labels, &y, 1.0);
    assert_eq!(loss, two_heads(&w1, &b1, &w2, &b2, &v, &c, &x, &labels, &y));
    let params = (w1, b1, w2, b2, v, c);
    gradcheck(&params, |(w1, b1, w2, b2, v, c)| {
        two_heads_backward(w1, b1, w2, b2, v, c, &x, &labels, &y, 1.0)
    })
    .expect("two_heads_backward agrees with central differences");
    println!("// At the lesson's numbers: loss {loss:.3}");
    println!("// d_w1 = {}", format!("{:.3}", g.w1).replace('\n', ""));
    println!("// d_b1 = {:.3} (the sum at the fork, through relu)", g.b1);
}
