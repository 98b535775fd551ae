//! Elicitation form schemas used by the demo commands, and an agent-side
//! validator for the restricted JSON Schema subset that ACP form mode allows.
//!
//! The spec says clients SHOULD validate submitted values and agents SHOULD
//! validate them again; [`validate_content`] is that second check.

use serde_json::{Map, Value, json};

/// Requested schema for `/configure`. It exercises every restricted
/// property type that ACP form elicitation supports.
pub fn configure_schema() -> Value {
    json!({
        "type": "object",
        "title": "Demo project configuration",
        "properties": {
            "email": {
                "type": "string",
                "title": "Contact email",
                "description": "Where build notifications are sent.",
                "format": "email"
            },
            "projectName": {
                "type": "string",
                "title": "Project name",
                "description": "Lowercase letters, digits and dashes; starts with a letter.",
                "pattern": "^[a-z][a-z0-9-]*$",
                "minLength": 2,
                "maxLength": 32,
                "default": "my-project"
            },
            "homepage": {
                "type": "string",
                "title": "Homepage",
                "description": "Project homepage address.",
                "format": "uri"
            },
            "releaseDate": {
                "type": "string",
                "title": "First release date",
                "format": "date"
            },
            "sampleRate": {
                "type": "number",
                "title": "Telemetry sample rate",
                "description": "Fraction of sessions to sample (0 to 1).",
                "minimum": 0.0,
                "maximum": 1.0,
                "default": 0.5
            },
            "port": {
                "type": "integer",
                "title": "Dev server port",
                "minimum": 1024,
                "maximum": 65535,
                "default": 3000
            },
            "enableCache": {
                "type": "boolean",
                "title": "Enable build cache",
                "default": true
            },
            "buildProfile": {
                "type": "string",
                "title": "Build profile",
                "enum": ["debug", "release", "profiling"],
                "default": "debug"
            },
            "license": {
                "type": "string",
                "title": "License",
                "oneOf": [
                    {"const": "apache-2.0", "title": "Apache 2.0", "description": "Permissive, with a patent grant."},
                    {"const": "mit", "title": "MIT", "description": "Short and permissive."},
                    {"const": "gpl-3.0", "title": "GPL 3.0", "description": "Copyleft."}
                ]
            },
            "targets": {
                "type": "array",
                "title": "Target platforms",
                "minItems": 1,
                "items": {
                    "type": "string",
                    "enum": ["linux", "macos", "windows"]
                },
                "default": ["linux"]
            },
            "reviewers": {
                "type": "array",
                "title": "Reviewers",
                "description": "Pick at most two.",
                "maxItems": 2,
                "items": {
                    "anyOf": [
                        {"const": "ada", "title": "Ada Lovelace"},
                        {"const": "grace", "title": "Grace Hopper"},
                        {"const": "linus", "title": "Linus Torvalds"}
                    ]
                }
            }
        },
        "required": ["email", "projectName", "port", "license"]
    })
}

/// Schema for the first `/ask` form (request-scoped).
pub fn workspace_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "workspaceName": {
                "type": "string",
                "title": "Workspace name",
                "minLength": 1
            }
        },
        "required": ["workspaceName"]
    })
}

/// Schema for the second `/ask` form. This deliberately violates the spec
/// (form mode MUST NOT be used for secrets) so that clients can demonstrate
/// their `secret-request` warning.
pub fn secret_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "api_token": {
                "type": "string",
                "title": "API token"
            }
        },
        "required": ["api_token"]
    })
}

/// The declared defaults of a schema's properties.
pub fn defaults(schema: &Value) -> Map<String, Value> {
    schema
        .get("properties")
        .and_then(Value::as_object)
        .map(|props| {
            props
                .iter()
                .filter_map(|(k, p)| p.get("default").map(|d| (k.clone(), d.clone())))
                .collect()
        })
        .unwrap_or_default()
}

/// Validates accepted form `content` against a restricted elicitation schema.
/// Returns a list of human-readable violations (empty when valid).
pub fn validate_content(schema: &Value, content: &Map<String, Value>) -> Vec<String> {
    let mut errors = Vec::new();
    let empty = Map::new();
    let props = schema
        .get("properties")
        .and_then(Value::as_object)
        .unwrap_or(&empty);
    if let Some(required) = schema.get("required").and_then(Value::as_array) {
        for key in required.iter().filter_map(Value::as_str) {
            if !content.contains_key(key) {
                errors.push(format!("`{key}` is required but missing"));
            }
        }
    }
    for (key, value) in content {
        match props.get(key) {
            None => errors.push(format!("`{key}` is not a property of the requested schema")),
            Some(prop) => validate_property(key, prop, value, &mut errors),
        }
    }
    errors
}

