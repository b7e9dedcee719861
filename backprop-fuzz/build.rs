//! Generates the programs into `OUT_DIR/programs_0.rs` .. `programs_3.rs`,
//! which `tests/programs_*.rs` include. The generator is this crate's own
//! `src/gen/`, included as source (see the crate docs).

#[allow(
    dead_code,
    unused_imports,
    reason = "the library uses the parts of the generator the build script does not"
)]
#[path = "src/gen/mod.rs"]
mod gen;

use std::path::PathBuf;

fn main() {
    println!("cargo:rerun-if-changed=src/gen");
    for var in [
        "BACKPROP_FUZZ_SEED",
        "BACKPROP_FUZZ_COUNT",
        "BACKPROP_FUZZ_OPTIONS",
    ] {
        println!("cargo:rerun-if-env-changed={var}");
    }
    let number = |var: &str, default: u64| -> u64 {
        match std::env::var(var) {
            Ok(v) => v
                .trim()
                .parse()
                .unwrap_or_else(|e| panic!("{var}={v}: {e}")),
            Err(_) => default,
        }
    };
    let options = std::env::var("BACKPROP_FUZZ_OPTIONS").unwrap_or_default();
    let config = gen::Config {
        seed: number("BACKPROP_FUZZ_SEED", gen::DEFAULT_SEED),
        count: number("BACKPROP_FUZZ_COUNT", gen::DEFAULT_COUNT as u64) as usize,
        parts: gen::PARTS,
        options: gen::Options::parse(&options)
            .unwrap_or_else(|e| panic!("BACKPROP_FUZZ_OPTIONS: {e}")),
    };
    let batch = gen::generate(&config);
    for m in &batch.missing {
        println!("cargo:warning=the op table's `{m}` has no domain in backprop-fuzz's generator: it is not written");
    }
    let out = PathBuf::from(std::env::var_os("OUT_DIR").expect("OUT_DIR"));
    for (k, text) in batch.parts.iter().enumerate() {
        let path = out.join(format!("programs_{k}.rs"));
        // Unchanged files keep their time stamps: the test crates are not
        // rebuilt when the build script reruns for nothing.
        if std::fs::read_to_string(&path).ok().as_deref() != Some(text.as_str()) {
            std::fs::write(&path, text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        }
    }
}
