//! Expansion snapshots: every `tests/expand/NAME.rs` is expanded, pretty
//! printed with prettyplease and compared with `tests/expand/NAME.expanded.rs`.
//! After a reviewed change, rewrite them with
//! `BLESS=1 cargo test -p backprop-codegen --test snapshots`.

use std::path::Path;

#[test]
fn expansion_snapshots() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/expand");
    let bless = std::env::var_os("BLESS").is_some();
    let mut inputs: Vec<_> = std::fs::read_dir(&dir)
        .expect("tests/expand exists")
        .map(|e| e.expect("a directory entry").path())
        .filter(|p| {
            p.extension().is_some_and(|e| e == "rs")
                && !p.to_string_lossy().ends_with(".expanded.rs")
        })
        .collect();
    inputs.sort();
    assert!(inputs.len() >= 4, "at least four snapshot inputs");
    let mut failed = Vec::new();
    for input in inputs {
        let source = std::fs::read_to_string(&input).expect("readable input");
        let expanded = backprop_codegen::expand_source(&source).expect("the expansion parses");
        assert!(
            !expanded.contains("compile_error"),
            "{} expands to an error:\n{expanded}",
            input.display()
        );
        let snapshot = input.with_extension("expanded.rs");
        if bless {
            std::fs::write(&snapshot, &expanded).expect("writable snapshot");
            continue;
        }
        match std::fs::read_to_string(&snapshot) {
            Ok(expected) if expected == expanded => {}
            Ok(_) => failed.push(format!("{} differs from its expansion", snapshot.display())),
            Err(_) => failed.push(format!("{} is missing", snapshot.display())),
        }
    }
    assert!(
        failed.is_empty(),
        "{}\n(review the change, then run with BLESS=1)",
        failed.join("\n")
    );
}
