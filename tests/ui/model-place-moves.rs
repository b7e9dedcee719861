use backprop::prelude::*;

#[derive(Clone, Debug, Differentiable)]
struct Dense {
    w: Array2<f64>,
    b: Array1<f64>,
}

#[derive(Clone, Debug, Differentiable)]
struct Stack {
    layers: Vec<Dense>,
}

impl Stack {
    #[differentiable]
    fn moved(&self) -> f64 {
        let mut j = 0;
        let layer = &self.layers[j];
        j += 1;
        layer.b.sum() * j as f64
    }

    #[differentiable]
    fn bound_again(&self) -> f64 {
        let layer = &self.layers[0];
        let s = layer.b.sum();
        let layer = 2.0;
        s * layer
    }
}

fn main() {}
