use backprop::prelude::*;

#[derive(Clone, Debug, Differentiable)]
struct Line<T: backprop::Float> {
    w: Array1<T>,
}

impl Line<f64> {
    #[differentiable(hvp, wrt(self))]
    fn loss(&self, x: &Array1<f64>) -> f64 {
        self.w.dot(x).powi(2)
    }
}

fn main() {}
