//! Compile errors of `#[differentiable]`: one case per rejected construct,
//! each pinning the message and the span it points at.

#[test]
fn ui() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/*.rs");
}
