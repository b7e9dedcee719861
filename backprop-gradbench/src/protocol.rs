//! GradBench's protocol: one JSON message a line on standard input, one
//! JSON response a line on standard output, as GradBench's `CONTRIBUTING.md`
//! ("Protocol") specifies.
//!
//! - `start`: the response names the tool.
//! - `define`: `"success": true` for a module of [`crate::evals::MODULES`],
//!   `false` (with an `"error"` that says why) for any other.
//! - `evaluate`: the module parses the input (untimed, reported as a
//!   `"prepare"` timing), then the function runs at least `min_runs` times
//!   and until the runs add up to `min_seconds` (one run when the input has
//!   neither, as `hello`'s); one `"evaluate"` timing per run, and the last
//!   run's output, made JSON after the timing (as GradBench's C++ tools
//!   do).
//! - any other kind (`analysis`, ...): a response with the `"id"` only.
//!
//! A line that is not a JSON object, a message without an `"id"` or a
//! `"kind"`, an input the module cannot read and a panic inside an
//! evaluation each get a response with `"success": false` and an
//! `"error"`, and the session goes on; it ends at the end of the input.

use std::io::{self, BufRead, Write};
use std::panic::{self, AssertUnwindSafe};
use std::time::{Duration, Instant};

use serde_json::{json, Map, Value};

use crate::evals::{self, Output};

/// The tool's name in the response to `start`.
pub const TOOL: &str = "backprop";

/// How often to run a function, from the `Runs` fields of an input.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Runs {
    /// Run at least this many times (at least once).
    pub min_runs: u64,
    /// And until the runs add up to this long.
    pub min_seconds: f64,
}

impl Runs {
    /// The `min_runs` and `min_seconds` of an input; one run when the input
    /// has neither (or is not an object).
    pub fn of(input: &Value) -> Result<Runs, String> {
        let min_runs = match input.get("min_runs") {
            None => 1,
            Some(v) => v
                .as_u64()
                .ok_or_else(|| format!("`min_runs` must be a non-negative integer, got {v}"))?,
        };
        let min_seconds = match input.get("min_seconds") {
            None => 0.0,
            Some(v) => v
                .as_f64()
                .filter(|s| s.is_finite() && *s >= 0.0)
                .ok_or_else(|| format!("`min_seconds` must be a non-negative number, got {v}"))?,
        };
        Ok(Runs {
            min_runs: min_runs.max(1),
            min_seconds,
        })
    }
}

/// Runs `f` as `runs` says: the last output, as JSON, and each run's
/// time. The time is the computation's: the JSON is made after the last
/// run. As in GradBench's C++ harness, where each run assigns its output
/// over the last, a run's time includes dropping the output before it.
pub fn time_runs(f: &mut dyn FnMut() -> Output, runs: Runs) -> (Value, Vec<Duration>) {
    let mut times = Vec::new();
    let mut total = Duration::ZERO;
    let mut last: Option<Output> = None;
    loop {
        let start = Instant::now();
        drop(last.take());
        let output = f();
        let elapsed = start.elapsed();
        times.push(elapsed);
        total += elapsed;
        if times.len() as u64 >= runs.min_runs && total.as_secs_f64() >= runs.min_seconds {
            return (output.json(), times);
        }
        last = Some(output);
    }
}

fn timing(name: &str, d: Duration) -> Value {
    json!({ "name": name, "nanoseconds": d.as_nanos() as u64 })
}

fn failure(id: Value, error: impl Into<String>) -> Value {
    json!({ "id": id, "success": false, "error": error.into() })
}

/// A panic's message, for the error of its response.
fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_string()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "panic".to_string()
    }
}

fn evaluate(id: Value, message: &Map<String, Value>) -> Value {
    let Some(module) = message.get("module").and_then(Value::as_str) else {
        return failure(id, "an `evaluate` message needs a string `module`");
    };
    let Some(function) = message.get("function").and_then(Value::as_str) else {
        return failure(id, "an `evaluate` message needs a string `function`");
    };
    let Some(input) = message.get("input") else {
        return failure(id, "an `evaluate` message needs an `input`");
    };
    let runs = match Runs::of(input) {
        Ok(runs) => runs,
        Err(e) => return failure(id, e),
    };
    // The modules check their inputs; a panic that gets past them is still
    // an error response, not the end of the session.
    let outcome = panic::catch_unwind(AssertUnwindSafe(|| {
        let start = Instant::now();
        let mut f = evals::prepare(module, function, input)?;
        let prepare = start.elapsed();
        let (output, times) = time_runs(&mut f, runs);
        Ok::<_, String>((output, prepare, times))
    }));
    match outcome {
        Ok(Ok((output, prepare, times))) => {
            let mut timings = vec![timing("prepare", prepare)];
            timings.extend(times.into_iter().map(|t| timing("evaluate", t)));
            json!({ "id": id, "success": true, "output": output, "timings": timings })
        }
        Ok(Err(e)) => failure(id, e),
        Err(payload) => failure(id, format!("panicked: {}", panic_message(&*payload))),
    }
}

/// The response to one line of input.
pub fn respond(line: &str) -> Value {
    let message = match serde_json::from_str::<Value>(line) {
        Ok(Value::Object(message)) => message,
        Ok(other) => {
            return failure(
                Value::Null,
                format!("a message must be a JSON object, got {other}"),
            )
        }
        Err(e) => return failure(Value::Null, format!("not JSON: {e}")),
    };
    let id = match message.get("id") {
        Some(id @ Value::Number(_)) => id.clone(),
        Some(other) => return failure(other.clone(), "the `id` must be a number"),
        None => return failure(Value::Null, "a message needs an `id`"),
    };
    match message.get("kind").and_then(Value::as_str) {
        Some("start") => json!({ "id": id, "tool": TOOL }),
        Some("define") => match message.get("module").and_then(Value::as_str) {
            Some(module) => match evals::define(module) {
                Ok(()) => json!({ "id": id, "success": true }),
                Err(e) => failure(id, e),
            },
            None => failure(id, "a `define` message needs a string `module`"),
        },
        Some("evaluate") => evaluate(id, &message),
        Some(_) => json!({ "id": id }),
        None => failure(id, "a message needs a string `kind`"),
    }
}

/// Answers every line of `input` on `output` until the input ends.
pub fn serve(input: impl BufRead, mut output: impl Write) -> io::Result<()> {
    for line in input.lines() {
        let line = line?;
        if line.trim().is_empty() {
            continue;
        }
        let response = respond(&line);
        serde_json::to_writer(&mut output, &response)?;
        output.write_all(b"\n")?;
        output.flush()?;
    }
    Ok(())
}
