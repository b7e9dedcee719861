//! Prints the `_backward` that `#[differentiable]` writes for the benchmarked
//! functions (the reference networks and the broadcast subtraction), to read
//! beside the numbers:
//! `cargo run --release --example show_expansion`.

const SOURCES: [&str; 2] = [
    include_str!("../../backprop-testkit/src/networks.rs"),
    include_str!("../src/bsub.rs"),
];

fn main() {
    for source in SOURCES {
        match backprop_codegen::pretty_backward(source) {
            Ok(code) => println!("{code}"),
            Err(e) => eprintln!("expansion failed: {e}"),
        }
    }
}
