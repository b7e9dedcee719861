//! The protocol of GradBench's CONTRIBUTING.md on small sessions: every
//! message gets one response with its id, `evaluate` outputs the manual
//! tool's layout and one `evaluate` timing per run, and malformed input
//! gets an error response while the session goes on.

use std::io::Write;
use std::process::{Command, Stdio};

use backprop_gradbench::evals::Output;
use backprop_gradbench::protocol::{respond, serve, time_runs, Runs};
use serde_json::{json, Value};

fn ask(message: Value) -> Value {
    respond(&message.to_string())
}

fn evaluate(module: &str, function: &str, input: Value) -> Value {
    ask(
        json!({ "id": 7, "kind": "evaluate", "module": module, "function": function, "input": input }),
    )
}

fn error_of(response: &Value) -> &str {
    assert_eq!(response["success"], false, "{response}");
    response["error"].as_str().expect("an error message")
}

fn evaluate_timings(response: &Value) -> usize {
    let timings = response["timings"].as_array().expect("timings");
    for t in timings {
        assert!(t["nanoseconds"].is_u64(), "{t}");
    }
    timings.iter().filter(|t| t["name"] == "evaluate").count()
}

#[test]
fn start_define_and_other_kinds() {
    assert_eq!(
        ask(json!({ "id": 0, "kind": "start", "eval": "hello" })),
        json!({ "id": 0, "tool": "backprop" })
    );
    assert_eq!(
        ask(json!({ "id": 1, "kind": "define", "module": "hello" })),
        json!({ "id": 1, "success": true })
    );
    for module in [
        "ba", "det", "gmm", "ht", "kmeans", "llsq", "lse", "lstm", "ode", "particle", "saddle",
    ] {
        assert_eq!(
            ask(json!({ "id": 2, "kind": "define", "module": module }))["success"],
            true
        );
    }
    let unknown = ask(json!({ "id": 3, "kind": "define", "module": "nonesuch" }));
    assert_eq!(unknown["id"], 3);
    assert!(error_of(&unknown).contains("nonesuch"));
    let ff = ask(
        json!({ "id": 5, "kind": "evaluate", "module": "particle", "function": "ff", "input": { "w": 0.0 } }),
    );
    assert!(
        (ff["output"].as_f64().unwrap() - 0.2071918746486116).abs() < 1e-12,
        "{ff}"
    );
    let w = evaluate("particle", "rr", json!({ "w": 0.0 }));
    assert!((w["output"].as_f64().unwrap() - 0.2071918746486116).abs() < 1e-12);
    let saddle = evaluate("saddle", "fr", json!({ "start": [1.0, 1.0] }));
    assert_eq!(saddle["output"].as_array().unwrap().len(), 4);
    assert_eq!(
        ask(json!({ "id": 4, "kind": "analysis", "of": 2, "valid": false, "error": "x" })),
        json!({ "id": 4 })
    );
}

#[test]
fn hello_round_trip() {
    let r = evaluate("hello", "square", json!(3.0));
    assert_eq!(
        (
            r["id"].as_u64(),
            r["success"].as_bool(),
            r["output"].as_f64()
        ),
        (Some(7), Some(true), Some(9.0))
    );
    assert_eq!(evaluate_timings(&r), 1);
    let r = evaluate("hello", "double", json!(9));
    assert_eq!(r["output"], json!(18.0));
}

#[test]
fn outputs_have_the_manual_tools_layout() {
    let r = evaluate(
        "lse",
        "primal",
        json!({ "x": [1.0, 2.0], "min_runs": 1, "min_seconds": 0 }),
    );
    assert!(r["output"].is_f64());
    let r = evaluate(
        "lse",
        "gradient",
        json!({ "x": [1.0, 2.0, 3.0], "min_runs": 1, "min_seconds": 0 }),
    );
    assert_eq!(r["output"].as_array().unwrap().len(), 3);
    let r = evaluate(
        "det",
        "gradient",
        json!({ "A": [1, 2, 3, 4], "ell": 2, "min_runs": 1, "min_seconds": 0 }),
    );
    assert_eq!(r["output"], json!([4.0, -3.0, -2.0, 1.0]));
    let r = evaluate(
        "ode",
        "primal",
        json!({ "x": [1.0, 2.0], "s": 2, "min_runs": 1, "min_seconds": 0 }),
    );
    assert_eq!(r["output"].as_array().unwrap().len(), 2);
    let r = evaluate(
        "llsq",
        "gradient",
        json!({ "x": [0.5, 0.5], "n": 4, "min_runs": 1, "min_seconds": 0 }),
    );
    assert_eq!(r["output"].as_array().unwrap().len(), 2);
    let r = evaluate(
        "kmeans",
        "cost",
        json!({ "points": [[0, 0], [3, 4]], "centroids": [[0, 0]], "min_runs": 1, "min_seconds": 0 }),
    );
    assert_eq!(r["output"], json!(25.0));
}

