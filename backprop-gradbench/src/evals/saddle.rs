use super::Prepared;
pub fn prepare(function: &str, _input: &serde_json::Value) -> Result<Prepared, String> {
    Err(super::unknown_function("saddle", function))
}
