//! The GradBench tool: answers GradBench's messages on standard input, one
//! response a line on standard output, until the input ends.

use std::io;
use std::process::ExitCode;

fn main() -> ExitCode {
    let stdin = io::stdin().lock();
    let stdout = io::stdout().lock();
    match backprop_gradbench::protocol::serve(stdin, stdout) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("backprop-gradbench: {e}");
            ExitCode::FAILURE
        }
    }
}
