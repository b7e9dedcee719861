//! Prints the `_backward` that `#[differentiable]` writes for the benchmarked
//! functions (two heads, MLP, broadcast subtraction and the RNN), to read
//! beside the numbers:
//! `cargo run --release --example show_expansion`.

const SOURCE: &str = r#"
#[differentiable(wrt(w1, b1, w2, b2, v, c))]
pub fn two_heads(w1: &Array2<f64>, b1: &Array1<f64>, w2: &Array2<f64>, b2: &Array1<f64>,
                 v: &Array2<f64>, c: &Array1<f64>, x: &Array2<f64>, labels: &[usize],
                 y: &Array2<f64>) -> f64 {
    let a1 = relu(&(x.dot(&w1.t()) + b1));
    let loss_a = softmax_cross_entropy(&(a1.dot(&w2.t()) + b2), labels);
    let loss_b = mse(&(a1.dot(&v.t()) + c), y);
    loss_a + loss_b
}

#[differentiable(wrt(w1, b1, w2, b2))]
pub fn mlp(w1: &Array2<f64>, b1: &Array1<f64>, w2: &Array2<f64>, b2: &Array1<f64>,
           x: &Array2<f64>, labels: &[usize]) -> f64 {
    let h = relu(&(x.dot(w1) + b1));
    let logits = h.dot(w2) + b2;
    softmax_cross_entropy(&logits, labels)
}

#[differentiable]
pub fn broadcast_sub_sq(a: &Array2<f64>, b: &Array2<f64>) -> f64 {
    let c = a - b;
    sum(&(&c * &c))
}

#[differentiable(wrt(w, u, b, v))]
pub fn rnn(w: &Array2<f64>, u: &Array2<f64>, b: &Array1<f64>, v: &Array1<f64>,
           h0: &Array1<f64>, xs: &Array2<f64>, ys: &Array1<f64>) -> f64 {
    let mut h = h0.to_owned();
    let mut loss = 0.0;
    for t in 0..xs.nrows() {
        h = tanh(&(w.dot(&h) + u.dot(&xs.row(t)) + b));
        let pred = v.dot(&h);
        loss += (pred - ys[t]).powi(2);
    }
    loss
}
"#;

fn main() {
    match backprop_codegen::pretty_backward(SOURCE) {
        Ok(code) => println!("{code}"),
        Err(e) => eprintln!("expansion failed: {e}"),
    }
}
