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
    let output = Command::new(env!("CARGO"))
        .args(["run", "--quiet", "--example", name, "--"])
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

#[test]
fn rosenbrock_lbfgs_finds_the_minimum() {
    let stdout = run_example("rosenbrock", &[]);
    let x = number(&stdout, "rosenbrock: minimum at", "x =");
    let y = number(&stdout, "rosenbrock: minimum at", "y =");
    assert!((x - 1.0).abs() <= 1e-6, "x = {x}:\n{stdout}");
    assert!((y - 1.0).abs() <= 1e-6, "y = {y}:\n{stdout}");
    let iterations = number(&stdout, "rosenbrock: L-BFGS", "stopped after");
    assert!(iterations < 200.0, "{iterations} iterations:\n{stdout}");
    let cost = number(&stdout, "rosenbrock: minimum at", "cost");
    assert!(cost < 1e-12, "cost {cost}:\n{stdout}");
    let accuracy = number(&stdout, "logistic: training accuracy", "");
    assert!(
        accuracy > 0.8,
        "logistic regression accuracy {accuracy}:\n{stdout}"
    );
    // Newton-CG on `_hvp` reaches the same minima in fewer iterations.
    let x = number(&stdout, "rosenbrock: Newton-CG minimum at", "x =");
    let y = number(&stdout, "rosenbrock: Newton-CG minimum at", "y =");
    assert!(
        (x - 1.0).abs() <= 1e-6 && (y - 1.0).abs() <= 1e-6,
        "{stdout}"
    );
    let newton = number(&stdout, "rosenbrock: Newton-CG from", "stopped after");
    assert!(
        newton < iterations,
        "{newton} against {iterations}:\n{stdout}"
    );
    let lbfgs = number(&stdout, "logistic: L-BFGS", "stopped after");
    let newton = number(&stdout, "logistic: Newton-CG", "stopped after");
    assert!(newton < lbfgs, "{newton} against {lbfgs}:\n{stdout}");
    let cost = number(&stdout, "logistic: L-BFGS", "final cost");
    let newton_cost = number(&stdout, "logistic: Newton-CG", "final cost");
    assert!((cost - newton_cost).abs() < 1e-6, "{stdout}");
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
