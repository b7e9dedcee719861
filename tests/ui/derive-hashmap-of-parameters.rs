use backprop::prelude::*;
use std::collections::HashMap;

#[derive(Clone, Debug, Differentiable)]
struct Embeddings {
    vectors: HashMap<String, Array1<f64>>,
    vocab: HashMap<String, usize>,
}

fn main() {}
