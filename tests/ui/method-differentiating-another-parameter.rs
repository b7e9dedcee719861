use backprop::prelude::*;

#[derive(Clone, Debug, Differentiable)]
struct Model { w: Array1<f64> }

impl Model {
    #[differentiable(wrt(self, x))]
    fn loss(&self, x: &Array1<f64>) -> f64 {
        self.w.dot(x)
    }
}

fn main() {}
