use backprop::prelude::*;

#[derive(Clone, Debug)]
struct Layer {
    w: Array2<f64>,
}
fn grad(layer: &Layer) -> (f64, Layer) {
    backprop::parallel::sum(8, |_rows| (1.0, layer.clone()))
}
fn main() {}