fn validate_property(key: &str, prop: &Value, value: &Value, errors: &mut Vec<String>) {
    let ty = prop.get("type").and_then(Value::as_str).unwrap_or("");
    match ty {
        "string" => {
            let Some(s) = value.as_str() else {
                errors.push(format!("`{key}` must be a string"));
                return;
            };
            validate_string(key, prop, s, errors);
        }
        "number" => {
            let Some(n) = value.as_f64().filter(|_| value.is_number()) else {
                errors.push(format!("`{key}` must be a number"));
                return;
            };
            check_range(key, prop, n, errors);
        }
        "integer" => {
            let is_int = value.is_i64()
                || value.is_u64()
                || value.as_f64().is_some_and(|f| f.fract() == 0.0 && f.is_finite());
            if !is_int {
                errors.push(format!("`{key}` must be an integer"));
                return;
            }
            check_range(key, prop, value.as_f64().unwrap_or_default(), errors);
        }
        "boolean" => {
            if !value.is_boolean() {
                errors.push(format!("`{key}` must be a boolean"));
            }
        }
        "array" => {
            let Some(items) = value.as_array() else {
                errors.push(format!("`{key}` must be an array of strings"));
                return;
            };
            let allowed = allowed_values(prop.get("items").unwrap_or(&Value::Null));
            for item in items {
                match item.as_str() {
                    None => errors.push(format!("`{key}` items must be strings")),
                    Some(s) => {
                        if let Some(allowed) = &allowed
                            && !allowed.iter().any(|a| a == s)
                        {
                            errors.push(format!("`{key}` contains `{s}`, which is not an option"));
                        }
                    }
                }
            }
            let len = items.len() as u64;
            if let Some(min) = prop.get("minItems").and_then(Value::as_u64)
                && len < min
            {
                errors.push(format!("`{key}` needs at least {min} item(s), got {len}"));
            }
            if let Some(max) = prop.get("maxItems").and_then(Value::as_u64)
                && len > max
            {
                errors.push(format!("`{key}` allows at most {max} item(s), got {len}"));
            }
        }
        other => errors.push(format!("`{key}` has unsupported schema type `{other}`")),
    }
}

/// The allowed values of a string single-select (`enum` / `oneOf`) or of
/// multi-select `items` (`enum` / `anyOf`), if constrained.
fn allowed_values(schema: &Value) -> Option<Vec<String>> {
    if let Some(values) = schema.get("enum").and_then(Value::as_array) {
        return Some(
            values
                .iter()
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect(),
        );
    }
    for key in ["oneOf", "anyOf"] {
        if let Some(options) = schema.get(key).and_then(Value::as_array) {
            return Some(
                options
                    .iter()
                    .filter_map(|o| o.get("const").and_then(Value::as_str))
                    .map(str::to_owned)
                    .collect(),
            );
        }
    }
    None
}

fn validate_string(key: &str, prop: &Value, s: &str, errors: &mut Vec<String>) {
    if let Some(allowed) = allowed_values(prop) {
        if !allowed.iter().any(|a| a == s) {
            errors.push(format!("`{key}` = `{s}` is not one of the options"));
        }
        return;
    }
    let len = s.chars().count() as u64;
    if let Some(min) = prop.get("minLength").and_then(Value::as_u64)
        && len < min
    {
        errors.push(format!("`{key}` must be at least {min} characters"));
    }
    if let Some(max) = prop.get("maxLength").and_then(Value::as_u64)
        && len > max
    {
        errors.push(format!("`{key}` must be at most {max} characters"));
    }
    if let Some(pattern) = prop.get("pattern").and_then(Value::as_str) {
        match regex_lite::Regex::new(pattern) {
            Ok(re) => {
                if !re.is_match(s) {
                    errors.push(format!("`{key}` does not match the pattern `{pattern}`"));
                }
            }
            Err(e) => errors.push(format!("`{key}` has an invalid pattern: {e}")),
        }
    }
    if let Some(format) = prop.get("format").and_then(Value::as_str) {
        let ok = match format {
            "email" => is_email(s),
            "uri" => is_uri(s),
            "date" => is_date(s),
            "date-time" => is_date_time(s),
            _ => true,
        };
        if !ok {
            errors.push(format!("`{key}` is not a valid {format}"));
        }
    }
}

fn check_range(key: &str, prop: &Value, n: f64, errors: &mut Vec<String>) {
    if let Some(min) = prop.get("minimum").and_then(Value::as_f64)
        && n < min
    {
        errors.push(format!("`{key}` must be >= {min}"));
    }
    if let Some(max) = prop.get("maximum").and_then(Value::as_f64)
        && n > max
    {
        errors.push(format!("`{key}` must be <= {max}"));
    }
}

/// Pragmatic email check: `local@domain.tld`, no whitespace.
pub fn is_email(s: &str) -> bool {
    let Some((local, domain)) = s.split_once('@') else {
        return false;
    };
    !local.is_empty()
        && !domain.contains('@')
        && !s.chars().any(char::is_whitespace)
        && domain.contains('.')
        && !domain.starts_with('.')
        && !domain.ends_with('.')
        && !domain.contains("..")
}

