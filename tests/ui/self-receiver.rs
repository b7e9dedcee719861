use backprop::prelude::*;

struct Model { w: f64 }

impl Model {
    #[differentiable]
    fn loss(&self, x: f64) -> f64 { self.w * x }
}

fn main() {}
