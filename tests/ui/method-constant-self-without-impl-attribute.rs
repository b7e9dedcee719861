use backprop::prelude::*;

pub struct Fit {
    xs: Vec<f64>,
}

impl Fit {
    #[differentiable(wrt(w))]
    fn loss(&self, w: f64) -> f64 {
        self.xs.iter().map(|x| (w * x).powi(2)).sum::<f64>()
    }
}

fn main() {}
