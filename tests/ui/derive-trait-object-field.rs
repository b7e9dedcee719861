use backprop::prelude::*;

#[derive(Clone, Debug, Differentiable)]
struct Layer {
    w: Array2<f64>,
    act: Box<dyn Activation>,
}
trait Activation: std::fmt::Debug { fn boxed(&self) -> Box<dyn Activation>; }
impl Clone for Box<dyn Activation> { fn clone(&self) -> Self { self.boxed() } }
fn main() {}
