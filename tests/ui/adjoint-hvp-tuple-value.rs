use backprop::prelude::*;

fn polar<T: backprop::Float>(x: T, y: T) -> (T, T) {
    (x.hypot(y), y.atan2(x))
}

#[adjoint(polar, hvp)]
fn polar_adjoint<T: backprop::Float>(x: T, y: T, d_out: (T, T)) -> (T, T) {
    let r2 = x * x + y * y;
    let r = r2.sqrt();
    (d_out.0 * x / r - d_out.1 * y / r2, d_out.0 * y / r + d_out.1 * x / r2)
}

fn main() {}
