use backprop::prelude::*;

#[derive(Clone, Debug, Differentiable)]
struct Layer<'a> {
    w: &'a Array2<f64>,
    b: Array1<f64>,
    scale: std::rc::Rc<f64>,
}

fn main() {}
