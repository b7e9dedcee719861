// A model in a struct and a differentiable method: `self`'s fields are read
// like any value (`layer.w` of `for layer in &self.layers` is
// `self.layers[k].w`), a constant field drives a loop, and the gradient is
// a value of `Self`, each field read adding into its place.
use backprop::prelude::*;

#[derive(Clone, Debug, Differentiable)]
pub struct Dense {
    pub w: Array2<f64>,
    pub b: Array1<f64>,
}

#[derive(Clone, Debug, Differentiable)]
pub struct Net {
    pub layers: Vec<Dense>,
    pub scale: f64,
}

impl Net {
    #[differentiable]
    pub fn loss(&self, x: &Array2<f64>, labels: &[usize]) -> f64 {
        let mut h = x.to_owned();
        for layer in &self.layers {
            h = (h.dot(&layer.w) + &layer.b).tanh();
        }
        softmax_cross_entropy(&(h * self.scale), labels)
    }
}