#[test]
fn min_runs_and_min_seconds_are_honoured() {
    let r = evaluate(
        "lse",
        "primal",
        json!({ "x": [1.0, 2.0], "min_runs": 5, "min_seconds": 0 }),
    );
    assert_eq!(evaluate_timings(&r), 5);
    // min_runs 0 still runs once: there must be an output.
    let r = evaluate(
        "lse",
        "primal",
        json!({ "x": [1.0], "min_runs": 0, "min_seconds": 0 }),
    );
    assert_eq!((evaluate_timings(&r), r["output"].as_f64()), (1, Some(1.0)));
    // min_seconds: runs until their times add up.
    let mut calls = 0;
    let mut f = || {
        calls += 1;
        std::thread::sleep(std::time::Duration::from_millis(2));
        let c = calls;
        Output::later(move || json!(c))
    };
    let (last, times) = time_runs(
        &mut f,
        Runs {
            min_runs: 1,
            min_seconds: 0.02,
        },
    );
    // It stops at the first run that brings the total to 0.02 s.
    let seconds: Vec<f64> = times.iter().map(|t| t.as_secs_f64()).collect();
    assert!(seconds.iter().sum::<f64>() >= 0.02);
    assert!(seconds[..seconds.len() - 1].iter().sum::<f64>() < 0.02);
    assert_eq!(last, json!(times.len()));
    // The output becomes JSON after the timing, once: a slow conversion
    // is not in the runs' times.
    let mut slow = || {
        Output::later(|| {
            std::thread::sleep(std::time::Duration::from_millis(50));
            json!(1.0)
        })
    };
    let (last, times) = time_runs(
        &mut slow,
        Runs {
            min_runs: 3,
            min_seconds: 0.0,
        },
    );
    assert_eq!((last, times.len()), (json!(1.0), 3));
    assert!(times.iter().all(|t| t.as_millis() < 50), "{times:?}");
    // As in GradBench's C++ harness (each run assigns its output over the
    // last), dropping an output is in the next run's time: a Jacobian's
    // unmapping is paid as `manual` pays it.
    struct SlowDrop;
    impl Drop for SlowDrop {
        fn drop(&mut self) {
            std::thread::sleep(std::time::Duration::from_millis(30));
        }
    }
    let mut dropped_slowly = || {
        let slow = SlowDrop;
        Output::later(move || {
            let _ = &slow;
            json!(2.0)
        })
    };
    let (last, times) = time_runs(
        &mut dropped_slowly,
        Runs {
            min_runs: 3,
            min_seconds: 0.0,
        },
    );
    assert_eq!((last, times.len()), (json!(2.0), 3));
    let ms: Vec<u128> = times.iter().map(|t| t.as_millis()).collect();
    assert!(ms[0] < 30 && ms[1] >= 30 && ms[2] >= 30, "{ms:?}");
    assert_eq!(
        Runs::of(&json!(3.0)),
        Ok(Runs {
            min_runs: 1,
            min_seconds: 0.0
        })
    );
}

#[test]
fn malformed_messages_get_error_responses() {
    for line in [
        "",
        "not json",
        "[1, 2]",
        "{\"kind\": \"start\"}",
        "{\"id\": \"a\", \"kind\": \"start\"}",
        "{\"id\": 1}",
    ] {
        let r = respond(line);
        assert_eq!(r["success"], false, "{line}: {r}");
        assert!(r["error"].is_string(), "{line}: {r}");
    }
    let r = ask(json!({ "id": 5, "kind": "define" }));
    assert_eq!(r["id"], 5);
    error_of(&r);
    let r = ask(json!({ "id": 6, "kind": "evaluate", "module": "lse", "input": { "x": [1.0] } }));
    assert!(error_of(&r).contains("function"));
    let r = ask(json!({ "id": 6, "kind": "evaluate", "module": "lse", "function": "primal" }));
    assert!(error_of(&r).contains("input"));
}

