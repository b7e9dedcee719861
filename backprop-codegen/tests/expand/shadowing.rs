// Shadowing, a nested block, a value used three times and an unused parameter.
use backprop::prelude::*;

#[differentiable]
pub fn shadow(x: f64, _unused: f64) -> f64 {
    let x = x * 2.0;
    let y = {
        let x = x + 1.0;
        x * x * x
    };
    y / x
}
