//! `lstm`
pub fn prepare(
    _f: &str,
    _i: &serde_json::Value,
) -> Result<Box<dyn FnMut() -> serde_json::Value>, String> {
    Err("todo".into())
}
