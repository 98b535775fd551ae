//! Target (a): an agent's `requestedSchema` parsed as a restricted schema, then arbitrary
//! content validated against it.
//!
//! Input: the schema JSON, a newline, then the content JSON (anything that is not an object
//! is validated as `{"value": it}`). Besides "never panics", it checks that validation is a
//! fixed point: the normalized content it returns validates again, unchanged, and the form's
//! initial values only ever miss required fields.

use porthole_core::form::{codes, is_secret_request, parse_form_schema, secret_indicators};
use serde_json::{Map, Value};

pub fn schema_validate(data: &[u8]) {
    let (schema_bytes, content_bytes) = match data.iter().position(|&b| b == b'\n') {
        Some(i) => (&data[..i], &data[i + 1..]),
        None => (data, &[][..]),
    };
    let Ok(raw_schema) = serde_json::from_slice::<Value>(schema_bytes) else {
        return;
    };
    let Ok(schema) = parse_form_schema(&raw_schema) else {
        return;
    };
    let _ = serde_json::to_string(&schema).expect("a parsed schema serializes for the UI");
    let _ = is_secret_request("message", &schema);
    let _ = secret_indicators("message", &schema);
    let _ = schema.can_accept();
    let _ = schema.blocking_reason();
    for field in &schema.fields {
        let _ = schema.pattern_input_limit(&field.name);
    }

    let initial = schema.initial_values();
    for error in schema.validate(&initial).errors {
        assert!(
            error.code == codes::REQUIRED || error.code == codes::UNSUPPORTED,
            "an initial value is invalid: {error:?}"
        );
    }

    let content = match serde_json::from_slice::<Value>(content_bytes) {
        Ok(Value::Object(map)) => map,
        Ok(other) => Map::from_iter([("value".to_string(), other)]),
        Err(_) => return,
    };
    check_fixed_point(&schema, &content);
}

/// What `validate` accepts and normalizes must be accepted again, and stay as it is.
fn check_fixed_point(schema: &porthole_core::form::FormSchema, content: &Map<String, Value>) {
    let first = schema.validate(content);
    let second = schema.validate(&first.content);
    assert_eq!(
        first.content, second.content,
        "normalized content changed when validated again"
    );
    for error in &second.errors {
        assert!(
            first.content.get(&error.field).is_none() || error.code == codes::REQUIRED,
            "accepted value of `{}` is rejected when validated again: {error:?}",
            error.field
        );
    }
}