/// RFC 3986 absolute URI: a scheme followed by `:` and something.
pub fn is_uri(s: &str) -> bool {
    let Some((scheme, rest)) = s.split_once(':') else {
        return false;
    };
    let mut chars = scheme.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphabetic())
        && chars.all(|c| c.is_ascii_alphanumeric() || "+-.".contains(c))
        && !rest.is_empty()
        && !s.chars().any(|c| c.is_whitespace() || c.is_control())
}

/// RFC 3339 full-date: `YYYY-MM-DD` with a valid day for the month.
pub fn is_date(s: &str) -> bool {
    let b = s.as_bytes();
    if b.len() != 10 || b[4] != b'-' || b[7] != b'-' {
        return false;
    }
    let num = |r: std::ops::Range<usize>| -> Option<u32> {
        let part = &s[r];
        part.bytes()
            .all(|c| c.is_ascii_digit())
            .then(|| part.parse().ok())
            .flatten()
    };
    let (Some(y), Some(m), Some(d)) = (num(0..4), num(5..7), num(8..10)) else {
        return false;
    };
    let leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    let days = match m {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if leap => 29,
        2 => 28,
        _ => return false,
    };
    (1..=days).contains(&d)
}

fn is_date_time(s: &str) -> bool {
    s.len() > 11 && is_date(&s[..10]) && matches!(s.as_bytes()[10], b'T' | b't' | b' ')
}

#[cfg(test)]
mod tests {
    use super::*;
    use agent_client_protocol::v1::schema::{ElicitationPropertySchema, ElicitationSchema};

    #[test]
    fn configure_schema_is_an_acp_elicitation_schema() {
        let value = configure_schema();
        let parsed: ElicitationSchema = serde_json::from_value(value.clone()).unwrap();
        assert_eq!(parsed.properties.len(), 11);
        for (key, prop) in &parsed.properties {
            assert!(
                !matches!(prop, ElicitationPropertySchema::Other(_)),
                "{key} parsed as an unknown property type"
            );
        }
        // Round-tripping through the typed schema must not lose anything:
        // every format/constraint we use is known to the SDK.
        let back = serde_json::to_value(&parsed).unwrap();
        assert_eq!(back, value);
    }

    #[test]
    fn other_schemas_are_acp_elicitation_schemas() {
        for value in [workspace_schema(), secret_schema()] {
            let parsed: ElicitationSchema = serde_json::from_value(value.clone()).unwrap();
            assert_eq!(serde_json::to_value(&parsed).unwrap(), value);
        }
    }

    fn good() -> Map<String, Value> {
        json!({
            "email": "ada@example.com",
            "projectName": "my-project",
            "homepage": "https://example.com/demo",
            "releaseDate": "2024-02-29",
            "sampleRate": 0.25,
            "port": 3000,
            "enableCache": true,
            "buildProfile": "release",
            "license": "mit",
            "targets": ["linux", "macos"],
            "reviewers": ["ada", "grace"]
        })
        .as_object()
        .unwrap()
        .clone()
    }

    #[test]
    fn valid_content_passes() {
        assert_eq!(
            validate_content(&configure_schema(), &good()),
            Vec::<String>::new()
        );
        let mut minimal = Map::new();
        for k in ["email", "projectName", "port", "license"] {
            minimal.insert(k.into(), good()[k].clone());
        }
        assert!(validate_content(&configure_schema(), &minimal).is_empty());
    }

    #[test]
    fn violations_are_reported() {
        let schema = configure_schema();
        let cases: Vec<(&str, Value)> = vec![
            ("email", json!("not-an-email")),
            ("projectName", json!("My Project")),
            ("projectName", json!("a")),
            ("projectName", json!("a".repeat(33))),
            ("homepage", json!("no scheme")),
            ("releaseDate", json!("2023-02-29")),
            ("sampleRate", json!(1.5)),
            ("sampleRate", json!("0.5")),
            ("port", json!(80)),
            ("port", json!(3000.5)),
            ("enableCache", json!("yes")),
            ("buildProfile", json!("fast")),
            ("license", json!("bsd")),
            ("targets", json!([])),
            ("targets", json!(["beos"])),
            ("reviewers", json!(["ada", "grace", "linus"])),
            ("reviewers", json!(["bob"])),
            ("unexpected", json!(1)),
        ];
        for (key, value) in cases {
            let mut content = good();
            content.insert(key.into(), value.clone());
            let errors = validate_content(&schema, &content);
            assert_eq!(errors.len(), 1, "{key}={value}: {errors:?}");
        }
        let mut content = good();
        content.remove("license");
        assert_eq!(validate_content(&schema, &content).len(), 1);
    }

    #[test]
    fn formats() {
        assert!(is_email("a@b.co"));
        assert!(!is_email("a@b"));
        assert!(!is_email("@b.co"));
        assert!(is_uri("mailto:x@y.z"));
        assert!(!is_uri("://x"));
        assert!(is_date("2000-02-29"));
        assert!(!is_date("1900-02-29"));
        assert!(!is_date("2024-13-01"));
    }
}