#[test]
fn malformed_inputs_get_error_responses() {
    let cases = [
        ("nonesuch", "f", json!({})),
        ("lse", "hessian", json!({ "x": [1.0] })),
        ("lse", "primal", json!({ "x": [] })),
        ("lse", "primal", json!({ "x": "abc" })),
        ("lse", "primal", json!({ "y": [1.0] })),
        ("lse", "primal", json!({ "x": [1.0, null] })),
        ("lse", "primal", json!({ "x": [1.0], "min_runs": -1 })),
        (
            "lse",
            "primal",
            json!({ "x": [1.0], "min_seconds": "long" }),
        ),
        ("hello", "square", json!("three")),
        ("llsq", "primal", json!({ "x": [1.0], "n": 1 })),
        ("llsq", "primal", json!({ "x": [1.0], "n": 2.5 })),
        ("det", "primal", json!({ "A": [1.0, 2.0, 3.0], "ell": 2 })),
        ("det", "primal", json!({ "A": [], "ell": 0 })),
        ("det", "gradient", json!({ "A": [1.0], "ell": -1 })),
        ("ode", "primal", json!({ "x": [1.0], "s": 0 })),
        ("ode", "gradient", json!({ "x": [], "s": 2 })),
        (
            "kmeans",
            "cost",
            json!({ "points": [[0.0, 1.0], [2.0]], "centroids": [[0.0, 0.0]] }),
        ),
        (
            "kmeans",
            "cost",
            json!({ "points": [[0.0, 1.0]], "centroids": [[0.0]] }),
        ),
        (
            "kmeans",
            "cost",
            json!({ "points": [[0.0, 1.0]], "centroids": [] }),
        ),
        (
            "kmeans",
            "dir",
            json!({ "points": [[0.0, 1.0]], "centroids": [[0.0, 1.0], [5.0, 5.0]] }),
        ),
    ];
    for (module, function, input) in cases {
        let r = evaluate(module, function, input.clone());
        assert_eq!(r["id"], 7);
        assert!(!error_of(&r).is_empty(), "{module} {function} {input}");
    }
}

#[test]
fn a_session_goes_on_after_errors_and_ends_with_its_input() {
    let session = [
        r#"{"id": 0, "kind": "start"}"#,
        "{ broken",
        r#"{"id": 1, "kind": "define", "module": "lse"}"#,
        "",
        r#"{"id": 2, "kind": "evaluate", "module": "lse", "function": "primal", "input": {"x": [0.0, 0.0], "min_runs": 2, "min_seconds": 0}}"#,
        r#"{"id": 3, "kind": "analysis", "of": 2, "valid": true}"#,
    ]
    .join("\n");
    let mut out = Vec::new();
    serve(session.as_bytes(), &mut out).unwrap();
    let responses: Vec<Value> = String::from_utf8(out)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(responses.len(), 5);
    assert_eq!(responses[0]["id"], 0);
    assert_eq!(responses[1]["success"], false);
    assert_eq!(responses[2], json!({ "id": 1, "success": true }));
    assert_eq!(responses[3]["output"], json!(2f64.ln()));
    assert_eq!(evaluate_timings(&responses[3]), 2);
    assert_eq!(responses[4], json!({ "id": 3 }));
}

#[test]
fn the_binary_serves_stdin_and_exits_at_its_end() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_backprop-gradbench"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    writeln!(stdin, r#"{{"id": 0, "kind": "start", "eval": "hello"}}"#).unwrap();
    writeln!(stdin, r#"{{"id": 1, "kind": "define", "module": "hello"}}"#).unwrap();
    writeln!(
        stdin,
        r#"{{"id": 2, "kind": "evaluate", "module": "hello", "function": "double", "input": 2.5}}"#
    )
    .unwrap();
    writeln!(stdin, "\u{0}\u{1}garbage").unwrap();
    drop(stdin);
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success());
    let lines: Vec<Value> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 4);
    assert_eq!(lines[2]["output"], json!(5.0));
    assert_eq!(lines[3]["success"], false);
}
