use backprop::prelude::*;

#[differentiable]
fn rows(m: [[f64; 2]; 2]) -> f64 {
    let mut s = 0.0;
    for r in m.iter() {
        s += r[0] * r[1];
    }
    s + m.len() as f64
}

#[differentiable]
fn table(x: f64) -> f64 {
    let c = [[1.0, 2.0], [3.0, 4.0]];
    x * c[1][0] + c.len() as f64
}

fn main() {}
