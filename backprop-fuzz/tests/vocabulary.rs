//! The generator draws its elementwise functions from the compiler's op
//! table: every elementwise row has a domain in the generator (so a new row
//! is never left out silently), every domain names a row, and every
//! function of the table is written.

use backprop_fuzz::gen::{census, domain, function_names, generate, Config, DOMAINS};

#[test]
fn every_elementwise_op_of_the_table_has_a_domain() {
    let missing: Vec<String> = backprop_codegen::vocabulary()
        .into_iter()
        .filter(|e| e.elementwise && domain(e.name).is_none())
        .map(|e| format!("`{}` ({})", e.name, e.op))
        .collect();
    assert!(
        missing.is_empty(),
        "the op table has elementwise ops the fuzz generator does not know: {}; \
         add each to `DOMAINS` in backprop-fuzz/src/gen/vocab.rs (how its operand \
         is kept in its domain, and how large its value may be)",
        missing.join(", ")
    );
}

#[test]
fn every_domain_names_an_op_of_the_table() {
    let table = backprop_codegen::vocabulary();
    let unknown: Vec<&str> = DOMAINS
        .iter()
        .map(|(name, _)| *name)
        .filter(|name| !table.iter().any(|e| e.elementwise && e.name == *name))
        .collect();
    assert!(
        unknown.is_empty(),
        "`DOMAINS` names ops the table does not have (as elementwise): {unknown:?}"
    );
}

#[test]
fn every_function_of_the_table_is_written() {
    let config = Config {
        count: 1000,
        ..Config::default()
    };
    let names = function_names();
    assert!(names.len() >= 30, "{names:?}");
    let counts = census(&generate(&config).parts.concat(), &names);
    let never: Vec<&&str> = names
        .iter()
        .filter(|n| counts.get(&format!("fn {n}")) == 0)
        .collect();
    assert!(
        never.is_empty(),
        "never written in 1,000 programs: {never:?}"
    );
}
