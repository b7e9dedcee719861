//! Writes the generated programs out to read them, and prints the
//! generator's statistics.
//!
//! ```text
//! cargo run -p backprop-fuzz -- [--seed N] [--count N] [--options LIST]
//!     [--out DIR] [--stats] [--census FILE]...
//! ```
//!
//! `--out DIR` writes `DIR/programs_0.rs` .. `programs_3.rs`, the files the
//! build script writes for the same seed and count; `--stats` prints how
//! often each construct was written; `--census FILE` counts the spellings
//! in a file of programs (this generator's or another's).

use backprop_fuzz::gen::{census, function_names, generate, Config, Options};
use std::process::ExitCode;

fn main() -> ExitCode {
    match run(std::env::args().skip(1).collect()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("backprop-fuzz: {e}");
            ExitCode::FAILURE
        }
    }
}

fn run(args: Vec<String>) -> Result<(), String> {
    let mut config = Config::default();
    let (mut out, mut stats, mut files) = (None, false, Vec::new());
    let mut args = args.into_iter();
    while let Some(arg) = args.next() {
        let mut value = || args.next().ok_or_else(|| format!("{arg} needs a value"));
        match arg.as_str() {
            "--seed" => config.seed = value()?.parse().map_err(|e| format!("--seed: {e}"))?,
            "--count" => config.count = value()?.parse().map_err(|e| format!("--count: {e}"))?,
            "--options" => config.options = Options::parse(&value()?)?,
            "--out" => out = Some(value()?),
            "--census" => files.push(value()?),
            "--stats" => stats = true,
            _ => return Err(format!("unknown argument `{arg}` (see the crate docs)")),
        }
    }
    let names = function_names();
    for file in &files {
        let text = std::fs::read_to_string(file).map_err(|e| format!("{file}: {e}"))?;
        print!("{}", census(&text, &names));
    }
    if !files.is_empty() && out.is_none() && !stats {
        return Ok(());
    }
    let batch = generate(&config);
    for m in &batch.missing {
        eprintln!(
            "warning: the op table's `{m}` has no domain in the generator: it is not written"
        );
    }
    if let Some(dir) = out {
        std::fs::create_dir_all(&dir).map_err(|e| format!("{dir}: {e}"))?;
        for (k, text) in batch.parts.iter().enumerate() {
            let path = format!("{dir}/programs_{k}.rs");
            std::fs::write(&path, text).map_err(|e| format!("{path}: {e}"))?;
        }
    }
    if stats {
        print!("{}", batch.stats);
        print!("{}", census(&batch.parts.concat(), &names));
    }
    Ok(())
}
