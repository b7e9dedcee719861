//! The examples, run as a user runs them (`cargo run --example NAME -- ..`)
//! with a small budget, and their printed results checked.
//!
//! Each example gradchecks its own `#[differentiable]` functions before it uses
//! them, so a run that gets here has passed those checks too.

use std::path::PathBuf;
use std::process::Command;

/// Runs `cargo run --example name -- args` in the dev profile (the one
/// `cargo test` has just built the dependencies in) and returns its stdout.
fn run_example(name: &str, args: &[&str]) -> String {
    run_example_with(name, &[], args)
}

/// The same, with the crate's `features` on.
fn run_example_with(name: &str, features: &[&str], args: &[&str]) -> String {
    let features = features.join(",");
    let output = Command::new(env!("CARGO"))
        .args([
            "run",
            "--quiet",
            "--features",
            &features,
            "--example",
            name,
            "--",
        ])
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("cargo runs");
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    assert!(
        output.status.success(),
        "example {name} failed ({}):\n{stdout}\n{}",
        output.status,
        String::from_utf8_lossy(&output.stderr)
    );
    stdout
}

/// The number that follows `key` on the first line of `stdout` that starts
/// with `line_start` (`key` may be empty: the number right after `line_start`).
fn number(stdout: &str, line_start: &str, key: &str) -> f64 {
    let line = stdout
        .lines()
        .find_map(|l| l.strip_prefix(line_start))
        .unwrap_or_else(|| panic!("no line starting with {line_start:?} in:\n{stdout}"));
    let (_, rest) = line
        .split_once(key)
        .unwrap_or_else(|| panic!("no {key:?} after {line_start:?} in:\n{stdout}"));
    let word = rest
        .trim_start()
        .split(|c: char| c.is_whitespace() || c == ',')
        .next()
        .unwrap_or_default();
    word.parse().unwrap_or_else(|e| {
        panic!("{word:?} after {line_start:?}{key:?} is not a number ({e}):\n{stdout}")
    })
}

#[test]
fn two_moons_reaches_97_percent_held_out_and_writes_the_picture() {
    let out: PathBuf =
        std::env::temp_dir().join(format!("backprop-two-moons-{}.png", std::process::id()));
    let _ = std::fs::remove_file(&out);
    let stdout = run_example(
        "two_moons",
        &[
            "--epochs",
            "500",
            "--out",
            out.to_str().expect("a UTF-8 temp path"),
        ],
    );
    let held_out = number(&stdout, "held-out accuracy:", "");
    let training = number(&stdout, "training accuracy:", "");
    assert!(held_out >= 0.97, "held-out accuracy {held_out}:\n{stdout}");
    assert!(training >= 0.97, "training accuracy {training}:\n{stdout}");
    let png = std::fs::read(&out).expect("two_moons wrote its picture");
    std::fs::remove_file(&out).ok();
    assert!(png.len() > 1000, "a {}-byte picture", png.len());
    assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n", "the picture is a PNG");
}

/// The solver line `"{problem}: {solver} stopped after"`: its iterations,
/// and the number after `key`.
fn solver_line(stdout: &str, problem: &str, solver: &str, key: &str) -> (f64, f64) {
    let start = format!("{problem}: {solver} stopped after");
    (number(stdout, &start, ""), number(stdout, &start, key))
}

#[test]
fn argmin_solvers_on_functions_over_slices() {
    let stdout = run_example_with("rosenbrock", &["argmin"], &[]);
    // L-BFGS on gradients: the global minimum, in 2 and 10 dimensions.
    for n in ["rosenbrock n=2", "rosenbrock n=10"] {
        let (iterations, error) = solver_line(&stdout, n, "L-BFGS", "max |x - 1|");
        assert!(iterations < 200.0 && error <= 1e-6, "{n}:\n{stdout}");
        let (_, cost) = solver_line(&stdout, n, "L-BFGS", "cost");
        assert!(cost < 1e-12, "{n}:\n{stdout}");
    }
    // The trust region on Hessian-vector products, in 2.
    let (_, error) = solver_line(&stdout, "rosenbrock n=2", "trust region", "max |x - 1|");
    assert!(error <= 1e-6, "{stdout}");
    assert!(
        stdout.contains("the Hessian at (1, 1) is [[802.0, -400.0], [-400.0, 200.0]]"),
        "{stdout}"
    );
    // The three agree on the logistic regression; Newton-CG converges.
    let (lbfgs, cost) = solver_line(&stdout, "logistic", "L-BFGS", "final cost");
    let (newton, newton_cost) = solver_line(&stdout, "logistic", "Newton-CG", "final cost");
    let (_, trust_cost) = solver_line(&stdout, "logistic", "trust region", "final cost");
    assert!(lbfgs < 100.0 && newton < 100.0, "{stdout}");
    assert!(
        (cost - newton_cost).abs() < 1e-6 && (cost - trust_cost).abs() < 1e-6,
        "{stdout}"
    );
    let accuracy = solver_line(&stdout, "logistic", "Newton-CG", "accuracy").1;
    assert!(
        accuracy > 0.8,
        "logistic regression accuracy {accuracy}:\n{stdout}"
    );
}

#[test]
fn inspect_shows_the_sum_at_the_fork() {
    let stdout = run_example("inspect", &[]);
    assert!(stdout.contains("pub fn two_heads_backward("), "{stdout}");
    let fork = stdout
        .lines()
        .map(str::trim)
        .find(|l| l.starts_with("let d_a1 ="))
        .unwrap_or_else(|| panic!("no `let d_a1 =` in:\n{stdout}"));
    // Two uses, two contributions: the first head's, named, and the second
    // head's product added into it.
    assert!(
        fork.contains(".added_to(d_a1_from_loss_b_2)"),
        "the fork does not sum the two heads: {fork}"
    );
    assert_eq!(fork.matches("d_a1_from").count(), 1, "{fork}");
    assert!(stdout.contains("loss 3.563"), "{stdout}");
}

#[test]
fn generic_model_trains_in_f32_and_f64() {
    let stdout = run_example("generic_model", &[]);
    let last64 = number(&stdout, "f64: loss", "->");
    let last32 = number(&stdout, "f32: loss", "->");
    assert!(last64 < 1e-3, "f64 loss {last64}:\n{stdout}");
    assert!(last32 < 1e-3, "f32 loss {last32}:\n{stdout}");
    let gap = number(&stdout, "largest difference", "weights:");
    assert!(gap < 1e-3, "the two precisions differ by {gap}:\n{stdout}");
}
