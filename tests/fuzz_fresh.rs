//! tests/fuzz_generated.rs is the output of tools/gen_fuzz_programs.py (a
//! deterministic generator with a fixed seed): this fails when the file is
//! stale, i.e. when the generator changed and was not rerun.

use std::path::Path;
use std::process::Command;

#[test]
fn fuzz_generated_is_up_to_date() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let script = root.join("tools/gen_fuzz_programs.py");
    let generated = root.join("tests/fuzz_generated.rs");
    let mut last_error = None;
    for python in ["python3", "python"] {
        match Command::new(python)
            .arg(&script)
            .arg("--check")
            .arg("--out")
            .arg(&generated)
            .output()
        {
            Ok(out) => {
                assert!(
                    out.status.success(),
                    "tests/fuzz_generated.rs is stale: run `python3 tools/gen_fuzz_programs.py`\n{}{}",
                    String::from_utf8_lossy(&out.stdout),
                    String::from_utf8_lossy(&out.stderr)
                );
                return;
            }
            Err(e) => last_error = Some(e),
        }
    }
    panic!(
        "cannot run python3 (needed to check tests/fuzz_generated.rs): {:?}",
        last_error
    );
}
