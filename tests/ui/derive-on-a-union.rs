use backprop::prelude::*;

#[derive(Clone, Copy, Differentiable)]
union Bits {
    x: f64,
    n: u64,
}

fn main() {}
