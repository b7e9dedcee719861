//! The generator is deterministic, each program has its own random
//! numbers, and its options parse.

use backprop_fuzz::gen::{generate, Config, Options};

/// The programs of a file, each from the line that names it.
fn programs(text: &str) -> Vec<String> {
    text.split("\n// f")
        .skip(1)
        .map(|p| p.trim_end().to_owned())
        .collect()
}

#[test]
fn a_seed_names_the_same_programs() {
    let config = Config {
        count: 80,
        ..Config::default()
    };
    assert_eq!(generate(&config).parts, generate(&config).parts);
    let other = Config {
        seed: config.seed + 1,
        ..config.clone()
    };
    assert_ne!(generate(&config).parts, generate(&other).parts);
}

#[test]
fn the_programs_are_split_into_four_files() {
    let batch = generate(&Config {
        count: 10,
        ..Config::default()
    });
    assert_eq!(batch.parts.len(), 4);
    let counts: Vec<usize> = batch.parts.iter().map(|p| programs(p).len()).collect();
    assert_eq!(counts, [3, 3, 3, 1]);
    assert_eq!(batch.stats.get("programs"), 10);
    assert!(batch.missing.is_empty(), "{:?}", batch.missing);
}

#[test]
fn more_programs_leave_the_first_ones_as_they_were() {
    // One file, so that the callees of the first programs are the same.
    let few = generate(&Config {
        count: 30,
        parts: 1,
        ..Config::default()
    });
    let many = generate(&Config {
        count: 60,
        parts: 1,
        ..Config::default()
    });
    let (few, many) = (programs(&few.parts[0]), programs(&many.parts[0]));
    assert_eq!(few[..], many[..30]);
}

#[test]
fn options_parse() {
    let o = Options::parse("raw-idents, region-bugs,carried=0.2,no-modes,owned-lhs").unwrap();
    assert!(o.raw_idents && o.region_bugs && o.owned_lhs && !o.view_calls && !o.modes);
    assert_eq!(o.carried, 0.2);
    assert!(Options::parse("").unwrap().modes);
    assert!(Options::parse("carried=0.5").is_err());
    assert!(Options::parse("raw_idents").is_err());
}
