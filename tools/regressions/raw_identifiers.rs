//! Regression (found by tools/gen_fuzz_programs.py --raw-idents): raw
//! identifiers as parameter or local names make the macro panic
//! (`"d_r#type" is not a valid Ident`, `"r#loop" is not a valid Ident`):
//! the emitter builds its names with `Ident::new` from the raw spelling.
//! Checked by tests/fuzz_regressions.rs (and, on `expand` directly, by
//! backprop-codegen/tests/no_panic.rs `raw_identifiers`).
use backprop::prelude::*;

#[differentiable]
fn scaled(r#type: f64, y: f64) -> f64 {
    let r#loop = r#type * y;
    r#loop * r#loop + r#type
}

fn main() {
    let (v, grad) = scaled_backward(2.0, 3.0, 1.0);
    assert_eq!(v, scaled(2.0, 3.0));
    assert_eq!(grad.r#type, 2.0 * 6.0 * 3.0 + 1.0);
    assert_eq!(grad.y, 2.0 * 6.0 * 2.0);
}
